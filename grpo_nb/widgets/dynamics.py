"""ipywidgets explorers of the paper's §3-§4 figures, for Colab, Binder and local Jupyter.

Each explorer is a thin ``interact`` wrapper around a ``draw_*`` function of :mod:`grpo_nb.plots.paper_figures`,
with sliders for p_ref, beta and eps whose defaults reproduce the static figures of the chapters.
"""

from __future__ import annotations

from ipywidgets import IntSlider, interact

from grpo_nb.constants import PAPER_EPS
from grpo_nb.plots.paper_figures import draw_cobweb, draw_fig2, draw_fig3, draw_fig4, draw_fig5, draw_regime_maps
from grpo_nb.widgets.sliders import eps_slider, map_sliders, show

__all__ = [
    "cobweb_explorer",
    "fig2_explorer",
    "fig3_explorer",
    "fig4_explorer",
    "fig5_explorer",
    "regime_map_explorer",
]


def fig2_explorer(p_ref: float = 0.1, beta: float = 1.0, eps: float = PAPER_EPS):
    """Fig. 2 for one (p_ref, beta, eps): sliders (log scale)."""

    def update(p_ref: float, beta: float, eps: float) -> None:
        show(draw_fig2((p_ref,), (beta,), eps))

    return interact(
        update,
        **map_sliders(p_ref, beta, eps),
    )


def fig3_explorer(eps: float = PAPER_EPS):
    """Fig. 3 with a slider for eps (beta and p_ref are the axes)."""

    def update(eps: float) -> None:
        show(draw_fig3(eps, 121, 121))

    return interact(update, eps=eps_slider(eps))


def fig4_explorer(eps: float = PAPER_EPS):
    """Fig. 4 with a slider for eps."""

    def update(eps: float) -> None:
        show(draw_fig4((eps,)))

    return interact(update, eps=eps_slider(eps))


def fig5_explorer(p_ref: float = 0.001, beta: float = 5.0, eps: float = PAPER_EPS, *, n: int = 60):
    """Fig. 5 for one (p_ref, beta, eps), with the number of iterations."""

    def update(p_ref: float, beta: float, eps: float, n: int) -> None:
        show(draw_fig5(((p_ref, beta),), eps, n))

    return interact(
        update,
        **map_sliders(p_ref, beta, eps),
        n=IntSlider(value=n, min=5, max=300, step=5),
    )


def cobweb_explorer(p_ref: float = 0.001, beta: float = 5.0, eps: float = PAPER_EPS):
    """Cobweb plots (p and logit coordinates) with sliders for p_ref, beta and eps."""

    def update(p_ref: float, beta: float, eps: float) -> None:
        show(draw_cobweb(p_ref, beta, eps))

    return interact(
        update,
        **map_sliders(p_ref, beta, eps),
    )


def regime_map_explorer(eps: float = PAPER_EPS):
    """The regime map on a coarse 60 x 60 grid, with a slider for eps."""

    def update(eps: float) -> None:
        show(draw_regime_maps((eps,)))

    return interact(update, eps=eps_slider(eps))
