"""The paper's §3-§4 figures computed and drawn: ``draw_fig2`` .. ``draw_fig5``, cobwebs and regime maps.

Each ``draw_*`` function computes the theory with :mod:`grpo_nb.dynamics` and hands the numbers to a plotting
function of :mod:`grpo_nb.plots.dynamics`; it returns the matplotlib Figure. The chapters draw the static figures
with them, and :mod:`grpo_nb.widgets.dynamics` wraps each one in ``ipywidgets.interact`` sliders for beta, p_ref
and eps (defaults = the paper's figure). Data flows one way: dynamics -> plots -> widgets -> chapter.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from scipy.special import expit, logit

from grpo_nb.constants import PAPER_EPS
from grpo_nb.dynamics.fixed_points import fixed_points
from grpo_nb.dynamics.map import h, iterate_logit, logit_map
from grpo_nb.dynamics.paper_bounds import theorem3_condition, theorem4_beta_bound
from grpo_nb.dynamics.regimes import RegimeMap, regime_grid, regime_map
from grpo_nb.plots.dynamics import (
    plot_beta_bound,
    plot_cobweb,
    plot_condition2_region,
    plot_iterations,
    plot_map_panels,
    plot_regime_maps,
)

__all__ = [
    "FIG2_BETAS",
    "FIG2_P_REFS",
    "FIG5_CASES",
    "draw_cobweb",
    "draw_fig2",
    "draw_fig3",
    "draw_fig4",
    "draw_fig5",
    "draw_regime_maps",
    "regime_grid",
    "regime_panel",
]

FIG2_P_REFS = (0.001, 0.1, 0.5, 0.9)
FIG2_BETAS = (0.1, 1.0, 5.0, 50.0)
FIG5_CASES = ((0.1, 0.1), (0.1, 1.0), (0.5, 1.0), (0.1, 5.0), (0.001, 5.0), (0.9, 0.5))  # (p_ref, beta)


def _tex(x: float) -> str:
    """A parameter value as mathtext: 1e-05 as 10^{-5}, other values as ``:g`` prints them."""
    mantissa, _, exponent = f"{x:.0e}".partition("e")
    if x > 0 and f"{x:g}" != f"{float(f'{x:.0e}'):g}":
        return f"{x:g}"
    if x > 0 and abs(int(exponent)) >= 3:
        return f"10^{{{int(exponent)}}}" if mantissa == "1" else rf"{mantissa} \cdot 10^{{{int(exponent)}}}"
    return f"{x:g}"


def _p_grid(eps: float, n_grid: int = 801) -> np.ndarray:
    p = np.linspace(0.0, 1.0, n_grid)
    return p if eps > 0 else p[1:-1]


def draw_fig2(
    p_refs: Sequence[float] = FIG2_P_REFS, betas: Sequence[float] = FIG2_BETAS, eps: float = PAPER_EPS
) -> Figure:
    """Fig. 2: h against p with y = p, one panel per p_ref, one curve per beta; fixed points marked."""
    p = _p_grid(eps)
    panels = []
    for p_ref in p_refs:
        curves, fps = [], []
        for beta in betas:
            curves.append((rf"$\beta = {beta:g}$", h(p, p_ref, beta, eps)))
            fps.append([(fp.p, fp.stable) for fp in fixed_points(p_ref, beta, eps)])
        panels.append({"title": rf"$p_{{\mathrm{{ref}}}} = {p_ref:g}$", "curves": curves, "fixed_points": fps})
    return plot_map_panels(p, panels, title=rf"$\varepsilon = {_tex(eps)}$")


def draw_fig3(eps: float = PAPER_EPS, n_beta: int = 241, n_p: int = 241) -> Figure:
    """Fig. 3: where Theorem 3's condition (2) holds over (beta, p_ref), p_ref in (1/2, 1 - 1e-7) on a logit axis.

    (For p_ref <= 1/2 Theorem 3 needs no condition, case (1).)
    """
    beta = np.logspace(-2, 2, n_beta)
    p_ref = expit(np.linspace(0.0, logit(1 - 1e-7), n_p + 1)[1:])
    holds = theorem3_condition(p_ref[:, None], beta[None, :], eps)
    return plot_condition2_region(p_ref, beta, holds, title=rf"Theorem 3's condition (2), $\varepsilon = {_tex(eps)}$")


def draw_fig4(eps_values: Sequence[float] = (PAPER_EPS, 1e-3, 1e-1), n_grid: int = 2001) -> Figure:
    """Fig. 4: Theorem 4's lower bound B(p*) on beta against p*, one curve per eps."""
    p_star = np.linspace(0.0, 1.0, n_grid)[1:-1]
    bounds = [(rf"$\varepsilon = {_tex(eps)}$", theorem4_beta_bound(p_star, eps)) for eps in eps_values]
    return plot_beta_bound(p_star, bounds, r"Theorem 4: $|h'(p^*)| < 1$ iff $\beta > \mathcal{B}(p^*)$")


def draw_fig5(cases: Sequence[tuple[float, float]] = FIG5_CASES, eps: float = PAPER_EPS, n: int = 60) -> Figure:
    """Fig. 5: the iterations p_n = h(p_{n-1}) from p_0 = p_ref, for several (p_ref, beta)."""
    p_ref = np.array([c[0] for c in cases])
    beta = np.array([c[1] for c in cases])
    z = iterate_logit(p_ref, beta, eps, n=n)
    labels = [rf"$\beta = {b:g}$, $p_{{\mathrm{{ref}}}} = {p:g}$" for p, b in cases]
    return plot_iterations(expit(z), z, labels, title=rf"Iterations of Eq. (8), $\varepsilon = {_tex(eps)}$")


def draw_cobweb(p_ref: float = 0.001, beta: float = 5.0, eps: float = PAPER_EPS, *, n: int = 40) -> Figure:
    """Cobweb plots of the n first steps of the orbit from p_ref: in p (whole square, then zoomed on the orbit) side
    by side, and below them in logit coordinates."""
    z_show = iterate_logit(p_ref, beta, eps, n=n)
    fps = fixed_points(p_ref, beta, eps)
    fig, axes = plt.subplot_mosaic([["whole", "zoom"], ["logit", "logit"]], figsize=(6.8, 7.4), layout="constrained")
    p = _p_grid(eps, 4001)
    hp = h(p, p_ref, beta, eps)
    p_fps = [(fp.p, fp.stable) for fp in fps]
    fig.suptitle(rf"$\beta = {beta:g}$, $p_{{\mathrm{{ref}}}} = {p_ref:g}$, $\varepsilon = {_tex(eps)}$")
    plot_cobweb(p, hp, expit(z_show), fixed_points=p_fps, ax=axes["whole"], xlabel="$p$", xlim=(0.0, 1.0))
    settled = expit(z_show[len(z_show) // 2 :])  # zoom on where the orbit settles, not on its transient
    top = float(min(1.0, max(1.5 * float(settled.max()), 0.02)))
    plot_cobweb(
        p,
        hp,
        expit(z_show),
        fixed_points=p_fps,
        ax=axes["zoom"],
        xlabel="$p$",
        title=f"zoom on $[0, {top:.3g}]$",
        xlim=(0.0, top),
    )
    axes["zoom"].get_legend().remove()
    finite = [fp.logit for fp in fps if abs(fp.logit) < 1e4]
    lo = min(float(z_show.min()), *finite, float(logit(p_ref))) - 2.0
    hi = max(float(z_show.max()), *finite) + 2.0
    zz = np.linspace(lo, hi, 1201)
    plot_cobweb(
        zz,
        logit_map(zz, logit(p_ref), beta, eps),
        z_show,
        fixed_points=[(fp.logit, fp.stable) for fp in fps if lo <= fp.logit <= hi],
        ax=axes["logit"],
        xlabel=r"$\operatorname{logit} p$",
        title="the same orbit in logit coordinates",
        xlim=(lo, hi),
    )
    axes["logit"].get_legend().remove()
    return fig


def regime_panel(rmap: RegimeMap, title: str, marks: Sequence[tuple[float, float, str]] = ()) -> dict:
    """Turn a :class:`RegimeMap` computed on an outer (p_ref column, beta row) grid into a plot panel; ``marks``:
    (p_ref, beta, label) points."""
    return {
        "beta": rmap.beta[0],
        "p_ref": rmap.p_ref[:, 0],
        "regime": rmap.regime,
        "stable_elsewhere": rmap.stable_elsewhere,
        "no_stable": rmap.no_stable,
        "marks": list(marks),
        "title": title,
    }


def draw_regime_maps(
    eps_values: Sequence[float] = (PAPER_EPS, 1e-2), *, n_beta: int = 60, n_p: int = 60, marks=((0.001, 5.0, "Fig. 5"),)
) -> Figure:
    """The regime map over (beta, p_ref) for each eps (coarse default grid, for the explorer)."""
    p_ref, beta = regime_grid(n_beta, n_p)
    panels = [regime_panel(regime_map(p_ref, beta, eps), rf"$\varepsilon = {_tex(eps)}$", marks) for eps in eps_values]
    return plot_regime_maps(panels)
