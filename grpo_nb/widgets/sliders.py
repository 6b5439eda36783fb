"""The sliders every explorer shares: log-scale sliders over the book's parameter ranges, and how a figure is shown.

The ranges are those the package's numerics are tested on (beta in [1e-3, 1e3], eps in [1e-9, 1] on a log scale,
p_ref in [1e-6, 0.999]); the explorers of :mod:`grpo_nb.widgets.dynamics` and :mod:`grpo_nb.widgets.variants` take
their sliders from here, and every explorer shows its figure with :func:`show`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from ipywidgets import FloatLogSlider, FloatSlider
from matplotlib.figure import Figure

__all__ = [
    "ALPHA_RANGE",
    "BETA_RANGE",
    "EPS_RANGE",
    "P_REF_RANGE",
    "alpha_slider",
    "eps_slider",
    "log_slider",
    "map_sliders",
    "show",
]

P_REF_RANGE = (1e-6, 0.999)
BETA_RANGE = (1e-3, 1e3)
EPS_RANGE = (1e-9, 1.0)
ALPHA_RANGE = (0.0, 1.0)


def log_slider(value: float, lo: float, hi: float, *, description: str) -> FloatLogSlider:
    """A base-10 log slider from ``lo`` to ``hi`` (steps of 0.01 in log10) starting at ``value``."""
    return FloatLogSlider(value=value, base=10, min=np.log10(lo), max=np.log10(hi), step=0.01, description=description)


def eps_slider(eps: float) -> FloatLogSlider:
    """The log slider for the variance smoothing eps over ``EPS_RANGE``."""
    return log_slider(eps, *EPS_RANGE, description="eps")


def alpha_slider(alpha: float) -> FloatSlider:
    """The slider for the weight alpha of the KL to pi_ref, over ``ALPHA_RANGE`` in steps of 0.05."""
    return FloatSlider(value=alpha, min=ALPHA_RANGE[0], max=ALPHA_RANGE[1], step=0.05, description="alpha")


def map_sliders(p_ref: float, beta: float, eps: float) -> dict[str, FloatLogSlider]:
    """Log sliders for the map's three parameters over the book's ranges, keyed by name (shown p_ref, beta, eps)."""
    return {
        "p_ref": log_slider(p_ref, *P_REF_RANGE, description="p_ref"),
        "beta": log_slider(beta, *BETA_RANGE, description="beta"),
        "eps": eps_slider(eps),
    }


def show(fig: Figure) -> None:
    """Show ``fig`` below the sliders and close it, so that a moved slider does not pile up figures."""
    plt.show()
    plt.close(fig)
