"""The opening figure of the book: success probability along exact GRPO iterations (Thm 2)."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

__all__ = ["success_trajectories"]


def success_trajectories(orbits: np.ndarray, labels: Sequence[str], title: str = "") -> Figure:
    """Plot orbits p_0..p_n (columns = prompts) against the iteration n, one line per prompt."""
    fig, ax = plt.subplots(figsize=(6.8, 3.8), layout="constrained")
    n = np.arange(orbits.shape[0])
    for k, label in enumerate(labels):
        ax.plot(n, orbits[:, k], marker="o", ms=3, label=label)
    ax.set_xlabel("GRPO iteration $n$")
    ax.set_ylabel("probability of success $p_n$")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    return fig
