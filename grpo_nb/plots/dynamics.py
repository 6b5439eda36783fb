"""Figures of paper §3-§4: the map h (Fig. 2), condition (2) (Fig. 3), Theorem 4's bound (Fig. 4), iterations
(Fig. 5), cobweb plots and the regime map. Each function only draws the data it is given; the theory is computed
by :mod:`grpo_nb.dynamics` (see :mod:`grpo_nb.widgets.dynamics` for the functions that do both)."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import BoundaryNorm, ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from grpo_nb.dynamics.regimes import Regime

__all__ = [
    "plot_beta_bound",
    "plot_cobweb",
    "plot_condition2_region",
    "plot_iterations",
    "plot_map_panels",
    "plot_regime_maps",
]


def plot_map_panels(
    p: np.ndarray,
    panels: Sequence[dict],
    title: str = "",
) -> Figure:
    """Fig. 2: h(p) against p with the diagonal y = p, one panel per p_ref, at most two panels a row.

    Each panel dict has ``title``, ``curves`` (list of (label, h-values on ``p``)) and ``fixed_points`` (list of
    (p*, h'(p*) stable flag) per curve, drawn filled when stable, open when not). The curves' legend sits below
    the panels, shared by all of them.
    """
    ncols = min(2, len(panels))
    nrows = -(-len(panels) // ncols)
    width = 6.8 if ncols == 2 else 4.8
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(width, 2.9 * nrows + 0.9), layout="constrained", squeeze=False, sharex=True, sharey=True
    )
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    for ax, panel in zip(axes.flat, panels, strict=False):
        ax.plot(p, p, color="black", lw=0.9, ls="--", label="$y = p$")
        for (label, values), fps in zip(panel["curves"], panel["fixed_points"], strict=True):
            (line,) = ax.plot(p, values, lw=1.6, label=label)
            for p_star, stable in fps:
                ax.plot(
                    p_star,
                    p_star,
                    marker="o",
                    ms=6,
                    color=line.get_color(),
                    mfc=line.get_color() if stable else "white",
                    zorder=3,
                )
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.set_title(panel["title"])
    for ax in axes[-1]:
        ax.set_xlabel("$p$")
    for ax in axes[:, 0]:
        ax.set_ylabel(r"$h_{\varepsilon, p_{\mathrm{ref}}}(p)$")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=min(len(labels), 5))
    if title:
        fig.suptitle(title)
    return fig


def plot_condition2_region(p_ref: np.ndarray, beta: np.ndarray, holds: np.ndarray, *, title: str = "") -> Figure:
    """Fig. 3: where Theorem 3's hypothesis holds (blue) over (beta, p_ref); ``holds``: (len(p_ref), len(beta))."""
    fig, ax = plt.subplots(figsize=(5.6, 4.2), layout="constrained")
    cmap = ListedColormap(["#f2c6b4", "#3b6fb6"])
    ax.pcolormesh(beta, p_ref, holds.astype(float), cmap=cmap, vmin=0, vmax=1, shading="auto")
    ax.set_xscale("log")
    ax.set_yscale("logit")
    ax.set_xlabel(r"$\beta$")
    ax.set_ylabel(r"$p_{\mathrm{ref}}$ (logit scale)")
    ax.legend(
        handles=[Patch(color="#3b6fb6", label="condition holds"), Patch(color="#f2c6b4", label="condition fails")],
        loc="lower left",
    )
    ax.set_title(title)
    return fig


def plot_beta_bound(p_star: np.ndarray, bounds: Sequence[tuple[str, np.ndarray]], title: str = "") -> Figure:
    """Fig. 4: Theorem 4's lower bound B(p*) on beta against p* (log scale), one curve per eps."""
    fig, ax = plt.subplots(figsize=(5.6, 4.0), layout="constrained")
    for label, b in bounds:
        ax.plot(p_star, b, lw=1.6, label=label)
    ax.set_yscale("log")
    ax.set_xlabel(r"fixed point $p^*$")
    ax.set_ylabel(r"$\mathcal{B}(p^*)$ (stable iff $\beta > \mathcal{B}$)")
    ax.set_xlim(0, 1)
    ax.legend()
    ax.set_title(title)
    return fig


def plot_iterations(orbits: np.ndarray, logits: np.ndarray, labels: Sequence[str], *, title: str = "") -> Figure:
    """Fig. 5: p_n against n (left) and logit p_n against n (right, symlog), one line per (beta, p_ref); the legend
    sits below both panels."""
    fig, (ax_p, ax_z) = plt.subplots(1, 2, figsize=(6.8, 3.2 + 0.3 * -(-len(labels) // 2)), layout="constrained")
    n = np.arange(orbits.shape[0])
    for k, label in enumerate(labels):
        ax_p.plot(n, orbits[:, k], marker="o", ms=2.5, lw=1.0, label=label)
        ax_z.plot(n, logits[:, k], marker="o", ms=2.5, lw=1.0, label=label)
    ax_p.set_xlabel("GRPO iteration $n$")
    ax_p.set_ylabel(r"$p_n$")
    ax_p.set_ylim(-0.02, 1.02)
    ax_z.set_xlabel("GRPO iteration $n$")
    ax_z.set_ylabel(r"$\operatorname{logit} p_n$")
    ax_z.set_yscale("symlog", linthresh=10)
    fig.legend(*ax_p.get_legend_handles_labels(), loc="outside lower center", ncol=min(len(labels), 2))
    if title:
        fig.suptitle(title)
    return fig


def plot_cobweb(
    x: np.ndarray,
    gx: np.ndarray,
    orbit: np.ndarray,
    *,
    fixed_points: Sequence[tuple[float, bool]],
    ax: plt.Axes | None = None,
    xlabel: str = "p",
    title: str = "",
    xlim: tuple[float, float] | None = None,
) -> Figure:
    """Cobweb plot of an orbit x_0, x_1, ... of a map given on a grid (x, gx), in p or in logit coordinates.

    ``fixed_points`` are (x*, stable) pairs, filled markers when stable. Draws into ``ax`` if given.
    """
    if ax is None:
        fig, ax = plt.subplots(figsize=(4.8, 4.4), layout="constrained")
    else:
        fig = ax.figure
    ax.plot(x, gx, color="#3b6fb6", lw=1.5, label="map")
    ax.plot(x, x, color="black", lw=0.8, ls="--", label="diagonal")
    path_x = np.repeat(orbit[:-1], 2)
    path_y = np.empty_like(path_x)
    path_y[0::2], path_y[1::2] = orbit[:-1], orbit[1:]
    ax.plot(path_x, path_y, color="#d2553f", lw=0.8, alpha=0.85, label="orbit")
    ax.plot(orbit[0], orbit[0], marker="s", color="#d2553f", ms=5, ls="none", label=r"start $p_{\mathrm{ref}}$")
    for x_star, stable in fixed_points:
        ax.plot(x_star, x_star, marker="o", ms=7, color="black", mfc="black" if stable else "white", ls="none")
    if xlim is not None:
        ax.set_xlim(*xlim)
        ax.set_ylim(*xlim)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("next " + xlabel)
    ax.set_title(title)
    ax.legend(loc="upper left", fontsize="small")
    return fig


_REGIME_COLORS = {
    Regime.INTERIOR: "#9ecae1",
    Regime.NEAR_ONE: "#3b6fb6",
    Regime.CYCLE: "#f4a259",
    Regime.CHAOTIC: "#b23a48",
}


def plot_regime_maps(panels: Sequence[dict], title: str = "", ncols: int | None = None) -> Figure:
    """The regime map over (beta, p_ref), one panel per eps (or per variant), ``ncols`` panels a row (default: two,
    the most a 7-inch figure shows legibly; one for a single panel).

    Each panel dict has ``beta`` (1-D), ``p_ref`` (1-D), ``regime`` (len(p_ref), len(beta)) with
    :class:`grpo_nb.dynamics.regimes.Regime` codes; ``stable_elsewhere`` and ``no_stable`` boolean masks
    (hatched / dotted), ``marks`` (list of (p_ref, beta, label) points) and ``title``.
    """
    ncols = min(2, len(panels)) if ncols is None else ncols
    nrows = -(-len(panels) // ncols)
    panel_width = 3.4 if ncols > 1 else 5.0
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(panel_width * ncols, 3.3 * nrows + 1.0), layout="constrained", squeeze=False
    )
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    cmap = ListedColormap([_REGIME_COLORS[r] for r in Regime])
    norm = BoundaryNorm(np.arange(len(Regime) + 1) - 0.5, cmap.N)
    for ax, panel in zip(axes.flat, panels, strict=False):
        beta, p_ref = panel["beta"], panel["p_ref"]
        ax.pcolormesh(beta, p_ref, panel["regime"], cmap=cmap, norm=norm, shading="auto")
        ax.contourf(
            beta, p_ref, panel["stable_elsewhere"].astype(float), levels=[0.5, 1.5], colors="none", hatches=["////"]
        )
        ax.contourf(beta, p_ref, panel["no_stable"].astype(float), levels=[0.5, 1.5], colors="none", hatches=[".."])
        for p, b, label in panel.get("marks", []):
            ax.plot(b, p, marker="*", ms=12, color="white", mec="black")
            note = ax.annotate(
                label,
                (b, p),
                textcoords="offset points",
                xytext=(-8, 6),
                ha="right",
                fontsize="small",
                bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8},
            )
            note.set_in_layout(False)  # a label near the edge must not shrink the panel
        ax.set_xscale("log")
        ax.set_yscale("logit")
        ax.set_xlabel(r"$\beta$")
        ax.set_title(panel["title"])
        ax.grid(False)
    for row in axes:
        row[0].set_ylabel(r"$p_{\mathrm{ref}}$ (logit scale)")
    handles = [Patch(color=_REGIME_COLORS[r], label=r.label) for r in Regime]
    handles += [
        Patch(facecolor="none", edgecolor="black", hatch="////", label="a stable fixed point is not reached"),
        Patch(facecolor="none", edgecolor="black", hatch="..", label="no stable fixed point"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=2)
    if title:
        fig.suptitle(title)
    return fig
