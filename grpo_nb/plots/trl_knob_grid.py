"""The knob grid's figure: per cell, the prompts that end below p_ref and those that dip below it at some step.

Takes per-seed values (no statistics computed here beyond the mean and standard error drawn) and returns a
matplotlib Figure.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

__all__ = ["plot_knob_grid"]


def _se(values: Sequence[float]) -> float:
    v = np.asarray(values, dtype=float)
    return float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else 0.0


def plot_knob_grid(panels: Sequence[tuple[str, Sequence[str], Sequence[Sequence[float]], Sequence[Sequence[float]]]],
                   *, n_prompts: int) -> Figure:  # fmt: skip
    """One panel per side of the grid, stacked (``panels``: title, row labels with the baseline first, per row the
    seeds' counts of prompts ending below p_ref and of prompts dipping below it at some step). Each seed's count
    ending below is a dot, their mean a bar with its standard error; the mean count dipping below is an open
    diamond with its standard error."""
    heights = [len(p[1]) for p in panels]
    fig, axes = plt.subplots(
        len(panels), 1, figsize=(6.8, 0.36 * sum(heights) + 1.6), height_ratios=heights, sharex=True,
        layout="constrained",
    )  # fmt: skip
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, (title, labels, ended, dipped) in zip(np.atleast_1d(axes), panels, strict=True):
        y = np.arange(len(labels))
        mean = np.array([np.mean(v) for v in ended])
        ax.barh(y, mean, xerr=[_se(v) for v in ended], color=colours[0], alpha=0.45, height=0.6,
                error_kw={"lw": 1.2, "capsize": 3}, label="end below (bar: mean ± s.e.; dots: seeds)")  # fmt: skip
        for i, values in enumerate(ended):
            jitter = np.linspace(-0.18, 0.18, len(values)) if len(values) > 1 else np.zeros(1)
            ax.plot(values, i + jitter, "o", color=colours[0], ms=3.2)
        ax.errorbar([np.mean(v) for v in dipped], y, xerr=[_se(v) for v in dipped], fmt="D", mfc="none",
                    color=colours[1], ms=5, capsize=3, label="dip below at some step (mean ± s.e.)")  # fmt: skip
        ax.axhline(0.5, color="0.6", lw=0.8)  # the baseline above the line, its cells below
        ax.set_yticks(y, labels)
        ax.invert_yaxis()
        ax.set_title(title, fontsize=10, loc="left")
        ax.grid(axis="x", alpha=0.3)
    last = np.atleast_1d(axes)[-1]
    last.set_xlabel(rf"prompts below $p_{{\mathrm{{ref}}}}$ (of {n_prompts})", fontsize=10)
    last.set_xlim(-0.3, n_prompts + 0.5)
    handles, names = last.get_legend_handles_labels()
    fig.legend(handles, names, loc="outside lower center", ncols=1, frameon=False, fontsize=9)
    return fig
