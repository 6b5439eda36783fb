"""The SmolLM2 chapter's figures: the first step predicted against measured, and the cached GRPO runs against the
success recursion. Take arrays (no theory computed here) and return matplotlib Figures."""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

__all__ = ["plot_smollm_first_step", "plot_smollm_runs"]


def plot_smollm_first_step(
    predicted: np.ndarray, measured: np.ndarray, own_share: np.ndarray, *, p_ref: np.ndarray
) -> Figure:
    """Left: each prompt's measured change of log-odds against the predicted one (the diagonal is agreement).
    Right: the share of each prompt's predicted change that its own term makes, against its p_ref."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(6.8, 3.2))
    lo, hi = min(predicted.min(), measured.min(), 0.0), max(predicted.max(), measured.max())
    left.plot([lo, hi], [lo, hi], color="0.5", lw=1, ls="--", label="agreement")
    left.scatter(predicted, measured, s=22, zorder=3, label="a prompt")
    left.set_xlabel(r"predicted $\Delta\,\mathrm{logit}\,p$")
    left.set_ylabel(r"measured $\Delta\,\mathrm{logit}\,p$")
    left.legend(loc="upper left")
    right.axhline(1.0, color="0.5", lw=1, ls="--")
    right.axhline(0.5, color="0.7", lw=1, ls=":")
    right.scatter(p_ref, own_share, s=22, color="C1", zorder=3)
    right.set_xscale("log")
    right.set_xlabel(r"$p_{\mathrm{ref}}$")
    right.set_ylabel("own share of the change")
    return fig


def plot_smollm_runs(
    measured: Mapping[int, np.ndarray], from_previous: Mapping[int, np.ndarray], orbit: np.ndarray, *, hard: float
) -> Figure:
    """Left: every measured p_n against Theorem 2's prediction h(p_{n-1}) from the measured p_{n-1}, all seeds, steps
    and prompts; open markers where p_{n-1} < ``hard``. Right: the mean success over prompts along the iterations, per
    seed (solid), and along the recursion's orbit from p_ref (dashed). ``measured[seed]`` is (N+1, P),
    ``from_previous[seed]`` and ``orbit`` (N, P)."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(6.8, 3.2))
    left.plot([0, 1], [0, 1], color="0.5", lw=1, ls="--", label="agreement")
    for k, seed in enumerate(measured):
        low = measured[seed][:-1] < hard
        x, y = from_previous[seed], measured[seed][1:]
        left.scatter(x[~low], y[~low], s=10, alpha=0.7, color=f"C{k}", label=f"seed {seed}")
        left.scatter(x[low], y[low], s=14, facecolors="none", edgecolors=f"C{k}", lw=0.9)
        n = np.arange(measured[seed].shape[0])
        right.plot(n, measured[seed].mean(axis=1), marker="o", ms=4, color=f"C{k}", label=f"seed {seed}")
    start = measured[next(iter(measured))][0].mean()
    right.plot(np.arange(orbit.shape[0] + 1), np.r_[start, orbit.mean(axis=1)], color="k", ls="--", label="recursion")
    left.scatter([], [], s=14, facecolors="none", edgecolors="0.3", label=f"$p_{{n-1}} < {hard}$")
    left.set_xlabel(r"Theorem 2: $h(p_{n-1})$")
    left.set_ylabel(r"measured $p_n$")
    left.legend(loc="upper left", fontsize=8.5)
    right.set_xlabel("GRPO iteration $n$")
    right.set_ylabel("mean success over prompts")
    right.legend(loc="lower right", fontsize=8.5)
    return fig
