"""Section "What does scale_rewards do?" of the chapter "Questions from the trackers" (``book/tracker_questions.md``).

TRL centres every group's rewards on the group's mean and then divides, per ``scale_rewards``: by the group's own
Bessel standard deviation plus 1e-4 (``"group"``, Eq. 3 up to sqrt((G-1)/G)), by one standard deviation of the
whole batch's rewards plus 1e-4 (``"batch"``) or by nothing (``"none"``, Dr. GRPO). Within a group every answer is
divided by the same number, so the choice sets one *weight per prompt* on the policy gradient with a group baseline:
1/(std_q + 1e-4), one number shared by every prompt, or 1. For G -> infinity the first climbs 2 arcsin sqrt(p) per
prompt and the other two climb p (the chapter "The GRPO family", section "What each normalisation climbs").

* :func:`prompt_weights` measures the weight TRL gives each prompt: TRL's own advantages (computed by TRL's code on a
  probe's rewards) divided by the group-centred rewards, on the groups whose rewards are not all equal;
* :func:`weight_check` compares them with the book's statement :data:`BOOK_PROMPT_WEIGHT` (read when it runs, so a
  test that replaces an entry by a wrong statement sees the check fail);
* :func:`slope_table`: the exact expected slope s_G(p) of each choice at a finite group (the family chapter's
  :func:`~grpo_nb.chapters.grpo_family.climbs.finite_group_gap`), per prompt of the probe.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from grpo_nb.advantage import group_advantage
from grpo_nb.constants import TRL_STD_EPS
from grpo_nb.report import Table
from grpo_nb.validation import check_choice

__all__ = ["BOOK_PROMPT_WEIGHT", "SCALINGS", "WeightCheck", "prompt_weights", "slope_table", "weight_check"]

SCALINGS: tuple[str, ...] = ("group", "batch", "none")
TOL = 1e-5  # TRL's advantages are float32


def _group_weight(rewards: np.ndarray) -> np.ndarray:
    return 1.0 / (rewards.std(axis=1, ddof=1) + TRL_STD_EPS)


def _batch_weight(rewards: np.ndarray) -> np.ndarray:
    return np.full(rewards.shape[0], 1.0 / (rewards.std(ddof=1) + TRL_STD_EPS))


#: The book's statement of the weight each ``scale_rewards`` puts on a prompt of a (prompts, G) reward array:
#: "group" 1/(its group's Bessel std + 1e-4), "batch" 1/(the whole batch's Bessel std + 1e-4) for every prompt,
#: "none" 1.
BOOK_PROMPT_WEIGHT: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "group": _group_weight,
    "batch": _batch_weight,
    "none": lambda rewards: np.ones(rewards.shape[0]),
}


def prompt_weights(probe, scale_rewards: str) -> tuple[np.ndarray, np.ndarray]:
    """TRL's weight on each prompt of the probe's batch under ``scale_rewards``: per group, TRL's advantages (TRL's
    own code, :func:`~grpo_nb.chapters.trl_grpo.advantage_probe.trl_advantages`) over the centred rewards, and its
    spread within the group (max - min; 0 when one number scales the whole group). NaN for a group whose rewards are
    all equal (centred rewards 0: no weight to read)."""
    from grpo_nb.chapters.trl_grpo.advantage_probe import trl_advantages

    check_choice("scale_rewards", scale_rewards, SCALINGS)
    probe.trainer.scale_rewards = scale_rewards
    adv = trl_advantages(probe)
    centred = group_advantage(probe.rewards, "mean_only")
    mixed = np.abs(centred).max(axis=1) > 0
    ratio = np.divide(adv, centred, out=np.full(adv.shape, np.nan), where=np.abs(centred) > 0)
    weight = np.where(mixed, np.nanmean(np.where(mixed[:, None], ratio, 1.0), axis=1), np.nan)
    spread = np.where(mixed, np.nanmax(np.where(mixed[:, None], ratio, 1.0), axis=1) - weight, np.nan)
    return weight, spread


@dataclass(frozen=True)
class WeightCheck:
    """Per ``scale_rewards``: the largest relative gap between TRL's measured prompt weights and the book's
    (``gap``), the largest relative spread of TRL's ratio within a group (``spread``), and the measured weights of
    the mixed groups (``weights``)."""

    gap: dict[str, float]
    spread: dict[str, float]
    weights: dict[str, np.ndarray]

    @property
    def holds(self) -> bool:
        return max(*self.gap.values(), *self.spread.values()) <= TOL


def weight_check(probe) -> WeightCheck:
    """TRL's prompt weights (:func:`prompt_weights`) against :data:`BOOK_PROMPT_WEIGHT`, for every ``scale_rewards``,
    on the probe's mixed groups."""
    gap, spread, weights = {}, {}, {}
    for scaling in SCALINGS:
        measured, within = prompt_weights(probe, scaling)
        mixed = np.isfinite(measured)
        book = BOOK_PROMPT_WEIGHT[scaling](probe.rewards)
        gap[scaling] = float(np.max(np.abs(measured[mixed] - book[mixed]) / book[mixed], initial=0.0))
        spread[scaling] = float(np.max(within[mixed] / measured[mixed], initial=0.0))
        weights[scaling] = measured[mixed]
    return WeightCheck(gap, spread, weights)


def slope_table(p: np.ndarray, G: int) -> Table:
    """Per success probability in ``p``: the exact expected slope s_G(p) of the step along grad p for a group of G
    under ``scale_rewards`` = group (TRL's advantage, ``finite_group_gap(p, G, "grpo", form="trl")``) and none
    (Dr. GRPO's, ``finite_group_gap(p, G, "dr_grpo")``), and the G -> infinity slopes 1/sqrt(p(1-p)) and 1 of what
    each climbs (2 arcsin sqrt p, p). ``batch`` is ``none``'s slope times one number for the whole batch."""
    from grpo_nb.chapters.grpo_family.climbs import finite_group_gap
    from grpo_nb.family.objectives import gap as limit_gap
    from grpo_nb.validation import check_positive_int

    G = check_positive_int("G", G, minimum=2)
    p = np.asarray(p, dtype=float)
    group = finite_group_gap(p, G, "grpo", eps=None, form="trl")
    none = finite_group_gap(p, G, "dr_grpo")
    rows = [[f"{q:.3f}", g, limit_gap(q, "std"), n, 1.0] for q, g, n in zip(p, group, none, strict=True)]
    headers = ["p", f"group, G = {G}", "group, G → ∞", f"none, G = {G}", "none, G → ∞"]
    return Table(headers, rows, fmt=".3g")
