"""Figure of the hard-prompts chapter's (beta, p_ref) survey: the Lyapunov exponent of the orbit from p_ref, the
chaotic points, and the thresholds p_c (no cycle above it) and p_up (first period doubling). It only draws what
:mod:`grpo_nb.dynamics.chaos_region` and :mod:`grpo_nb.dynamics.cycle_geometry` computed."""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

from grpo_nb.dynamics.chaos_region import LyapunovMap

__all__ = ["plot_lyapunov_map"]


def plot_lyapunov_map(
    m: LyapunovMap, chaotic: np.ndarray, curves: Mapping[str, np.ndarray], *, title: str = ""
) -> Figure:
    """Heat map of the exponent over (beta, p_ref) (log axes), chaotic points in black, and ``curves``:
    label -> p_ref values over m.beta (NaN where a curve does not exist)."""
    fig, ax = plt.subplots(figsize=(6.8, 5.6), layout="constrained")
    lam = np.clip(np.where(np.isfinite(m.lyapunov), m.lyapunov, -2.0), -2.0, 0.5)
    mesh = ax.pcolormesh(m.beta, m.p_ref, lam, cmap="RdBu_r", norm=TwoSlopeNorm(0.0, -2.0, 0.5), shading="nearest")
    fig.colorbar(mesh, ax=ax, label=r"Lyapunov exponent $\lambda$ (clipped to $[-2, 0.5]$)")
    b, p = np.broadcast_arrays(m.beta[None, :], m.p_ref[:, None])
    ax.scatter(b[chaotic], p[chaotic], s=4, c="k", label="chaotic (confirmed by twin orbits)")
    for (label, values), style in zip(curves.items(), ("-", "--", "--", ":"), strict=False):
        ax.plot(m.beta, values, style, color="tab:green", lw=1.6, label=label or None)
    ax.set(xscale="log", yscale="log", xlabel=r"$\beta$", ylabel=r"$p_{\mathrm{ref}}$", title=title)
    ax.set_ylim(m.p_ref.min(), m.p_ref.max())
    fig.legend(loc="outside lower center", fontsize=9.5)
    return fig
