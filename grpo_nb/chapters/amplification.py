"""The analyses of the chapter "Amplification and convergence" (``book/amplification.md``, paper §4), each returning
its table and the values the chapter's asserts need; the section of the chapter that uses each is named in brackets.

* :func:`theorem3_survey` ("Amplification (Theorem 3)"): Theorem 3 in logit form over a (p_ref, beta) grid for
  several eps: the gap logit p* - logit p_ref against its margin 1/(beta sqrt(1/4 + eps)), where condition (2)
  fails, and the orbit. Its margins hold by construction (it iterates g itself); :func:`theorem3_tabular` checks
  the theorem where it could fail, on Theorem 1's closed-form policies over random finite outcome spaces.
* :func:`condition2_failure_region`, :func:`condition2_small_beta_growth`, :func:`condition2_everywhere`
  ("Fig. 3: where condition (2) holds"): where Theorem 3's printed condition (2) fails, as beta and p_ref ranges; the
  exponent with which its left-hand side grows as beta -> 0, fitted and compared with a claimed exponent; whether it
  holds for every (beta, p_ref) at an eps, because the smallest left-hand side over beta exceeds the largest
  right-hand side over p_ref.
* :func:`theorem4_stability_check` ("Local convergence (Theorem 4 and Lemma 1)"): Lemma 1 / Theorem 4's bound B(p*)
  against the fixed points' slopes, and perturbed orbits that stay (stable) or leave (unstable).
* :func:`beta_bound_peaks` ("Fig. 4: the bound on β"): the peak of B(p*) per eps against its small-eps value
  1/(3^{3/2} sqrt(eps)).
* :func:`orbit_table` ("Fig. 5: what the iterations do"): where the orbit from p_ref goes for each (p_ref, beta).
* :func:`two_cycle_report` ('The "divergent" case is a stable 2-cycle'): the "divergent" case of Fig. 5 as a
  2-cycle, with its multiplier and fixed points.
* :func:`regime_count_table` ("A map of the regimes"): the regime maps' counts per regime.
* :func:`theorem4_hypothesis_grid`, :func:`hypothesis_table` ("Theorem 4's hypothesis against amplification"): where
  Theorem 4's hypothesis (p_ref within a ball around a stable p* on which h contracts) can hold at all, given that
  amplification keeps every fixed point away from p_ref, against where the orbit converges.
* :func:`per_prompt_bounds`, :func:`uniform_beta_report` ("Remark 2: one β for all prompts"): the per-prompt lower
  bounds on beta read off a grid, beside the exact set of betas that are unsafe for some prompt
  (:mod:`grpo_nb.dynamics.uniform_beta`) and the prompt-free bound
  :func:`grpo_nb.dynamics.paper_bounds.prompt_free_beta_bound`.
* :data:`PRACTICE_BETAS`, :func:`kl_penalty_gradients`, :func:`practice_regime_table`, :func:`small_beta_limit` ("What
  β means in practice"): the KL weights used in practice, the gradients of the k3 KL penalty, where the practical
  betas fall on the regime maps, and the recursion as beta -> 0; :func:`first_step` takes the first exact step
  with Theorem 1's Gibbs policy for every representable p_ref, which also shows why Theorem 5's per-step errors
  cannot be small at such beta.
* :func:`sympy_verdict` (each section with a sympy derivation): the one-line verdict shown above the folded
  derivation.

The formulas they check live in :mod:`grpo_nb.dynamics` (``map``, ``paper_bounds``, ``fixed_points``, ``orbits``,
``regimes``) and :mod:`grpo_nb.kl`; the negative tests replace names this module reads (``amplification_gap``,
``theorem4_beta_bound_logit``, ``contraction_on_ball``, ``grpo_step``, ``gibbs_log_policy``) with wrong formulas and
see the verdicts fail.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, log_softmax, logit
from tqdm.auto import tqdm

from grpo_nb.dynamics.fixed_points import FixedPoint, fixed_points, fixed_points_grid
from grpo_nb.dynamics.map import (
    h_prime,
    iterate_logit,
    logit_map,
    logit_map_margin,
    logit_map_power,
    logit_map_slope,
)
from grpo_nb.dynamics.orbits import OrbitKind, attractor, orbit_kind
from grpo_nb.dynamics.paper_bounds import (
    amplification_gap,
    prompt_free_beta_bound,
    theorem3_condition,
    theorem3_condition2_log_lhs,
    theorem4_beta_bound,
    theorem4_beta_bound_logit,
)
from grpo_nb.dynamics.regimes import Regime, RegimeMap, regime_map
from grpo_nb.dynamics.uniform_beta import (
    PUpThreshold,
    SafeBetas,
    SupremumBound,
    p_up_threshold,
    prompt_beta_bound,
    safe_betas,
    supremum_bound,
)
from grpo_nb.kl import k3
from grpo_nb.report import Table, bound
from grpo_nb.symbolic.identity import sympy_verdict
from grpo_nb.tabular.closed_form import grpo_step
from grpo_nb.tabular.policy import expected_reward, gibbs_log_policy
from grpo_nb.validation import (
    check_beta,
    check_eps,
    check_logits,
    check_map_params,
    check_p_ref,
    check_positive_int,
    check_scalar,
)

__all__ = [
    "BoundPeak",
    "BoundPeaks",
    "Condition2Everywhere",
    "Condition2Extremes",
    "Condition2Failures",
    "ExponentFit",
    "FailureRegion",
    "HypothesisTable",
    "KLGradients",
    "OrbitTable",
    "PRACTICE_BETAS",
    "PerPromptBounds",
    "Perturbed",
    "PracticeRegimes",
    "SmallBetaLimit",
    "StabilityCheck",
    "FirstStep",
    "Theorem3Survey",
    "Theorem3Tabular",
    "Theorem4Hypothesis",
    "TwoCycle",
    "UniformBetaReport",
    "beta_bound_peaks",
    "first_step",
    "condition2_everywhere",
    "condition2_failure_region",
    "condition2_small_beta_growth",
    "contraction_on_ball",
    "hypothesis_table",
    "kl_penalty_gradients",
    "orbit_table",
    "per_prompt_bounds",
    "practice_regime_table",
    "regime_count_table",
    "small_beta_limit",
    "sympy_verdict",
    "theorem3_survey",
    "theorem3_tabular",
    "theorem4_hypothesis_grid",
    "theorem4_stability_check",
    "two_cycle_report",
    "uniform_beta_report",
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
        reward = np.r_[1.0, 0.0, (rng.random(TABULAR_OUTCOMES - 2) < 0.5).astype(float)]
        p_ref = float(expit(rng.uniform(-10.0, 12.0)))
        w = rng.dirichlet(np.ones(TABULAR_OUTCOMES))
        pi_ref = np.where(reward == 1, p_ref * w / w[reward == 1].sum(), (1 - p_ref) * w / w[reward == 0].sum())
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
class Condition2Failures:
    """Where condition (2) fails at one eps: how many grid points, the beta and p_ref ranges they span (None where
    nothing fails), and whether it fails at the smallest or the largest beta of the grid."""

    n_failing: int
    beta_range: tuple[float, float] | None
    p_ref_range: tuple[float, float] | None
    fails_at_a_beta_end: bool


@dataclass(frozen=True)
class FailureRegion:
    """:func:`condition2_failure_region`'s table and one :class:`Condition2Failures` per eps (keyed by eps)."""

    table: Table
    by_eps: dict[float, Condition2Failures]


def condition2_failure_region(p_ref: np.ndarray, beta: np.ndarray, eps_values: Sequence[float]) -> FailureRegion:
    """Where condition (2) of Theorem 3 fails on the (p_ref, beta) grid (1-D each), per eps (section "Fig. 3: where
    condition (2) holds").

    Returns a :class:`FailureRegion`: the table and, per eps, the number of failures, their beta and p_ref ranges and
    whether one sits at an end of the beta range.
    """
    p_ref, beta = np.asarray(p_ref, dtype=float), np.asarray(beta, dtype=float)
    rows, region = [], {}
    for eps in eps_values:
        fails = ~theorem3_condition(p_ref[:, None], beta[None, :], eps)
        if fails.any():
            b_idx, p_idx = np.nonzero(fails.any(axis=0))[0], np.nonzero(fails.any(axis=1))[0]
            b_rng = (float(beta[b_idx[0]]), float(beta[b_idx[-1]]))
            p_rng = (float(p_ref[p_idx[0]]), float(p_ref[p_idx[-1]]))
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
        at_end = bool(fails[:, 0].any() or fails[:, -1].any())
        region[eps] = Condition2Failures(int(fails.sum()), b_rng, p_rng, at_end)
    headers = ["ε", "failing grid points", "β range of the failures", r"$p_{\mathrm{ref}}$ range of the failures"]
    return FailureRegion(Table(headers, rows), region)


@dataclass(frozen=True)
class ExponentFit:
    """:func:`condition2_small_beta_growth`'s table, the fitted and the claimed exponent per eps, and per eps whether
    they agree (the verdict)."""

    table: Table
    fitted: np.ndarray
    claimed: np.ndarray
    matches: list[bool]


def condition2_small_beta_growth(
    eps_values: Sequence[float],
    claimed: Sequence[float],
    *,
    beta: np.ndarray | None = None,
    rtol: float = 1e-6,
) -> ExponentFit:
    """How fast cosh^2(1/(2 beta sqrt(1/4 + eps))) in condition (2) grows as beta -> 0: a fitted exponent (section
    "Fig. 3: where condition (2) holds", which also feeds it the wrong exponent 1 and sees every verdict fail).

    For each eps, the slope of log cosh^2 = log LHS - log beta (:func:`theorem3_condition2_log_lhs`) against 1/beta
    is fitted by least squares on ``beta`` (default 30 values in [1e-3, 10^-1.5]) and compared with the ``claimed``
    exponent for that eps (cosh^2 ~ e^{claimed/beta}). Derivation: cosh^2 x = e^{2x}(1 + e^{-2x})^2 / 4, so
    log cosh^2 x = 2x - log 4 + O(e^{-2x}) with 2x = 1/(beta sqrt(1/4 + eps)): the exponent is 1/sqrt(1/4 + eps),
    2 at eps = 0. The verdict per eps: |fitted - claimed| <= rtol |claimed|.
    """
    beta = np.logspace(-3, -1.5, 30) if beta is None else np.asarray(beta, dtype=float)
    rows, fits, ok = [], [], []
    if len(claimed) != len(eps_values):
        raise ValueError(f"claimed has {len(claimed)} values; valid is one per eps ({len(eps_values)})")
    for eps, exponent in zip(eps_values, claimed, strict=True):
        log_cosh2 = theorem3_condition2_log_lhs(beta, eps) - np.log(beta)
        fitted = float(np.polyfit(1.0 / beta, log_cosh2, 1)[0])
        fits.append(fitted)
        ok.append(bool(abs(fitted - exponent) <= rtol * abs(exponent)))
        rows.append([eps, f"{fitted:.9f}", f"{exponent:.9f}", bound(abs(fitted / exponent - 1), rtol)])
    headers = ["ε", "fitted exponent (slope of log cosh² against 1/β)", "claimed exponent", "relative gap"]
    return ExponentFit(Table(headers, rows), np.array(fits), np.asarray(claimed, dtype=float), ok)


@dataclass(frozen=True)
class Condition2Extremes:
    """Condition (2)'s two sides at one eps: the smallest left-hand side over beta and the beta where it sits, the
    largest right-hand side over p_ref, the prompt-free cap 1/(3^{3/2} sqrt(eps)) above it, and the verdict
    ``holds_everywhere`` (min LHS >= max RHS: condition (2) holds for every (beta, p_ref))."""

    lhs_min: float
    beta_at_lhs_min: float
    rhs_max: float
    cap: float
    holds_everywhere: bool


@dataclass(frozen=True)
class Condition2Everywhere:
    """:func:`condition2_everywhere`'s table and one :class:`Condition2Extremes` per eps (keyed by eps)."""

    table: Table
    by_eps: dict[float, Condition2Extremes]


def condition2_everywhere(eps_values: Sequence[float], n_grid: int = 200001) -> Condition2Everywhere:
    """Per eps: min over beta of condition (2)'s left-hand side against max over p_ref of its right-hand side (section
    "Fig. 3: where condition (2) holds").

    The right-hand side is Theorem 4's B at p_ref, B(p) = v sqrt(1 - 4v) / (2 (v + eps)^{3/2}) with v = p(1-p), so
    it never exceeds 1/(3^{3/2} sqrt(eps)) (the maximum over v of v/(2 (v + eps)^{3/2}), at v = 2 eps). The left-hand
    side beta cosh^2(c/beta), c = 1/(2 sqrt(1/4 + eps)), is c cosh^2(u)/u with u = c/beta; it has one minimum, and it
    is at least beta. Hence condition (2) holds for every (beta, p_ref) where min LHS >= max RHS, and for every p_ref
    once beta >= 1/(3^{3/2} sqrt(eps)). Both extremes are taken on dense grids (``n_grid`` values of u in (0, 10] and of
    p_ref in (1/2, 1)); returned per eps as a :class:`Condition2Extremes`.
    """
    c_over_beta = np.linspace(0, 10, n_grid)[1:]
    p = np.linspace(0.5, 1, n_grid)[1:-1]
    rows, facts = [], {}
    for eps in eps_values:
        beta = 1.0 / (2.0 * np.sqrt(0.25 + eps)) / c_over_beta
        lhs = np.exp(theorem3_condition2_log_lhs(beta, eps))
        rhs_max = float(theorem4_beta_bound(p, eps).max())
        cap = prompt_free_beta_bound(eps)
        e = Condition2Extremes(float(lhs.min()), float(beta[np.argmin(lhs)]), rhs_max, cap, bool(lhs.min() >= rhs_max))
        facts[eps] = e
        rows.append([eps, e.lhs_min, e.beta_at_lhs_min, rhs_max, cap, e.holds_everywhere])
    headers = ["ε", r"min over β of $\beta\cosh^2(\cdot)$", "at β", r"max over $p_{\mathrm{ref}}$ of the right side",
               r"$1/(3^{3/2}\sqrt{\varepsilon})$", "(2) holds everywhere"]  # fmt: skip
    return Condition2Everywhere(Table(headers, rows, ".4g"), facts)


@dataclass(frozen=True)
class Perturbed:
    """Fixed points of one kind (stable or unstable) that :func:`theorem4_stability_check` perturbed: how many, and
    how many behaved as Theorem 4 says (came back, or left)."""

    count: int
    as_predicted: int


@dataclass(frozen=True)
class StabilityCheck:
    """Theorem 4 on a grid: B(p*)/beta against a finite-difference slope of the map, stability verdicts, and orbits.

    max_relative_error: largest |B(p*)/beta - |h'(p*)|| / max(|h'(p*)|, 1e-3) with h'(p*) from central differences;
    bound_matches_stability: beta > B(p*) exactly where the finite-difference |h'(p*)| < 1 (away from |h'| = 1);
    moved: for "stable" and "unstable" fixed points, a :class:`Perturbed` (how many, how many behaved as Theorem 4
    says);
    n_fixed_points: how many fixed points the grid has in all.
    """

    max_relative_error: float
    bound_matches_stability: bool
    moved: dict[str, Perturbed]
    n_fixed_points: int


def theorem4_stability_check(
    p_ref: np.ndarray, beta: np.ndarray, eps: float, *, delta: float = 1e-6, n: int = 200, step: float = 1e-3
) -> StabilityCheck:
    """Lemma 1 / Theorem 4 on the broadcast (p_ref column, beta row) grid at one eps (section "Local convergence
    (Theorem 4 and Lemma 1)").

    The slope of h at each fixed point is measured without Proposition 1's formula: by a central difference of the
    logit map g (Theorem 2 in log-odds) with logit step ``step``; since g = logit o h o sigmoid and h(p*) = p*, the
    chain rule gives g'(z*) = h'(p*) at a fixed point. It is compared with Lemma 1's B(p*)/beta, and beta > B(p*) with
    |h'(p*)| < 1 (fixed points with | |h'| - 1 | < 1e-6 are left out of that comparison). Then each fixed point with
    |logit| < 50 that is not near-neutral (| |h'| - 1 | > 0.05) is perturbed by ``delta`` in logit and iterated
    ``n`` times: ``moved`` counts, for stable and for unstable ones, how many there are and how many came back
    within delta/10 (stable) or left beyond 10 delta (unstable).
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
    z = logit_map_power(z_sel + delta, a[i, j, k], b[i, j, k], eps, n=n)
    stable = np.abs(slope) < 1
    moved = {
        "stable": Perturbed(int(stable.sum()), int(np.sum(stable & (np.abs(z - z_sel) < delta / 10)))),
        "unstable": Perturbed(int((~stable).sum()), int(np.sum(~stable & (np.abs(z - z_sel) > 10 * delta)))),
    }
    return StabilityCheck(float(err.max()), matches, moved, int(has.sum()))


@dataclass(frozen=True)
class BoundPeak:
    """Theorem 4's B(p*) at one eps: its peak over p*, the variance p*(1 - p*) where the peak sits, B(1/2), and the
    larger of B at 1e-12 and at 1 - 1e-12 (the ends)."""

    eps: float
    peak: float
    variance_at_peak: float
    at_half: float
    at_ends: float


@dataclass(frozen=True)
class BoundPeaks:
    """:func:`beta_bound_peaks`' table and one :class:`BoundPeak` per eps, in the order of the eps values."""

    table: Table
    peaks: tuple[BoundPeak, ...]


def beta_bound_peaks(eps_values: Sequence[float], n_grid: int = 200001) -> BoundPeaks:
    """The peak of Theorem 4's B(p*) over p* in (0, 1) per eps, next to 1/(3^{3/2} sqrt(eps)) and 2 eps (section
    "Fig. 4: the bound on β").

    Per eps also B(1/2) and the largest of B at 1e-12 and 1 - 1e-12 (the ends), for the chapter's asserts.
    """
    p_star = np.linspace(0, 1, n_grid)[1:-1]
    rows, facts = [], []
    for eps in eps_values:
        b = theorem4_beta_bound(p_star, eps)
        peak = float(b.max())
        p_peak = p_star[np.argmax(b)]  # B is symmetric under p -> 1 - p: report the variance at the peak
        rows.append([eps, peak, prompt_free_beta_bound(eps), p_peak * (1 - p_peak), 2 * eps])
        ends = float(np.max(theorem4_beta_bound(np.array([1e-12, 1 - 1e-12]), eps)))
        at_half = float(theorem4_beta_bound(0.5, eps))
        facts.append(BoundPeak(float(eps), peak, float(p_peak * (1 - p_peak)), at_half, ends))
    headers = ["ε", r"max $\mathcal{B}(p^*)$", r"$1/(3^{3/2}\sqrt{\varepsilon})$", "p*(1−p*) at the peak", "2ε"]
    return BoundPeaks(Table(headers, rows, ".3g"), tuple(facts))


@dataclass(frozen=True)
class OrbitTable:
    """:func:`orbit_table`'s table, the orbit kind per case, and per case the verdict ``consistent``: a fixed-point
    verdict matches a fixed point of h, and a limit "stuck at 1" has a logit above 100."""

    table: Table
    kinds: tuple[OrbitKind, ...]
    consistent: list[bool]


def orbit_table(cases: Sequence[tuple[float, float]], eps: float, n: int = 400) -> OrbitTable:
    """For each (p_ref, beta) case: orbit kind, period, Lyapunov exponent, limit set, fixed points and how many are
    stable (section "Fig. 5: what the iterations do").

    The verdict per case (``consistent``): a fixed-point verdict matches a fixed point of h to 1e-9 in logit after
    ``n`` steps, and a limit "stuck at 1" (p within 1e-9 of 1) has a logit above 100.
    """
    rows, kinds, ok = [], [], []
    for p_ref, beta in cases:
        kind = orbit_kind(p_ref, beta, eps)
        kinds.append(kind)
        limit = attractor(p_ref, beta, eps)
        fps = fixed_points(p_ref, beta, eps)
        z_end = float(iterate_logit(p_ref, beta, eps, n=n)[-1])
        near_one = max(limit) >= 1 - 1e-9
        matched = (
            kind.kind != "fixed_point" or min(abs(fp.logit - z_end) / max(1.0, abs(fp.logit)) for fp in fps) < 1e-9
        )
        ok.append(bool(matched and (not near_one or z_end > 100)))
        where = f"logit {z_end:.5g}" if near_one else ", ".join(f"{x:.4g}" for x in limit)
        rows.append(
            [beta, p_ref, kind.kind, kind.period, f"{kind.lyapunov:.3g}", where, len(fps), sum(fp.stable for fp in fps)]
        )
    headers = ["β", r"$p_{\mathrm{ref}}$", "orbit", "period", "Lyapunov exp.", "limit", "fixed points", "stable"]
    return OrbitTable(Table(headers, rows), tuple(kinds), ok)


@dataclass(frozen=True)
class TwoCycle:
    """One orbit's attractor as a 2-cycle: the table of the quantities the chapter quotes, the orbit's kind, the cycle's
    points, how well g swaps them, its multiplier g'(z1) g'(z2), h's fixed points, the orbit's logits and the ratios
    by which its distance to the cycle shrinks every two steps."""

    table: Table
    kind: OrbitKind
    cycle: tuple[float, ...]
    swap_error: float
    multiplier: float
    fixed_points: list[FixedPoint]
    orbit_logits: np.ndarray
    shrink: np.ndarray


def two_cycle_report(p_ref: float, beta: float, eps: float, *, n: int = 2000) -> TwoCycle:
    """The 2-cycle that the orbit from p_ref settles on (section 'The "divergent" case is a stable 2-cycle'): its
    points (attractor), how well g swaps them (max |g(z1) - z2|, |g(z2) - z1|), its multiplier, h's fixed points, the
    orbit's logits over ``n`` steps, and the ratios by which the distance to the cycle shrinks every two steps (steps
    60..120)."""
    kind = orbit_kind(p_ref, beta, eps)
    cycle = attractor(p_ref, beta, eps)
    if len(cycle) != 2:
        raise ValueError(f"the orbit from p_ref={p_ref!r}, beta={beta!r}, eps={eps!r} is not a 2-cycle: {kind}")
    z1, z2 = logit(cycle[0]), logit(cycle[1])
    a = logit(p_ref)
    swap = max(abs(float(logit_map(z1, a, beta, eps)) - z2), abs(float(logit_map(z2, a, beta, eps)) - z1))
    multiplier = float(logit_map_slope(z1, beta, eps) * logit_map_slope(z2, beta, eps))
    z = iterate_logit(p_ref, beta, eps, n=n)
    dist = np.abs(z[0:200:2] - z[-1 - (len(z) - 1) % 2])
    fps = fixed_points(p_ref, beta, eps)
    rows = [
        ["cycle p values", f"{cycle[0]:.6f}, {cycle[1]:.6f}"],
        [r"cycle multiplier $g'(z_1)\,g'(z_2)$", f"{multiplier:.4f}"],
        [r"Lyapunov exponent ($\tfrac12 \log$ of the multiplier)", f"{kind.lyapunov:.4f}"],
        ["fixed points (logit)", ", ".join(f"{fp.logit:.4g}" for fp in fps)],
        [r"their slopes $h'(p^*)$", ", ".join(f"{fp.slope:.3g}" for fp in fps)],
        ["largest logit on the orbit", f"{z.max():.4f}"],
    ]
    table = Table(["quantity", "value"], rows)
    return TwoCycle(table, kind, cycle, swap, multiplier, fps, z, dist[31:61] / dist[30:60])


def regime_count_table(maps: Mapping[float, RegimeMap]) -> Table:
    """Per eps: grid points per regime, the two stability flags, and the cycle periods seen (section "A map of the
    regimes")."""
    rows = []
    for eps, rm in maps.items():
        c = rm.counts()
        periods = np.unique(rm.period[rm.regime == Regime.CYCLE])
        flags = [str(c["stable fixed point exists, orbit goes elsewhere"]), str(c["no stable fixed point"])]
        rows.append([eps, *(str(c[r.label]) for r in Regime), *flags, ", ".join(str(k) for k in periods)])
    headers = ["ε", *(r.label for r in Regime), "stable f.p. not reached", "no stable f.p.", "cycle periods seen"]
    return Table(headers, rows)


# --- Section "Theorem 4's hypothesis against amplification" -------------------------------------------------------


def contraction_on_ball(p_star: float, p_ref: float, beta: float, eps: float, *, n_grid: int = 2001) -> float:
    """max |h'(p)| over the closed ball of radius |p* - p_ref| around p*, clipped to [0, 1] (``n_grid`` sample points
    including both ends and p_ref itself), h' from Proposition 1. Below 1 exactly when Theorem 4's hypothesis can hold
    for this p* (section "Theorem 4's hypothesis against amplification")."""
    d = abs(p_star - p_ref)
    lo, hi = max(0.0, p_star - d), min(1.0, p_star + d)
    p = np.append(np.linspace(lo, hi, n_grid), p_ref)
    if eps == 0:  # h' is defined on (0, 1) only (Remark 1)
        p = p[(p > 0) & (p < 1)]
    return float(np.max(np.abs(h_prime(p, p_ref, beta, eps))))


@dataclass(frozen=True)
class Theorem4Hypothesis:
    """:func:`theorem4_hypothesis_grid` over a (p_ref, beta) grid at one eps (arrays of the broadcast shape, per fixed
    point on a last axis of 3).

    holds: the hypothesis can hold for that fixed point (contraction on the ball, and p* stable);
    contraction: max |h'| on the ball (NaN where there is no such fixed point);
    gap_ratio: (logit p* - logit p_ref) beta sqrt(1 + 4 eps) / 2, which amplification puts at >= 1;
    banach_ok: where ``holds``, the orbit from p_ref obeys |p_n - p*| <= L^n |p_ref - p*| for n up to ``n``.
    """

    holds: np.ndarray
    contraction: np.ndarray
    gap_ratio: np.ndarray
    banach_ok: bool

    @property
    def holds_somewhere(self) -> np.ndarray:
        """Per grid point: the hypothesis holds for at least one fixed point."""
        return self.holds.any(axis=-1)


def theorem4_hypothesis_grid(
    p_ref: object, beta: object, eps: float, *, n: int = 60, n_ball: int = 2001
) -> Theorem4Hypothesis:
    """Where Theorem 4's hypothesis can hold on the broadcast (p_ref, beta) grid at one eps (section "Theorem 4's
    hypothesis against amplification").

    Theorem 4 (local convergence) assumes a fixed point p* with |h'(p*)| < 1 and p_0 = p_ref in [p* - delta,
    p* + delta], where h contracts on that closed ball (the local Banach theorem). Amplification (Theorem 3 in logit
    form) puts every fixed point away from p_ref: logit p* - logit p_ref = 1/(beta sqrt(p*(1-p*) + eps))
    >= 2/(beta sqrt(1 + 4 eps)), with equality only at p* = 1/2. So the ball's radius is at least d = |p* - p_ref|
    > 0, and the hypothesis can hold, for some delta, exactly when L = max |h'| on [p* - d, p* + d] (clipped to
    [0, 1]) is below 1: :func:`contraction_on_ball`, a module-level name that the negative test replaces by a
    condition that ignores the gap. Where it holds, Banach's estimate |p_n - p*| <= L^n d must hold along the orbit
    from p_ref for ``n`` steps (``banach_ok``), so such a wrong condition is caught by the orbits that do not
    converge.
    """
    p_ref, beta, eps_arr = check_map_params(p_ref, beta, eps, broadcast=True)
    n = check_positive_int("n", n)
    eps = float(eps_arr.flat[0])
    grid = fixed_points_grid(p_ref, beta, eps)
    has = ~np.isnan(grid.logits)
    a = logit(p_ref)
    gap_ratio = np.where(has, (grid.logits - a[..., None]) * beta[..., None] * np.sqrt(1 + 4 * eps) / 2, np.nan)
    contraction = np.full(grid.logits.shape, np.nan)
    for idx in zip(*np.nonzero(has & grid.stable), strict=True):
        p_star, p_ref_i, beta_i = float(expit(grid.logits[idx])), float(p_ref[idx[:-1]]), float(beta[idx[:-1]])
        contraction[idx] = contraction_on_ball(p_star, p_ref_i, beta_i, eps, n_grid=n_ball)
    with np.errstate(invalid="ignore"):
        holds = has & grid.stable & (contraction < 1)
    z = iterate_logit(p_ref, beta, eps, n=n)
    banach_ok = True
    steps = np.arange(n + 1)
    for idx in zip(*np.nonzero(holds), strict=True):
        p_star, big_l = expit(grid.logits[idx]), contraction[idx]
        dist = np.abs(expit(z[(slice(None), *idx[:-1])]) - p_star)
        banach_ok &= bool((dist <= big_l**steps * dist[0] * (1 + 1e-6) + 1e-15).all())
    return Theorem4Hypothesis(holds, contraction, gap_ratio, banach_ok)


def _runs(mask: np.ndarray, beta: np.ndarray) -> str:
    """The runs of True in ``mask`` as beta intervals, e.g. "[0.2, 1.1], [4, 6]"; "none" if there are none."""
    idx = np.nonzero(mask)[0]
    if idx.size == 0:
        return "none"
    breaks = np.nonzero(np.diff(idx) > 1)[0]
    starts, ends = np.r_[idx[0], idx[breaks + 1]], np.r_[idx[breaks], idx[-1]]
    return ", ".join(f"[{beta[s]:.3g}, {beta[e]:.3g}]" for s, e in zip(starts, ends, strict=True))


@dataclass(frozen=True)
class HypothesisTable:
    """:func:`hypothesis_table`'s table and verdicts: ``implies`` (wherever the hypothesis holds, the orbit
    converges), ``banach_ok`` (Banach's estimate along those orbits), ``fails_but_converges`` (grid points where the
    orbit converges although the hypothesis holds for no fixed point), ``holds`` and ``converges`` (boolean arrays,
    prompt x beta)."""

    table: Table
    implies: bool
    banach_ok: bool
    fails_but_converges: int
    holds: np.ndarray
    converges: np.ndarray


def hypothesis_table(p_refs: Sequence[float], betas: Sequence[float], eps: float) -> HypothesisTable:
    """Per prompt: where on the beta grid Theorem 4's hypothesis fails for every fixed point
    (:func:`theorem4_hypothesis_grid`), and where the orbit from p_ref does not converge to a fixed point
    (:func:`grpo_nb.dynamics.regimes.regime_map`: a cycle or chaos) (section "Theorem 4's hypothesis against
    amplification")."""
    p = np.asarray(p_refs, dtype=float)[:, None]
    b = np.asarray(betas, dtype=float)[None, :]
    hyp = theorem4_hypothesis_grid(p, b, eps)
    rm = regime_map(p, b, eps)
    converges = (rm.regime == Regime.INTERIOR) | (rm.regime == Regime.NEAR_ONE)
    holds = hyp.holds_somewhere
    rows = [
        [p[i, 0], _runs(~holds[i], b[0]), _runs(~converges[i], b[0]), int((~holds[i] & converges[i]).sum())]
        for i in range(p.shape[0])
    ]
    headers = [r"$p_{\mathrm{ref}}$", "β where Theorem 4's hypothesis fails", "β where the orbit does not converge",
               "grid β: fails, yet converges"]  # fmt: skip
    return HypothesisTable(
        Table(headers, rows, ".3g"),
        implies=bool(converges[holds].all()),
        banach_ok=hyp.banach_ok,
        fails_but_converges=int((~holds & converges).sum()),
        holds=holds,
        converges=converges,
    )


# --- Section "Remark 2: one β for all prompts" ----------------------------------------------------------------------


@dataclass(frozen=True)
class PerPromptBounds:
    """:func:`per_prompt_bounds` per prompt: beta_q (largest grid beta where the lowest fixed point is unstable; 0 if
    none), the smallest such beta (NaN if none), and whether the unstable betas form one unbroken run of the grid;
    the uniform bound max_q beta_q and the prompt that sets it."""

    p_ref: np.ndarray
    beta_q: np.ndarray
    beta_from: np.ndarray
    one_interval: np.ndarray
    uniform: float
    worst_prompt: float

    def table(self, every: int = 1) -> Table:
        """Every ``every``-th prompt: p_ref, where its lowest fixed point is unstable, beta_q."""
        rows = [
            [p, "never" if b == 0 else f"[{lo:.3g}, {b:.3g}]", b]
            for p, lo, b in zip(self.p_ref[::every], self.beta_from[::every], self.beta_q[::every], strict=True)
        ]
        return Table(
            [r"$p_{\mathrm{ref}}$", "β where the lowest fixed point is unstable", r"per-prompt bound $\beta_q$"],
            rows,
            ".3g",
        )


def per_prompt_bounds(p_refs: object, betas: object, eps: float) -> PerPromptBounds:
    """Remark 2 of paper §4 on a set of prompts (section "Remark 2: one β for all prompts"): conditions on beta hold
    per prompt, and a statement uniform over prompts needs their supremum.

    Per prompt (success probability p_ref under pi_ref), Theorem 4's condition beta > B(p*) (Lemma 1) is read at the
    fixed point the orbit from p_ref starts next to, the lowest one. On the beta grid ``betas`` (increasing) the
    per-prompt bound beta_q is the largest beta where that fixed point is unstable (|h'(p*)| >= 1; 0 if none; the betas
    below the unstable run are safe as well, so it is no lower bound on the safe betas), and the uniform bound over
    the prompts is max_q beta_q; it stays below
    :func:`grpo_nb.dynamics.paper_bounds.prompt_free_beta_bound` when eps > 0.
    """
    p = np.atleast_1d(check_p_ref(p_refs)).astype(float)
    b = np.atleast_1d(check_beta(betas)).astype(float)
    if p.ndim != 1 or b.ndim != 1 or not (np.diff(b) > 0).all():
        raise ValueError("p_refs and betas must be 1-D, betas increasing; valid: 1-D arrays, 0 < betas strictly rising")
    grid = fixed_points_grid(p[:, None], b[None, :], float(check_eps(eps)))
    unstable = (grid.counts > 0) & (np.abs(grid.slopes[..., 0]) >= 1)
    beta_q = np.zeros(p.size)
    beta_from = np.full(p.size, np.nan)
    one = np.ones(p.size, dtype=bool)
    for i, row in enumerate(unstable):
        idx = np.nonzero(row)[0]
        if idx.size:
            beta_q[i], beta_from[i] = b[idx[-1]], b[idx[0]]
            one[i] = bool((np.diff(idx) == 1).all())
    k = int(np.argmax(beta_q))
    return PerPromptBounds(p, beta_q, beta_from, one, float(beta_q[k]), float(p[k]))


@dataclass(frozen=True)
class UniformBetaReport:
    """:func:`uniform_beta_report`: the exact answer to Remark 2 (:mod:`grpo_nb.dynamics.uniform_beta`) next to the
    grid reading of :func:`per_prompt_bounds`, with what the page checks about the two."""

    grid: PerPromptBounds
    safe: SafeBetas
    supremum: SupremumBound
    threshold: PUpThreshold
    grid_worst_exact: float  #: the exact beta_q of the prompt that sets the grid's largest beta_q
    supremum_prompt_exact: float  #: the exact beta_q of the prompt whose lowest fixed point is B's maximiser
    hardest_slope_above: float  #: h' at the hardest prompt's lowest fixed point, at 1.01 x the unsafe interval's start

    @property
    def lower(self) -> float:
        return self.safe.unsafe[0][0]

    @property
    def upper(self) -> float:
        return self.safe.unsafe[0][1]

    def verdict(self) -> str:
        """One line of Markdown: the unsafe interval, the supremum and its prompt, the grid's reading, the threshold."""

        def tex(x: float) -> str:  # 1.99e-05 -> 1.99 \times 10^{-5}
            mantissa, exponent = f"{x:.3g}".split("e")
            return rf"{mantissa} \times 10^{{{int(exponent)}}}"

        sup, t = self.supremum, self.threshold
        return (
            rf"✓ unstable for some prompt exactly when $\beta$ lies in an open interval from about {self.lower:.5f} to "
            rf"{self.upper:.4f}; the supremum of "
            rf"the per-prompt bounds is $\max_p \mathcal B(p) = {sup.beta:.3f}$ at $p^* = {tex(sup.p_star)}$ (the "
            rf"prompt $p_{{\mathrm{{ref}}}} = {tex(sup.p_ref)}$), the grid's largest $\beta_q$ is "
            rf"{self.grid.uniform:.3f}; prompts above $p_{{\mathrm{{ref}}}} = {t.p_up:.5f}$ (the peak of "
            rf"$p_{{\mathrm{{up}}}}(\beta)$, at $\beta = {t.beta:.3f}$) need no bound"
        )


def uniform_beta_report(
    p_refs: object, betas: object, eps: float, *, p_lo: float = 1e-12, p_hi: float = 0.5
) -> UniformBetaReport:
    """Remark 2 of paper §4 (section "Remark 2: one β for all prompts"), exactly: the betas at which some prompt with
    p_ref in [p_lo, p_hi] has an unstable lowest fixed point (Theorem 4, Lemma 1), found by root finders, beside the
    per-prompt bounds of the prompts ``p_refs`` read off the grid ``betas``."""
    grid = per_prompt_bounds(p_refs, betas, eps)
    safe = safe_betas(eps, p_lo=p_lo, p_hi=p_hi)
    sup = supremum_bound(eps)
    hardest = fixed_points(p_lo, 1.01 * safe.unsafe[0][0], eps)[0] if safe.unsafe else None
    return UniformBetaReport(
        grid=grid,
        safe=safe,
        supremum=sup,
        threshold=p_up_threshold(eps),
        grid_worst_exact=prompt_beta_bound(grid.worst_prompt, eps).beta_q,
        supremum_prompt_exact=prompt_beta_bound(sup.p_ref, eps).beta_q,
        hardest_slope_above=float("nan") if hardest is None else hardest.slope,
    )


# --- Section "What β means in practice" -----------------------------------------------------------------------------

#: The KL weights used in practice, each checked in the source named: 0.04, the KL coefficient of DeepSeekMath's GRPO
#: and the default ``beta`` of TRL's ``GRPOConfig`` up to TRL 0.18 (``trl/trainer/grpo_config.py``); 0.001, the value
#: TRL's ``GRPOConfig`` documentation attributes to DeepSeek-R1; 0, the default from TRL 0.19 on (still in TRL 1.16)
#: and the choice of DAPO and Dr. GRPO (no KL term). The theory needs beta > 0; :func:`small_beta_limit` follows the
#: recursion as beta -> 0.
PRACTICE_BETAS: tuple[tuple[str, float], ...] = (
    ("DeepSeekMath; TRL default up to 0.18", 0.04),
    ("DeepSeek-R1, as TRL's documentation quotes it", 0.001),
    ("TRL default from 0.19; DAPO; Dr. GRPO", 0.0),
)


@dataclass(frozen=True)
class PracticeRegimes:
    """:func:`practice_regime_table`'s table, the regime map per eps, and two verdicts over every row: the first
    step's gain logit p_1 - logit p_ref is at least Theorem 3's margin 2/(beta sqrt(1 + 4 eps)) (``gain_above_margin``)
    and p_1 is saturated (``saturated``: p_1(1 - p_1) < eps; for eps = 0, the orbit escapes to p = 1)."""

    table: Table
    maps: dict[float, RegimeMap]
    gain_above_margin: bool
    saturated: bool


def practice_regime_table(
    p_refs: Sequence[float], betas: Sequence[float], eps_values: Sequence[float]
) -> PracticeRegimes:
    """Where the orbit from each p_ref goes at each (beta > 0, eps) (section "What β means in practice"): the regime
    of :func:`grpo_nb.dynamics.regimes.regime_map`, the first step's gain logit p_1 - logit p_ref, whether p_1 already
    has p_1(1 - p_1) < eps (saturated next to 1; for eps = 0, whether the orbit escapes to p = 1), and the limit
    logit. The first step is Theorem 1's Gibbs policy on a two-outcome space (``gibbs_log_policy``, in log space), not
    the logit map g, so its gain could fall short of Theorem 3's margin if the closed form or the margin were
    wrong."""
    p = check_p_ref(np.asarray(p_refs, dtype=float))[:, None]
    b = check_beta(np.asarray(betas, dtype=float))[None, :]
    rows, maps, gain_ok, saturated = [], {}, True, True
    for eps in eps_values:
        rm = regime_map(p, b, float(check_eps(eps)))
        maps[eps] = rm
        for i, j in np.ndindex(rm.regime.shape):
            log_ref = np.log([p[i, 0], 1 - p[i, 0]])
            lp = gibbs_log_policy(log_ref, np.array([1.0, 0.0]), p[i, 0], b[0, j], eps)  # Theorem 1, not g
            z1 = lp[0] - lp[1]
            v1 = np.exp(-np.logaddexp(0.0, z1) - np.logaddexp(0.0, -z1))
            limit = rm.limit_logit[i, j]
            gain = z1 - (log_ref[0] - log_ref[1])
            sat = bool(v1 < eps) if eps > 0 else bool(np.isposinf(limit))
            gain_ok &= bool(gain >= 2 / (b[0, j] * np.sqrt(1 + 4 * eps)))
            saturated &= sat
            rows.append([b[0, j], eps, p[i, 0], Regime(rm.regime[i, j]).label, f"{gain:.4g}", sat, f"{limit:.6g}"])
    headers = ["β", "ε", r"$p_{\mathrm{ref}}$", r"orbit from $p_{\mathrm{ref}}$",
               r"$\operatorname{logit} p_1 - \operatorname{logit} p_{\mathrm{ref}}$", "saturated after one step",
               "limit logit"]  # fmt: skip
    return PracticeRegimes(Table(headers, rows), maps, gain_ok, saturated)


@dataclass(frozen=True)
class FirstStep:
    """:func:`first_step` at one (beta, eps) over a grid of logit p_ref: the first exact step's log-odds z_1, the
    smallest gain over Theorem 3's margin, the largest log(1 - p_1) and the largest p_1 (1 - p_1) / eps."""

    beta: float
    eps: float
    logit_p_ref: np.ndarray
    logit_p1: np.ndarray
    min_gain_over_margin: float
    max_log_miss: float
    max_variance_over_eps: float

    @property
    def saturated(self) -> bool:
        """Every prompt of the grid has p_1 (1 - p_1) < eps after one exact step."""
        return self.max_variance_over_eps < 1

    def theorem5_vacuous(self, p_tilde: float = 0.5, log_miss: float = -40.0) -> bool:
        """Whether 1 - p_1 < e^{log_miss} for every prompt (``max_log_miss`` < ``log_miss``): then an inexact first step
        whose success probability stays at most ``p_tilde`` is at total variation at least
        p_1 - p_tilde > 1 - p_tilde - e^{log_miss} from the exact pi_1 (TV bounds the gap between the success
        probabilities), so Theorem 5's delta_1 is of order 1 and its bound 2 sum delta_i is at least
        2 (1 - p_tilde) - 2 e^{log_miss}: for p_tilde = 1/2, no better than |p~_n - p_n| <= 1."""
        return bool(0 < p_tilde < 1 and self.max_log_miss < log_miss)


def first_step(beta: float, eps: float, *, n_grid: int = 4001) -> FirstStep:
    """The first exact GRPO step for every representable prompt (section "What β means in practice"), taken with
    Theorem 1's Gibbs policy (:func:`grpo_nb.tabular.policy.gibbs_log_policy`, the module-level name the negative test
    replaces) in log space, not with the logit map.

    The prompts are ``n_grid`` values of logit p_ref evenly spaced from -745 (about the smallest positive double,
    5e-324) to +37 (1 - p_ref about 1e-16); each is a two-outcome policy (right, wrong) with log masses
    (log sigmoid(a), log sigmoid(-a)). Returned: z_1 = logit p_1, the smallest (z_1 - a) / margin with Theorem 3's
    margin 1/(beta sqrt(1/4 + eps)), the largest log(1 - p_1) = -softplus(z_1), and the largest p_1 (1 - p_1) / eps
    (saturation, eps > 0).
    """
    beta, eps = float(check_scalar("beta", check_beta(beta))), float(check_eps(eps))
    if not eps > 0:
        raise ValueError(f"eps={eps!r} is out of range; valid range is eps > 0 (saturation is p(1 - p) < eps)")
    a = np.linspace(-745.0, 37.0, check_positive_int("n_grid", n_grid, minimum=2))
    log_ref = -np.logaddexp(0.0, -np.stack([a, -a], axis=-1))  # log sigmoid(a), log sigmoid(-a)
    lp = gibbs_log_policy(log_ref, np.array([1.0, 0.0]), expit(a), beta, eps)
    z1 = lp[:, 0] - lp[:, 1]
    log_miss = -np.logaddexp(0.0, z1)  # log(1 - p_1) = log sigmoid(-z_1)
    variance = np.exp(-np.logaddexp(0.0, z1) - np.logaddexp(0.0, -z1))
    gain = (z1 - a) / logit_map_margin(beta, eps)
    return FirstStep(beta, eps, a, z1, float(gain.min()), float(log_miss.max()), float((variance / eps).max()))


@dataclass(frozen=True)
class SmallBetaLimit:
    """:func:`small_beta_limit` at one eps > 0 and one p_ref: per beta, the first step's gain and its bound, the
    limit logit."""

    table: Table
    first_gain_ok: bool
    first_gain_rate: np.ndarray
    limit_rate: np.ndarray


def small_beta_limit(p_ref: float, betas: Sequence[float], eps: float, *, n: int = 50) -> SmallBetaLimit:
    """The recursion as beta -> 0, at one eps > 0 and one p_ref (section "What β means in practice").

    The first gain is logit p_1 - logit p_ref = 1/(beta sqrt(v_ref + eps)) >= 2/(beta sqrt(1 + 4 eps)), so p_1 -> 1
    (``first_gain_rate`` = beta times the gain, exactly 1/sqrt(v_ref + eps)); beta times the distance of the logit
    after ``n`` steps from logit p_ref (``limit_rate``) tends to 1/sqrt(eps), the rate of the fixed point next to 1
    (logit p* ~ logit p_ref + 1/(beta sqrt eps)). ``first_gain_ok``: the first gain is at least its bound at every
    beta (relative tolerance 1e-12).
    """
    p_ref = float(check_p_ref(p_ref))
    eps = float(check_eps(eps))
    if not eps > 0:
        raise ValueError(f"eps={eps!r} is out of range; valid range is eps > 0 (with eps = 0 the orbit escapes to 1)")
    b = check_beta(np.asarray(betas, dtype=float))
    z = iterate_logit(p_ref, b, eps, n=n)
    gain = z[1] - z[0]
    bound = 2.0 / (b * np.sqrt(1 + 4 * eps))
    rate = b * (z[-1] - logit(p_ref))
    rows = [[bb, g, bd, r, 1 / np.sqrt(eps)] for bb, g, bd, r in zip(b, gain, bound, rate, strict=True)]
    gap = r"\operatorname{logit} p_{\mathrm{ref}}"
    headers = ["β", rf"$\operatorname{{logit}} p_1 - {gap}$", r"$2/(\beta\sqrt{1+4\varepsilon})$",
               rf"$\beta\,(\operatorname{{logit}} p_{{{n}}} - {gap})$", r"$1/\sqrt{\varepsilon}$"]  # fmt: skip
    ok = bool((gain >= bound * (1 - 1e-12)).all())
    return SmallBetaLimit(Table(headers, rows, ".6g"), ok, b * gain, rate)


@dataclass(frozen=True)
class KLGradients:
    """:func:`kl_penalty_gradients`: gradients with respect to the logits of a softmax policy pi (at pi = pi_old), by
    central differences.

    k3_loss: of E_{o ~ pi_old}[k3(o)] with pi_old held fixed (k3 used as a loss term, as in DeepSeekMath's GRPO);
    k3_ratio_loss: of E_{o ~ pi_old}[(pi/pi_old)(o) k3(o)] (TRL's ``use_bias_correction_kl``);
    kl_forward: of KL(pi || pi_ref), the theory's penalty; kl_reverse: of KL(pi_ref || pi);
    k3_mean_error: |E_pi[k3] - KL(pi || pi_ref)| (k3's value is unbiased).
    """

    k3_loss: np.ndarray
    k3_ratio_loss: np.ndarray
    kl_forward: np.ndarray
    kl_reverse: np.ndarray
    k3_mean_error: float


def kl_penalty_gradients(logits: object, logits_ref: object, step: float = 1e-6) -> KLGradients:
    """The gradients of :class:`KLGradients` for pi = softmax(logits), pi_ref = softmax(logits_ref) (shape (K,)), the
    estimator statements of section "What β means in practice".

    Schulman's k3 (:func:`grpo_nb.kl.k3`), pi_ref/pi - log(pi_ref/pi) - 1 per sampled token, has expectation
    KL(pi || pi_ref) under pi, but its gradient, taken as a loss, is in expectation the gradient of KL(pi_ref || pi);
    multiplying k3 by the importance ratio (TRL's ``use_bias_correction_kl``) restores the gradient of
    KL(pi || pi_ref). The gradients are finite differences of the surrogate losses as written, the sampling
    distribution held fixed.
    """
    theta = check_logits("logits", logits)
    theta_ref = check_logits("logits_ref", logits_ref)
    if theta.shape != theta_ref.shape or theta.ndim != 1:
        raise ValueError(f"logits_ref has shape {theta_ref.shape}; valid is the shape of logits, {theta.shape}, 1-D")
    lp_old, lp_ref = log_softmax(theta), log_softmax(theta_ref)
    pi_old = np.exp(lp_old)

    def surrogates(t: np.ndarray) -> np.ndarray:
        lp = log_softmax(t)
        ratio = np.exp(lp - lp_old)
        return np.array([
            pi_old @ k3(lp, lp_ref),
            pi_old @ (ratio * k3(lp, lp_ref)),
            np.exp(lp) @ (lp - lp_ref),
            np.exp(lp_ref) @ (lp_ref - lp),
        ])  # fmt: skip

    grads = np.empty((4, theta.size))
    for k in range(theta.size):
        e = np.zeros_like(theta)
        e[k] = step
        grads[:, k] = (surrogates(theta + e) - surrogates(theta - e)) / (2 * step)
    mean_error = abs(float(pi_old @ k3(lp_old, lp_ref) - pi_old @ (lp_old - lp_ref)))
    return KLGradients(*grads, mean_error)
