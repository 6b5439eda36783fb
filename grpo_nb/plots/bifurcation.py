"""Figures of the hard-prompts chapter (beyond paper §4, extending Fig. 5): the logit map, bifurcation diagrams
over beta with the Lyapunov exponent underneath, Feigenbaum ratios, the high-precision separation of nearby
orbits, and finite-group simulations. Each function only draws the data it is given; the theory is computed by
:mod:`grpo_nb.dynamics.bifurcation`, :mod:`grpo_nb.dynamics.orbits` and :mod:`grpo_nb.dynamics.high_precision`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import ScalarFormatter
from scipy.special import expit, logit

from grpo_nb.dynamics.bifurcation import BifurcationDiagram, bifurcation_diagram
from grpo_nb.dynamics.high_precision import SeparationResult
from grpo_nb.dynamics.orbits import OrbitClass

__all__ = [
    "draw_bifurcation_diagram",
    "plot_bifurcation_diagrams",
    "plot_feigenbaum_ratios",
    "plot_finite_group_orbits",
    "plot_logit_map",
    "plot_separation",
]

_KIND_COLORS = {OrbitClass.FIXED_POINT: "tab:blue", OrbitClass.CYCLE: "tab:green", OrbitClass.CHAOTIC: "tab:red"}


def _kind_label(kind: OrbitClass) -> str:
    return kind.label.replace("_", " ")


def _power_of_ten(x: float) -> str:
    """``x`` as mathtext for a figure label: ``10^{-4}`` for 1e-4, ``2 \\cdot 10^{-3}`` for 2e-3, ``0.5`` for 0.5."""
    mantissa, exponent = f"{x:.0e}".split("e")
    if -2 <= int(exponent) <= 1:
        return f"{x:g}"
    power = f"10^{{{int(exponent)}}}"
    return power if mantissa == "1" else rf"{mantissa} \cdot {power}"


def _p_axis(ax: plt.Axes, side: str = "right") -> None:
    """Secondary axis reading a logit axis as success probabilities."""
    sec = ax.secondary_yaxis(side, functions=(expit, logit))
    sec.set_yticks([1e-4, 1e-2, 0.5, 0.99, 0.9999])
    sec.set_yticklabels([r"$10^{-4}$", "0.01", "0.5", "0.99", "0.9999"], fontsize=9)
    sec.set_ylabel(r"$p$")


def plot_logit_map(
    z: np.ndarray, curves: Mapping[str, np.ndarray], orbit: np.ndarray | None = None, *, title: str = ""
) -> Figure:
    """The map in logit coordinates z -> g(z) for a few parameter sets, with the diagonal and an optional cobweb.

    ``curves`` maps a label to g evaluated on ``z``; ``orbit`` (logits z_0, z_1, ...) is drawn as a cobweb on
    the first curve.
    """
    fig, ax = plt.subplots(figsize=(6.4, 4.4), layout="constrained")
    ax.plot(z, z, color="black", lw=0.8, ls="--", label=r"diagonal $z' = z$")
    for label, values in curves.items():
        ax.plot(z, values, lw=1.6, label=label)
    if orbit is not None and len(orbit) > 1:
        xs = np.repeat(orbit, 2)[:-1]  # z0 z0 z1 z1 z2 ...
        ys = np.r_[orbit[0], np.repeat(orbit[1:], 2)][: xs.size]  # z0 z1 z1 z2 z2 ...
        ax.plot(xs, ys, lw=0.9, color="0.35", label=r"orbit from $p_{\mathrm{ref}}$")
    ax.axvline(0.0, color="0.7", lw=0.6)
    ax.set_xlim(z.min(), z.max())
    ax.set_ylim(z.min(), z.max())
    ax.set_xlabel(r"$z = \mathrm{logit}\, p_{n-1}$")
    ax.set_ylabel(r"$g(z) = \mathrm{logit}\, p_n$")
    ax.legend(fontsize=9.5, loc="upper left")
    ax.set_title(title)
    return fig


def plot_bifurcation_diagrams(
    diagrams: Sequence[BifurcationDiagram],
    titles: Sequence[str] | None = None,
    marks: Sequence[Mapping[str, float]] | None = None,
    *,
    logit_range: tuple[float, float] = (-11.0, 11.0),
    lyapunov_range: tuple[float, float] = (-1.0, 0.8),
    log_beta: bool = True,
) -> Figure:
    """Bifurcation diagrams: post-transient logits of p_n against beta (top) and the Lyapunov exponent (bottom).

    One column per diagram, at most two side by side (so that the labels stay legible in the book's text column).
    Points are coloured by the orbit's kind; logits beyond ``logit_range`` (orbits that went to p ~ 1) are drawn at
    its upper edge. ``marks`` (per column, label -> beta) adds vertical lines.
    """
    n = len(diagrams)
    if n not in (1, 2):
        raise ValueError(f"len(diagrams)={n} is invalid; valid: 1 or 2 diagrams (at most two panels side by side)")
    fig, axes = plt.subplots(
        2, n, figsize=(6.8, 5.6), layout="constrained", sharex="col", squeeze=False,
        gridspec_kw={"height_ratios": [2.2, 1.0]},
    )  # fmt: skip
    lo, hi = logit_range
    for j, d in enumerate(diagrams):
        top, bottom = axes[0, j], axes[1, j]
        betas = np.repeat(d.beta, d.limit_logits.shape[1])
        z = np.clip(d.limit_logits.ravel(), lo, hi)
        kinds = np.repeat(d.kind, d.limit_logits.shape[1])
        for kind, color in _KIND_COLORS.items():
            sel = kinds == kind
            top.scatter(
                betas[sel], z[sel], s=0.3, color=color, alpha=0.6, rasterized=True, label=_kind_label(kind), lw=0
            )
        lyap = np.clip(d.lyapunov, *lyapunov_range)
        bottom.plot(d.beta, lyap, color="black", lw=0.6)
        bottom.fill_between(d.beta, 0, lyap, where=lyap > 0, color="tab:red", alpha=0.5, lw=0)
        bottom.axhline(0.0, color="0.5", lw=0.6)
        for label, beta in (marks[j] if marks else {}).items():
            if not d.beta[0] <= beta <= d.beta[-1]:
                continue
            for ax in (top, bottom):
                ax.axvline(beta, color="0.3", lw=0.6, ls=":")
            top.annotate(label, (beta, hi), fontsize=10, rotation=90, va="top", ha="right")
        top.set_xscale("log" if log_beta else "linear")
        top.set_xlim(d.beta[0], d.beta[-1])
        top.set_ylim(lo - 0.3, hi + 0.3)
        bottom.set_ylim(*lyapunov_range)
        bottom.set_xlabel(r"KL coefficient $\beta$")
        default = rf"$p_{{\mathrm{{ref}}}} = {_power_of_ten(d.p_ref)}$, $\varepsilon = {_power_of_ten(d.eps)}$"
        top.set_title(titles[j] if titles else default)
        if j == n - 1:
            _p_axis(top)
    axes[0, 0].set_ylabel(r"long-run $\mathrm{logit}\, p_n$")
    axes[1, 0].set_ylabel(r"Lyapunov exp. $\lambda$")
    handles = [plt.Line2D([], [], marker="o", ls="", color=c, label=_kind_label(k)) for k, c in _KIND_COLORS.items()]
    axes[0, 0].legend(handles=handles, fontsize=9, loc="lower left")
    return fig


def plot_feigenbaum_ratios(ratios: Mapping[str, np.ndarray], delta: float) -> Figure:
    """Ratios of successive bifurcation intervals against the doubling index k, with Feigenbaum's delta."""
    fig, ax = plt.subplots(figsize=(6.6, 4.6), layout="constrained")
    for label, r in ratios.items():
        ax.plot(np.arange(2, r.size + 2), r, marker="o", ms=4, label=label)
    ax.axhline(delta, color="black", lw=0.8, ls="--", label=rf"Feigenbaum $\delta = {delta:.4f}$")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(ScalarFormatter())
    ax.yaxis.set_minor_formatter(ScalarFormatter())
    ax.set_xlabel(r"$k$ (interval $k-1$ over interval $k$)")
    ax.set_ylabel(r"ratio $\delta_k$ of successive intervals")
    ax.legend(fontsize=8.5, ncol=2, loc="upper right")
    return fig


def plot_separation(result: SeparationResult, lyapunov: float, title: str = "") -> Figure:
    """log10 of the distance between two high-precision orbits started ``delta0`` apart, per pair, against n,
    with the growth exp(lyapunov n) the float64 Lyapunov exponent predicts."""
    fig, ax = plt.subplots(figsize=(6.4, 4.0), layout="constrained")
    n = np.arange(result.log_separation.shape[1])
    for i, row in enumerate(result.log_separation):
        ax.plot(n, row / np.log(10), lw=0.8, alpha=0.8, label="pairs of orbits" if i == 0 else None)
    ax.plot(n, (np.log(result.delta0) + lyapunov * n) / np.log(10), color="black", ls="--", lw=1.2,
            label=rf"$\delta_0 e^{{\lambda n}}$, $\lambda = {lyapunov:.3f}$ (float64)")  # fmt: skip
    ax.axhline(np.log10(result.threshold), color="0.5", lw=0.6, ls=":")
    ax.set_ylim(np.log10(result.delta0) - 5, 2)
    ax.set_xlabel(r"step $n$")
    ax.set_ylabel(r"$\log_{10}|z'_n - z_n|$")
    ax.set_title(title or f"{result.dps}-digit arithmetic")
    ax.legend(fontsize=9.5, loc="lower right")
    return fig


def plot_finite_group_orbits(orbits: Mapping[str, np.ndarray], title: str = "") -> Figure:
    """Success probability p_n against the iteration n (logit scale) for exact and finite-group recursions.

    A series whose label starts with "exact" is drawn as a black dashed reference line on top."""
    fig, ax = plt.subplots(figsize=(6.6, 4.2), layout="constrained")
    for label, p in orbits.items():
        if label.startswith("exact"):  # the noiseless reference: on top, in black
            ax.plot(np.arange(p.size), p, color="black", ls="--", lw=1.0, label=label, zorder=5)
        else:
            ax.plot(np.arange(p.size), p, marker="o", ms=2, lw=0.8, label=label)
    ax.set_yscale("logit")
    ax.set_xlabel(r"GRPO iteration $n$")
    ax.set_ylabel(r"$p_n$ (logit scale)")
    ax.set_title(title)
    ax.legend(fontsize=9.5, loc="lower right")
    return fig


def draw_bifurcation_diagram(p_ref: float, beta: np.ndarray, eps: float, **orbit_options) -> Figure:
    """The bifurcation diagram over the beta grid for one (p_ref, eps), with the Lyapunov exponent underneath."""
    return plot_bifurcation_diagrams([bifurcation_diagram(p_ref, beta, eps, **orbit_options)])
