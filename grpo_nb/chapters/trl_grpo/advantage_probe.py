"""Section "TRL's advantage, read from a real step" of the chapter "GRPO in TRL" (``book/trl_grpo.md``): the probe
and TRL's advantage.

A *probe* is TRL's GRPOTrainer on four prompts of the toy task (pi_ref after SFT, G = 8) and one real generation
batch of it (``GRPOTrainer._generate_and_score_completions``: sampling, the reward, TRL's advantages, the
reference log-probabilities). :func:`make_probe` builds it and :func:`trl_advantages` reads TRL's advantages for its
rewards; every check of section "Every knob, checked by TRL's own code" runs TRL on a probe.

:func:`advantage_check` (the ``scale_rewards`` rows of the knob map) compares TRL's advantages, ``scale_rewards`` =
group / batch / none, with the book's :data:`BOOK_ADVANTAGES`: :func:`grpo_nb.advantage.group_advantage` (Eq. 3 with
TRL's Bessel std + 1e-4; the mean-only form for ``none``). The check reads :data:`BOOK_ADVANTAGES` when it runs, so
replacing an entry by a wrong statement (as the tests do) makes it fail.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import torch

from grpo_nb.advantage import group_advantage
from grpo_nb.constants import CLIP_EPS, TRL_STD_EPS
from grpo_nb.trl_adapters.trainer import TRL_CONFIGS, TRLRun, TRLSetup, make_trainer, prepare_trl
from grpo_nb.validation import check_choice

__all__ = [
    "BOOK_ADVANTAGES",
    "PROBE_CONFIG",
    "Probe",
    "TOL",
    "advantage_check",
    "make_probe",
    "trl_advantages",
]

PROBE_CONFIG = replace(TRL_CONFIGS["tiny"], name="probe", G=8, mu=1, n=1)
TOL = 1e-5  # float32 arithmetic on O(1) numbers


@functools.lru_cache(maxsize=1)
def _probe_setup() -> TRLSetup:
    return prepare_trl(PROBE_CONFIG)


@dataclass
class Probe:
    """A GRPOTrainer, one generation batch of it (``inputs``), that batch's rewards (P, G), and the policy's
    per-token log-probabilities of the sampled completions (``logp``, computed by TRL)."""

    trainer: object
    inputs: dict
    rewards: np.ndarray
    logp: torch.Tensor

    def loss(self, **changes) -> float:
        """TRL's ``compute_loss`` on the batch with ``changes`` (tensors) in place of its entries (eval mode)."""
        inputs = dict(self.inputs) | changes
        with torch.no_grad():
            return float(self.trainer.compute_loss(self.trainer.model, inputs))

    def logged(self, name: str) -> float:
        """The last value TRL logged for metric ``name`` (eval mode)."""
        return float(self.trainer._metrics["eval"][name][-1])


def make_probe(beta: float = 0.0, seed: int = 0, **overrides) -> Probe:
    """TRL's trainer on the probe task (``overrides`` go to ``trl.GRPOConfig``) and one generation batch of it: the
    draw of section "TRL's advantage, read from a real step", and the batch every check of :func:`knob_table`
    (section "Every knob, checked by TRL's own code") runs TRL on."""
    setup = _probe_setup()
    log: list = []
    trainer = make_trainer(
        setup, TRLRun("probe", beta, overrides.pop("epsilon", CLIP_EPS)), reward_log=log, **overrides
    )
    torch.manual_seed(seed)
    g = trainer.num_generations
    examples = [{"prompt": q, "index": i} for i, q in enumerate(setup.task.prompts_text) for _ in range(g)]
    trainer.model.eval()
    inputs = trainer._generate_and_score_completions(examples)
    ids = torch.cat([inputs["prompt_ids"], inputs["completion_ids"]], dim=1)
    mask = torch.cat([inputs["prompt_mask"], inputs["completion_mask"]], dim=1)
    with torch.no_grad():
        logp = trainer._get_per_token_logps_and_entropies(trainer.model, ids, mask, inputs["completion_ids"].size(1))[0]
    return Probe(trainer, inputs, log[-1][1].reshape(-1, g), logp)


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().double().numpy()


def _batch_advantage(rewards: np.ndarray) -> np.ndarray:
    """``scale_rewards`` = batch: r minus its group's mean, over (the whole batch's Bessel std + 1e-4)."""
    return group_advantage(rewards, "mean_only") / (rewards.std(ddof=1) + TRL_STD_EPS)


#: The book's advantage of a (prompts, G) reward array for each ``scale_rewards``: group = ``group_advantage(r,
#: "trl")`` ((r - mean)/(Bessel std + 1e-4)); batch = r minus the group mean over (the whole batch's Bessel std +
#: 1e-4); none = ``group_advantage(r, "mean_only")`` (Dr. GRPO).
BOOK_ADVANTAGES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "group": functools.partial(group_advantage, form="trl"),
    "batch": _batch_advantage,
    "none": functools.partial(group_advantage, form="mean_only"),
}


def advantage_check(probe: Probe, scale_rewards: str = "group") -> float:
    """max |TRL's advantages - the book's (:data:`BOOK_ADVANTAGES`)| on the probe's batch, TRL run with
    ``scale_rewards``; a row of :func:`knob_table` (section "Every knob, checked by TRL's own code")."""
    check_choice("scale_rewards", scale_rewards, tuple(BOOK_ADVANTAGES))
    probe.trainer.scale_rewards = scale_rewards
    trl_adv = _np(_readvantage(probe))
    book = BOOK_ADVANTAGES[scale_rewards](probe.rewards)
    return float(np.abs(trl_adv - book.reshape(-1)).max())


def trl_advantages(probe: Probe) -> np.ndarray:
    """TRL's advantages for the probe's rewards, computed by TRL's own code, as a (prompts, G) array (section "TRL's
    advantage, read from a real step")."""
    return _np(_readvantage(probe)).reshape(probe.rewards.shape)


def _readvantage(probe: Probe) -> torch.Tensor:
    """TRL's advantages for the probe's own rewards under the trainer's current ``scale_rewards``: TRL generates a
    new batch and scores it with a reward function that returns the probe's rewards, so TRL's own advantage code
    runs on the probe's rewards."""
    trainer = probe.trainer
    g = trainer.num_generations
    n = probe.rewards.shape[0]
    fixed = probe.rewards.reshape(-1).tolist()
    saved = trainer.reward_funcs
    trainer.reward_funcs = [functools.update_wrapper(_FixedReward(fixed), saved[0])]
    try:
        examples = [{"prompt": "0+0=", "index": i} for i in range(n) for _ in range(g)]
        return trainer._generate_and_score_completions(examples)["advantages"]
    finally:
        trainer.reward_funcs = saved


class _FixedReward:
    """A reward function that returns given rewards (the probe's), whatever was sampled."""

    def __init__(self, rewards: list[float]) -> None:
        self.rewards = rewards

    def __call__(self, prompts, completions, **kwargs) -> list[float]:
        return list(self.rewards)
