"""The analyses of Part 1 of the chapter "Group size" (``book/group_size.md``, "The gradient as a U-statistic"),
each returning its table and the values its asserts need; the section of the chapter that uses each is named in
brackets.

* :func:`bandits` and :func:`gradient_check` ("A softmax bandit where everything is exact"): the chapter's softmax
  bandits (a weak, a medium and a strong "model"), and the exact gradient against central differences of V.
* :func:`lemma1_check` ("Four estimators from one group"): Lemma 1 and the (G-1)/G factor on explicit random groups.
* :func:`exact_routes` ("Exact moments, three ways"): exact MSE by the binomial sum, by enumerating every group, and
  by the Hoeffding formula.
* :func:`mse_curves` ("MSE against the group size"): Monte Carlo MSE with 95% intervals against the exact one, for
  every estimator and G.
* :func:`theorem2_fit` ("The two terms of the MSE, fitted"): the 1/G and 1/G^2 terms fitted to the Monte Carlo MSE
  against the exact constants.
* :func:`budget_table`, :func:`budget_optimum` and :func:`difficulty_scan` ("Minibatches and a fixed sampling
  budget"): the Monte Carlo MSE under a fixed budget against the exact one, per group size; the minimiser of the
  budget MSE against G* = 1 + sqrt(C3/C1) for several budgets, and the best group size that divides each; the optimal
  group size for prompt sets of growing difficulty.
* :func:`normalisation_table` ("Reward normalisation"): bias and MSE of the std-normalised estimator against the
  U-statistic, and the factor by which normalising lowers G x MSE (:meth:`Normalisation.mse_gain`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import softmax
from tqdm.auto import tqdm

from grpo_nb.report import Table, bound
from grpo_nb.tabular.algorithm1 import make_task
from grpo_nb.tabular.policy import expected_reward
from grpo_nb.ustat.bandit import PromptSet, exact_gradient
from grpo_nb.ustat.estimators import (
    ESTIMATORS,
    estimates_from_outcomes,
    gradient_estimates,
    pairwise_kernel_average,
    sample_outcomes,
)
from grpo_nb.ustat.moments import (
    enumerate_moments,
    exact_moments,
    hoeffding_constants,
    normalised_leading_constants,
)
from grpo_nb.ustat.scaling import ScalingConstants, ScalingFit, scaling_constants
from grpo_nb.validation import check_positive_int

__all__ = [
    "BudgetOptimum",
    "DifficultyScan",
    "ExactRoutes",
    "Lemma1Check",
    "MSECurves",
    "Normalisation",
    "Theorem2Fit",
    "bandits",
    "budget_optimum",
    "budget_table",
    "difficulty_scan",
    "exact_routes",
    "gradient_check",
    "lemma1_check",
    "mse_curves",
    "normalisation_table",
    "theorem2_fit",
]

Bandit = tuple[np.ndarray, np.ndarray]


def bandits(values: Sequence[float] = (0.2, 0.5, 0.85), n_answers: int = 6, n_correct: int = 2, *, seed: int = 3):
    """{label: (logits, reward)}: one bandit per success probability V, n_correct of n_answers answers correct
    (the split of probability within the correct and the wrong answers is seeded, :func:`make_task`). Section "A
    softmax bandit where everything is exact" defines the chapter's three bandits with it."""
    task = make_task(np.asarray(values, dtype=float), n_outcomes=n_answers, n_success=n_correct, seed=seed)
    return {f"V = {v:g}": (lg, rw) for v, lg, rw in zip(values, task.ref_logits, task.reward, strict=True)}


def gradient_check(logits: np.ndarray, reward: np.ndarray, step: float = 1e-6) -> float:
    """max_o |exact_gradient - (V(theta + h e_o) - V(theta - h e_o)) / (2h)|, section "A softmax bandit where
    everything is exact"."""

    def value(theta: np.ndarray) -> float:
        return float(expected_reward(softmax(theta), reward))

    numeric = [(value(logits + step * e) - value(logits - step * e)) / (2 * step) for e in np.eye(logits.size)]
    return float(np.max(np.abs(exact_gradient(logits, reward) - np.array(numeric))))


LEMMA1_TOL = 1e-12  # both identities hold to rounding; the table prints each gap as this bound


@dataclass(frozen=True)
class Lemma1Check:
    """Per G, the largest gap of each identity of Lemma 1 (shown as a bound at ``LEMMA1_TOL``), and the largest of
    all (``worst``)."""

    table: Table
    worst: float


def lemma1_check(bandit: Bandit, groups: Sequence[int], n_groups: int = 500, *, seed: int = 0) -> Lemma1Check:
    """Section "Four estimators from one group": on n_groups random groups per G, max |pairwise U-statistic -
    leave-one-out GRPO estimate| and max |full-mean estimate - (G-1)/G leave-one-out estimate|."""
    logits, reward = bandit
    rows, worst = [], 0.0
    for G in groups:
        o = sample_outcomes(logits, G, n_groups, seed=seed + G)
        loo = estimates_from_outcomes(logits, reward, o, estimator="grpo")
        u_gap = float(np.abs(pairwise_kernel_average(logits, reward, o) - loo).max())
        full = estimates_from_outcomes(logits, reward, o, estimator="grpo_full_mean")
        f_gap = float(np.abs(full - (G - 1) / G * loo).max())
        scale = f"{np.abs(loo).max():.3f}"
        rows.append((str(G), str(n_groups), bound(u_gap, LEMMA1_TOL), bound(f_gap, LEMMA1_TOL), scale))
        worst = max(worst, u_gap, f_gap)
    headers = ["G", "groups", "max |U-statistic − GRPO|", "max |full mean − (G−1)/G · GRPO|", "max |GRPO| (scale)"]
    return Lemma1Check(Table(headers, rows), worst)


ROUTES_TOL = 1e-10  # the three routes agree to rounding; the table prints the gap as this bound


@dataclass(frozen=True)
class ExactRoutes:
    """The exact MSE of every estimator and G by each route, the largest relative gap of each row (shown as a bound
    at ``ROUTES_TOL``), and the largest of all (``worst``)."""

    table: Table
    worst: float


def exact_routes(bandit: Bandit, groups: Sequence[int]) -> ExactRoutes:
    """Section "Exact moments, three ways": the exact MSE of every estimator three ways, summing over the success
    count, enumerating all K^G groups, and (GRPO only) the Hoeffding formula tr(Sigma)/G + 2 zeta/(G(G-1))."""
    logits, reward = bandit
    hc = hoeffding_constants(logits, reward)
    rows, worst = [], 0.0
    for G in groups:
        for est in ESTIMATORS:
            by_count = exact_moments(logits, reward, G, estimator=est).mse
            enum = enumerate_moments(logits, reward, G, estimator=est).mse
            formula = float(hc.grpo_mse(G)) if est == "grpo" else float("nan")
            gap = max(abs(enum / by_count - 1), abs(formula / by_count - 1) if est == "grpo" else 0.0)
            worst = max(worst, gap)
            rows.append((str(G), est, f"{logits.size**G}", by_count, enum, formula, bound(gap, ROUTES_TOL)))
    headers = ["G", "estimator", "groups enumerated", "sum over k", "enumeration", "Hoeffding", "max relative gap"]
    return ExactRoutes(Table(headers, rows, ".6g"), worst)


@dataclass(frozen=True)
class MSECurves:
    """Per bandit label and estimator: Monte Carlo MSE, its 95% half-width and the exact MSE, arrays over ``groups``;
    the verdicts of section "MSE against the group size" (:meth:`worst_z`, :meth:`ordering_from`,
    :meth:`grpo_over_oracle`) and its table (:meth:`table`)."""

    groups: np.ndarray
    mc: dict[tuple[str, str], np.ndarray]
    half_width: dict[tuple[str, str], np.ndarray]
    exact: dict[tuple[str, str], np.ndarray]
    n_groups: int

    @property
    def labels(self) -> list[str]:
        return list(dict.fromkeys(lab for lab, _ in self.exact))

    def worst_z(self) -> float:
        """max |MC - exact| / (half-width / 1.96): the largest deviation in standard errors."""
        return max(float(np.max(np.abs(self.mc[k] - self.exact[k]) / (self.half_width[k] / 1.96))) for k in self.mc)

    def ordering_from(self, label: str) -> int | None:
        """The smallest G of the grid from which vanilla > grpo > oracle holds (exact MSE) at every larger G of the
        grid; None when it fails at the largest G."""
        ex = {e: self.exact[label, e] for e in ("vanilla", "grpo", "oracle")}
        ok = (ex["vanilla"] > ex["grpo"]) & (ex["grpo"] > ex["oracle"])
        if not ok[-1]:
            return None
        bad = np.flatnonzero(~ok)
        return int(self.groups[0] if bad.size == 0 else self.groups[bad[-1] + 1])

    def grpo_over_oracle(self, label: str) -> np.ndarray:
        return self.exact[label, "grpo"] / self.exact[label, "oracle"]

    def table(self) -> Table:
        rows = []
        for lab in self.labels:
            for i, G in enumerate(self.groups):
                mc = [
                    f"{self.mc[lab, e][i]:.4g} ± {self.half_width[lab, e][i]:.2g}"
                    for e in ("vanilla", "grpo", "oracle")
                ]
                rows.append((lab, str(G), *mc, self.exact[lab, "grpo"][i], self.grpo_over_oracle(lab)[i]))
        headers = ["bandit", "G", "vanilla (MC)", "GRPO (MC)", "oracle (MC)", "GRPO (exact)", "GRPO / oracle (exact)"]
        return Table(headers, rows, ".4g")


def mse_curves(
    bandits_: Mapping[str, Bandit],
    groups: Sequence[int],
    n_groups: int,
    *,
    estimators: Sequence[str] = ("vanilla", "grpo", "oracle"),
    seed: int = 0,
) -> MSECurves:
    """Section "MSE against the group size": the MSE around grad V for every bandit, estimator and G, Monte Carlo
    over n_groups groups (vectorised) with a 95% interval, next to the exact value (:func:`exact_moments`)."""
    n_groups = check_positive_int("n_groups", n_groups, minimum=2)
    mc, half, exact = {}, {}, {}
    for b, (label, (logits, reward)) in enumerate(tqdm(bandits_.items(), desc="bandits")):
        theta = exact_gradient(logits, reward)
        for e, est in enumerate(estimators):
            vals, hws, exs = [], [], []
            for i, G in enumerate(groups):
                err = np.sum(
                    (gradient_estimates(logits, reward, G, n_groups, est, seed=seed + 1000 * b + 100 * e + i) - theta)
                    ** 2,
                    axis=1,
                )
                vals.append(err.mean())
                hws.append(1.96 * err.std(ddof=1) / np.sqrt(n_groups))
                exs.append(exact_moments(logits, reward, G, estimator=est).mse)
            mc[label, est], half[label, est], exact[label, est] = map(np.array, (vals, hws, exs))
    return MSECurves(np.asarray(groups), mc, half, exact, n_groups)


@dataclass(frozen=True)
class Theorem2Fit:
    """The fitted leading and residual constants of one bandit next to tr(Sigma) and zeta, and each one's
    (fitted - exact) / standard error."""

    table: Table
    z_leading: float
    z_residual: float


def theorem2_fit(curves: MSECurves, label: str, bandit: Bandit) -> Theorem2Fit:
    """Section "The two terms of the MSE, fitted": weighted least squares of the GRPO Monte Carlo MSE on
    (1/G, 2/(G(G-1))), the fitted leading constant and residual constant with their standard errors, against
    tr(Sigma) and zeta."""
    g = curves.groups.astype(float)
    y, se = curves.mc[label, "grpo"], curves.half_width[label, "grpo"] / 1.96
    design = np.stack([1.0 / g, 2.0 / (g * (g - 1.0))], axis=1) / se[:, None]
    coef, *_ = np.linalg.lstsq(design, y / se, rcond=None)
    cov = np.linalg.inv(design.T @ design)
    errs = np.sqrt(np.diag(cov))
    hc = hoeffding_constants(*bandit)
    exact = (hc.trace_sigma, hc.zeta)
    z = {name: float((c - x) / s) for name, c, x, s in zip(("leading", "residual"), coef, exact, errs, strict=True)}
    rows = [
        ("1/G (leading): tr Σ", coef[0], errs[0], exact[0], z["leading"]),
        ("2/(G(G−1)) (residual): ζ", coef[1], errs[1], exact[1], z["residual"]),
    ]
    headers = [f"{label}: term", "fitted", "standard error", "exact", "(fitted − exact) / se"]
    return Theorem2Fit(Table(headers, rows, ".4g"), z["leading"], z["residual"])


def budget_table(fit: ScalingFit) -> Table:
    """Per group size G under the budget N of :func:`grpo_nb.ustat.scaling.fit_scaling_constants`: the minibatch size
    B = N/G, the Monte Carlo MSE and its 95% half-width, the exact MSE, and their gap in half-widths (section
    "Minibatches and a fixed sampling budget")."""
    rows = [
        (str(g), str(fit.N // g), m, h, e, abs(m - e) / h)
        for g, m, h, e in zip(fit.groups, fit.mse, fit.half_width, fit.exact, strict=True)
    ]
    return Table(["G", "B = N/G", "MC MSE", "95% half-width", "exact MSE", "|MC − exact| / half-width"], rows, ".4g")


BUDGET_GRID_STEP = 1e-3  # resolution of the real-valued search for the minimiser of the budget MSE


@dataclass(frozen=True)
class BudgetOptimum:
    """Per budget N: the real-valued minimiser of the budget MSE found on a grid of step ``BUDGET_GRID_STEP``
    (``minimiser``), the best group size among the divisors of N (``best_divisor``), the closed form
    G* = 1 + sqrt(C3/C1) (``formula``) and the largest |minimiser - formula| over the budgets (``worst``)."""

    table: Table
    minimiser: dict[int, float]
    best_divisor: dict[int, int]
    formula: float
    worst: float


def budget_optimum(constants: ScalingConstants, budgets: Sequence[int], *, max_group: int = 64) -> BudgetOptimum:
    """Section "Minibatches and a fixed sampling budget": for each budget N, minimise (C1 G + C2 + C3/(G-1)) / N
    (Proposition 3 with B = N/G) over a fine grid of real G in (1, max_group], and over the divisors of N up to
    max_group. N only scales the expression, so the real minimiser is the same for every N by construction; the
    check is that it equals the closed form G* = 1 + sqrt(C3/C1) (Theorem 7 with the exact residual C3/(G-1)), and
    the divisors show what the budget does change."""
    grid = np.arange(1.0 + BUDGET_GRID_STEP, max_group + BUDGET_GRID_STEP / 2, BUDGET_GRID_STEP)
    formula = constants.optimal_group_size
    minimiser = {N: float(grid[np.argmin(constants.budget_mse(N, grid))]) for N in budgets}
    best = {N: constants.best_divisor(N, max_group=max_group) for N in budgets}
    rows = [(str(N), minimiser[N], formula, str(best[N])) for N in budgets]
    headers = [
        "budget $N$",
        "minimiser over real $G$",
        r"$1 + \sqrt{C_3/C_1}$",
        f"best divisor of $N$ up to {max_group}",
    ]
    worst = max(abs(m - formula) for m in minimiser.values())
    return BudgetOptimum(Table(headers, rows, ".3f"), minimiser, best, formula, worst)


@dataclass(frozen=True)
class DifficultyScan:
    """Per difficulty level: the constants C1, C2, C3 and G* (the table), and G* per level (``optimal_group_size``)."""

    table: Table
    optimal_group_size: np.ndarray


def difficulty_scan(
    levels: Sequence[float], n_prompts: int = 16, n_answers: int = 6, *, spread: float = 0.3, seed: int = 0
) -> DifficultyScan:
    """Section "Minibatches and a fixed sampling budget": for prompt sets whose success probabilities scatter
    (log-normally, sd ``spread``) around each level, the constants C1, C2, C3 and the optimal group size
    G* = 1 + sqrt(C3/C1)."""
    rng = np.random.default_rng(seed)
    rows, best = [], []
    for level in levels:
        p = np.clip(level * np.exp(spread * rng.normal(size=n_prompts)), 1e-9, 0.99)
        task = make_task(p, n_outcomes=n_answers, n_success=2, seed=seed)
        c = scaling_constants(PromptSet(task.ref_logits, task.reward, np.full(n_prompts, 1.0 / n_prompts)))
        best.append(c.optimal_group_size)
        rows.append(
            (
                f"{level:g}",
                c.c1,
                c.c2,
                c.c3,
                c.optimal_group_size,
                c.theorem7_group_size,
                c.optimal_group_size * np.sqrt(level),
            )
        )
    headers = [
        "typical $p$",
        "$C_1$",
        "$C_2$",
        "$C_3$",
        "$G^*$",
        r"Thm 7: $\sqrt{C_3/C_1}$",
        r"$G^* \sqrt{p}$",
    ]
    return DifficultyScan(Table(headers, rows, ".3g"), np.array(best))


@dataclass(frozen=True)
class Normalisation:
    """Per bandit label: the std-normalised estimator's relative bias and G x MSE over the groups, the U-statistic's
    G x MSE / sigma^2 (``u_g_mse``), and the two large-G limits (``std_limit``: the delta-method constant,
    ``u_limit``: tr(Sigma) / sigma^2)."""

    table: Table
    bias: dict[str, np.ndarray]
    g_mse: dict[str, np.ndarray]
    u_g_mse: dict[str, np.ndarray]
    std_limit: dict[str, float]
    u_limit: dict[str, float]
    groups: tuple[int, ...] = ()

    def mse_gain(self, G: int) -> dict[str, float]:
        """Per bandit: the U-statistic's G x MSE / sigma^2 over the std-normalised estimator's G x MSE at group size G,
        the factor by which normalising by the group's own standard deviation lowers the MSE."""
        i = self.groups.index(G)
        return {label: float(self.u_g_mse[label][i] / self.g_mse[label][i]) for label in self.g_mse}


def normalisation_table(bandits_: Mapping[str, Bandit], groups: Sequence[int]) -> Normalisation:
    """Section "Reward normalisation": the std-normalised estimator ("grpo_std") per bandit and G, its relative bias
    |E est - target|/|target| (target = its large-G limit grad V/(sigma + 1e-4)) and G x MSE, against the
    U-statistic divided by sigma (G x MSE_grpo / sigma^2) and the two large-G constants of
    :func:`normalised_leading_constants`."""
    rows = []
    bias, g_mse, u_g_mse, std_limits, u_limits = {}, {}, {}, {}, {}
    for label, (logits, reward) in bandits_.items():
        v = float(expected_reward(softmax(logits), reward))
        std_limit, u_limit = normalised_leading_constants(logits, reward)
        rel, scaled, u_scaled = [], [], []
        for G in groups:
            m = exact_moments(logits, reward, G, estimator="grpo_std")
            u = exact_moments(logits, reward, G, estimator="grpo").mse / (v * (1 - v))
            rel.append(m.relative_bias)
            scaled.append(G * m.mse)
            u_scaled.append(G * u)
            rows.append((label, str(G), rel[-1], G * m.mse, G * u, std_limit, u_limit))
        bias[label], g_mse[label], u_g_mse[label] = np.array(rel), np.array(scaled), np.array(u_scaled)
        std_limits[label], u_limits[label] = std_limit, u_limit
    headers = [
        "bandit",
        "G",
        "relative bias",
        "G · MSE (std-normalised)",
        "G · MSE (U-statistic / σ)",
        "limit, std-normalised (delta method)",
        "limit, U / σ: tr Σ / σ²",
    ]
    return Normalisation(Table(headers, rows, ".4g"), bias, g_mse, u_g_mse, std_limits, u_limits, tuple(groups))
