"""The TRL runs' figure: per picked prompt, every run's measured p_n against the recursion and the finite-group mean.

Takes arrays (no theory computed here) and returns a matplotlib Figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

__all__ = ["plot_trl_trajectories"]


def plot_trl_trajectories(
    measured: Mapping[str, np.ndarray],
    theory: np.ndarray,
    finite: np.ndarray,
    *,
    picks: Mapping[str, int],
    prompts: Sequence[str],
) -> Figure:
    """One panel per picked prompt, two panels to a row: each run's measured p_n (markers, ``measured[run]`` is
    (M+1, P)), the infinite-G recursion h^n(p_ref) (dashed) and the finite-group chain's mean (dotted), both (M+1, P).
    The legend sits in the free cell of the last row (or below the panels when every cell is taken)."""
    n_rows = (len(picks) + 1) // 2
    fig = plt.figure(figsize=(6.8, 3.0 * n_rows + 0.4 * (len(picks) % 2 == 0)))
    grid = fig.add_gridspec(n_rows, 2)
    axes = []
    for j in range(len(picks)):
        share = {"sharex": axes[0], "sharey": axes[0]} if axes else {}
        axes.append(fig.add_subplot(grid[j // 2, j % 2], **share))
    n = np.arange(theory.shape[0])
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, (regime, i) in zip(axes, picks.items(), strict=True):
        for k, (run, p) in enumerate(measured.items()):
            ax.plot(n, p[:, i], color=colours[k % len(colours)], marker="o", ms=4, lw=1.4, label=f"TRL, {run}")
        recursion = r"recursion $h^n(p_{\mathrm{ref}})$ at $\beta_{\mathrm{eff}}$"
        ax.plot(n, theory[:, i], color="k", ls="--", lw=1.4, label=recursion)
        ax.plot(n, finite[:, i], color="k", ls=":", lw=1.8, label=r"finite $G$: mean of $p_n$")
        ax.set_title(rf"{prompts[i]}  ({regime}, $p_{{\mathrm{{ref}}}} = {theory[0, i]:.2f}$)", fontsize=11)
        ax.set_xlabel(r"outer iteration $n$")
        ax.set_ylabel("probability of success")
        ax.set_ylim(-0.02, 1.02)
    handles, labels = axes[0].get_legend_handles_labels()
    if len(picks) % 2:  # the free cell of the last row, in figure coordinates (no extra axes)
        cell = grid[n_rows - 1, 1].get_position(fig)
        fig.legend(handles, labels, loc="center", bbox_to_anchor=cell.bounds, frameon=False)
    else:
        fig.legend(handles, labels, loc="outside lower center", ncols=2, frameon=False)
    return fig
