"""The two small tabular problems of the distribution chapter (``book/distribution.md``), shared by its checks, its
figures, its ``ipywidgets`` explorer and the kernel-free browser figure (``grpo_nb/browser/grpo_math.js`` holds the
same numbers; ``tests/unit/test_browser_math_parity.py`` holds the two equal):

- the **crossover example**: Q = 3 prompts share one policy over K = 2 answers, uniform pi_ref; answer 0 is correct
  on prompts 0 and 1, answer 1 on prompt 2 (:func:`grpo_nb.tabular.distribution.shared_success_orbit`). Exact shared
  steps raise the prompt-averaged pass@1 and can lower pass@k at large k;
- the **clip bandit**: one prompt, K = 4 answers with pi_0 = (0.4, 0.3, 0.2, 0.1), answers 1 and 3 correct, groups of
  G = 6, mu = 4 inner steps of size lr = 1 on the clipped surrogate (:mod:`grpo_nb.tabular.clip_bias`): the most
  likely answer is wrong, and each reward class holds a likely and an unlikely answer.
"""

from __future__ import annotations

__all__ = [
    "BANDIT_GROUP_SIZE",
    "BANDIT_LR",
    "BANDIT_MU",
    "BANDIT_PI0",
    "BANDIT_REWARD",
    "CROSSOVER_PI_REF",
    "CROSSOVER_REWARD",
    "bandit_options",
]

CROSSOVER_PI_REF: tuple[float, ...] = (0.5, 0.5)
CROSSOVER_REWARD: tuple[tuple[int, ...], ...] = ((1, 0), (1, 0), (0, 1))

BANDIT_PI0: tuple[float, ...] = (0.4, 0.3, 0.2, 0.1)
BANDIT_REWARD: tuple[int, ...] = (0, 1, 0, 1)
BANDIT_GROUP_SIZE = 6
BANDIT_LR = 1.0
BANDIT_MU = 4


def bandit_options(*, clip_eps: float) -> dict:
    """The clip bandit's group size, step size and inner steps, with the clip range ``clip_eps``: the keyword
    options of :func:`grpo_nb.tabular.clip_bias.expected_update_orbit` and :func:`~grpo_nb.tabular.clip_bias.
    clipped_grpo_runs` (validated there)."""
    return {"group_size": BANDIT_GROUP_SIZE, "lr": BANDIT_LR, "mu": BANDIT_MU, "clip_eps": clip_eps}
