"""Interactive explorers for paper §2: the weights of Fig. 1 (slider for eps) and the clipped term (slider for
the clip range). Thin ``interact`` wrappers around :mod:`grpo_nb.plots.weights`; defaults reproduce the static
figures of the chapter."""

from __future__ import annotations

from ipywidgets import FloatSlider, interact

from grpo_nb.constants import CLIP_EPS
from grpo_nb.plots.weights import draw_clipped_objective, draw_weights
from grpo_nb.widgets.sliders import show

__all__ = ["clipped_objective_explorer", "weights_explorer"]


def weights_explorer(eps: float = 0.0, ymax: float = 5.0):
    """Fig. 1 with a slider for the smoothing eps (eps = 0 is the unsmoothed Fig. 1; p avoids 0 and 1 there)."""

    def draw(eps: float = eps) -> None:
        fig = draw_weights((eps,), ymax=ymax)
        show(fig)

    return interact(draw, eps=FloatSlider(value=eps, min=0.0, max=0.5, step=0.005, readout_format=".3f"))


def clipped_objective_explorer(clip_eps: float = CLIP_EPS, advantage: float = 1.0):
    """f(x, +A) and f(x, -A) against the ratio x, with sliders for the clip range and |A|."""

    def draw(clip_eps: float = clip_eps, advantage: float = advantage) -> None:
        fig = draw_clipped_objective(clip_eps, advantage)
        show(fig)

    return interact(
        draw,
        clip_eps=FloatSlider(value=clip_eps, min=0.0, max=1.0, step=0.01),
        advantage=FloatSlider(value=advantage, min=0.1, max=3.0, step=0.1),
    )
