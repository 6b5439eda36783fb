"""ipywidgets explorers of the variants chapter, for Colab, Binder and local Jupyter.

Thin ``interact`` wrappers around the ``draw_*`` functions of :mod:`grpo_nb.plots.variants`, with sliders for beta,
p_ref, eps and the weight alpha of the KL to pi_ref (defaults = the chapter's static figures).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from ipywidgets import FloatLogSlider, FloatSlider, IntSlider, interact
from matplotlib.figure import Figure

from grpo_nb.dynamics.regimes import regime_map
from grpo_nb.plots.paper_figures import regime_grid
from grpo_nb.plots.variants import draw_variant_orbits, draw_variant_regime_maps
from grpo_nb.variants.variant import Variant

__all__ = ["variant_explorer", "variant_regime_explorer"]


def _log_slider(value: float, lo: float, hi: float, description: str) -> FloatLogSlider:
    return FloatLogSlider(value=value, base=10, min=np.log10(lo), max=np.log10(hi), step=0.01, description=description)


def _alpha_slider(value: float) -> FloatSlider:
    return FloatSlider(value=value, min=0.0, max=1.0, step=0.05, description="alpha")


def _show(fig: Figure) -> None:
    plt.show()
    plt.close(fig)


def variant_explorer(beta: float = 5.0, p_ref: float = 1e-3, eps: float = 1e-5, alpha: float = 0.5, n: int = 40):
    """Orbits of the four variants and the cobwebs of mean+var and mean-only at alpha, with sliders."""

    def update(beta: float, p_ref: float, eps: float, alpha: float, n: int) -> None:
        _show(draw_variant_orbits(p_ref, beta, eps, alpha, n))

    return interact(
        update,
        beta=_log_slider(beta, 1e-3, 1e3, "beta"),
        p_ref=_log_slider(p_ref, 1e-6, 0.999, "p_ref"),
        eps=_log_slider(eps, 1e-9, 1.0, "eps"),
        alpha=_alpha_slider(alpha),
        n=IntSlider(value=n, min=5, max=200, step=5),
    )


def variant_regime_explorer(alpha: float = 0.5, eps: float = 1e-5):
    """The regime maps of the paper's iteration and of mean+var at alpha, on a coarse 40 x 40 grid."""

    def update(alpha: float, eps: float) -> None:
        p_ref, beta = regime_grid(40, 40)
        maps = {v: regime_map(p_ref, beta, eps, variant=v) for v in (Variant(), Variant("mean_var", alpha))}
        _show(draw_variant_regime_maps(maps, ncols=2))

    return interact(update, alpha=_alpha_slider(alpha), eps=_log_slider(eps, 1e-9, 1.0, "eps"))
