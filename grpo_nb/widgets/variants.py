"""ipywidgets explorers of the variants chapter, for Colab, Binder and local Jupyter.

Thin ``interact`` wrappers around the ``draw_*`` functions of :mod:`grpo_nb.plots.variants`, with sliders for p_ref,
beta, eps and the weight alpha of the KL to pi_ref (defaults = the chapter's static figures).
"""

from __future__ import annotations

from ipywidgets import IntSlider, interact

from grpo_nb.constants import PAPER_EPS
from grpo_nb.plots.variants import draw_alpha_regime_maps, draw_variant_orbits
from grpo_nb.widgets.sliders import alpha_slider, eps_slider, map_sliders, show

__all__ = ["variant_explorer", "variant_regime_explorer"]


def variant_explorer(
    p_ref: float = 1e-3, beta: float = 5.0, eps: float = PAPER_EPS, *, alpha: float = 0.5, n: int = 40
):
    """Orbits of the four variants and the cobwebs of mean+var and mean-only at alpha, with sliders."""

    def update(p_ref: float, beta: float, eps: float, alpha: float, n: int) -> None:
        show(draw_variant_orbits(p_ref, beta, eps, alpha=alpha, n=n))

    return interact(
        update,
        **map_sliders(p_ref, beta, eps),
        alpha=alpha_slider(alpha),
        n=IntSlider(value=n, min=5, max=200, step=5),
    )


def variant_regime_explorer(eps: float = PAPER_EPS, alpha: float = 0.5):
    """The regime maps of the paper's iteration and of mean+var at alpha, on a coarse 40 x 40 grid."""

    def update(eps: float, alpha: float) -> None:
        show(draw_alpha_regime_maps(alpha, eps, n_beta=40, n_p=40))

    return interact(update, eps=eps_slider(eps), alpha=alpha_slider(alpha))
