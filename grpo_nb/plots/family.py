"""Figures of the chapter "The GRPO family": each normalisation's gap s(p) next to Eq. 4's weights, and the regime
maps of the success recursion per normalisation.

The ``draw_*`` functions compute with :mod:`grpo_nb.family`, :mod:`grpo_nb.variants` and :mod:`grpo_nb.dynamics` and
return the matplotlib Figure; the regime maps are drawn by :func:`grpo_nb.plots.dynamics.plot_regime_maps`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from grpo_nb.constants import PAPER_EPS
from grpo_nb.dynamics.regimes import regime_grid, regime_map
from grpo_nb.family.objectives import SuccessOnlyRecursion, gap
from grpo_nb.plots.dynamics import plot_regime_maps
from grpo_nb.plots.paper_figures import regime_panel
from grpo_nb.ustat.finite_group import signal_retention
from grpo_nb.variants.variant import Variant
from grpo_nb.weights import omega_minus, omega_plus

__all__ = ["FAMILY_RECURSIONS", "draw_family_regimes", "draw_gaps"]

#: The recursions of the regime figure: (title, recursion).
FAMILY_RECURSIONS = (
    ("GRPO (std), Theorem 2", Variant()),
    ("Dr. GRPO, RLOO (mean only)", Variant("mean")),
    ("successes only (log p)", SuccessOnlyRecursion()),
)


def draw_gaps(eps: float = PAPER_EPS) -> Figure:
    """s(p) = w+ + w- of each normalisation (the slope of what it climbs) as G -> infinity, with Eq. 4's omega+ and
    omega-, and GRPO's gap at G = 8 and G = 2, rho_G(p) s(p) (:func:`grpo_nb.ustat.finite_group.signal_retention`)."""
    p = np.linspace(0.005, 0.995, 397)
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.plot(p, gap(p, "std", eps), color="#1f77b4", lw=2, label=r"std, $G \to \infty$: $1/\sqrt{p(1-p)+\varepsilon}$")
    for G, shade in ((8, "#5fa2d6"), (2, "#9ecae9")):
        finite = signal_retention(p, G, eps) * gap(p, "std", eps)
        ax.plot(
            p,
            finite,
            color=shade,
            lw=1.6,
            ls="-.",
            zorder=3,
            label=rf"std, $G = {G}$: $\rho_{G}(p)/\sqrt{{p(1-p)+\varepsilon}}$",
        )
    ax.plot(p, omega_plus(p, eps), color="#1f77b4", ls="--", lw=1, label=r"$\omega^+_\varepsilon(p)$")
    ax.plot(p, omega_minus(p, eps), color="#1f77b4", ls=":", lw=1, label=r"$\omega^-_\varepsilon(p)$")
    ax.plot(p, gap(p, "mean"), color="#d2553f", lw=2, label=r"mean only: $1$")
    ax.plot(p, gap(p, "log"), color="#2ca02c", lw=2, label=r"successes only: $1/p$")
    ax.set_yscale("log")
    ax.set_ylim(0.1, 2000)
    ax.set_xlabel(r"success probability $p$")
    ax.set_ylabel(r"gap $s(p) = w^+ + w^-$")
    ax.legend(fontsize=7.5, ncol=2, loc="upper center")
    return fig


def draw_family_regimes(eps: float = PAPER_EPS, *, n_beta: int = 40, n_p: int = 40) -> Figure:
    """Regime maps over the (beta, p_ref) grid of :func:`grpo_nb.dynamics.regimes.regime_grid`, one panel per
    recursion of :data:`FAMILY_RECURSIONS`, two panels a row."""
    p_ref, beta = regime_grid(n_beta, n_p)
    panels = [regime_panel(regime_map(p_ref, beta, eps, variant=rec), title) for title, rec in FAMILY_RECURSIONS]
    fig = plot_regime_maps(panels, ncols=2)
    fig.set_size_inches(6.8, 3.2 * 2 + 1.2)
    return fig
