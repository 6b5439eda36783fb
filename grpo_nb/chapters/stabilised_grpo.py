"""The analyses of the chapter "Stabilised GRPO" (``book/stabilised_grpo.md``, paper §2.2-2.3).

* :func:`compare_forms` (section "The advantage of a finite group"): every advantage form of
  :mod:`grpo_nb.advantage` on every group of G binary rewards, side by side.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grpo_nb.advantage import ADVANTAGE_FORMS, group_advantage, group_rewards
from grpo_nb.report import Table
from grpo_nb.validation import check_positive_int

__all__ = ["FormComparison", "FormGap", "compare_forms"]


@dataclass(frozen=True)
class FormGap:
    """For one group size G, on mixed groups (0 < k < G): the largest relative gap of TRL's, the population and the
    mean-only (Dr. GRPO) advantage to the paper's, TRL's predicted gap 1 - sqrt((G-1)/G), and whether every form
    gives 0 to groups whose rewards are all equal."""

    G: int
    trl: float
    population: float
    mean_only: float
    predicted_trl: float
    all_equal_zero: bool


@dataclass(frozen=True)
class FormComparison:
    """:func:`compare_forms`' summary table, the advantages {(G, form): array (G+1, G)} (row k: k successes first),
    and one :class:`FormGap` per group size."""

    table: Table
    advantages: dict[tuple[int, str], np.ndarray]
    gaps: tuple[FormGap, ...]


def compare_forms(group_sizes: tuple[int, ...]) -> FormComparison:
    """Every advantage form on every group of G binary rewards (k successes first, k = 0..G), side by side.

    Returns the summary table (per G: the largest relative gap of TRL's and the population form to the paper's on
    mixed groups, TRL's predicted gap 1 - sqrt((G-1)/G), the Dr. GRPO/population scale range), the advantages
    {(G, form): array (G+1, G)}, and per G the raw values (with whether groups whose rewards are all equal get 0
    everywhere, which the chapter asserts), as a :class:`FormComparison`.
    """
    adv = {}
    for G in group_sizes:
        r = group_rewards(np.arange(check_positive_int("G", G, minimum=2) + 1), G)
        for form in ADVANTAGE_FORMS:
            adv[G, form] = group_advantage(r, form)
    rows, facts = [], []
    for G in group_sizes:
        mixed = slice(1, G)  # 0 < k < G
        paper = adv[G, "paper"][mixed]
        rel = {f: float(np.abs(adv[G, f][mixed] / paper - 1).max()) for f in ("trl", "population", "mean_only")}
        scale = np.abs(adv[G, "mean_only"][mixed] / adv[G, "population"][mixed])
        all_equal_zero = all(np.all(adv[G, f][[0, G]] == 0) for f in ADVANTAGE_FORMS)
        predicted = 1 - np.sqrt((G - 1) / G)
        scales = f"{scale.min():.3f} to {scale.max():.3f}"
        rows.append((G, rel["trl"], predicted, rel["population"], scales))
        facts.append(FormGap(G, rel["trl"], rel["population"], rel["mean_only"], float(predicted), all_equal_zero))
    # a form's gap: its largest |A / A_paper - 1| over the mixed groups (the chapter defines it in words)
    headers = ["$G$", "TRL gap", "predicted", "population gap", "Dr. GRPO / population"]
    return FormComparison(Table(headers, rows, ".3g"), adv, tuple(facts))
