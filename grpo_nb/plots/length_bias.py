"""The length-bias figure of section "Long, wrong answers get longer" (chapter "Questions from the trackers"): the
mean length of wrong and right answers along exact expected steps of each TRL ``loss_type``, against the success
probability it reaches.

Takes the trajectories (:class:`grpo_nb.family.length_bias.Trajectory`, computed by
:func:`grpo_nb.family.length_bias.expected_trajectory`) and returns a matplotlib Figure.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from grpo_nb.family.length_bias import Trajectory

__all__ = ["LINE_STYLES", "plot_length_drift"]

#: (colour, line style) per loss type: the two without bias dashed and dotted, so that both show where they coincide.
LINE_STYLES: dict[str, tuple[str, str]] = {
    "grpo": ("#d2553f", "-"),
    "bnpo": ("#e69f00", "-"),
    "dapo": ("#1f77b4", "-"),
    "dr_grpo": ("#2ca02c", "--"),
    "luspo": ("#7f3c8d", ":"),
}


def plot_length_drift(trajectories: Mapping[str, Trajectory]) -> Figure:
    """Two panels, wrong answers and right answers: E[L | r] against the success probability p along each
    trajectory of ``trajectories`` (one per loss type, its key the legend's label)."""
    fig, axes = plt.subplots(1, 2, figsize=(6.8, 3.4), sharex=True)
    for loss_type, path in trajectories.items():
        colour, style = LINE_STYLES.get(loss_type, ("k", "-"))
        for ax, length in zip(axes, (path.wrong_length, path.right_length), strict=True):
            ax.plot(path.success, length, color=colour, ls=style, label=loss_type)
    for ax, title in zip(axes, ("wrong answers", "right answers"), strict=True):
        ax.set_title(title)
        ax.set_xlabel(r"success probability $p$")
    axes[0].set_ylabel(r"mean length $E[L \mid r]$ (tokens)")
    axes[0].legend(loc="upper left", ncols=2, fontsize=9)
    return fig
