"""Figure of the group-size chapter's section on prompt-only baselines (the U-statistic paper's Assumption 2 and
Corollary 5): the exact MSE of (1/G) sum_i (r_i - b) s_i against the baseline b, per softmax bandit, with vanilla
(b = 0), the value baseline (b = V) and the best constant b* marked. Computed with
:mod:`grpo_nb.ustat.paper_results`."""

from __future__ import annotations

import re
from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from grpo_nb.ustat.bandit import bandit_expected_reward
from grpo_nb.ustat.paper_results import constant_baseline_mse, optimal_constant_baseline
from grpo_nb.validation import check_positive_int

__all__ = ["draw_constant_baselines"]

_MARKS = (("vanilla, $b = 0$", "s"), ("value, $b = V$", "o"), ("best constant, $b = b^*$", "*"))


def _mathtext(label: str) -> str:
    """A bandit label "V = 0.2" as $V = 0.2$; other labels unchanged."""
    return re.sub(r"^V = ([\d.]+)$", r"$V = \1$", label)


def draw_constant_baselines(bandits: Mapping[str, tuple[np.ndarray, np.ndarray]], G: int = 8) -> Figure:
    """The exact MSE at group size G of the estimator with a prompt-only baseline b, against b in [-0.1, 1.1], one
    curve per bandit {label: (logits, reward)}, with b = 0, b = V and b = b* marked on each curve."""
    G = check_positive_int("G", G, minimum=2)
    b = np.linspace(-0.1, 1.1, 241)
    fig, ax = plt.subplots(figsize=(6.2, 3.6), layout="constrained")
    for i, (label, (logits, reward)) in enumerate(bandits.items()):
        color = f"C{i}"
        ax.plot(b, constant_baseline_mse(logits, reward, b, G=G), color=color, lw=1.3, label=_mathtext(label))
        marks = (0.0, float(bandit_expected_reward(logits, reward)), optimal_constant_baseline(logits, reward))
        for (_, marker), x in zip(_MARKS, marks, strict=True):
            y = constant_baseline_mse(logits, reward, x, G=G)
            ax.plot(x, y, marker=marker, ms=9 if marker == "*" else 5, color=color, ls="none")
    for name, marker in _MARKS:
        ax.plot([], [], marker=marker, color="0.3", ls="none", label=name)
    ax.set_xlabel(r"prompt-only baseline $b$")
    ax.set_ylabel(rf"MSE at $G = {G}$")
    ax.legend(fontsize="small", ncol=2)
    return fig
