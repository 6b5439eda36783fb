"""Interactive law of the finite-group success recursion: sliders for p_ref, beta and G, a menu for what happens to
groups without signal. Defaults: the group-size chapter's zero-variance case (p_ref = 0.01, beta = 1, G = 8)."""

from __future__ import annotations

import numpy as np
from ipywidgets import Dropdown, FloatSlider, IntSlider, interact

from grpo_nb.constants import PAPER_EPS
from grpo_nb.plots.ustat import draw_finite_group_law
from grpo_nb.widgets.sliders import show

__all__ = ["finite_group_explorer"]


def finite_group_explorer(p_ref: float = 0.01, beta: float = 1.0, eps: float = PAPER_EPS, *, G: int = 8, n: int = 20):
    """Mean and q10-q90 band of p_n for groups of G (Algorithm 1's inner problem solved), against Theorem 2's h."""

    def draw(
        log10_p_ref: float = float(np.log10(p_ref)), beta: float = beta, G: int = G, no_signal: str = "keep"
    ) -> None:
        fig = draw_finite_group_law(10.0**log10_p_ref, beta, eps, G=G, no_signal=no_signal, n=n)
        show(fig)

    return interact(
        draw,
        log10_p_ref=FloatSlider(
            value=float(np.log10(p_ref)), min=-4.0, max=-0.05, step=0.05, description="log10 p_ref"
        ),
        beta=FloatSlider(value=beta, min=0.2, max=20.0, step=0.1, description="beta"),
        G=IntSlider(value=G, min=2, max=256, step=1, description="G"),
        no_signal=Dropdown(options=["keep", "drop", "resample"], value="keep", description="no signal"),
    )
