"""Interactive bifurcation diagram of GRPO's success recursion (Eq. 8) for hard prompts: sliders for p_ref and eps.

Defaults reproduce the chapter's static figure for p_ref = 1e-4 at the paper's eps = 1e-5 (Fig. 5's setting).
"""

from __future__ import annotations

import numpy as np
from ipywidgets import Dropdown, FloatSlider, interact

from grpo_nb.constants import PAPER_EPS
from grpo_nb.plots.bifurcation import draw_bifurcation_diagram
from grpo_nb.widgets.sliders import show

__all__ = ["bifurcation_explorer"]


def bifurcation_explorer(
    p_ref: float = 1e-4, eps: float = PAPER_EPS, *, beta_min: float = 0.2, beta_max: float = 30.0, n_beta: int = 600
):
    """Bifurcation diagram over beta (log grid) with the Lyapunov exponent underneath; a slider for log10 p_ref
    (1e-4 to 1e-2, and up to 0.5 to see the cycles disappear) and a menu for eps."""
    beta = np.geomspace(beta_min, beta_max, n_beta)
    eps_options = sorted({PAPER_EPS, 1e-4, 1e-3, 1e-2, 1e-1, float(eps)})

    def draw(log10_p_ref: float = float(np.log10(p_ref)), eps: float = float(eps)) -> None:
        options = {"transient": 2000, "n_lyapunov": 1024, "n_keep": 64, "max_period": 32}
        fig = draw_bifurcation_diagram(10.0**log10_p_ref, beta, eps, **options)
        show(fig)

    return interact(
        draw,
        log10_p_ref=FloatSlider(
            value=float(np.log10(p_ref)), min=-4.0, max=-0.31, step=0.05, description="log10 p_ref"
        ),
        eps=Dropdown(options=[(f"{e:.0e}", e) for e in eps_options], value=float(eps), description="eps"),
    )
