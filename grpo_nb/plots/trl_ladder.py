"""The ablation ladder's figure: per rung, the prompts that end below p_ref and the worst gaps to the predictions.

Takes per-seed values (no statistics computed here beyond the mean and standard error drawn) and returns a
matplotlib Figure.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

__all__ = ["plot_ladder"]


def plot_ladder(
    labels: Sequence[str],
    below_ref: Sequence[Sequence[float]],
    below_se: Sequence[float],
    *,
    gap_finite: tuple[Sequence[float], Sequence[float]],
    gap_h: tuple[Sequence[float], Sequence[float]],
    n_prompts: int,
) -> Figure:
    """Two panels sharing the rungs (rows, rung 0 on top): left, the prompts that end below p_ref, each seed a dot
    (``below_ref``: per rung its seeds' counts) and the mean a bar with its standard error (``below_se``); right,
    the median (over prompts) worst gap to the finite-group chain's mean and to the recursion h^n, each a pair
    (means, standard errors) over the rungs."""
    y = np.arange(len(labels))
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(6.8, 0.42 * len(labels) + 1.8), sharey=True, width_ratios=[1, 1.2], layout="constrained"
    )
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    mean = np.array([np.mean(v) for v in below_ref])
    left.barh(y, mean, xerr=below_se, color=colours[0], alpha=0.45, height=0.6, error_kw={"lw": 1.2, "capsize": 3})
    for i, values in enumerate(below_ref):
        jitter = np.linspace(-0.15, 0.15, len(values)) if len(values) > 1 else np.zeros(1)
        left.plot(values, i + jitter, "o", color=colours[0], ms=3.5)
    left.set_xlabel(rf"prompts ending below $p_{{\mathrm{{ref}}}}$ (of {n_prompts})", fontsize=10)
    left.set_xlim(0, max(1.0, max(max(v) for v in below_ref)) * 1.1)
    left.set_yticks(y, labels)
    left.invert_yaxis()
    for (m, s), marker, colour, name in (
        (gap_finite, "o", colours[1], "to finite $G$"),
        (gap_h, "s", colours[2], "to $h^n$"),
    ):
        right.errorbar(m, y, xerr=s, fmt=marker, color=colour, ms=5, capsize=3, label=name)
    right.set_xlabel("median worst gap", fontsize=10)
    right.set_xlim(left=0)
    fig.legend(loc="outside lower right", ncols=2, frameon=False, fontsize=9)
    for ax in (left, right):
        ax.grid(axis="x", alpha=0.3)
    return fig
