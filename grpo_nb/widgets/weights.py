"""Interactive explorers for paper §2: the weights of Fig. 1 (slider for eps) and the clipped term (slider for
the clip range). Defaults reproduce the static figures of the chapter."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from ipywidgets import FloatSlider, interact

from grpo_nb.clipping import clipped_term
from grpo_nb.plots.weights import plot_clipped_objective, plot_weights
from grpo_nb.weights import omega_minus, omega_plus

__all__ = ["clipped_objective_explorer", "weights_explorer"]

_P_OPEN = np.linspace(1e-4, 1 - 1e-4, 999)


def weights_explorer(eps: float = 0.0, ymax: float = 5.0):
    """Fig. 1 with a slider for the smoothing eps (eps = 0 is the unsmoothed Fig. 1; p avoids 0 and 1 there)."""

    def draw(eps: float = eps) -> None:
        fig = plot_weights(
            _P_OPEN,
            {rf"$\varepsilon$ = {eps:.3g}": (omega_plus(_P_OPEN, eps), omega_minus(_P_OPEN, eps))},
            ymax=ymax,
        )
        plt.show()
        plt.close(fig)

    return interact(draw, eps=FloatSlider(value=eps, min=0.0, max=0.5, step=0.005, readout_format=".3f"))


def clipped_objective_explorer(clip_eps: float = 0.2, advantage: float = 1.0):
    """f(x, +A) and f(x, -A) against the ratio x, with sliders for the clip range and |A|."""
    ratio = np.linspace(0.0, 2.0, 401)

    def draw(clip_eps: float = clip_eps, advantage: float = advantage) -> None:
        labels = {f"A = +{advantage:.2f}": advantage, f"A = -{advantage:.2f}": -advantage}
        fig = plot_clipped_objective(
            ratio,
            {k: clipped_term(ratio, a, clip_eps) for k, a in labels.items()},
            {k: ratio * a for k, a in labels.items()},
            clip_eps,
        )
        plt.show()
        plt.close(fig)

    return interact(
        draw,
        clip_eps=FloatSlider(value=clip_eps, min=0.0, max=1.0, step=0.01),
        advantage=FloatSlider(value=advantage, min=0.1, max=3.0, step=0.1),
    )
