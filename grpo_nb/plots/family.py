"""Figures of the chapter "The GRPO family": each normalisation's gap s(p) next to Eq. 4's weights, the regime
maps of the success recursion per normalisation, and (the page on the new rows) the weight each row puts on an
off-policy token.

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

__all__ = ["FAMILY_RECURSIONS", "TOKEN_WEIGHT_STYLES", "draw_entropy_bonus", "draw_family_regimes", "draw_gaps",
           "draw_token_weights"]  # fmt: skip

#: The rows of the token-weight figure and their (colour, line style): the hard clip, CISPO's cap, the new rows.
TOKEN_WEIGHT_STYLES = {"grpo": ("#1f77b4", "-"), "cispo": ("#7f7f7f", ":"), "sapo": ("#d2553f", "-"),
                       "vespo": ("#2ca02c", "--")}  # fmt: skip

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


def draw_token_weights(weights: dict[float, dict[str, np.ndarray]], x: np.ndarray, labels: dict[str, str]) -> Figure:
    """Two panels, A > 0 and A < 0: the weight on a token's score against its ratio ``x``, one line per row of
    ``weights[advantage]`` (computed by :func:`grpo_nb.chapters.grpo_family.token_weights`)."""
    fig, axes = plt.subplots(1, 2, figsize=(6.4, 2.8), sharey=True)
    for ax, (a, rows) in zip(axes, weights.items(), strict=True):
        for name, c in rows.items():
            colour, style = TOKEN_WEIGHT_STYLES[name]
            ax.plot(x, np.abs(c), color=colour, ls=style, lw=1.8, label=labels[name])
        ax.set_title(f"$A {'>' if a > 0 else '<'} 0$", fontsize=10)
        ax.set_xlabel("ratio $x$")
    axes[0].set_ylabel("weight on the score")
    axes[0].set_ylim(0, 3)
    axes[0].legend(fontsize=8, loc="upper left")
    return fig


def draw_entropy_bonus(coefs: np.ndarray, curves: dict[str, dict[str, np.ndarray]], p_refs: dict[str, float]) -> Figure:
    """Two panels against the entropy coefficient c (log axis, c > 0): where the exact steps settle from p_ref, with
    the tempered p_ref dashed and p_ref dotted, per reference; and the entropy of the policy there (curves from
    :func:`grpo_nb.chapters.grpo_family.bonus_curves`)."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(6.4, 2.8))
    for (name, cols), colour in zip(curves.items(), ("#1f77b4", "#d2553f"), strict=False):
        left.plot(coefs, cols["limit"], color=colour, lw=1.8, label=f"{name}: limit")
        left.plot(coefs, cols["tempered"], color=colour, lw=1, ls="--", label=rf"{name}: $P_\gamma$")
        left.axhline(p_refs[name], color=colour, lw=0.8, ls=":")
        right.plot(coefs, cols["entropy"], color=colour, lw=1.8, label=name)
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_xlabel("entropy coefficient $c$")
    left.set_ylabel("success probability")
    left.set_ylim(0, 1)
    right.set_ylabel("entropy (nats)")
    left.legend(fontsize=7, loc="upper right")
    right.legend(fontsize=7, loc="lower right")
    return fig
