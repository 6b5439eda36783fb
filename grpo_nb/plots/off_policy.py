"""The figure of section "Off-policy correction: token or sequence, truncate or mask" (chapter "Questions from the
trackers"): for each correction, how its mean step compares with the on-policy step as the sampler falls further
behind.

Takes the surveys, one per lag (objects with a ``lag`` and ``steps``, each step with a ``label``, ``angle``, ``gain``
and ``variance``, as ``grpo_nb.chapters.tracker_questions.off_policy.mode_survey`` returns them), and returns a
matplotlib Figure. Like every figure module, it imports nothing from the chapters' analyses.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

__all__ = ["MODE_STYLES", "plot_correction_lags"]

#: (colour, line style, marker) per correction, in the order of the surveys' steps: the two that coincide at small
#: lags (no correction, the off-policy mask) dashed and dotted, so both show.
MODE_STYLES: tuple[tuple[str, str, str], ...] = (
    ("#7f7f7f", "--", ""),
    ("#1f77b4", "-", "o"),
    ("#56b4e9", ":", "o"),
    ("#e69f00", "-", "s"),
    ("#d2553f", "-", "s"),
    ("#2ca02c", "-", "^"),
    ("#7f3c8d", ":", "v"),
)


def plot_correction_lags(surveys: Sequence[object]) -> Figure:
    """Three panels against the sampler's lag: the angle of each correction's mean step to the on-policy step, the
    rate at which it raises p (share of the on-policy rate), and its variance (multiple of the on-policy one)."""
    lags = [s.lag for s in surveys]
    fig, axes = plt.subplots(1, 3, figsize=(9.6, 3.2), sharex=True)
    for k, (colour, style, marker) in enumerate(MODE_STYLES):
        label = surveys[0].steps[k].label
        steps = [s.steps[k] for s in surveys]
        for ax, values in zip(axes, ([x.angle for x in steps], [x.gain for x in steps], [x.variance for x in steps]),
                              strict=True):  # fmt: skip
            ax.plot(lags, values, color=colour, ls=style, marker=marker, ms=4, label=label)
    axes[0].set_ylabel("degrees")
    axes[0].set_title("angle to the on-policy step")
    axes[1].set_title("rise of $p$, share of on-policy")
    axes[1].axhline(1.0, color="k", lw=0.6)
    axes[2].set_title("variance, × on-policy")
    axes[2].set_yscale("log")
    for ax in axes:
        ax.set_xlabel("sampler's lag (steps)")
        ax.set_xscale("log", base=2)
        ax.set_xticks(lags[::2] if len(lags) > 5 else lags, [str(x) for x in (lags[::2] if len(lags) > 5 else lags)])
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncols=4, fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, -0.12))  # fmt: skip
    return fig
