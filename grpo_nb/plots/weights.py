"""Figures of paper §2: the contrastive weights (Fig. 1) and the clipped per-sample objective (§2.1).

Figure functions only draw: the values come from :mod:`grpo_nb.weights` and :mod:`grpo_nb.clipping`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from grpo_nb.clipping import clipped_term
from grpo_nb.constants import CLIP_EPS
from grpo_nb.weights import omega_minus, omega_plus

__all__ = ["draw_clipped_objective", "draw_eps_placement", "draw_weights", "plot_clipped_objective", "plot_weights"]

#: p on the open interval, for the unsmoothed weights (eps = 0 is undefined at p = 0 and 1)
P_OPEN = np.linspace(1e-4, 1 - 1e-4, 999)


def plot_weights(
    p: np.ndarray,
    curves: Mapping[str, tuple[np.ndarray, np.ndarray]],
    *,
    ymax: float = 5.0,
    logy: bool = False,
    title: str = "GRPO's weights against the success probability of the old policy",
) -> Figure:
    """Paper Fig. 1: omega^+ (successes, solid) and omega^- (failures, dashed) against p, one colour per label.

    ``logy`` draws the weight axis logarithmically, over four decades below ``ymax``."""
    fig, ax = plt.subplots(figsize=(6.8, 4.4), layout="constrained")
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (label, (w_plus, w_minus)) in enumerate(curves.items()):
        c = colours[k % len(colours)]
        ax.plot(p, w_plus, color=c, lw=2, label=rf"$\omega^+$ (success), {label}")
        ax.plot(p, w_minus, color=c, lw=2, ls="--", label=rf"$\omega^-$ (failure), {label}")
    ax.axvline(0.5, color="grey", lw=0.8, ls=":")
    ax.set_xlim(0, 1)
    if logy:
        ax.set_yscale("log")
        ax.set_ylim(ymax * 1e-4, ymax)
    else:
        ax.set_ylim(0, ymax)
    ax.set_xlabel("probability of success $p$ of the old policy")
    ax.set_ylabel("weight")
    ax.set_title(title)
    if len(curves) > 1:  # several pairs of curves: the legend goes under the axes, two entries a row
        fig.legend(loc="outside lower center", ncols=2)
    else:
        ax.legend(loc="upper center")
    return fig


def plot_clipped_objective(
    ratio: np.ndarray,
    clipped: Mapping[str, np.ndarray],
    unclipped: Mapping[str, np.ndarray],
    *,
    clip_eps: float,
) -> Figure:
    """The clipped term f(x, A) against the ratio x = pi_theta/pi_old, one panel per advantage (§2.1).

    ``clipped`` and ``unclipped`` map a panel title (e.g. "A = +1") to the values on ``ratio``; the
    trust region [1 - clip_eps, 1 + clip_eps] is shaded.
    """
    if not 1 <= len(clipped) <= 2:
        raise ValueError(f"clipped: one or two panels side by side, got {len(clipped)}")
    fig, axes = plt.subplots(1, len(clipped), figsize=(6.8, 3.6), layout="constrained", sharex=True)
    axes = np.atleast_1d(axes)
    for ax, (label, values) in zip(axes, clipped.items(), strict=True):
        ax.axvspan(1 - clip_eps, 1 + clip_eps, color="grey", alpha=0.15, label="trust region")
        ax.plot(ratio, unclipped[label], color="grey", ls="--", lw=1, label=r"$xA$ (no clip)")
        ax.plot(ratio, values, lw=2, label=r"$f_\epsilon(x, A)$")
        ax.set_title(label)
        ax.set_xlabel(r"ratio $x = \pi_\theta / \pi_{\mathrm{old}}$")
    axes[0].set_ylabel("per-sample objective")
    axes[0].legend()
    return fig


def draw_weights(
    eps_values: Sequence[float] = (0.0,),
    p: np.ndarray = P_OPEN,
    *,
    ymax: float = 5.0,
    logy: bool = False,
    title: str = "GRPO's weights against the success probability of the old policy",
) -> Figure:
    """Paper Fig. 1 (eps = 0) and its smoothed versions: omega^+_eps and omega^-_eps of Eq. 4 for each eps."""
    curves = {rf"$\varepsilon = {e:g}$": (omega_plus(p, e), omega_minus(p, e)) for e in eps_values}
    return plot_weights(p, curves, ymax=ymax, logy=logy, title=title)


def draw_clipped_objective(clip_eps: float = CLIP_EPS, advantage: float = 1.0) -> Figure:
    """§2.1's clipped term f(x, +A) (a success) and f(x, -A) (a failure) against the ratio x, with x A dashed."""
    ratio = np.linspace(0.0, 2.0, 401)
    panels = {rf"$A = +{advantage:g}$ (success)": advantage, rf"$A = -{advantage:g}$ (failure)": -advantage}
    return plot_clipped_objective(
        ratio,
        {k: clipped_term(ratio, a, clip_eps) for k, a in panels.items()},
        {k: ratio * a for k, a in panels.items()},
        clip_eps=clip_eps,
    )


def draw_eps_placement(eps: float = 1e-2) -> Figure:
    """Eq. 4 (eps inside the root) against Eq. 3 as printed (eps outside), on a logarithmic weight axis."""
    p = np.geomspace(1e-6, 0.5, 400)
    p = np.concatenate([p, 1 - p[::-1][1:]])
    curves = {
        r"$\varepsilon$ inside (Eq. 4)": (omega_plus(p, eps), omega_minus(p, eps)),
        r"$\varepsilon$ outside (Eq. 3 printed)": (
            omega_plus(p, eps, eps_inside_root=False),
            omega_minus(p, eps, eps_inside_root=False),
        ),
    }
    title = rf"Where $\varepsilon$ sits, $\varepsilon = {eps:g}$"
    return plot_weights(p, curves, ymax=200.0, logy=True, title=title)
