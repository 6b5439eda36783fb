"""The analysis of the section "What this means for choosing G" of the chapter "Group size"
(``book/group_size.md``): :func:`group_size_guide` gathers the chapter's evidence on G in one table, from both parts
(the budget MSE, the bias of reward normalisation, the signal retention of a finite group and the share of groups
without signal).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from grpo_nb.constants import PAPER_EPS
from grpo_nb.report import Table
from grpo_nb.ustat.finite_group import signal_retention
from grpo_nb.ustat.scaling import ScalingFit

if TYPE_CHECKING:
    from grpo_nb.chapters.group_size.u_statistic import DifficultyScan, Normalisation

__all__ = ["GroupSizeGuide", "group_size_guide"]


def _percent(x: float) -> str:
    """x as a percentage, with one decimal below 10%."""
    return f"{x:.1%}" if x < 0.1 else f"{x:.0%}"


@dataclass(frozen=True)
class GroupSizeGuide:
    """The chapter's evidence on G, one row per quantity and one column per G of ``groups`` (the table), and the
    values the section's asserts read: G* of the easiest and hardest prompt sets of the difficulty scan
    (``g_star``), the budget MSE over its minimum among the divisors (``budget_excess``, per G), the std-normalised
    estimator's relative bias over the bandits (``bias``: per G, (min, max)), the signal retention (``retention``)
    and the share of groups without signal (``no_signal``), both per (p, G)."""

    table: Table
    g_star: tuple[float, float]
    budget_excess: dict[int, float]
    bias: dict[int, tuple[float, float]]
    retention: dict[tuple[float, int], float]
    no_signal: dict[tuple[float, int], float]


def group_size_guide(
    budget: ScalingFit,
    scan: DifficultyScan,
    norm: Normalisation,
    *,
    groups: Sequence[int] = (2, 4, 8, 16, 64),
    ps: Sequence[float] = (0.1, 0.01),
    eps: float = PAPER_EPS,
) -> GroupSizeGuide:
    """Section "What this means for choosing G": the chapter's own analyses read at a few group sizes. The exact
    budget MSE of Proposition 3 (U-statistic paper) over its minimum among the divisors of the budget, the relative
    bias of the std-normalised estimator (section "Reward normalisation"), the signal retention rho_G(p) of Mroueh's
    advantage (:func:`grpo_nb.ustat.finite_group.signal_retention`) and the probability (1-p)^G + p^G that a group
    carries no signal."""
    c, N = budget.true, budget.N
    floor = float(np.min(c.budget_mse(N, [g for g in range(2, N + 1) if N % g == 0])))
    excess = {G: float(c.budget_mse(N, G)) / floor - 1.0 for G in groups}
    bias = {}
    for G in groups:
        at_g = [float(b[norm.groups.index(G)]) for b in norm.bias.values()]
        bias[G] = (min(at_g), max(at_g))
    retention = {(p, G): float(signal_retention(p, G, eps)) for p in ps for G in groups}
    no_signal = {(p, G): (1 - p) ** G + p**G for p in ps for G in groups}
    rows = [
        (f"budget MSE / min., $N = {N}$", *(f"{1 + excess[G]:.2f}×" for G in groups)),
        ("bias, std-normalised", *(f"{_percent(bias[G][0]).rstrip('%')}–{_percent(bias[G][1])}" for G in groups)),
        *((rf"$\rho_G({p:g})$", *(f"{retention[p, G]:.2f}" for G in groups)) for p in ps),
        *((f"no signal, $p = {p:g}$", *(f"{no_signal[p, G]:.0%}" for G in groups)) for p in ps),
    ]
    g_star = (float(scan.optimal_group_size[0]), float(scan.optimal_group_size[-1]))
    return GroupSizeGuide(
        Table(["", *(f"$G = {G}$" for G in groups)], rows), g_star, excess, bias, retention, no_signal
    )
