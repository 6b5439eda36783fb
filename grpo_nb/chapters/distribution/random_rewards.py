"""Section "Clipping under random rewards" of the chapter "What GRPO does to the whole distribution"
(``book/distribution.md``): with Bernoulli(1/2) rewards drawn apart from the answers, what the clip does to the
mass of the most likely answer, exactly on the clip bandit and over a grid of softmax bandits.

- :func:`one_step_changes`: E[delta pi_top] of one outer iteration (:func:`grpo_nb.tabular.clip_bias.
  expected_top_mass_change`) per clip mode and number mu of inner steps; at mu = 1 the expected logit change is 0;
- :func:`upper_clip_margin`: over a grid of bandits, how far the modes with an upper clip stay above those without;
- :func:`first_step_ratios`: the mechanism: one inner step on one answer with a positive advantage raises that
  answer's ratio pi_theta / pi_old the more, the less likely the answer, so the upper clip binds first on rare
  answers and freezes their gains while the likely answer's continue.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import log_softmax

from grpo_nb.report import Table
from grpo_nb.tabular.clip_bias import CLIP_MODES, expected_logit_change, expected_top_mass_change, inner_updates
from grpo_nb.tabular.examples import BANDIT_GROUP_SIZE, BANDIT_LR, BANDIT_PI0

__all__ = [
    "FirstStepRatios",
    "OneStepChanges",
    "UpperClipMargin",
    "first_step_ratios",
    "one_step_changes",
    "upper_clip_margin",
]

UPDATE = inner_updates  # the mu inner steps; a test replaces it with a wrong one
MUS = (1, 2, 4, 8)


@dataclass(frozen=True)
class OneStepChanges:
    """E[delta pi_top] per (mu, clip mode) on the clip bandit, and at mu = 1 the largest |E[delta theta]|."""

    table: Table
    change: dict
    mu1_logit_change: float


def one_step_changes(*, clip_eps: float = 0.2) -> OneStepChanges:
    """The clip bandit (pi_0 = (0.4, 0.3, 0.2, 0.1), G = 6, lr = 1) with random rewards, mu in :data:`MUS`."""
    logits = np.log(BANDIT_PI0)
    options = {"group_size": BANDIT_GROUP_SIZE, "lr": BANDIT_LR, "clip_eps": clip_eps}
    change = {(mu, m): expected_top_mass_change(logits, mu=mu, mode=m, **options) for mu in MUS for m in CLIP_MODES}
    zero = max(float(np.abs(expected_logit_change(logits, mu=1, mode=m, **options)).max()) for m in CLIP_MODES)
    rows = [[str(mu), *(change[mu, m] for m in CLIP_MODES)] for mu in MUS]
    return OneStepChanges(Table(["μ", *CLIP_MODES], rows, fmt="+.2e"), change, zero)


#: The grid of :func:`upper_clip_margin`: pi_0, group size, lr, mu (random rewards, clip range 0.2).
GRID = [
    (pi, group_size, lr, mu)
    for pi in ((0.84, 0.11, 0.05), BANDIT_PI0, (0.53, 0.2, 0.2, 0.07))
    for group_size in (4, 6)
    for lr in (0.5, 1.0, 2.0)
    for mu in (4, 8)
]


@dataclass(frozen=True)
class UpperClipMargin:
    """Over :data:`GRID`: the smallest min(symmetric, high_only) - max(none, low_only) of E[delta pi_top], the
    settings where the upper clip alone raises pi_top, and the largest |low_only - none| / |high_only - none|."""

    margin: float
    high_only_positive: int
    low_to_high_effect: float
    n_settings: int


def upper_clip_margin(*, clip_eps: float = 0.2) -> UpperClipMargin:
    """E[delta pi_top] of the four modes at each setting of :data:`GRID`."""
    margins, positive, ratio = [], 0, []
    for pi, group_size, lr, mu in GRID:
        options = {"group_size": group_size, "lr": lr, "mu": mu, "clip_eps": clip_eps}
        c = {m: expected_top_mass_change(np.log(pi), mode=m, **options) for m in CLIP_MODES}
        margins.append(min(c["symmetric"], c["high_only"]) - max(c["none"], c["low_only"]))
        positive += c["high_only"] > 0
        ratio.append(abs(c["low_only"] - c["none"]) / abs(c["high_only"] - c["none"]))
    return UpperClipMargin(min(margins), int(positive), max(ratio), len(GRID))


@dataclass(frozen=True)
class FirstStepRatios:
    """Over random policies: whether the ratio after one inner step on a single answer with advantage +1 falls as
    the answer's probability rises, in every policy; the table of one policy."""

    table: Table
    decreasing_everywhere: bool
    n_policies: int


def _first_step_log_ratios(logits: np.ndarray, lr: float) -> np.ndarray:
    """log(pi_1(o) / pi_0(o)) after one inner step on the group (o,) with advantage +1, for each answer o."""
    out = []
    for o in range(logits.size):
        new = UPDATE(logits, [o], [1.0], lr=lr, mu=1, clip_low=np.inf, clip_high=np.inf)
        out.append(log_softmax(new)[o] - log_softmax(logits)[o])
    return np.array(out)


def first_step_ratios(rng: np.random.Generator, *, n_policies: int = 100, lr: float = 1.0) -> FirstStepRatios:
    """The clip bandit's table and ``n_policies`` random policies (K in 3..10, logits N(0, 1.5^2))."""
    decreasing = True
    for _ in range(n_policies):
        logits = rng.normal(0.0, 1.5, int(rng.integers(3, 11)))
        order = np.argsort(logits)
        decreasing &= bool(np.all(np.diff(_first_step_log_ratios(logits, lr)[order]) < 0))
    logits = np.log(BANDIT_PI0)
    ratio = np.exp(_first_step_log_ratios(logits, lr))
    rows = [[str(o), BANDIT_PI0[o], ratio[o]] for o in range(logits.size)]
    headers = ["answer", "π_old", "ratio π_θ / π_old after one step"]
    return FirstStepRatios(Table(headers, rows, fmt=".3f"), decreasing, n_policies)
