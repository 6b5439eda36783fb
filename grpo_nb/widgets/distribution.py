"""The ipywidgets explorer of the distribution chapter, for Colab, Binder and local Jupyter: a thin ``interact``
wrapper around :func:`grpo_nb.plots.distribution.draw_explorer`, with sliders for beta, p_ref, n and the clip range
and a box for random rewards (the defaults are the chapter's static figure)."""

from __future__ import annotations

from ipywidgets import Checkbox, FloatSlider, IntSlider, interact

from grpo_nb.constants import PAPER_EPS
from grpo_nb.plots.distribution import draw_explorer
from grpo_nb.widgets.sliders import BETA_RANGE, P_REF_RANGE, log_slider, show

__all__ = ["distribution_explorer"]


def distribution_explorer(
    p_ref: float = 0.1, beta: float = 0.2, eps: float = PAPER_EPS, *, n: int = 20, clip_eps: float = 0.2
):
    """pass@k before and after n exact steps, and the clip bandit's entropy under the four clip modes, with sliders."""

    def update(p_ref: float, beta: float, n: int, clip_eps: float, random_rewards: bool) -> None:
        show(draw_explorer(p_ref, beta, eps, n=n, clip_eps=clip_eps, random_rewards=random_rewards))

    return interact(
        update,
        p_ref=log_slider(p_ref, *P_REF_RANGE, description="p_ref"),
        beta=log_slider(beta, *BETA_RANGE, description="beta"),
        n=IntSlider(value=n, min=1, max=40, step=1),
        clip_eps=FloatSlider(value=clip_eps, min=0.01, max=1.0, step=0.01, description="clip range"),
        random_rewards=Checkbox(value=False, description="random rewards"),
    )
