"""Figures of paper §2.4: Algorithm 1's success probabilities per prompt against Theorem 2's recursion."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

__all__ = ["plot_algorithm1_run"]


def plot_algorithm1_run(
    p_true: np.ndarray,
    p_hat: np.ndarray,
    p_theory: np.ndarray,
    *,
    labels: Sequence[str],
    title: str = "",
) -> Figure:
    """True success probability p_n (solid), the group estimate p_hat used at iteration n (crosses) and the
    exact recursion p_n = h(p_{n-1}) (dotted), one colour per prompt (``labels``, mathtext). Shapes (M+1, Q), (M, Q),
    (M+1, Q)."""
    fig, ax = plt.subplots(figsize=(6.8, 5.0), layout="constrained")
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    n = np.arange(p_true.shape[0])
    for q, label in enumerate(labels):
        c = colours[q % len(colours)]
        ax.plot(n, p_true[:, q], color=c, marker="o", ms=4, label=label)
        if p_hat.size:
            ax.plot(n[:-1], p_hat[:, q], color=c, ls="none", marker="x", ms=7)
        ax.plot(n, p_theory[:, q], color=c, ls=":", lw=1.8)
    ax.plot([], [], color="k", marker="o", ms=4, label=r"Algorithm 1, true $p_n$")
    if p_hat.size:
        ax.plot([], [], color="k", ls="none", marker="x", label=r"group estimate $\hat p = k/G$")
    ax.plot([], [], color="k", ls=":", label=r"Thm 2: $p_n = h(p_{n-1})$")
    ax.set_xlabel(r"outer iteration $n$")
    ax.set_ylabel("probability of success")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title)
    fig.legend(loc="outside lower center", ncols=2)  # under the axes: the plot keeps the column's full width
    return fig
