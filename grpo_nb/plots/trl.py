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
    """One panel per picked prompt: each run's measured p_n (markers, ``measured[run]`` is (M+1, P)), the
    infinite-G recursion h^n(p_ref) (dashed) and the finite-group chain's mean (dotted), both (M+1, P)."""
    fig, axes = plt.subplots(1, len(picks), figsize=(3.3 * len(picks), 3.3), layout="constrained", sharey=True)
    n = np.arange(theory.shape[0])
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, (regime, i) in zip(np.atleast_1d(axes), picks.items(), strict=True):
        for k, (run, p) in enumerate(measured.items()):
            ax.plot(n, p[:, i], color=colours[k % len(colours)], marker="o", ms=3, lw=1.1, label=f"TRL, {run}")
        ax.plot(n, theory[:, i], color="k", ls="--", lw=1.1, label=r"$h^n(p_{ref})$, $\beta_{eff}$")
        ax.plot(n, finite[:, i], color="k", ls=":", lw=1.4, label=r"finite $G$: mean of $p_n$")
        ax.set_title(f"{prompts[i]}  ({regime} $p_{{ref}}$ = {theory[0, i]:.2f})", fontsize=9)
        ax.set_xlabel("outer iteration n")
        ax.set_ylim(-0.02, 1.02)
    np.atleast_1d(axes)[0].set_ylabel("probability of success")
    np.atleast_1d(axes)[-1].legend(fontsize=7, loc="lower left")
    return fig
