"""Figures of the variants chapter: orbits and cobwebs of every variant, beta_eff on the map, the Rényi term's decay,
and regime maps per variant.

The ``draw_*`` functions compute with :mod:`grpo_nb.variants` and :mod:`grpo_nb.dynamics` and return the matplotlib
Figure; :mod:`grpo_nb.widgets.variants` wraps them in sliders. The cobwebs and regime maps are drawn by
:func:`grpo_nb.plots.dynamics.plot_cobweb` and :func:`grpo_nb.plots.dynamics.plot_regime_maps`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from scipy.special import expit, logit

from grpo_nb.constants import PAPER_EPS
from grpo_nb.dynamics.fixed_points import fixed_points
from grpo_nb.dynamics.regimes import RegimeMap, regime_grid, regime_map
from grpo_nb.plots.dynamics import plot_cobweb, plot_regime_maps
from grpo_nb.plots.paper_figures import regime_panel
from grpo_nb.variants.map import effective_beta, iterate_logit, variant_logit_map
from grpo_nb.variants.variant import Variant

__all__ = [
    "draw_alpha_regime_maps",
    "draw_effective_beta",
    "draw_variant_orbits",
    "draw_variant_regime_maps",
    "plot_renyi_decay",
]

_COLORS = ("#1f77b4", "#d2553f", "#2ca02c", "#7f7f7f")
_BETA_EFF = r"$\beta_{\mathrm{eff}}"  # opens the math of a legend label


def _tex(x: float) -> str:
    """A number for mathtext: ``10^{-5}`` for 1e-5, ``2 \\cdot 10^{-3}`` for 2e-3, ``0.5`` for 0.5."""
    if x == 0 or 1e-2 <= abs(x) < 1e2:
        return f"{x:g}"
    mantissa, exponent = f"{x:.0e}".split("e")
    power = f"10^{{{int(exponent)}}}"
    return power if mantissa == "1" else rf"{mantissa} \cdot {power}"


def _cobweb_panel(ax: plt.Axes, variant: Variant, p_ref: float, beta: float, eps: float, n: int) -> None:
    """The cobweb of the variant's orbit in logit coordinates, around the orbit, with the fixed points in that window
    (found by the dynamics machinery)."""
    with np.errstate(over="ignore"):
        z = iterate_logit(p_ref, beta, eps, n=n, normalization=variant.normalization, alpha=variant.alpha)
    fps = fixed_points(p_ref, beta, eps, variant=variant)
    finite = [float(v) for v in z if abs(v) < 1e4]
    pad = 0.1 * (max(finite) - min(finite)) + 1.0
    lo, hi = min(finite) - pad, max(finite) + pad
    zz = np.linspace(lo, hi, 1201)
    a = float(logit(p_ref))
    shown = [(fp.logit, fp.stable) for fp in fps if lo <= fp.logit <= hi]
    with np.errstate(over="ignore"):
        gz = variant(zz, a, beta, eps)
    plot_cobweb(
        zz, gz, np.clip(z, lo, hi), fixed_points=shown, ax=ax, xlabel=r"$\mathrm{logit}\, p$", title=variant.label,
        xlim=(lo, hi),
    )  # fmt: skip
    ax.legend(fontsize=8.5, loc="upper left")


def draw_variant_orbits(
    p_ref: float = 1e-3, beta: float = 5.0, eps: float = PAPER_EPS, *, alpha: float = 0.5, n: int = 40
) -> Figure:
    """Top: p_n against n for the paper's iteration, mean+var and mean-only at ``alpha``, and the mirror (alpha = 0).

    Bottom, side by side: cobwebs in logit coordinates of mean+var and of mean-only at ``alpha``, with their fixed
    points (filled: stable). The defaults are the paper's "divergent" case of Fig. 5 with both KL terms at equal weight.
    """
    cases = [Variant(), Variant("mean_var", alpha), Variant("mean", alpha), Variant("mean_var", 0.0)]
    fig, grid = plt.subplot_mosaic([["orbit", "orbit"], ["mean_var", "mean"]], figsize=(6.8, 8.0), layout="constrained")
    axes = [grid["orbit"], grid["mean_var"], grid["mean"]]
    steps = np.arange(n + 1)
    for k, (variant, color) in enumerate(zip(cases, _COLORS, strict=True)):
        with np.errstate(over="ignore"):
            z = iterate_logit(p_ref, beta, eps, n=n, normalization=variant.normalization, alpha=variant.alpha)
        label = variant.label + (" (paper)" if k == 0 else " (mirror)" if variant.alpha == 0 else "")
        axes[0].plot(steps, expit(z), marker="o", ms=2.5, lw=1.0, color=color, label=label)
    axes[0].set_xlabel(r"GRPO iteration $n$")
    axes[0].set_ylabel(r"$p_n$")
    axes[0].set_ylim(-0.02, 1.02)
    axes[0].set_title(rf"$\beta = {_tex(beta)}$, $p_{{\mathrm{{ref}}}} = {_tex(p_ref)}$, $\varepsilon = {_tex(eps)}$")
    axes[0].legend(fontsize=9, loc="center right")
    for ax, variant in zip(axes[1:], cases[1:3], strict=True):
        _cobweb_panel(ax, variant, p_ref, beta, eps, n)
    return fig


def draw_effective_beta(beta: float = 2.0, eps_values: Sequence[float] = (PAPER_EPS, 1e-2)) -> Figure:
    """Top: beta_eff / beta = sqrt(p(1-p) + eps) against p, one curve per eps.

    Bottom, for the first eps: the push g(z) - (anchor logit) of mean + variance normalisation, 1/(beta sqrt(v + eps)),
    against the constant push 1/beta_eff of mean-only normalisation: between beta_eff = beta sqrt(1/4 + eps) (touching
    at p = 1/2) and beta sqrt(eps) (the cap), with the mean-only pushes at beta_eff(z0) that meet it at z0.
    """
    fig, (ax_b, ax_g) = plt.subplots(2, 1, figsize=(6.8, 8.4), layout="constrained")
    p = np.linspace(0.0, 1.0, 801)
    for eps, color in zip(eps_values, _COLORS, strict=False):
        with np.errstate(divide="ignore"):  # p = 0 and 1 are logits -inf and +inf, where v = 0
            ratio = effective_beta(logit(p), 1.0, eps)
        ax_b.plot(p, ratio, color=color, lw=1.6, label=rf"$\varepsilon = {_tex(eps)}$")
    ax_b.set_yscale("log")
    ax_b.set_xlabel(r"$p$, success probability of the previous policy")
    ax_b.set_ylabel(r"$\beta_{\mathrm{eff}} / \beta = \sqrt{p(1-p)+\varepsilon}$")
    ax_b.legend(fontsize=9.5)
    ax_b.set_title("variance normalisation rescales the KL coefficient")
    eps = eps_values[0]
    z = np.linspace(-16, 16, 801)
    push = variant_logit_map(z, 0.0, beta, eps)  # the anchor logit is 0 here: what is left is the push
    ax_g.plot(
        z,
        push,
        color=_COLORS[0],
        lw=2.0,
        label=rf"mean+var: $1/(\beta\sqrt{{p(1-p)+\varepsilon}})$, $\beta = {_tex(beta)}$",
    )
    for b_eff, style, text in (
        (float(effective_beta(0.0, beta, eps)), "--", rf"mean-only at {_BETA_EFF} = \beta\sqrt{{1/4+\varepsilon}}$"),
        (beta * np.sqrt(eps), ":", rf"mean-only at {_BETA_EFF} = \beta\sqrt{{\varepsilon}}$"),
    ):
        ax_g.plot(
            z, variant_logit_map(z, 0.0, b_eff, eps, normalization="mean"), color="black", ls=style, lw=1.0, label=text
        )
    for z0 in (-7.0, 4.0):
        b0 = float(effective_beta(z0, beta, eps))
        ax_g.plot(z, variant_logit_map(z, 0.0, b0, eps, normalization="mean"), color=_COLORS[1], lw=0.8, alpha=0.8)
        ax_g.plot(z0, variant_logit_map(z0, 0.0, beta, eps), "o", color=_COLORS[1], ms=5)
    ax_g.plot([], [], color=_COLORS[1], lw=0.8, label=r"mean-only at $\beta_{\mathrm{eff}}(z_0)$, meeting it at $z_0$")
    ax_g.set_yscale("log")
    ax_g.set_xlabel(r"$z = \mathrm{logit}\, p_{n-1}$")
    ax_g.set_ylabel("push added to the anchor's logit")
    ax_g.set_title(rf"the push of one step, $\varepsilon = {_tex(eps)}$")
    ax_g.legend(fontsize=9, loc="upper center")
    return fig


def plot_renyi_decay(series: Mapping[tuple[float, str], np.ndarray], title: str = "") -> Figure:
    """|R_n| against n (log scale) for each (alpha, normalisation), with the slope (1 - alpha)^{2n} dashed."""
    fig, ax = plt.subplots(figsize=(6.6, 4.6), layout="constrained")
    alphas = sorted({alpha for alpha, _ in series})
    for alpha, color in zip(alphas, _COLORS, strict=False):
        for (a, normalization), values in series.items():
            if a != alpha:
                continue
            n = np.arange(values.size)
            style = {"mean_var": "-", "mean": "none"}[normalization]
            marker = {"mean_var": None, "mean": "o"}[normalization]
            label = rf"$\alpha = {_tex(alpha)}$, " + ("mean+var" if normalization == "mean_var" else "mean-only")
            shown = np.where(values > 1e-14, values, np.nan)  # below, the divergences are at rounding level
            ax.plot(n, shown, ls=style, marker=marker, ms=4, mfc="none", color=color, label=label)
        guide = series[next(k for k in series if k[0] == alpha)][0] * (1 - alpha) ** (2 * n)
        ax.plot(n, guide, ls="--", lw=0.8, color=color)
    ax.plot([], [], ls="--", lw=0.8, color="black", label=r"$|R_0|\,(1-\alpha)^{2n}$")
    ax.set_yscale("log")
    ax.set_xlabel(r"GRPO iteration $n$")
    ax.set_ylabel(r"$|R_n|$, the Rényi term")
    ax.legend(fontsize=9, ncol=2)
    ax.set_title(title)
    return fig


def draw_variant_regime_maps(
    maps: Mapping[Variant, RegimeMap], ncols: int = 2, marks: Sequence[tuple[float, float, str]] = ()
) -> Figure:
    """Regime maps computed by :func:`grpo_nb.dynamics.regime_map` with ``variant=``, one panel per variant.

    ``ncols`` (1 or 2) panels a row, each 3.4 inches wide, so that a two-column figure fits the book's text column.
    """
    if ncols not in (1, 2):
        raise ValueError(f"ncols={ncols!r} is invalid; valid: 1 or 2 (at most two panels side by side)")
    panels = [regime_panel(rm, variant.label, marks) for variant, rm in maps.items()]
    fig = plot_regime_maps(panels, ncols=ncols)
    fig.set_size_inches(3.4 * ncols, 3.2 * -(-len(panels) // ncols) + 1.2)
    return fig


def draw_alpha_regime_maps(alpha: float, eps: float, *, n_beta: int = 40, n_p: int = 40) -> Figure:
    """The regime maps of the paper's iteration and of mean+var at ``alpha`` over the (beta, p_ref) grid of
    :func:`grpo_nb.dynamics.regimes.regime_grid`, side by side (the variants explorer's figure)."""
    p_ref, beta = regime_grid(n_beta, n_p)
    maps = {v: regime_map(p_ref, beta, eps, variant=v) for v in (Variant(), Variant("mean_var", alpha))}
    return draw_variant_regime_maps(maps, ncols=2)
