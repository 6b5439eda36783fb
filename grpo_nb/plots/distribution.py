"""Figures of the distribution chapter (``book/distribution.md``): pass@k before and after GRPO, the entropy and the
top answer's mass under the four clip modes, and the advantage's two signed parts.

The tabular panels compute with :mod:`grpo_nb.tabular.distribution`, :mod:`grpo_nb.tabular.clip_bias` and the
examples of :mod:`grpo_nb.tabular.examples`; the toy LM's panels draw the cached runs' numbers they are given (mode
names as in :data:`grpo_nb.tabular.clip_bias.CLIP_MODES`). :func:`draw_explorer` is the static twin of the
chapter's browser figure, and what :mod:`grpo_nb.widgets.distribution` redraws at each slider move.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from scipy.special import expit

from grpo_nb.constants import PAPER_EPS
from grpo_nb.dynamics.map import iterate_logit
from grpo_nb.tabular.clip_bias import CLIP_MODES, expected_update_orbit
from grpo_nb.tabular.distribution import pass_at_k, shared_success_orbit, signed_success_orbit
from grpo_nb.tabular.examples import (
    BANDIT_PI0,
    BANDIT_REWARD,
    CROSSOVER_PI_REF,
    CROSSOVER_REWARD,
    bandit_options,
)

__all__ = [
    "MODE_STYLES",
    "draw_clip_modes",
    "draw_explorer",
    "draw_pass_at_k",
    "draw_signed_parts",
    "draw_toy_pass_at_k",
]

KS = np.arange(1, 257)
#: Colour, line style and label of each clip mode (:data:`grpo_nb.tabular.clip_bias.CLIP_MODES`), in every panel.
MODE_STYLES = {  # as the browser figure draws them (grpo_nb/browser/grpo_figures.js)
    "none": ("#222222", "-", "no clip"),
    "symmetric": ("#d62728", "--", "both sides (symmetric)"),
    "high_only": ("#2ca02c", ":", "upper clip only"),
    "low_only": ("#9467bd", "-.", "lower clip only"),
}
PART_STYLES = {"both": ("#1f77b4", "-"), "positive": ("#d2553f", "--"), "negative": ("#2ca02c", "-.")}
PART_LABELS = {"both": "whole advantage", "positive": "successes' part only", "negative": "failures' part only"}


def _mode_lines(ax: plt.Axes, values: Mapping[str, np.ndarray], *, label: bool = True) -> None:
    for mode in CLIP_MODES:
        color, style, name = MODE_STYLES[mode]
        y = np.asarray(values[mode])
        ax.plot(np.arange(y.size), y, color=color, linestyle=style, lw=1.8, label=name if label else None)


def _pass_panel(ax: plt.Axes, before: np.ndarray, after: np.ndarray, *, color: str, name: str) -> None:
    ax.plot(KS, before, color=color, lw=1.2, linestyle=":", label=f"{name}: before")
    ax.plot(KS, after, color=color, lw=2.0, label=f"{name}: after")


def _one_prompt(p_ref: float, beta: float, eps: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """pass@k at p_ref and after n exact steps (Theorem 2's recursion)."""
    with np.errstate(over="ignore"):
        p_n = float(expit(iterate_logit(p_ref, beta, eps, n=n)[-1]))
    return pass_at_k(p_ref, KS), pass_at_k(p_n, KS)


def _shared(beta: float, eps: float, n: int, part: str = "both") -> tuple[np.ndarray, np.ndarray]:
    """The crossover example's prompt-averaged pass@k before and after n shared steps."""
    orbit = shared_success_orbit(CROSSOVER_PI_REF, CROSSOVER_REWARD, beta, eps, n=n, part=part)
    return pass_at_k(orbit[0][:, None], KS).mean(axis=0), pass_at_k(orbit[-1][:, None], KS).mean(axis=0)


def draw_pass_at_k(
    p_refs: Sequence[float] = (0.01, 0.1),
    *,
    beta: float = 1.0,
    eps: float = PAPER_EPS,
    n: int = 10,
    shared_beta: float = 0.2,
) -> Figure:
    """Left: pass@k against k for one prompt at each p_ref, before and after n exact steps. Right: the crossover
    example's prompt-averaged pass@k before and after n shared exact steps at ``shared_beta``."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(6.8, 3.3), layout="constrained", sharey=True)
    for p_ref, color in zip(p_refs, ("#1f77b4", "#d2553f", "#2ca02c"), strict=False):
        _pass_panel(left, *_one_prompt(p_ref, beta, eps, n), color=color, name=rf"$p_{{\mathrm{{ref}}}} = {p_ref:g}$")
    left.set_title(rf"one prompt, $\beta = {beta:g}$, $n = {n}$")
    _pass_panel(right, *_shared(shared_beta, eps, n), color="#1f77b4", name="mean of 3 prompts")
    right.set_title(rf"one policy for 3 prompts, $\beta = {shared_beta:g}$")
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("k")
        ax.legend(fontsize=7.5, loc="lower right")
    left.set_ylabel("pass@k")
    return fig


def draw_toy_pass_at_k(ks: Sequence[int], changes: Mapping[str, np.ndarray], trl: Mapping[str, np.ndarray]) -> Figure:
    """The prompt-averaged pass@k change against k: the toy LM's runs (mean over seeds) and TRL's cached runs."""
    fig, ax = plt.subplots(figsize=(6.8, 3.3), layout="constrained")
    colors = ("#1f77b4", "#7f7f7f", "#2ca02c", "#d2553f", "#9467bd", "#8c564b")
    for (name, change), color in zip([*changes.items(), *trl.items()], colors, strict=False):
        style = "--" if name in trl else "-"
        ax.plot(ks, change, marker="o", color=color, linestyle=style, label=name)
    ax.axhline(0.0, color="black", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("k")
    ax.set_ylabel("pass@k change")
    ax.legend(fontsize=7.5, ncols=2)
    return fig


def draw_clip_modes(
    paths: Mapping[str, np.ndarray],
    runs: Mapping[str, np.ndarray],
    toy: Mapping[str, np.ndarray],
    *,
    ylabel: str,
    toy_ylabel: str,
) -> Figure:
    """One quantity (entropy, or top mass) under the four clip modes: the clip bandit's expected-update path (top
    left), the mean of its sampled runs (top right), and the toy LM's mean over seeds per outer step (bottom)."""
    fig, grid = plt.subplot_mosaic([["path", "runs"], ["toy", "toy"]], figsize=(6.8, 4.8), layout="constrained")
    _mode_lines(grid["path"], paths)
    _mode_lines(grid["runs"], runs, label=False)
    _mode_lines(grid["toy"], toy, label=False)
    grid["path"].set_title("clip bandit: expected-update path")
    grid["runs"].set_title("clip bandit: mean of sampled runs")
    grid["toy"].set_title("toy LM: mean over seeds")
    for key in ("path", "runs"):
        grid[key].set_xlabel("iteration")
        grid[key].set_ylabel(ylabel)
    grid["toy"].set_xlabel("outer step")
    grid["toy"].set_ylabel(toy_ylabel)
    grid["path"].legend(fontsize=7.5)
    return fig


def draw_signed_parts(
    p_refs: Sequence[float] = (0.05, 0.8), *, beta: float = 1.0, eps: float = PAPER_EPS, n: int = 15, sampled: Mapping
) -> Figure:
    """Left: p_n of the exact iteration with each part of the advantage, from two p_ref. Right: the clip bandit's
    expected-update entropy with each part (``sampled``: part -> entropy path)."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(6.8, 3.3), layout="constrained")
    for part, (color, _) in PART_STYLES.items():
        for p_ref, style in zip(p_refs, ("-", "--"), strict=True):
            label = f"{PART_LABELS[part]}" if style == "-" else None
            left.plot(signed_success_orbit(p_ref, beta, eps, part=part, n=n), color=color, linestyle=style, label=label)
        right.plot(np.asarray(sampled[part]), color=color, linestyle=PART_STYLES[part][1], label=PART_LABELS[part])
    left.set_title(
        rf"exact, $\beta = {beta:g}$; $p_{{\mathrm{{ref}}}} = {p_refs[0]:g}$ (solid), ${p_refs[1]:g}$ (dashed)"
    )
    left.set_xlabel("iteration n")
    left.set_ylabel("$p_n$")
    right.set_title("clip bandit: expected-update path")
    right.set_xlabel("iteration")
    right.set_ylabel("entropy")
    left.legend(fontsize=7.5)
    return fig


def draw_explorer(
    p_ref: float = 0.1,
    beta: float = 0.2,
    eps: float = PAPER_EPS,
    *,
    n: int = 20,
    clip_eps: float = 0.2,
    random_rewards: bool = False,
) -> Figure:
    """The chapter's explorer: left, pass@k against k for one prompt and for the crossover example, before and after
    n exact steps at (beta, eps); right, the clip bandit's expected-update entropy under the four clip modes at
    ``clip_eps`` (verifiable or random rewards), n iterations."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(6.8, 3.4), layout="constrained")
    _pass_panel(left, *_one_prompt(p_ref, beta, eps, n), color="#d2553f", name="one prompt")
    _pass_panel(left, *_shared(beta, eps, n), color="#1f77b4", name="3 prompts, one policy")
    left.set_xscale("log", base=2)
    left.set_xlabel("k")
    left.set_ylabel("pass@k")
    left.set_title(rf"$\beta = {beta:g}$, $p_{{\mathrm{{ref}}}} = {p_ref:g}$, $n = {n}$")
    left.legend(fontsize=7)
    options = {**bandit_options(clip_eps=clip_eps), "n": n}
    reward = None if random_rewards else BANDIT_REWARD
    entropy = {
        mode: expected_update_orbit(np.log(BANDIT_PI0), mode=mode, reward=reward, **options).entropy
        for mode in CLIP_MODES
    }
    _mode_lines(right, entropy)
    right.set_title(f"clip bandit, clip {clip_eps:g}, {'random' if random_rewards else 'verifiable'} rewards")
    right.set_xlabel("iteration")
    right.set_ylabel("entropy")
    right.legend(fontsize=7)
    return fig
