"""The analyses of the chapter "Policy dynamics" (``book/policy_dynamics.md``, paper §3), each returning its table
and the values the chapter's asserts need.

* :func:`solver_comparison` (section "One exact GRPO step in closed form"): Theorem 1's closed form against the
  numerical solver on random instances.
* :func:`sign_change_counts` (section "Every fixed point"): a brute-force count of the roots of g(z) - z on a
  fine grid, to compare with the number of fixed points :func:`grpo_nb.dynamics.fixed_points.fixed_points_grid`
  finds.
* :func:`fig2_fixed_points` (section "Every fixed point"): every fixed point of h at the parameters of Fig. 2, with
  its residual in the fixed-point equation.
* :func:`top_fixed_points` (section "Is p* = 1 a fixed point?"): the highest fixed point of h for several
  (p_ref, beta, eps), against the cap logit h(1) = logit p_ref + 1/(beta sqrt(eps)).
* :func:`sympy_verdict` (every section with a sympy derivation): the one-line verdict shown above the folded
  derivation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logit
from tqdm.auto import tqdm

from grpo_nb.dynamics.fixed_points import FixedPoint, fixed_points
from grpo_nb.dynamics.map import logit_h, logit_map, logit_map_cap, logit_map_margin
from grpo_nb.report import Table
from grpo_nb.symbolic.identity import sympy_verdict
from grpo_nb.tabular.closed_form import grpo_step, policy_expected_reward, solve_grpo_step
from grpo_nb.validation import check_map_params, check_positive_int

__all__ = [
    "Fig2FixedPoints",
    "SolverComparison",
    "SolverInstance",
    "TopFixedPoint",
    "TopFixedPoints",
    "fig2_fixed_points",
    "sign_change_counts",
    "solver_comparison",
    "sympy_verdict",
    "top_fixed_points",
]


def sign_change_counts(p_ref: object, beta: object, eps: float, *, n_grid: int = 4001) -> np.ndarray:
    """Sign changes of F(z) = g(z) - z on ``n_grid`` points of [min(g(0), 0) - 1, logit p_ref + 1/(beta sqrt eps) + 1].

    Every fixed point lies in that interval (g's minimum is g(0), its supremum the cap), so the count is a lower
    bound on the number of fixed points that does not use the monotone brackets of ``fixed_points_grid``.
    Broadcast over (p_ref, beta); eps > 0 scalar.
    """
    p_ref, beta, eps_arr = check_map_params(p_ref, beta, eps, broadcast=True)
    if not (eps_arr > 0).all():
        raise ValueError(f"eps={eps!r} is out of range; valid range is eps > 0 (the interval's top is finite)")
    n_grid = check_positive_int("n_grid", n_grid, minimum=2)
    a, b, e = (x[..., None] for x in (logit(p_ref), beta, eps_arr))
    g0 = a + logit_map_margin(b, e)
    top = logit_map_cap(a, b, e) + 1
    s = np.linspace(0.0, 1.0, n_grid)
    z = np.minimum(g0, 0) - 1 + (top - np.minimum(g0, 0) + 1) * s
    f = logit_map(z, a, b, e) - z
    return np.sum(np.sign(f[..., 1:]) != np.sign(f[..., :-1]), axis=-1)


@dataclass(frozen=True)
class TopFixedPoint:
    """The highest fixed point of h for one (p_ref, beta, eps): the map's cap a + 1/(beta sqrt eps), logit h(1)
    computed by the map, the fixed point itself, and whether p*(1 - p*) < eps (the fixed point "next to 1")."""

    cap: float
    logit_h1: float
    top: FixedPoint
    near_one: bool


@dataclass(frozen=True)
class TopFixedPoints:
    """:func:`top_fixed_points`' table and one :class:`TopFixedPoint` per case, in the order of the cases."""

    table: Table
    points: tuple[TopFixedPoint, ...]


def top_fixed_points(cases: Sequence[tuple[float, float, float]]) -> TopFixedPoints:
    """For each (p_ref, beta, eps): logit h(1) (the cap), the top fixed point's logit, -log10(1 - p*), slope,
    stability, and whether p*(1 - p*) < eps (the fixed point "next to 1", where the smoothing dominates)."""
    rows, facts = [], []
    for p_ref, beta, eps in cases:
        top = fixed_points(p_ref, beta, eps)[-1]
        cap = float(logit_map_cap(logit(p_ref), beta, eps))
        logit_h1 = float(logit_h(1.0, p_ref, beta, eps))
        near_one = bool(expit(top.logit) * expit(-top.logit) < eps)
        minus_log10_gap = np.logaddexp(0.0, top.logit) / np.log(10)  # -log10(1 - p*) = log10(1 + e^{z*})
        rows.append([p_ref, beta, eps, f"{logit_h1:.6g}", f"{top.logit:.6g}", f"{minus_log10_gap:.4g}",
                     f"{top.slope:.3g}", top.stable, near_one])  # fmt: skip
        facts.append(TopFixedPoint(cap, logit_h1, top, near_one))
    headers = [r"$p_{\mathrm{ref}}$", r"$\beta$", r"$\varepsilon$", r"$\operatorname{logit} h(1)$",
               r"top $\operatorname{logit} p^*$", r"$-\log_{10}(1 - p^*)$", r"$h'(p^*)$", "stable",
               r"$p^*(1-p^*) < \varepsilon$"]  # fmt: skip
    return TopFixedPoints(Table(headers, rows), tuple(facts))


@dataclass(frozen=True)
class Fig2FixedPoints:
    """:func:`fig2_fixed_points`' table, the largest relative logit residual of the fixed-point equation, and how
    many fixed points are 1.0 in floating point (their logits are finite)."""

    table: Table
    worst_residual: float
    n_read_one: int


def fig2_fixed_points(p_refs: Sequence[float], betas: Sequence[float], eps: float) -> Fig2FixedPoints:
    """Every fixed point of h for each (p_ref, beta) of Fig. 2 at ``eps`` (section "Every fixed point"), with p*, its
    logit, the slope h'(p*) = g'(z*) (Lemma 1) and its stability; each is checked against the fixed-point equation
    z = logit p_ref + 1/(beta sqrt(sigma(z) sigma(-z) + eps)) by its relative logit residual."""
    rows, worst, read_one = [], 0.0, 0
    for p_ref in p_refs:
        for beta in betas:
            for fp in fixed_points(p_ref, beta, eps):
                g = float(logit(p_ref) + 1 / (beta * np.sqrt(expit(fp.logit) * expit(-fp.logit) + eps)))
                worst = max(worst, abs(g - fp.logit) / max(1.0, abs(fp.logit)))
                read_one += bool(fp.p == 1.0)
                rows.append([p_ref, beta, f"{fp.p:.6f}", f"{fp.logit:.6g}", f"{fp.slope:.3g}", fp.stable])
    headers = [r"$p_{\mathrm{ref}}$", r"$\beta$", r"$p^*$", r"$\operatorname{logit} p^*$", r"$h'(p^*)$", "stable"]
    return Fig2FixedPoints(Table(headers, rows), worst, read_one)


@dataclass(frozen=True)
class SolverInstance:
    """One random instance of :func:`solver_comparison`: its policies, reward, beta, eps and Theorem 1's step."""

    pi_ref: np.ndarray
    pi_prev: np.ndarray
    reward: np.ndarray
    beta: float
    eps: float
    closed: np.ndarray


@dataclass(frozen=True)
class SolverComparison:
    """:func:`solver_comparison`'s table, the largest max |closed - numeric| over the instances, and the last one."""

    table: Table
    worst: float
    last: SolverInstance


def solver_comparison(rng: np.random.Generator, n_instances: int = 20, n_outcomes: int = 50) -> SolverComparison:
    """Theorem 1's closed form against :func:`solve_grpo_step` on random instances drawn from ``rng``.

    Each instance: pi_ref ~ Dirichlet(1/2), a random 0/1 reward with a random success share in (0.05, 0.95),
    pi_prev ~ Dirichlet(1), beta log-uniform in [0.1, 10], eps log-uniform in [1e-6, 1e-1]. Returns the table, the
    largest max |closed - numeric| and the last instance (its arrays, beta, eps and closed-form step), by name.
    """
    n_instances = check_positive_int("n_instances", n_instances)
    n_outcomes = check_positive_int("n_outcomes", n_outcomes, minimum=2)
    rows, worst, last = [], 0.0, None
    for trial in tqdm(range(n_instances), desc="random instances"):
        pi_ref = rng.dirichlet(np.full(n_outcomes, 0.5))
        reward = (rng.random(n_outcomes) < rng.uniform(0.05, 0.95)).astype(float)
        pi_prev = rng.dirichlet(np.ones(n_outcomes))
        beta, eps = 10 ** rng.uniform(-1, 1), 10 ** rng.uniform(-6, -1)
        closed = grpo_step(pi_ref, pi_prev, reward, beta, eps)
        err = float(np.max(np.abs(closed - solve_grpo_step(pi_ref, pi_prev, reward, beta, eps))))
        worst = max(worst, err)
        p0, p1 = policy_expected_reward(pi_ref, reward), policy_expected_reward(closed, reward)
        rows.append([trial, beta, eps, p0, p1, "< 1e-12" if err < 1e-12 else f"{err:.1e}"])
        last = SolverInstance(pi_ref, pi_prev, reward, float(beta), float(eps), closed)
    headers = ["instance", "β", "ε", "p_ref", "p after one step", "max |closed − numeric|"]
    return SolverComparison(Table(headers, rows, ".3g"), worst, last)
