"""Section "In practice: what this book suggests for TRL users" of the chapter "GRPO in TRL": the numbers the advice
quotes from other chapters, recomputed from the math modules (:func:`practice_numbers`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grpo_nb.constants import PAPER_EPS

__all__ = ["PracticeNumbers", "practice_numbers"]


@dataclass(frozen=True)
class PracticeNumbers:
    """The numbers section "In practice" quotes from other chapters, recomputed from the math modules:
    ``g_star`` (the group-size chapter's budget-optimal G for the unnormalised estimator on its eight toy prompts),
    ``bias_g8`` (the relative bias of the std-normalised gradient at G = 8 on its three bandits, smallest and
    largest) and ``rho2`` (the share rho_2(0.1) of Theorem 2's step a group of two keeps at the paper's eps,
    :data:`grpo_nb.constants.PAPER_EPS`)."""

    g_star: float
    bias_g8: tuple[float, float]
    rho2: float


def practice_numbers() -> PracticeNumbers:
    """Section "In practice": the group-size chapter's prompts and bandits (same seeds), through
    :func:`grpo_nb.ustat.scaling.scaling_constants`, :func:`grpo_nb.ustat.moments.exact_moments` and
    :func:`grpo_nb.ustat.finite_group.signal_retention`."""
    from grpo_nb.tabular.algorithm1 import make_task
    from grpo_nb.ustat.bandit import PromptSet
    from grpo_nb.ustat.finite_group import signal_retention
    from grpo_nb.ustat.moments import exact_moments
    from grpo_nb.ustat.scaling import scaling_constants

    task = make_task(np.array([0.05, 0.1, 0.2, 0.3, 0.5, 0.6, 0.7, 0.8]), n_outcomes=6, n_success=2, seed=1)
    g_star = scaling_constants(PromptSet(task.ref_logits, task.reward, np.full(8, 1 / 8))).optimal_group_size
    bandits = make_task(np.array([0.2, 0.5, 0.85]), n_outcomes=6, n_success=2, seed=3)
    bias = [
        exact_moments(logits, reward, 8, estimator="grpo_std").relative_bias
        for logits, reward in zip(bandits.ref_logits, bandits.reward, strict=True)
    ]
    return PracticeNumbers(float(g_star), (min(bias), max(bias)), float(signal_retention(0.1, 2, PAPER_EPS)))
