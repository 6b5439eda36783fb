"""Section "Amplification (Theorem 3)" of the chapter "Amplification and convergence"
(``book/amplification_theorem3.md``, paper §4).

* :func:`theorem3_survey`: Theorem 3 in logit form over a (p_ref, beta) grid for several eps: the gap
  logit p* - logit p_ref against its margin 1/(beta sqrt(1/4 + eps)), where condition (2) fails, and the orbit. Its
  margins hold by construction (it iterates g itself); :func:`theorem3_tabular` checks the theorem where it could
  fail, on Theorem 1's closed-form policies over random finite outcome spaces.

The negative tests replace names this module reads (``amplification_gap``, ``grpo_step``) with wrong formulas and see
the verdicts fail.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logit
from tqdm.auto import tqdm

from grpo_nb.dynamics.map import iterate_logit, logit_map_margin
from grpo_nb.dynamics.paper_bounds import amplification_gap, theorem3_condition
from grpo_nb.report import Table
from grpo_nb.tabular.closed_form import grpo_step, solve_grpo_step
from grpo_nb.tabular.policy import expected_reward
from grpo_nb.validation import check_beta, check_eps, check_map_params, check_positive_int

__all__ = [
    "Theorem3Solver",
    "Theorem3Survey",
    "Theorem3Tabular",
    "theorem3_solver_check",
    "theorem3_survey",
    "theorem3_tabular",
]


@dataclass(frozen=True)
class Theorem3Survey:
    """:func:`theorem3_survey`'s table and, per eps: whether every gap reached its margin, whether every orbit gap was
    positive, and how many grid points fail condition (2) although h has a fixed point there; then the share of the
    fixed-point-free grid points whose logit reached +inf at eps = 0 (NaN if eps = 0 was not surveyed)."""

    table: Table
    gap_reaches_margin: list[bool]
    orbit_gaps_positive: list[bool]
    failing_with_fixed_point: list[int]
    escaped_share_eps0: float


def theorem3_survey(p_ref: np.ndarray, beta: np.ndarray, eps_values: Sequence[float], *, n: int = 30) -> Theorem3Survey:
    """Theorem 3 in logit form on the broadcast (p_ref, beta) grid, for each eps (section "Amplification (Theorem 3)").

    The gap min_{p*} logit p* - logit p_ref (NaN where h has no fixed point) against its margin
    1/(beta sqrt(1/4 + eps)) (relative tolerance 1e-9), condition (2)'s failures, and logit p_n - logit p_ref over
    ``n`` iterates. For eps = 0 it also records the share of fixed-point-free grid points whose logit reaches
    +inf (p = 1) within the ``n`` steps.
    """
    check_map_params(p_ref, beta, 0.0)
    n = check_positive_int("n", n)
    rows, reaches, positive, failing, share = [], [], [], [], float("nan")
    for eps in tqdm(list(eps_values), desc="eps"):
        gap = amplification_gap(p_ref, beta, eps)
        bound = np.broadcast_to(logit_map_margin(beta, eps), gap.shape)
        has = ~np.isnan(gap)
        reaches.append(bool((gap[has] >= bound[has] * (1 - 1e-9)).all()))
        fails = ~theorem3_condition(p_ref, beta, eps)
        with np.errstate(over="ignore"):  # with eps = 0 some orbits run off to logit +inf (p = 1)
            z = iterate_logit(p_ref, beta, eps, n=n)
        orbit_gap = z[1:] - logit(p_ref)
        positive.append(bool((orbit_gap > 0).all()))
        if eps == 0:
            share = float(np.mean(np.isposinf(z[-1][~has])))
        ratio = float(np.min(gap[has] / bound[has]))
        failing.append(int((fails & has).sum()))
        rows.append([eps, f"{has.sum()}", f"{fails.sum()}", f"{failing[-1]}", ratio, float(orbit_gap.min())])
    headers = [
        "ε",
        "points with a fixed point",
        "condition (2) fails",
        "…and a fixed point exists",
        "min gap / margin",
        rf"min over {n} iterates of $\operatorname{{logit}} p_n - \operatorname{{logit}} p_{{\mathrm{{ref}}}}$",
    ]
    return Theorem3Survey(Table(headers, rows, ".4g"), reaches, positive, failing, share)


@dataclass(frozen=True)
class Theorem3Tabular:
    """:func:`theorem3_tabular`'s table and verdicts over every (outcome space, beta, eps, iterate n = 1..N):
    ``above_ref`` (p_n > p_ref), ``margin_ok`` (logit p_n - logit p_ref >= 1/(beta sqrt(1/4 + eps)), relative
    tolerance 1e-9), ``min_ratio`` (the smallest gap over its margin) and ``failing_condition2`` (how many of the
    (space, beta, eps) cases fail the paper's condition (2))."""

    table: Table
    above_ref: bool
    margin_ok: bool
    min_ratio: float
    failing_condition2: int


#: The random outcome spaces of :func:`theorem3_tabular`: how many, how many outcomes each, and the seed.
TABULAR_SPACES, TABULAR_OUTCOMES, TABULAR_SEED = 12, 8, 0


def _random_space(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One random outcome space of :func:`theorem3_tabular`: ``TABULAR_OUTCOMES`` outcomes, at least one right and one
    wrong, and pi_ref with its success mass's logit uniform in [-10, 12]."""
    reward = np.r_[1.0, 0.0, (rng.random(TABULAR_OUTCOMES - 2) < 0.5).astype(float)]
    p_ref = float(expit(rng.uniform(-10.0, 12.0)))
    w = rng.dirichlet(np.ones(TABULAR_OUTCOMES))
    pi_ref = np.where(reward == 1, p_ref * w / w[reward == 1].sum(), (1 - p_ref) * w / w[reward == 0].sum())
    return reward, pi_ref


def _log_odds(pi: np.ndarray, reward: np.ndarray) -> float:
    """logit of the success mass of pi, from the masses of the successes and of the failures (+inf if the failures'
    mass underflows to 0)."""
    with np.errstate(divide="ignore"):
        return float(np.log(pi[reward == 1].sum()) - np.log(pi[reward == 0].sum()))


def theorem3_tabular(betas: Sequence[float], eps_values: Sequence[float], *, n: int = 8) -> Theorem3Tabular:
    """Theorem 3 where it could fail (section "Amplification (Theorem 3)"): iterate Theorem 1's closed-form GRPO
    step (:func:`grpo_nb.tabular.grpo_step`, the module-level name ``grpo_step`` that the negative tests replace) on
    random finite outcome spaces with a 0/1 reward, never through the logit map g.

    Each of ``TABULAR_SPACES`` spaces (seed ``TABULAR_SEED``) has ``TABULAR_OUTCOMES`` outcomes, at least one right
    and one wrong, and a reference policy whose success mass p_ref has its logit uniform in [-10, 12] (so that many
    cases fail condition (2), which needs p_ref > 0.96 at eps = 1e-5). For every beta and eps > 0 the policy is
    iterated ``n`` times from pi_ref; each iterate's success probability (:func:`grpo_nb.tabular.expected_reward`)
    must exceed p_ref and its log-odds, read off the policy's success and failure masses, must exceed
    logit p_ref by Theorem 3's margin 1/(beta sqrt(1/4 + eps)) (relative tolerance 1e-9).
    """
    b = check_beta(np.asarray(betas, dtype=float))
    n = check_positive_int("n", n)
    rng = np.random.default_rng(TABULAR_SEED)
    above, ratios, failing, rows = True, [], 0, []
    for _ in range(TABULAR_SPACES):
        reward, pi_ref = _random_space(rng)
        z_ref, p0 = _log_odds(pi_ref, reward), float(expected_reward(pi_ref, reward))
        for eps in eps_values:
            eps = float(check_eps(eps))
            if not eps > 0:
                raise ValueError(f"eps={eps!r} is out of range; valid range is eps > 0 (p_n reaches 1 in float)")
            failing += int((~theorem3_condition(p0, b, eps)).sum())
            for beta in b:
                pi, margin = pi_ref, float(logit_map_margin(beta, eps))
                for _ in range(n):
                    pi = grpo_step(pi_ref, pi, reward, float(beta), eps)
                    above &= bool(expected_reward(pi, reward) > p0)
                    ratios.append((_log_odds(pi, reward) - z_ref) / margin)
        rows.append([z_ref, int(reward.sum()), min(ratios[-n * b.size * len(eps_values) :])])
    min_ratio = float(np.min(ratios))
    headers = [r"$\operatorname{logit} p_{\mathrm{ref}}$", f"right answers (of {TABULAR_OUTCOMES})",
               "min over β, ε, n of gap / margin"]  # fmt: skip
    table = Table(headers, rows, ".4g")
    return Theorem3Tabular(table, above, bool(min_ratio >= 1 - 1e-9), min_ratio, failing)


@dataclass(frozen=True)
class Theorem3Solver:
    """:func:`theorem3_solver_check`: ``above_ref`` (every p_n > p_ref), ``min_ratio`` (the smallest log-odds gain
    over Theorem 3's margin) and ``max_gap_to_closed_form`` (the largest |p_n(solver) - p_n(Theorem 1)|)."""

    above_ref: bool
    min_ratio: float
    max_gap_to_closed_form: float


#: The maximiser :func:`theorem3_solver_check` iterates; the negative tests replace it.
solve_step = solve_grpo_step


def theorem3_solver_check(betas: Sequence[float], eps: float, *, n: int = 3) -> Theorem3Solver:
    """Theorem 3 with no formula of the paper in the loop (section "Amplification (Theorem 3)"): on the random
    outcome spaces of :func:`theorem3_tabular`, each step is the numerical maximiser of the KL-regularised objective
    (:func:`grpo_nb.tabular.solve_grpo_step`, read as the module-level name ``solve_step``), never Theorem 1's tilt
    nor the logit map g; ``n`` steps per beta. The closed form is iterated beside it, to measure their distance."""
    b, eps, n = check_beta(np.asarray(betas, dtype=float)), float(check_eps(eps)), check_positive_int("n", n)
    rng = np.random.default_rng(TABULAR_SEED)
    above, ratios, gaps = True, [], [0.0]
    for _ in range(TABULAR_SPACES):
        reward, pi_ref = _random_space(rng)
        z_ref, p0 = _log_odds(pi_ref, reward), float(expected_reward(pi_ref, reward))
        for beta in b:
            solved = closed = pi_ref
            for _ in range(n):
                solved = solve_step(pi_ref, solved, reward, float(beta), eps)
                closed = grpo_step(pi_ref, closed, reward, float(beta), eps)
                above &= bool(expected_reward(solved, reward) > p0)
                ratios.append((_log_odds(solved, reward) - z_ref) / float(logit_map_margin(beta, eps)))
                gaps.append(abs(float(expected_reward(solved, reward) - expected_reward(closed, reward))))
    return Theorem3Solver(above, float(np.min(ratios)), float(max(gaps)))
