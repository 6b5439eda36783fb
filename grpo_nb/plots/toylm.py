"""Figures of paper §5 on the toy LM: SFT and p_ref, per-prompt trajectories against h^n(p_ref), gaps.

Every function takes arrays (no torch, no theory computed here) and returns a matplotlib Figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

__all__ = ["plot_final_scatter", "plot_gap_by_run", "plot_sft_and_pref", "plot_trajectories"]


def plot_sft_and_pref(sft_loss: np.ndarray, floor: float, p_ref: np.ndarray) -> Figure:
    """Left: the SFT loss per step and its minimum (the demonstrations' entropy). Right: histogram of p_ref."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(6.8, 3.4), layout="constrained")
    ax1.plot(np.arange(1, len(sft_loss) + 1), sft_loss, lw=1.5, label="SFT loss per token")
    ax1.axhline(floor, color="k", ls=":", lw=1.5, label="minimum (entropy\nof the demonstrations)")
    ax1.set_xlabel("SFT step")
    ax1.set_ylabel("cross-entropy (nats)")
    ax1.legend()
    ax2.hist(p_ref, bins=np.linspace(0, 1, 11), edgecolor="white")
    ax2.set_xlabel(r"$p_{\mathrm{ref}}(q)$ after SFT (exact)")
    ax2.set_ylabel("prompts")
    ax2.yaxis.get_major_locator().set_params(integer=True)
    return fig


def plot_trajectories(
    p_measured: np.ndarray, p_theory: np.ndarray, picks: Mapping[str, int], *, prompts: Sequence[str], title: str = ""
) -> Figure:
    """Left: measured p~_n (markers) and h^n(p_ref) (dashed) for the picked prompts. Right: |p~_n - p_n|. The legend
    sits below the two panels.

    ``p_measured`` and ``p_theory`` are (M+1, P); ``picks`` maps a regime name to a prompt index.
    """
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(6.8, 3.2 + 0.3 * len(picks)), layout="constrained")
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    n = np.arange(p_measured.shape[0])
    for k, (regime, i) in enumerate(picks.items()):
        c = colours[k % len(colours)]
        name = rf"{prompts[i]} ({regime}, $p_{{\mathrm{{ref}}}} = {p_measured[0, i]:.2g}$)"
        ax1.plot(n, p_measured[:, i], color=c, marker="o", ms=4, lw=1.5, label=name)
        ax1.plot(n, p_theory[:, i], color=c, ls="--", lw=1.5)
        ax2.semilogy(n[1:], np.abs(p_measured[1:, i] - p_theory[1:, i]), color=c, marker="o", ms=4)
    ax1.plot([], [], color="k", ls="--", label=r"recursion $h^n(p_{\mathrm{ref}})$")
    ax1.set_xlabel(r"GRPO iteration $n$")
    ax1.set_ylabel("probability of success")
    ax1.set_ylim(-0.02, 1.02)
    ax2.set_xlabel(r"GRPO iteration $n$")
    ax2.set_ylabel(r"gap $|\tilde p_n - p_n|$")
    fig.legend(loc="outside lower center", ncols=2, frameon=False)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def plot_final_scatter(p_ref: np.ndarray, p_measured_final: np.ndarray, p_theory_final: np.ndarray) -> Figure:
    """Every prompt: p_ref (x) against the measured p~_M and the theory p_M after M iterations (y)."""
    fig, ax = plt.subplots(figsize=(5.0, 4.4), layout="constrained")
    ax.plot([0, 1], [0, 1], color="0.7", lw=1.2, label="no change")
    ax.scatter(p_ref, p_theory_final, marker="s", s=44, facecolors="none", edgecolors="k", label=r"recursion $p_M$")
    ax.scatter(p_ref, p_measured_final, marker="o", s=18, label=r"trained network $\tilde p_M$")
    ax.set_xlabel(r"$p_{\mathrm{ref}}(q)$")
    ax.set_ylabel("success probability after GRPO")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.legend(loc="lower right")
    return fig


def plot_gap_by_run(gaps: Mapping[str, np.ndarray], one_step: Mapping[str, np.ndarray], title: str = "") -> Figure:
    """Median over prompts of |p~_n - p_n| (left) and of the inner problem's error TV(pi~_n, T pi~_{n-1}) (right),
    one line per run, the legend below the panels; ``gaps[label]`` is (M+1, P), ``one_step[label]`` is (M, P)."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(6.8, 3.3 + 0.25 * ((len(gaps) + 1) // 2)), layout="constrained")
    for label, gap in gaps.items():
        (line,) = ax1.semilogy(np.arange(1, gap.shape[0]), np.median(gap[1:], axis=1), marker="o", ms=4, label=label)
        err = one_step[label]
        ax2.semilogy(np.arange(1, err.shape[0] + 1), np.median(err, axis=1), marker="o", ms=4, color=line.get_color())
    ax1.set_xlabel(r"GRPO iteration $n$")
    ax1.set_ylabel(r"median gap $|\tilde p_n - p_n|$")
    ax2.set_xlabel(r"GRPO iteration $n$")
    ax2.set_ylabel(r"median $\mathrm{TV}(\tilde\pi_n, T\tilde\pi_{n-1})$")
    ax2.set_title(r"one step's error ($\delta_n$)", fontsize=11)
    ax1.set_title("gap to the recursion", fontsize=11)
    fig.legend(loc="outside lower center", ncols=2, frameon=False)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig
