"""The amplification chapter's numerical checks of paper §4, each returning its table and the values its asserts need.

* :func:`theorem3_survey`: Theorem 3 in logit form over a (p_ref, beta) grid for several eps: the gap
  logit p* - logit p_ref against its margin 1/(beta sqrt(1/4 + eps)), where condition (2) fails, and the orbit.
* :func:`condition2_failure_region`: where Theorem 3's printed condition (2) fails, as beta and p_ref ranges.
* :func:`condition2_small_beta_growth`: the exponent with which the left-hand side of condition (2) grows as
  beta -> 0, fitted and compared with a claimed exponent.
* :func:`condition2_everywhere`: whether condition (2) holds for every (beta, p_ref) at an eps, because the
  smallest left-hand side over beta exceeds the largest right-hand side over p_ref.
* :func:`theorem4_stability_check`: Lemma 1 / Theorem 4's bound B(p*) against the fixed points' slopes, and
  perturbed orbits that stay (stable) or leave (unstable).
* :func:`beta_bound_peaks`: the peak of B(p*) per eps against its small-eps value 1/(3^{3/2} sqrt(eps)).
* :func:`orbit_table`: where the orbit from p_ref goes for each (beta, p_ref) of Fig. 5.
* :func:`two_cycle_report`: the "divergent" case of Fig. 5 as a 2-cycle, with its multiplier and fixed points.
* :func:`regime_count_table`: the regime maps' counts per regime.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import logit
from tqdm.auto import tqdm

from grpo_nb.dynamics.fixed_points import FixedPoint, fixed_points, fixed_points_grid
from grpo_nb.dynamics.map import iterate_logit, logit_map, logit_map_margin, logit_map_power, logit_map_slope
from grpo_nb.dynamics.orbits import OrbitKind, attractor, orbit_kind
from grpo_nb.dynamics.paper_bounds import (
    amplification_gap,
    theorem3_condition,
    theorem3_condition2_log_lhs,
    theorem4_beta_bound,
    theorem4_beta_bound_logit,
)
from grpo_nb.dynamics.regimes import Regime, RegimeMap
from grpo_nb.report import Table, bound
from grpo_nb.validation import check_map_params, check_positive_int

__all__ = [
    "StabilityCheck",
    "Theorem3Survey",
    "TwoCycle",
    "beta_bound_peaks",
    "condition2_everywhere",
    "condition2_failure_region",
    "condition2_small_beta_growth",
    "orbit_table",
    "regime_count_table",
    "theorem3_survey",
    "theorem4_stability_check",
    "two_cycle_report",
]


@dataclass(frozen=True)
class Theorem3Survey:
    """Per eps: whether every gap reached its margin and every orbit gap was positive; the table; the eps = 0 escape."""

    table: Table
    gap_reaches_margin: list[bool]
    orbit_gaps_positive: list[bool]
    escaped_share_eps0: float


def theorem3_survey(
    p_ref: np.ndarray, beta: np.ndarray, eps_values: Sequence[float], n_iter: int = 30
) -> Theorem3Survey:
    """Theorem 3 in logit form on the broadcast (p_ref, beta) grid, for each eps.

    The gap min_{p*} logit p* - logit p_ref (NaN where h has no fixed point) against its margin
    1/(beta sqrt(1/4 + eps)) (relative tolerance 1e-9), condition (2)'s failures, and logit p_n - logit p_ref over
    ``n_iter`` iterates. For eps = 0 it also records the share of fixed-point-free grid points whose logit reaches
    +inf (p = 1) within the ``n_iter`` steps.
    """
    check_map_params(p_ref, beta, 0.0)
    n_iter = check_positive_int("n_iter", n_iter)
    rows, reaches, positive, share = [], [], [], float("nan")
    for eps in tqdm(list(eps_values), desc="eps"):
        gap = amplification_gap(p_ref, beta, eps)
        bound = np.broadcast_to(logit_map_margin(beta, eps), gap.shape)
        has = ~np.isnan(gap)
        reaches.append(bool((gap[has] >= bound[has] * (1 - 1e-9)).all()))
        fails = ~theorem3_condition(p_ref, beta, eps)
        with np.errstate(over="ignore"):  # with eps = 0 some orbits run off to logit +inf (p = 1)
            z = iterate_logit(p_ref, beta, eps, n_iter)
        orbit_gap = z[1:] - logit(p_ref)
        positive.append(bool((orbit_gap > 0).all()))
        if eps == 0:
            share = float(np.mean(np.isposinf(z[-1][~has])))
        ratio = float(np.min(gap[has] / bound[has]))
        rows.append([eps, f"{has.sum()}", f"{fails.sum()}", f"{(fails & has).sum()}", ratio, float(orbit_gap.min())])
    headers = [
        "ε",
        "points with a fixed point",
        "condition (2) fails",
        "…and a fixed point exists",
        "min gap / margin",
        f"min over {n_iter} iterates of logit p_n − logit p_ref",
    ]
    return Theorem3Survey(Table(headers, rows, ".4g"), reaches, positive, share)


def condition2_failure_region(p_ref: np.ndarray, beta: np.ndarray, eps_values: Sequence[float]) -> tuple[Table, dict]:
    """Where condition (2) of Theorem 3 fails on the (p_ref, beta) grid (1-D each), per eps.

    Returns the table and, per eps, (number of failures, (beta_min, beta_max), (p_min, p_max), fails at an end of the
    beta range); the ranges are None where nothing fails.
    """
    p_ref, beta = np.asarray(p_ref, dtype=float), np.asarray(beta, dtype=float)
    rows, region = [], {}
    for eps in eps_values:
        fails = ~theorem3_condition(p_ref[:, None], beta[None, :], eps)
        if fails.any():
            b_idx, p_idx = np.nonzero(fails.any(axis=0))[0], np.nonzero(fails.any(axis=1))[0]
            b_rng, p_rng = (beta[b_idx[0]], beta[b_idx[-1]]), (p_ref[p_idx[0]], p_ref[p_idx[-1]])
            rows.append(
                [
                    eps,
                    f"{fails.sum()}",
                    f"[{b_rng[0]:.3g}, {b_rng[1]:.3g}]",
                    f"[{p_rng[0]:.4g}, {1 - p_rng[1]:.2g} from 1]",
                ]
            )
        else:
            b_rng = p_rng = None
            rows.append([eps, "0", "none", "none"])
        region[eps] = (int(fails.sum()), b_rng, p_rng, bool(fails[:, 0].any() or fails[:, -1].any()))
    headers = ["ε", "failing grid points", "β range of the failures", "p_ref range of the failures"]
    return Table(headers, rows), region


def condition2_small_beta_growth(
    eps_values: Sequence[float],
    claimed: Sequence[float],
    beta: np.ndarray | None = None,
    rtol: float = 1e-6,
) -> tuple[Table, list[bool]]:
    """How fast cosh^2(1/(2 beta sqrt(1/4 + eps))) in condition (2) grows as beta -> 0: a fitted exponent.

    For each eps, the slope of log cosh^2 = log LHS - log beta (:func:`theorem3_condition2_log_lhs`) against 1/beta
    is fitted by least squares on ``beta`` (default 30 values in [1e-3, 10^-1.5]) and compared with the ``claimed``
    exponent for that eps (cosh^2 ~ e^{claimed/beta}). Derivation: cosh^2 x = e^{2x}(1 + e^{-2x})^2 / 4, so
    log cosh^2 x = 2x - log 4 + O(e^{-2x}) with 2x = 1/(beta sqrt(1/4 + eps)): the exponent is 1/sqrt(1/4 + eps),
    2 at eps = 0. The verdict per eps: |fitted - claimed| <= rtol |claimed|.
    """
    beta = np.logspace(-3, -1.5, 30) if beta is None else np.asarray(beta, dtype=float)
    rows, ok = [], []
    if len(claimed) != len(eps_values):
        raise ValueError(f"claimed has {len(claimed)} values; valid is one per eps ({len(eps_values)})")
    for eps, exponent in zip(eps_values, claimed, strict=True):
        log_cosh2 = theorem3_condition2_log_lhs(beta, eps) - np.log(beta)
        fitted = float(np.polyfit(1.0 / beta, log_cosh2, 1)[0])
        ok.append(bool(abs(fitted - exponent) <= rtol * abs(exponent)))
        rows.append([eps, f"{fitted:.9f}", f"{exponent:.9f}", bound(abs(fitted / exponent - 1), rtol)])
    headers = ["ε", "fitted exponent (slope of log cosh² against 1/β)", "claimed exponent", "relative gap"]
    return Table(headers, rows), ok


def condition2_everywhere(eps_values: Sequence[float], n: int = 200001) -> tuple[Table, dict[float, tuple]]:
    """Per eps: min over beta of condition (2)'s left-hand side against max over p_ref of its right-hand side.

    The right-hand side is Theorem 4's B at p_ref, B(p) = v sqrt(1 - 4v) / (2 (v + eps)^{3/2}) with v = p(1-p), so
    it never exceeds 1/(3^{3/2} sqrt(eps)) (the maximum over v of v/(2 (v + eps)^{3/2}), at v = 2 eps). The left-hand
    side beta cosh^2(c/beta), c = 1/(2 sqrt(1/4 + eps)), is c cosh^2(u)/u with u = c/beta; it has one minimum, and it
    is at least beta. Hence condition (2) holds for every (beta, p_ref) where min LHS >= max RHS, and for every p_ref
    once beta >= 1/(3^{3/2} sqrt(eps)). Both extremes are taken on dense grids (``n`` values of u in (0, 10] and of
    p_ref in (1/2, 1)); returned per eps: (min LHS, the beta where it sits, max RHS, 1/(3^{3/2} sqrt(eps))).
    """
    c_over_beta = np.linspace(0, 10, n)[1:]
    p = np.linspace(0.5, 1, n)[1:-1]
    rows, facts = [], {}
    for eps in eps_values:
        beta = 1.0 / (2.0 * np.sqrt(0.25 + eps)) / c_over_beta
        lhs = np.exp(theorem3_condition2_log_lhs(beta, eps))
        rhs_max = float(theorem4_beta_bound(p, eps).max())
        cap = float(1.0 / (3**1.5 * np.sqrt(eps)))
        facts[eps] = (float(lhs.min()), float(beta[np.argmin(lhs)]), rhs_max, cap)
        rows.append([eps, facts[eps][0], facts[eps][1], rhs_max, cap, bool(lhs.min() >= rhs_max)])
    headers = ["ε", "min over β of β cosh²(·)", "at β", "max over p_ref of the right side", "1/(3^1.5 √ε)",
               "(2) holds everywhere"]  # fmt: skip
    return Table(headers, rows, ".4g"), facts


@dataclass(frozen=True)
class StabilityCheck:
    """Theorem 4 on a grid: B(p*)/beta against a finite-difference slope of the map, stability verdicts, and orbits.

    max_relative_error: largest |B(p*)/beta - |h'(p*)|| / max(|h'(p*)|, 1e-3) with h'(p*) from central differences;
    bound_matches_stability: beta > B(p*) exactly where the finite-difference |h'(p*)| < 1 (away from |h'| = 1);
    moved: for stable and unstable fixed points, [how many were perturbed, how many behaved as Theorem 4 says];
    n_fixed_points: how many fixed points the grid has in all.
    """

    max_relative_error: float
    bound_matches_stability: bool
    moved: dict[str, list[int]]
    n_fixed_points: int


def theorem4_stability_check(
    p_ref: np.ndarray, beta: np.ndarray, eps: float, *, delta: float = 1e-6, n_steps: int = 200, step: float = 1e-3
) -> StabilityCheck:
    """Lemma 1 / Theorem 4 on the broadcast (p_ref column, beta row) grid at one eps.

    The slope of h at each fixed point is measured without Proposition 1's formula: by a central difference of the
    logit map g (Theorem 2 in log-odds) with logit step ``step``; since g = logit o h o sigmoid and h(p*) = p*, the
    chain rule gives g'(z*) = h'(p*) at a fixed point. It is compared with Lemma 1's B(p*)/beta, and beta > B(p*) with
    |h'(p*)| < 1 (fixed points with | |h'| - 1 | < 1e-6 are left out of that comparison). Then each fixed point with
    |logit| < 50 that is not near-neutral (| |h'| - 1 | > 0.05) is perturbed by ``delta`` in logit and iterated
    ``n_steps`` times: ``moved`` counts, for stable and for unstable ones, [how many, how many came back within
    delta/10 (stable) or left beyond 10 delta (unstable)].
    """
    grid = fixed_points_grid(p_ref, beta, eps)
    has = ~np.isnan(grid.logits)
    a = np.broadcast_to(logit(p_ref)[..., None], grid.logits.shape)
    b = np.broadcast_to(np.asarray(beta, dtype=float)[..., None], grid.logits.shape)
    z_star = np.where(has, grid.logits, 0.0)
    fd = (logit_map(z_star + step, a, b, eps) - logit_map(z_star - step, a, b, eps)) / (2 * step)
    bound = theorem4_beta_bound_logit(z_star, eps)
    err = np.abs(bound / b - np.abs(fd))[has] / np.maximum(np.abs(fd[has]), 1e-3)
    decided = has & (np.abs(np.abs(fd) - 1) > 1e-6)
    matches = bool(((b > bound)[decided] == (np.abs(fd) < 1)[decided]).all())
    sel = has & (np.abs(grid.logits) < 50) & (np.abs(np.abs(fd) - 1) > 0.05)
    i, j, k = np.nonzero(sel)
    z_sel, slope = grid.logits[i, j, k], fd[i, j, k]
    z = logit_map_power(z_sel + delta, a[i, j, k], b[i, j, k], eps, n_steps)
    stable = np.abs(slope) < 1
    moved = {
        "stable": [int(stable.sum()), int(np.sum(stable & (np.abs(z - z_sel) < delta / 10)))],
        "unstable": [int((~stable).sum()), int(np.sum(~stable & (np.abs(z - z_sel) > 10 * delta)))],
    }
    return StabilityCheck(float(err.max()), matches, moved, int(has.sum()))


def beta_bound_peaks(eps_values: Sequence[float], n: int = 200001) -> tuple[Table, list[dict]]:
    """The peak of Theorem 4's B(p*) over p* in (0, 1) per eps, next to 1/(3^{3/2} sqrt(eps)) and 2 eps.

    Per eps also B(1/2) and the largest of B at 1e-12 and 1 - 1e-12 (the ends), for the chapter's asserts.
    """
    p_star = np.linspace(0, 1, n)[1:-1]
    rows, facts = [], []
    for eps in eps_values:
        b = theorem4_beta_bound(p_star, eps)
        peak = float(b.max())
        p_peak = p_star[np.argmax(b)]  # B is symmetric under p -> 1 - p: report the variance at the peak
        rows.append([eps, peak, 1 / (3**1.5 * np.sqrt(eps)), p_peak * (1 - p_peak), 2 * eps])
        ends = float(np.max(theorem4_beta_bound(np.array([1e-12, 1 - 1e-12]), eps)))
        facts.append({"eps": eps, "peak": peak, "at_half": float(theorem4_beta_bound(0.5, eps)), "ends": ends})
    headers = ["ε", "max B(p*)", "1/(3^1.5 √ε)", "p*(1−p*) at the peak", "2ε"]
    return Table(headers, rows, ".3g"), facts


def orbit_table(cases: Sequence[tuple[float, float]], eps: float, n: int = 400) -> tuple[Table, list[bool]]:
    """For each (beta, p_ref): orbit kind, period, Lyapunov exponent, limit set, fixed points and how many are stable.

    The second value says per case whether the check holds: a fixed-point verdict matches a fixed point of h to 1e-9
    in logit after ``n`` steps, and a limit "stuck at 1" (p within 1e-9 of 1) has a logit above 100.
    """
    rows, ok = [], []
    for beta, p_ref in cases:
        kind = orbit_kind(p_ref, beta, eps)
        limit = attractor(p_ref, beta, eps)
        fps = fixed_points(p_ref, beta, eps)
        z_end = float(iterate_logit(p_ref, beta, eps, n)[-1])
        near_one = max(limit) >= 1 - 1e-9
        matched = (
            kind.kind != "fixed_point" or min(abs(fp.logit - z_end) / max(1.0, abs(fp.logit)) for fp in fps) < 1e-9
        )
        ok.append(bool(matched and (not near_one or z_end > 100)))
        where = f"logit {z_end:.5g}" if near_one else ", ".join(f"{x:.4g}" for x in limit)
        rows.append(
            [beta, p_ref, kind.kind, kind.period, f"{kind.lyapunov:.3g}", where, len(fps), sum(fp.stable for fp in fps)]
        )
    headers = ["β", "p_ref", "orbit", "period", "Lyapunov exp.", "limit", "fixed points", "stable"]
    return Table(headers, rows), ok


@dataclass(frozen=True)
class TwoCycle:
    """One orbit's attractor as a 2-cycle: its points, its multiplier g'(z1) g'(z2), the fixed points, the orbit."""

    kind: OrbitKind
    cycle: tuple[float, ...]
    swap_error: float
    multiplier: float
    fixed_points: list[FixedPoint]
    orbit_logits: np.ndarray
    shrink: np.ndarray

    def table(self) -> Table:
        """The quantities the chapter quotes."""
        fps, z = self.fixed_points, self.orbit_logits
        rows = [
            ["cycle p values", f"{self.cycle[0]:.6f}, {self.cycle[1]:.6f}"],
            ["cycle multiplier g'(z1) g'(z2)", f"{self.multiplier:.4f}"],
            ["Lyapunov exponent (log|multiplier| / 2)", f"{self.kind.lyapunov:.4f}"],
            ["fixed points (logit)", ", ".join(f"{fp.logit:.4g}" for fp in fps)],
            ["their slopes h'(p*)", ", ".join(f"{fp.slope:.3g}" for fp in fps)],
            ["largest logit on the orbit", f"{z.max():.4f}"],
        ]
        return Table(["quantity", "value"], rows)


def two_cycle_report(p_ref: float, beta: float, eps: float, n: int = 2000) -> TwoCycle:
    """The 2-cycle that the orbit from p_ref settles on: its points (attractor), how well g swaps them (max
    |g(z1) - z2|, |g(z2) - z1|), its multiplier, h's fixed points, the orbit's logits over ``n`` steps, and the
    ratios by which the distance to the cycle shrinks every two steps (steps 60..120)."""
    kind = orbit_kind(p_ref, beta, eps)
    cycle = attractor(p_ref, beta, eps)
    if len(cycle) != 2:
        raise ValueError(f"the orbit from p_ref={p_ref!r}, beta={beta!r}, eps={eps!r} is not a 2-cycle: {kind}")
    z1, z2 = logit(cycle[0]), logit(cycle[1])
    a = logit(p_ref)
    swap = max(abs(float(logit_map(z1, a, beta, eps)) - z2), abs(float(logit_map(z2, a, beta, eps)) - z1))
    multiplier = float(logit_map_slope(z1, beta, eps) * logit_map_slope(z2, beta, eps))
    z = iterate_logit(p_ref, beta, eps, n)
    dist = np.abs(z[0:200:2] - z[-1 - (len(z) - 1) % 2])
    return TwoCycle(kind, cycle, swap, multiplier, fixed_points(p_ref, beta, eps), z, dist[31:61] / dist[30:60])


def regime_count_table(maps: Mapping[float, RegimeMap]) -> Table:
    """Per eps: grid points per regime, the two stability flags, and the cycle periods seen."""
    rows = []
    for eps, rm in maps.items():
        c = rm.counts()
        periods = np.unique(rm.period[rm.regime == Regime.CYCLE])
        flags = [str(c["stable fixed point exists, orbit goes elsewhere"]), str(c["no stable fixed point"])]
        rows.append([eps, *(str(c[r.label]) for r in Regime), *flags, ", ".join(str(k) for k in periods)])
    headers = ["ε", *(r.label for r in Regime), "stable f.p. not reached", "no stable f.p.", "cycle periods seen"]
    return Table(headers, rows)
