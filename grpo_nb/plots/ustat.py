"""Figures of the group-size chapter: MSE of the group estimators against G (the U-statistic paper's Fig. 4 on a
softmax bandit), the budget trade-off of Theorem 7, the finite-group expected maps, the finite-group law against
Algorithm 1 runs, dynamic sampling, and hard prompts with a finite group. Each function draws the data it is given;
:func:`draw_finite_group_law` (the explorer's figure) computes its law with :mod:`grpo_nb.ustat.finite_group`."""

from __future__ import annotations

import re
from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from grpo_nb.dynamics.map import iterate
from grpo_nb.ustat.finite_group import FiniteGroupLaw, StepModel, finite_group_law
from grpo_nb.ustat.scaling import ScalingFit

__all__ = [
    "draw_finite_group_law",
    "plot_budget",
    "plot_chain_comparison",
    "plot_expected_maps",
    "plot_hard_prompt_finite_group",
    "plot_mse_curves",
    "plot_zero_variance",
]

_EST_COLORS = {"vanilla": "tab:blue", "grpo": "tab:orange", "oracle": "tab:green", "grpo_std": "tab:red"}


MSEByEstimator = Mapping[tuple[str, str], np.ndarray]

_GROUP = re.compile(r"\bG = (\d+|∞)")


def _mathtext(label: str) -> str:
    """A chapter's label in mathtext: "G = 8" as $G = 8$, "H_G" and "H_16" as $H_G$ and $H_{16}$, "h" as $h$."""
    label = _GROUP.sub(lambda m: "$G = " + (r"\infty" if m.group(1) == "∞" else m.group(1)) + "$", label)
    label = re.sub(r"\bH_(\w+)", lambda m: "$H_{" + m.group(1) + "}$", label)
    return re.sub(r"^h\b", "$h$", label)


def _legend_axis(ax) -> None:
    """An empty grid cell that holds the figure's legend (the figures have at most two panels side by side)."""
    ax.axis("off")


def _panel_grid(n_panels: int, row_height: float) -> tuple[Figure, np.ndarray]:
    """A figure of ``n_panels`` panels two to a row, sharing their y axis, with at least one cell left for the legend;
    its axes flattened."""
    n_rows = (n_panels + 2) // 2
    fig, axes = plt.subplots(n_rows, 2, figsize=(6.7, row_height * n_rows), layout="constrained", sharey=True)
    return fig, np.atleast_1d(axes).ravel()


def _finish_grid(fig: Figure, axes: np.ndarray, n_panels: int, *, ylabel: str, title: str) -> Figure:
    """A :func:`_panel_grid` figure finished: ``ylabel`` on the left panels, the cells after the panels emptied, the
    first panel's legend in the last cell, and ``title`` (if any) above."""
    for ax in axes[::2]:
        ax.set_ylabel(ylabel)
    for ax in axes[n_panels:]:
        _legend_axis(ax)
    handles, names = axes[0].get_legend_handles_labels()
    (axes[-1] if n_panels < axes.size else axes[0]).legend(handles, names, loc="center")
    if title:
        fig.suptitle(title)
    return fig


def plot_mse_curves(
    groups: np.ndarray, mc: MSEByEstimator, half_width: MSEByEstimator, *, exact: MSEByEstimator, title: str = ""
) -> Figure:
    """MSE against G (log-log) per bandit: Monte Carlo means ``mc`` with 95% half-widths ``half_width`` (markers) and
    the exact MSE ``exact`` (lines), each {(bandit label, estimator): array over ``groups``}; one panel per label, two
    panels to a row, the legend in the grid's last cell."""
    labels = list(dict.fromkeys(lab for lab, _ in exact))
    fig, axes = _panel_grid(len(labels), 2.9)
    for ax, lab in zip(axes, labels, strict=False):
        for est in ("vanilla", "grpo", "oracle"):
            c = _EST_COLORS[est]
            ax.plot(groups, exact[lab, est], color=c, lw=1.4, label=f"{est} (exact)")
            ax.errorbar(
                groups,
                mc[lab, est],
                yerr=half_width[lab, est],
                color=c,
                ls="none",
                marker="o",
                ms=3.5,
                capsize=2,
                label=f"{est} (Monte Carlo, 95%)",
            )
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel(r"group size $G$")
        ax.set_title(f"${lab}$")
    return _finish_grid(fig, axes, len(labels), ylabel=r"MSE $\mathbb{E}\,|\hat g - \nabla V|^2$", title=title)


def plot_budget(fit: ScalingFit, title: str = "") -> Figure:
    """MSE of GRPO's minibatch estimate with B = N/G prompts against G: Monte Carlo (95%), exact, the fitted
    Proposition 3 curve, and the optimal G* of the exact and fitted constants."""
    fig, ax = plt.subplots(figsize=(6.0, 3.8), layout="constrained")
    g = np.geomspace(fit.groups.min(), fit.groups.max(), 200)
    ax.plot(g, fit.true.budget_mse(fit.N, g), color="black", lw=1.2, label="exact (Prop. 3)")
    ax.plot(g, fit.fitted.budget_mse(fit.N, g), color="tab:orange", ls="--", lw=1.2, label="fitted constants")
    ax.errorbar(
        fit.groups,
        fit.mse,
        yerr=fit.half_width,
        ls="none",
        marker="o",
        ms=3,
        color="tab:orange",
        capsize=2,
        label="Monte Carlo (95%)",
    )
    ax.axvline(
        fit.true.optimal_group_size, color="black", lw=0.8, ls=":", label=rf"$G^* = {fit.true.optimal_group_size:.2f}$"
    )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(rf"group size $G$ ($B = {fit.N}/G$ prompts)")
    ax.set_ylabel("MSE of the minibatch gradient")
    if title:
        ax.set_title(title)
    ax.legend()
    return fig


def plot_expected_maps(
    p: np.ndarray, maps: Mapping[str, np.ndarray], rho: Mapping[str, np.ndarray], *, title: str = ""
) -> Figure:
    """Left: the expected next success probability against p (h, H_G, plug-in models; log axes). Right: the signal
    retention rho_G(p) against p per G (``rho``: label -> values on ``p``)."""
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(6.6, 3.6), layout="constrained")
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    solved = [k for k in maps if k.startswith("G =")]
    for label, values in maps.items():
        if label.startswith("h"):
            ax.plot(p, values, color="black", lw=1.6, label=_mathtext(label))
        elif label.startswith("G ="):
            ax.plot(p, values, color=colours[solved.index(label) % 10], lw=1.2, label=_mathtext(label))
        else:
            base = label.replace("plug-in, ", "")
            ax.plot(
                p,
                values,
                color=colours[solved.index(base) % 10],
                lw=0.9,
                ls=":",
                label="plug-in" if base == solved[-1] else None,
            )
    ax.plot(p, p, color="0.6", lw=0.6, ls="--")
    ax.set_xscale("log")
    ax.set_xlabel(r"$p_{n-1}$")
    ax.set_ylabel(r"$\mathbb{E}[p_n \mid p_{n-1}]$")
    if title:
        ax.set_title(title)
    ax.legend(loc="lower right", fontsize=9)
    for i, (label, values) in enumerate(rho.items()):
        bx.plot(p, values, color=colours[i % 10], label=_mathtext(label))
    bx.set_xscale("log")
    bx.set_ylim(0, 1.05)
    bx.set_xlabel(r"$p$")
    bx.set_ylabel(r"signal retention $\rho_G(p)$")
    bx.legend(fontsize=9)
    return fig


def plot_chain_comparison(
    laws: Mapping[int, FiniteGroupLaw], runs: Mapping[int, np.ndarray], recursion: np.ndarray, *, title: str = ""
) -> Figure:
    """One panel per G: the finite-group law (mean, q10-q90 band), Algorithm 1 runs (``runs[G]``, shape
    (n+1, seeds): mean, q10-q90 of the seeds) and the recursion h (``recursion``, p_0..p_n)."""
    groups = list(laws)
    fig, axes = _panel_grid(len(groups), 2.6)
    for ax, G in zip(axes, groups, strict=False):
        law, run = laws[G], runs[G]
        n = np.arange(law.mean.size)
        ax.fill_between(n, law.quantiles[0], law.quantiles[-1], color="tab:orange", alpha=0.25, label="law: q10–q90")
        ax.plot(n, law.mean, color="tab:orange", lw=1.5, label="law: mean")
        q = np.quantile(run, [0.1, 0.9], axis=1)
        ax.vlines(n + 0.15, q[0], q[1], color="tab:blue", lw=1.0, label="Algorithm 1: q10–q90 of the seeds")
        ax.plot(n + 0.15, run.mean(axis=1), ls="none", marker="o", ms=3.5, color="tab:blue", label="Algorithm 1: mean")
        ax.plot(n, recursion, color="black", ls=":", lw=1.4, label=r"orbit of $h$")
        ax.set_title(f"$G = {G}$")
        ax.set_xlabel(r"iteration $n$")
    return _finish_grid(fig, axes, len(groups), ylabel="success probability", title=title)


def plot_zero_variance(
    laws: Mapping[str, FiniteGroupLaw],
    solved: Mapping[str, FiniteGroupLaw],
    runs: Mapping[str, np.ndarray],
    *,
    recursion: np.ndarray,
    title: str = "",
) -> Figure:
    """E[p_n] under each no-signal rule ("keep", "drop", "resample"): the law with Algorithm 1's inner loop
    (``laws``, solid), with the inner problem solved (``solved``, dashed), Algorithm 1 runs (``runs[rule]``, shape
    (n+1, seeds): markers, 95% intervals), and the recursion h (``recursion``, dotted)."""
    fig, ax = plt.subplots(figsize=(6.7, 4.6), layout="constrained")
    colours = {"keep": "tab:blue", "drop": "tab:green", "resample": "tab:red"}
    for rule, law in laws.items():
        n = np.arange(law.mean.size)
        run = runs[rule]
        se = 1.96 * run.std(axis=1, ddof=1) / np.sqrt(run.shape[1])
        ax.plot(n, law.mean, color=colours[rule], lw=1.5, label=f"{rule}: law")
        ax.plot(n, solved[rule].mean, color=colours[rule], lw=1.0, ls="--", label=f"{rule}: inner problem solved")
        ax.errorbar(n + 0.12, run.mean(axis=1), yerr=se, color=colours[rule], ls="none", marker="o", ms=3, capsize=2)
    ax.plot(np.arange(recursion.size), recursion, color="black", ls=":", label=r"orbit of $h$ (exact $p$)")
    ax.set_xlabel(r"iteration $n$")
    ax.set_ylabel(r"$\mathbb{E}[p_n]$")
    if title:
        ax.set_title(title)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2, fontsize=9)
    return fig


def plot_hard_prompt_finite_group(
    betas: np.ndarray, orbits: Mapping[str, np.ndarray], paths: Mapping[str, np.ndarray], *, title: str = ""
) -> Figure:
    """Left: the last values of the orbit of each expected map (h and H_G) against beta (a bifurcation diagram, log p).
    Right: seeded runs of the finite-group chain (``paths``: label -> p_n for one run; p within 1e-12 of 1 is drawn
    at 1 - 1e-12)."""
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(6.6, 3.8), layout="constrained")
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (label, keep) in enumerate(orbits.items()):
        c = "black" if label.startswith("h") else colours[i % 10]
        ax.plot(np.repeat(betas, keep.shape[1]), keep.ravel(), ls="none", marker=".", ms=1.2, color=c, alpha=0.7)
        ax.plot([], [], ls="none", marker="o", ms=4, color=c, label=_mathtext(label))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"$\beta$")
    ax.set_ylabel("long-run values of the orbit")
    if title:
        ax.set_title(title)
    ax.legend(fontsize=9)
    for i, (label, p) in enumerate(paths.items()):
        shown = np.clip(p, 1e-12, 1 - 1e-12)  # p = 1 in float64 (logit > 37) is drawn at the top edge
        bx.plot(np.arange(p.size), shown, lw=0.8, marker="o", ms=1.5, color=colours[i % 10], label=_mathtext(label))
    bx.set_yscale("logit")
    bx.set_ylim(5e-4, 1 - 5e-13)
    bx.set_xlabel(r"iteration $n$")
    bx.set_ylabel(r"$p_n$ (logit scale)")
    bx.legend(fontsize=9, loc="center right")
    return fig


def draw_finite_group_law(
    p_ref: float, beta: float, eps: float, *, G: int, no_signal: str = "keep", n: int = 20
) -> Figure:
    """The law of p_n (inner problem solved) for one prompt and group size: mean and q10-q90 band, against h."""
    law = finite_group_law(StepModel(p_ref, beta, eps, G, no_signal=no_signal), n)
    fig, ax = plt.subplots(figsize=(6.4, 3.6), layout="constrained")
    k = np.arange(n + 1)
    ax.fill_between(k, law.quantiles[0], law.quantiles[-1], color="tab:orange", alpha=0.25, label="q10–q90")
    mean_label = rf"$\mathbb{{E}}[p_n]$, $G = {G}$, groups without signal: {no_signal}"
    ax.plot(k, law.mean, color="tab:orange", lw=1.5, label=mean_label)
    ax.plot(k, iterate(p_ref, beta, eps, n), color="black", ls=":", label=r"orbit of $h$ ($G = \infty$)")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(r"iteration $n$")
    ax.set_ylabel("success probability")
    ax.set_title(rf"$p_{{\mathrm{{ref}}}} = {p_ref:g}$, $\beta = {beta:g}$, $\varepsilon = {eps:g}$")
    ax.legend(loc="lower right")
    return fig
