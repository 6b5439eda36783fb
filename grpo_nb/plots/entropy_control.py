"""The figures of the page "Controlling the entropy" (chapter "The GRPO family"): TRL's adaptive entropy coefficient
on the toy task, and the exact steps with a fixed and an annealed entropy bonus.

Each takes the page's data (per run, an object with the arrays ``entropy``, ``coef`` and ``success``, as
``grpo_nb.chapters.grpo_family.entropy_control.ControllerRun`` holds them; or the orbits of its annealing survey) and
returns a matplotlib Figure. Like every figure module, it imports nothing from the chapters' analyses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

__all__ = ["RUN_COLOURS", "plot_annealing", "plot_controller_runs"]

#: The colour of each run of :func:`plot_controller_runs`, by its key.
RUN_COLOURS = {"no bonus": "#7f7f7f", "adaptive": "#d2553f"}


def plot_controller_runs(runs: Mapping[str, object], target: float) -> Figure:
    """Three panels against the optimiser step: each run's mean token entropy (the ``target`` dotted), the adaptive
    run's coefficient, and each run's exact mean success probability."""
    fig, axes = plt.subplots(1, 3, figsize=(9.6, 3.0), sharex=True)
    for name, run in runs.items():
        colour = RUN_COLOURS.get(name, "k")
        steps = np.arange(1, run.entropy.size + 1)
        axes[0].plot(steps, run.entropy, color=colour, label=name)
        if np.isfinite(run.coef).all():
            axes[1].plot(steps, run.coef, color=colour, label=name)
        axes[2].plot(np.arange(run.success.size), run.success, color=colour, label=name)
    axes[0].axhline(target, color="k", lw=0.8, ls=":", label="target")
    axes[0].set_yscale("log")
    axes[0].set_title("mean token entropy (nats)")
    axes[1].set_title("entropy coefficient")
    axes[2].set_title("mean success probability")
    for ax in axes:
        ax.set_xlabel("optimiser step")
    axes[0].legend(fontsize=8, loc="upper right")
    return fig


def plot_annealing(orbits: Mapping[str, np.ndarray], stable: Sequence[float]) -> Figure:
    """The success probability p_k of each orbit of ``orbits`` (label -> p_0..p_n) against the step k, with the
    stable fixed points of the map without a bonus (``stable``) dotted."""
    fig, ax = plt.subplots(figsize=(6.4, 3.0))
    for (label, p), colour in zip(orbits.items(), ("#7f7f7f", "#1f77b4", "#d2553f"), strict=False):
        ax.plot(np.arange(p.size), p, color=colour, label=label)
    for p_star in stable:
        ax.axhline(p_star, color="k", lw=0.8, ls=":")
    ax.set_xlabel("step $k$")
    ax.set_ylabel("success probability $p_k$")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=8, loc="lower right")
    return fig
