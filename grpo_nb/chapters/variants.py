"""The analyses of the chapter "GRPO variants" (``book/variants.md``), each returning its table and the values its
asserts need; the section of the chapter that uses each is named in brackets.

* :func:`solver_agreement` ("The optimal policy of every variant"): every closed-form policy against the numerical
  solver of :mod:`grpo_nb.tabular`.
* :func:`recursion_agreement`, :func:`variant_orbit`, :func:`orbit_table` ("The success recursion in logit form"):
  tabular runs from pi_0 = pi_ref against :func:`grpo_nb.variants.iterate`, and each variant's orbit.
* :func:`mean_only_fixed_point` ("Mean-only normalisation with KL to pi_ref: one step"): the numerically maximised
  step forgets pi_{n-1}, and with both KLs the affine map approaches its fixed point geometrically.
* :func:`mirror_survey` ("Mirror (alpha = 0)"): alpha = 0 has no fixed point, its orbits increase, and they run to
  p = 1.
* :func:`renyi_check` ("The Rényi term vanishes from pi_0 = pi_ref"): the Rényi correction vanishes from pi_ref, and
  from any other start it is what the one-dimensional recursion misses; it decays like (1 - alpha)^{2n}.
* :func:`fixed_point_comparison`, :func:`variant_fixed_points`, :func:`fixed_point_table` ("The fixed points, against
  alpha = 1"): alpha < 1 against alpha = 1: the fixed points are Theorem 2's at alpha beta.
* :func:`regime_survey` and :func:`cycle_frontier` ("What alpha does to the regimes, and to the cycles"): the regime
  maps of the variants, and where their cycles live.
* :func:`effective_beta_check` and :func:`effective_beta_factors` ("Variance normalisation is mean-only normalisation
  with an adaptive beta"): the two steps have one maximiser at beta_eff = beta sqrt(p(1-p)+eps), and how far beta_eff
  falls below its value at p = 1/2, with the exact p and inside a group of G answers.
* :func:`convergence_counterexamples` ("When the iteration settles on a fixed point"): orbits that do not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logit
from tqdm.auto import tqdm

from grpo_nb.advantage import group_advantage
from grpo_nb.dynamics.fixed_points import fixed_points, fixed_points_grid
from grpo_nb.dynamics.map import logit_map_cap, logit_map_margin
from grpo_nb.dynamics.orbits import classify_orbits, orbit_kind
from grpo_nb.dynamics.regimes import Regime, RegimeMap, regime_map
from grpo_nb.report import Table, bound
from grpo_nb.tabular.policy import expected_reward
from grpo_nb.validation import check_map_params, check_positive_int
from grpo_nb.variants.map import effective_beta, iterate_logit, variant_logit_map
from grpo_nb.variants.policy import (
    policy_orbit,
    policy_step,
    renyi_correction,
    renyi_recursion_logit,
    solve_policy_step,
    success_logit,
)
from grpo_nb.variants.variant import Variant

_P_REF = r"$p_{\mathrm{ref}}$"  # a table header's p_ref, typeset

__all__ = [
    "ALL_VARIANTS",
    "ConvergenceCases",
    "CycleFrontier",
    "EffectiveBetaCheck",
    "EffectiveBetaFactors",
    "FixedPointComparison",
    "MeanOnlyCheck",
    "MirrorSurvey",
    "RecursionAgreement",
    "RegimeSurvey",
    "RenyiCheck",
    "SolverAgreement",
    "VariantFixedPoint",
    "VariantOrbit",
    "convergence_counterexamples",
    "cycle_frontier",
    "effective_beta_check",
    "effective_beta_factors",
    "fixed_point_comparison",
    "fixed_point_table",
    "mean_only_fixed_point",
    "mirror_survey",
    "orbit_table",
    "random_instance",
    "recursion_agreement",
    "regime_survey",
    "renyi_check",
    "solver_agreement",
    "variant_fixed_points",
    "variant_orbit",
]

NORMALIZATIONS = ("mean_var", "mean")
_NAMES = {"mean_var": "mean+var", "mean": "mean-only"}
#: The variants the chapter compares: the paper's iteration first, then mean+var with both KLs and the mirror step,
#: then mean-only with KL to pi_ref, both KLs and the mirror step.
ALL_VARIANTS = (
    Variant("mean_var", 1.0),
    Variant("mean_var", 0.5),
    Variant("mean_var", 0.3),
    Variant("mean_var", 0.0),
    Variant("mean", 1.0),
    Variant("mean", 0.5),
    Variant("mean", 0.0),
)


def _small(x: float, threshold: float = 1e-12) -> str:
    """A difference at rounding level, shown as a bound (fixed text: the last digits of rounding vary)."""
    return bound(x, threshold)


def random_instance(rng: np.random.Generator, n_outcomes: int = 40) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """pi_ref ~ Dirichlet(1/2), pi_prev ~ Dirichlet(1), a 0/1 reward with both values, beta log-uniform in [0.1, 10]."""
    n_outcomes = check_positive_int("n_outcomes", n_outcomes, minimum=2)
    pi_ref = rng.dirichlet(np.full(n_outcomes, 0.5))
    pi_prev = rng.dirichlet(np.ones(n_outcomes))
    reward = (rng.random(n_outcomes) < rng.uniform(0.05, 0.95)).astype(float)
    reward[:2] = (1.0, 0.0)
    return pi_ref, pi_prev, reward, float(10 ** rng.uniform(-1, 1))


@dataclass(frozen=True)
class SolverAgreement:
    """max |closed form - numerical solver| per (normalisation, eps, alpha); the same for the alpha = 1 formula."""

    table: Table
    worst: float
    wrong_anchor_smallest: float


def solver_agreement(
    rng: np.random.Generator,
    alphas: Sequence[float] = (0.0, 0.3, 0.5, 1.0),
    eps_values: Sequence[float] = (0.0, 1e-5, 1e-2),
    *,
    n_instances: int = 4,
    n_outcomes: int = 40,
) -> SolverAgreement:
    """:func:`grpo_nb.variants.policy_step` against :func:`grpo_nb.variants.solve_policy_step` on random instances.

    For every normalisation, eps and alpha, ``n_instances`` instances of :func:`random_instance`. As a control, the
    paper's formula (anchor pi_ref alone, alpha = 1) is compared with the solver for each alpha < 1: the smallest of
    those gaps is ``wrong_anchor_smallest`` (a check that could not tell the anchors apart would make it tiny).
    """
    n_instances = check_positive_int("n_instances", n_instances)
    rows, worst, wrong = [], 0.0, np.inf
    cases = [(nz, e) for nz in NORMALIZATIONS for e in eps_values]
    for normalization, eps in tqdm(cases, desc="closed form vs solver"):
        row = [_NAMES[normalization], f"{eps:g}"]
        for alpha in alphas:
            err = 0.0
            for _ in range(n_instances):
                pi_ref, pi_prev, reward, beta = random_instance(rng, n_outcomes)
                args = (pi_ref, pi_prev, reward, beta, eps)
                numeric = solve_policy_step(*args, normalization=normalization, alpha=alpha)
                err = max(
                    err, float(np.max(np.abs(policy_step(*args, normalization=normalization, alpha=alpha) - numeric)))
                )
                if alpha < 1:
                    wrong = min(
                        wrong,
                        float(np.max(np.abs(policy_step(*args, normalization=normalization, alpha=1.0) - numeric))),
                    )
            worst = max(worst, err)
            row.append(_small(err))
        rows.append(row)
    headers = ["normalisation", "ε", *(f"α = {a:g}" for a in alphas)]
    return SolverAgreement(Table(headers, rows, ".0e"), worst, wrong)


@dataclass(frozen=True)
class RecursionAgreement:
    """Per variant: the largest |p_n (tabular) - p_n (variants.iterate)| along the run; the worst over variants."""

    table: Table
    worst: float


def recursion_agreement(
    rng: np.random.Generator,
    alphas: Sequence[float] = (0.0, 0.3, 0.5, 1.0),
    eps: float = 1e-2,
    *,
    n: int = 15,
    n_instances: int = 3,
) -> RecursionAgreement:
    """Exact tabular runs from pi_0 = pi_ref (:func:`grpo_nb.variants.policy_orbit`) against the logit recursion."""
    rows, worst = [], 0.0
    for normalization in NORMALIZATIONS:
        for alpha in alphas:
            err, last = 0.0, []
            for _ in range(n_instances):
                pi_ref, _, reward, beta = random_instance(rng)
                p = expected_reward(
                    policy_orbit(pi_ref, reward, beta, eps, n=n, normalization=normalization, alpha=alpha), reward
                )
                with np.errstate(over="ignore"):
                    predicted = expit(
                        iterate_logit(float(pi_ref @ reward), beta, eps, n=n, normalization=normalization, alpha=alpha)
                    )
                err = max(err, float(np.max(np.abs(p - predicted))))
                last.append(f"{p[0]:.3f} → {p[-1]:.3f}")
            worst = max(worst, err)
            rows.append([_NAMES[normalization], alpha, _small(err), ", ".join(last)])
    headers = [
        "normalisation",
        "α",
        rf"max $\lvert p_n^{{\mathrm{{tabular}}}} - p_n^{{\mathrm{{recursion}}}}\rvert$, $n \le {n}$",
        f"$p_0 \\to p_{{{n}}}$ per run",
    ]
    return RecursionAgreement(Table(headers, rows, ".3g"), worst)


@dataclass(frozen=True)
class MeanOnlyCheck:
    """Mean-only normalisation: one step with KL to pi_ref forgets pi_{n-1} (by the numerical solver), and the affine
    map of 0 < alpha < 1 approaches a + 1/(alpha beta) geometrically with ratio 1 - alpha."""

    table: Table
    policy_spread: float
    logit_error: float
    mean_var_spread: float
    affine_error: float
    affine_monotone: bool


def _solved_steps(pi_ref, pi_prevs, reward, beta, normalization) -> np.ndarray:
    """The numerically maximised step (:func:`grpo_nb.variants.solve_policy_step`, alpha = 1) from each pi_{n-1}."""
    return np.stack(
        [solve_policy_step(pi_ref, q, reward, beta, 1e-5, normalization=normalization, alpha=1.0) for q in pi_prevs]
    )


def mean_only_fixed_point(
    p_ref: np.ndarray,
    beta: np.ndarray,
    *,
    rng: np.random.Generator,
    alphas: Sequence[float] = (0.3, 0.5, 0.7),
    n: int = 20,
    n_instances: int = 4,
    n_prev: int = 3,
) -> MeanOnlyCheck:
    """Section "Mean-only normalisation with KL to pi_ref: one step", from the objective rather than from the map.

    For ``n_instances`` random instances, the step of "mean", alpha = 1 is maximised numerically (never the closed
    form) from ``n_prev`` random previous policies: policy_spread is the largest gap between those maximisers (0 if the
    step forgets pi_{n-1}), logit_error the largest |logit p_n - g(logit p_{n-1})| with g the variant's map
    (:func:`grpo_nb.variants.map.variant_logit_map`), relative to max(1, |logit p_n|). As a control,
    mean_var_spread is the smallest spread of logit p_n with Eq. 4's normalisation, whose step does depend on
    p_{n-1}. affine_error: for each 0 < alpha < 1 over broadcast (p_ref, beta), the largest
    |z_n - (z* - (1 - alpha)^n (z* - a))| relative to max(1, |z*|) along the orbit of
    :func:`grpo_nb.variants.iterate_logit`, z* = a + 1/(alpha beta); affine_monotone: z_n never falls.
    """
    check_map_params(p_ref, beta, 0.0)
    n_prev = check_positive_int("n_prev", n_prev, minimum=2)
    rows, spread, logit_err, control = [], 0.0, 0.0, np.inf
    for _ in range(check_positive_int("n_instances", n_instances)):
        pi_ref, _, reward, b = random_instance(rng)
        pi_prevs = [random_instance(rng)[0] for _ in range(n_prev)]  # Dirichlet(1/2): p_{n-1} spread out
        steps = _solved_steps(pi_ref, pi_prevs, reward, b, "mean")
        spread = max(spread, float(np.max(np.ptp(steps, axis=0))))
        z_prev = np.array([success_logit(q, reward) for q in pi_prevs])
        z_next = success_logit(steps, reward)
        predicted = variant_logit_map(z_prev, logit(float(pi_ref @ reward)), b, 0.0, normalization="mean", alpha=1.0)
        logit_err = max(logit_err, float(np.max(np.abs(z_next - predicted) / np.maximum(1.0, np.abs(z_next)))))
        z_mean_var = success_logit(_solved_steps(pi_ref, pi_prevs, reward, b, "mean_var"), reward)
        control = min(control, float(np.ptp(z_mean_var)))
        shown = ", ".join(f"{p:.4f}" for p in expit(z_prev))
        rows.append([float(pi_ref @ reward), b, shown, ", ".join(f"{p:.6f}" for p in expit(z_next))])
    a = logit(p_ref)
    affine_err, monotone = 0.0, True
    for alpha in alphas:
        z = iterate_logit(p_ref, beta, 0.0, n=n, normalization="mean", alpha=alpha)
        z_star = a + 1.0 / (alpha * beta)
        k = np.arange(n + 1).reshape(-1, *([1] * np.ndim(z_star)))
        predicted = z_star - (1.0 - alpha) ** k * (z_star - a)
        affine_err = max(affine_err, float(np.max(np.abs(z - predicted) / np.maximum(1.0, np.abs(z_star)))))
        monotone &= bool(np.all(np.diff(z, axis=0) >= 0))
    headers = [_P_REF, "β", r"$p_{n-1}$ of three random $\pi_{n-1}$", "$p_n$ from each (solver)"]
    return MeanOnlyCheck(Table(headers, rows, ".3g"), spread, logit_err, control, affine_err, monotone)


@dataclass(frozen=True)
class MirrorSurvey:
    """alpha = 0 over a grid, per normalisation and eps: fixed points, monotonicity, the increments' bounds, p -> 1."""

    table: Table
    any_fixed_point: bool
    increments_within_bounds: bool
    all_escape: bool
    tabular_monotone: bool
    tabular_recursion_error: float
    eps_values: np.ndarray
    mean_var_steps: np.ndarray
    mean_only_steps: np.ndarray
    mean_only_predicted: np.ndarray


def _steps_to(p_ref: float, beta: float, eps: float, normalization: str, target: float, n_max: int = 2000) -> int:
    """The first n with p_n > target along the mirror orbit (-1 if not within n_max steps)."""
    with np.errstate(over="ignore"):
        z = iterate_logit(p_ref, beta, eps, n=n_max, normalization=normalization, alpha=0.0)
    above = z > logit(target)
    return int(np.argmax(above)) if above.any() else -1


def mirror_survey(
    p_ref: np.ndarray,
    beta: np.ndarray,
    eps_values: Sequence[float],
    *,
    rng: np.random.Generator,
    n: int = 200,
) -> MirrorSurvey:
    """The mirror step (alpha = 0) over broadcast (p_ref, beta), for both normalisations and each eps.

    The increments z_n - z_{n-1} = s(z_{n-1})/beta are checked against 1/(beta sqrt(1/4 + eps)) <= s/beta <=
    1/(beta sqrt(eps)) ("mean": exactly 1/beta), up to the rounding of z_n (4 ulp); the orbits are classified by the
    dynamics machinery; exact tabular mirror runs from random pi_0 are checked to increase p_n. The table gives the
    number of steps from p_ref = 0.001 to p > 0.99 for beta = 1 and 10; mean_var_steps (one row per eps) and
    mean_only_steps hold them, mean_only_predicted is ceil(beta (logit 0.99 - logit 0.001)) for mean-only.
    tabular_recursion_error: |logit p_n - the recursion from logit p_0| along the tabular runs from random pi_0.
    """
    check_map_params(p_ref, beta, 0.0)
    rows, any_fp, within, escape = [], False, True, True
    betas = (1.0, 10.0)
    for normalization in NORMALIZATIONS:
        for eps in eps_values if normalization == "mean_var" else eps_values[:1]:
            variant = Variant(normalization, 0.0)
            any_fp |= bool(np.any(fixed_points_grid(p_ref, beta, eps, variant=variant).counts))
            with np.errstate(over="ignore", invalid="ignore"):
                z = iterate_logit(p_ref, beta, eps, n=n, normalization=normalization, alpha=0.0)
                steps = np.diff(z, axis=0)
            lo = logit_map_margin(beta, eps) if normalization == "mean_var" else 1.0 / beta
            hi = lo if normalization == "mean" else logit_map_cap(0.0, beta, eps)
            finite = np.isfinite(steps)
            slack = 4 * np.finfo(float).eps * np.maximum(1.0, np.abs(z[1:]))
            lo_b, hi_b = np.broadcast_to(lo, steps.shape), np.broadcast_to(hi, steps.shape)
            within &= bool(np.all(steps[finite] >= lo_b[finite] * (1 - 1e-12) - slack[finite]))
            within &= bool(np.all(steps[finite] <= hi_b[finite] * (1 + 1e-12) + slack[finite]))
            within &= bool(np.all(np.isposinf(z[1:][~np.isfinite(z[1:])])))
            options = {"transient": 200, "n_keep": 64, "n_lyapunov": 128, "max_period": 16}
            summary = classify_orbits(p_ref, beta, eps, variant=variant, **options)
            escape &= bool(np.all(np.isposinf(summary.limit_logits[..., -1])))
            label = eps if normalization == "mean_var" else "any"
            rows.append([_NAMES[normalization], label, *(_steps_to(1e-3, b, eps, normalization, 0.99) for b in betas)])
    monotone, recursion_err = True, 0.0
    for normalization in NORMALIZATIONS:
        pi_ref, pi_0, reward, b = random_instance(rng)
        run = policy_orbit(pi_ref, reward, b, 1e-5, n=30, normalization=normalization, alpha=0.0, pi_0=pi_0)
        p = expected_reward(run, reward)
        monotone &= bool(np.all(np.diff(p) >= 0) and p[-1] > p[0])
        z = success_logit(run, reward)
        with np.errstate(over="ignore"):
            z_map = iterate_logit(float(pi_0 @ reward), b, 1e-5, n=30, normalization=normalization, alpha=0.0)
        kept = np.isfinite(z) & (np.abs(z) < 30)  # past |logit| 30 one outcome set's mass underflows in the table
        gap = np.abs(z - z_map)[kept] / np.maximum(1.0, np.abs(z_map[kept]))
        recursion_err = max(recursion_err, float(np.max(gap)) if kept.sum() > 2 else np.inf)
    headers = ["normalisation", "ε", "steps 0.001 → 0.99, β = 1", "steps 0.001 → 0.99, β = 10"]
    counts = np.array([row[2:] for row in rows], dtype=int)
    predicted = np.ceil(np.array(betas) * (logit(0.99) - logit(1e-3))).astype(int)
    return MirrorSurvey(
        Table(headers, rows, ".3g"),
        any_fp,
        within,
        escape,
        monotone,
        recursion_err,
        np.asarray(eps_values, dtype=float),
        counts[:-1],
        counts[-1],
        predicted,
    )


def _decay_rate(terms: np.ndarray, floor: float = 1e-11) -> float:
    """Mean of log|R_n / R_{n-1}| over the last four steps with |R| above ``floor`` (rounding level below it)."""
    log_r = np.log(np.abs(terms[np.abs(terms) > floor]))
    return float(np.mean(np.diff(log_r)[-4:]))


@dataclass(frozen=True)
class RenyiCheck:
    """Per (alpha, normalisation): the Rényi term from pi_ref, and from another start what it corrects and how fast."""

    table: Table
    from_ref_max: float
    from_ref_recursion_error: float
    corrected_error: float
    uncorrected_smallest: float
    decay_rates: np.ndarray
    predicted_rates: np.ndarray
    corrections: dict


def renyi_check(
    rng: np.random.Generator,
    alphas: Sequence[float] = (0.3, 0.5, 0.7),
    n: int = 20,
    beta: float = 1.0,
    eps: float = 1e-2,
) -> RenyiCheck:
    """Exact tabular runs of 0 < alpha < 1, from pi_0 = pi_ref and from a random pi_0 with the same support.

    from pi_ref: the largest |Rényi term| and |logit p_n - recursion| over the run; from pi_0: the Rényi form of the
    recursion (:func:`grpo_nb.variants.renyi_recursion_logit`) against the tabular logit p_n, with and without the
    term, and the decay rate of the term, log|R_n/R_{n-1}| averaged over the last four steps where |R_n| > 1e-11,
    against 2 log(1 - alpha).
    """
    pi_ref, pi_0, reward, _ = random_instance(rng, 30)
    rows, from_ref, ref_err, corr_err, uncorr, rates, predicted, series = [], 0.0, 0.0, 0.0, np.inf, [], [], {}
    for alpha in alphas:
        for normalization in NORMALIZATIONS:
            ref_run = policy_orbit(pi_ref, reward, beta, eps, n=n, normalization=normalization, alpha=alpha)
            other = policy_orbit(pi_ref, reward, beta, eps, n=n, normalization=normalization, alpha=alpha, pi_0=pi_0)
            terms_ref = np.array([abs(renyi_correction(pi_ref, pi, reward, alpha=alpha)) for pi in ref_run])
            p_ref = float(pi_ref @ reward)
            z_map = iterate_logit(p_ref, beta, eps, n=n, normalization=normalization, alpha=alpha)
            ref_error = float(np.max(np.abs(success_logit(ref_run, reward) - z_map) / np.maximum(1.0, np.abs(z_map))))
            z_next = success_logit(other[1:], reward)
            corrected = np.array(
                [
                    renyi_recursion_logit(pi_ref, pi, reward, beta, eps, normalization=normalization, alpha=alpha)
                    for pi in other[:-1]
                ]
            )
            plain = np.array(
                [
                    renyi_recursion_logit(
                        pi_ref, pi, reward, beta, eps, normalization=normalization, alpha=alpha, corrected=False
                    )
                    for pi in other[:-1]
                ]
            )
            terms = np.array([renyi_correction(pi_ref, pi, reward, alpha=alpha) for pi in other])
            rate = _decay_rate(terms)
            from_ref, ref_err = max(from_ref, float(terms_ref.max())), max(ref_err, ref_error)
            corr_err = max(corr_err, float(np.max(np.abs(z_next - corrected))))
            uncorr = min(uncorr, float(np.abs(z_next - plain)[0]))
            rates.append(rate)
            predicted.append(2 * np.log(1 - alpha))
            series[alpha, normalization] = np.abs(terms)
            rows.append(
                [
                    alpha,
                    _NAMES[normalization],
                    _small(float(terms_ref.max())),
                    _small(ref_error),
                    abs(terms[0]),
                    _small(float(np.max(np.abs(z_next - corrected)))),
                    float(np.abs(z_next - plain)[0]),
                    rate,
                    2 * np.log(1 - alpha),
                ]
            )
    headers = [
        "α",
        "normalisation",
        r"max $\lvert R_n\rvert$ from $\pi_{\mathrm{ref}}$",
        r"max $\lvert z_n - \text{recursion}\rvert$ from $\pi_{\mathrm{ref}}$",
        r"$\lvert R_0\rvert$ from $\pi_0$",
        r"corrected error from $\pi_0$",
        "error without $R$ at $n = 1$",
        "decay rate of $R_n$",
        r"$2 \log(1 - \alpha)$",
    ]
    return RenyiCheck(
        Table(headers, rows, ".3g"), from_ref, ref_err, corr_err, uncorr, np.array(rates), np.array(predicted), series
    )


@dataclass(frozen=True)
class FixedPointComparison:
    """Per alpha: residuals, missed roots, how the fixed points moved against alpha = 1, and the multiplier identity."""

    table: Table
    max_residual: float
    missed_roots: int
    lowest_rises: bool
    top_stable_rises: bool
    multiplier_error: float


def fixed_point_comparison(
    p_ref: np.ndarray, beta: np.ndarray, eps: np.ndarray, *, alphas: Sequence[float] = (0.3, 0.5, 0.7)
) -> FixedPointComparison:
    """The fixed points of mean+var with 0 < alpha < 1 against those of alpha = 1 (Theorem 2), over a broadcast grid.

    max_residual: |g_alpha(z*) - z*| / max(1, |z*|) with the variant's own map; missed_roots: sign changes of
    g_alpha(z) - z on a 4000-point logit grid between a - 1 and the cap that no reported fixed point explains;
    lowest_rises / top_stable_rises: the lowest and the highest stable fixed point lie at or above alpha = 1's;
    multiplier_error: |g_alpha'(z*) - (1 - alpha + alpha h'_{alpha beta}(z*))| relative to max(1, |g_alpha'(z*)|).
    """
    p_ref, beta, eps = check_map_params(p_ref, beta, eps, broadcast=True)
    a = logit(p_ref)
    v1 = fixed_points_grid(p_ref, beta, eps)
    rows, residual, missed, low_ok, top_ok, mult_err = [], 0.0, 0, True, True, 0.0
    for alpha in tqdm(list(alphas), desc="alphas"):
        variant = Variant("mean_var", alpha)
        grid = fixed_points_grid(p_ref, beta, eps, variant=variant)
        has = ~np.isnan(grid.logits)
        z_star = np.where(has, grid.logits, 0.0)
        with np.errstate(over="ignore", invalid="ignore"):
            res = np.abs(variant(z_star, a[..., None], beta[..., None], eps[..., None]) - z_star)
        res_a = float(np.max(np.where(has, res / np.maximum(1.0, np.abs(z_star)), 0.0)))
        cap = np.where(eps > 0, logit_map_cap(a, alpha * beta, np.where(eps > 0, eps, 1.0)), a + 200.0)
        zz = a[..., None] - 1.0 + (np.minimum(cap, a + 1e4) - a + 2.0)[..., None] * np.linspace(0, 1, 4000)
        with np.errstate(over="ignore", invalid="ignore"):
            f = variant(zz, a[..., None], beta[..., None], eps[..., None]) - zz
        changes = np.count_nonzero(np.diff(np.sign(f), axis=-1) != 0, axis=-1)
        missed_a = int(np.sum(np.maximum(changes - grid.counts, 0)))
        both = (grid.counts > 0) & (v1.counts > 0)
        # fmin / fmax skip the NaN padding (and warn about nothing)
        low_a = bool(np.all(np.fmin.reduce(grid.logits, -1)[both] >= np.fmin.reduce(v1.logits, -1)[both]))
        top_v = np.fmax.reduce(np.where(grid.stable, grid.logits, -np.inf), -1)
        top_1 = np.fmax.reduce(np.where(v1.stable, v1.logits, -np.inf), -1)
        stable_both = np.isfinite(top_v) & np.isfinite(top_1)
        top_a = bool(np.all(top_v[stable_both] >= top_1[stable_both]))
        reduced = fixed_points_grid(p_ref, alpha * beta, eps)
        predicted = 1 - alpha + alpha * reduced.slopes
        err_a = float(np.nanmax(np.abs(grid.slopes - predicted) / np.maximum(1.0, np.abs(grid.slopes))))
        residual, missed = max(residual, res_a), missed + missed_a
        low_ok, top_ok, mult_err = low_ok and low_a, top_ok and top_a, max(mult_err, err_a)
        found = str(int(grid.counts.sum()))
        rows.append([alpha, found, _small(res_a, 1e-9), str(missed_a), low_a, top_a, _small(err_a)])
    headers = [
        "α",
        "fixed points found",
        "max residual",
        "missed roots",
        "lowest rises",
        "top stable rises",
        r"multiplier vs $1 - \alpha + \alpha h'_{\alpha\beta}$",
    ]
    return FixedPointComparison(Table(headers, rows, ".3g"), residual, missed, low_ok, top_ok, mult_err)


@dataclass(frozen=True)
class RegimeSurvey:
    """:func:`regime_survey`'s counts table, the regime map of each variant, and ``flips_where_oscillating``: whether
    every cycle or chaotic grid point has its lowest fixed point with multiplier below -1 (the flip condition:
    without it the orbit cannot oscillate around that fixed point)."""

    table: Table
    maps: dict[Variant, RegimeMap]
    flips_where_oscillating: bool


def regime_survey(
    p_ref: np.ndarray, beta: np.ndarray, eps: float, *, variants: Sequence[Variant], progress: bool = True
) -> RegimeSurvey:
    """Regime maps of several variants on one grid (:func:`grpo_nb.dynamics.regime_map` with ``variant=``), as a
    :class:`RegimeSurvey`."""
    maps, rows, flip_ok = {}, [], True
    for variant in tqdm(list(variants), desc="regime maps", disable=not progress):
        rm = regime_map(p_ref, beta, eps, variant=variant)
        maps[variant] = rm
        oscillating = rm.regime >= Regime.CYCLE
        flip_ok &= bool(np.all(rm.fixed_point_slopes[..., 0][oscillating] < -1))
        counts = [int(np.sum(rm.regime == r)) for r in Regime]
        rows.append([variant.label, *counts, int(np.sum(oscillating & (rm.fixed_point_slopes[..., 0] < -1)))])
    headers = ["variant", *(r.label for r in Regime), "of which flip (multiplier < −1)"]
    return RegimeSurvey(Table(headers, rows, ".4g"), maps, flip_ok)


@dataclass(frozen=True)
class CycleFrontier:
    """Per alpha: the largest p_ref of the grid with a cycle or chaos, and with a flipped lowest fixed point."""

    table: Table
    largest_cycle_p_ref: np.ndarray
    largest_flip_p_ref: np.ndarray
    maps: dict


def cycle_frontier(
    p_ref: np.ndarray, beta: np.ndarray, eps: float, *, alphas: Sequence[float] = (1.0, 0.9, 0.7, 0.5, 0.3)
) -> CycleFrontier:
    """How far the cycles retreat as alpha decreases: regime maps of mean+var for each alpha on a hard-prompt grid.

    For each alpha, the largest p_ref at which some beta of the grid gives a cycle or chaos, and the largest p_ref at
    which the lowest fixed point has multiplier < -1 (necessary for such an orbit; NaN when none).
    """
    maps = regime_survey(p_ref, beta, eps, variants=[Variant("mean_var", a) for a in alphas]).maps
    rows, cyc, flip = [], [], []
    p_col = np.broadcast_to(p_ref, next(iter(maps.values())).regime.shape)
    for alpha, rm in zip(alphas, maps.values(), strict=True):
        osc = rm.regime >= Regime.CYCLE
        flipped = rm.fixed_point_slopes[..., 0] < -1
        c = float(p_col[osc].max()) if osc.any() else np.nan
        f = float(p_col[flipped].max()) if flipped.any() else np.nan
        periods = sorted({int(k) for k in rm.period[osc] if k > 1})
        rows.append(
            [alpha, c, f, int(osc.sum()), ", ".join(map(str, periods[:6])) + (" …" if len(periods) > 6 else "")]
        )
        cyc.append(c)
        flip.append(f)
    headers = [
        "α",
        f"largest {_P_REF} with a cycle or chaos",
        f"largest {_P_REF} with multiplier < −1",
        "grid points",
        "periods seen",
    ]
    return CycleFrontier(Table(headers, rows, ".3g"), np.array(cyc), np.array(flip), maps)


@dataclass(frozen=True)
class EffectiveBetaCheck:
    """mean+var at beta against mean-only at beta_eff, both maximised numerically; the sandwich of the map."""

    table: Table
    solver_gap: float
    control_gap: float
    sandwich: bool
    touches_at_half: float


def effective_beta_check(
    z: np.ndarray, eps_values: Sequence[float], alphas: Sequence[float], *, rng: np.random.Generator
) -> EffectiveBetaCheck:
    """Variance normalisation at beta is mean-only normalisation at beta_eff(p_{n-1}), from the objective.

    For each eps and alpha, three random instances: the step of "mean_var" at beta and that of "mean" at
    beta_eff = :func:`grpo_nb.variants.effective_beta` of logit p_{n-1}, each maximised numerically by
    :func:`grpo_nb.variants.solve_policy_step` (which never sees a closed form or beta_eff); solver_gap is the largest
    gap between the two maximisers. control_gap: the smallest gap when mean-only keeps beta itself (a check that
    could not tell the coefficients apart would make it tiny). The sandwich: mean-only at beta sqrt(1/4 + eps) <=
    mean+var at beta <= mean-only at beta sqrt(eps) on the logit grid ``z`` (alpha = 1, a = -3, beta = 2), with
    equality of the first at z = 0 (``touches_at_half`` is the gap there).
    """
    beta, a = 2.0, -3.0
    rows, solver_gap, control, sandwich, touch = [], 0.0, np.inf, True, 0.0
    for eps in eps_values:
        with np.errstate(over="ignore"):
            mv = variant_logit_map(z, a, beta, eps, normalization="mean_var", alpha=1.0)
        finite = np.isfinite(mv)
        lower = variant_logit_map(z, a, beta * np.sqrt(0.25 + eps), eps, normalization="mean", alpha=1.0)
        sandwich &= bool(np.all(mv[finite] >= lower[finite] - 1e-12 * np.abs(lower[finite])))
        if eps > 0:
            upper = variant_logit_map(z, a, beta * np.sqrt(eps), eps, normalization="mean", alpha=1.0)
            sandwich &= bool(np.all(mv <= upper * (1 + 1e-12) + 1e-12))
        touch = max(touch, float(abs(variant_logit_map(0.0, a, beta, eps) - lower[np.argmin(np.abs(z))])))
        for alpha in alphas:
            gap, ctrl = 0.0, np.inf
            for _ in range(3):
                pi_ref, pi_prev, reward, b = random_instance(rng)
                b_eff = float(effective_beta(logit(float(pi_prev @ reward)), b, eps))
                args = (pi_ref, pi_prev, reward)
                mean_var = solve_policy_step(*args, b, eps, normalization="mean_var", alpha=alpha)
                mean_eff = solve_policy_step(*args, b_eff, eps, normalization="mean", alpha=alpha)
                mean_same = solve_policy_step(*args, b, eps, normalization="mean", alpha=alpha)
                gap = max(gap, float(np.max(np.abs(mean_var - mean_eff))))
                ctrl = min(ctrl, float(np.max(np.abs(mean_var - mean_same))))
            solver_gap, control = max(solver_gap, gap), min(control, ctrl)
            rows.append([eps, alpha, _small(gap, 1e-8), ctrl])
    headers = [
        "ε",
        "α",
        r"max $\lvert \pi^{\text{mean+var}}_{\beta} - \pi^{\text{mean}}_{\beta_{\mathrm{eff}}}\rvert$ (solver)",
        r"control: min $\lvert \pi^{\text{mean+var}}_{\beta} - \pi^{\text{mean}}_{\beta}\rvert$",
    ]
    return EffectiveBetaCheck(Table(headers, rows, ".2g"), solver_gap, control, sandwich, touch)


@dataclass(frozen=True)
class EffectiveBetaFactors:
    """How much smaller beta_eff gets than at p = 1/2: with the exact p, and inside a group of G answers."""

    table: Table
    population_factor: float
    population_limit: float
    group_sizes: np.ndarray
    group_factors: np.ndarray
    group_bounds: np.ndarray


def effective_beta_factors(eps: float, group_sizes: Sequence[int] = (8, 16, 64)) -> EffectiveBetaFactors:
    """beta_eff(1/2) / beta_eff(p): its largest value over p, and over the success rates a group can have.

    population_factor: the largest ratio over a logit grid from -40 to 40 (the exact p of the policy), against its
    limit sqrt((1/4 + eps)/eps) as p -> 0 or 1. In a group of G sampled answers the advantage is Eq. 4's
    (:func:`grpo_nb.advantage.group_advantage`, form "paper") at the group's own rate p_hat = k/G, and it is non-zero
    only for 1 <= k <= G - 1. Its gap s = A(success) - A(failure) is 1/sqrt(p_hat(1 - p_hat) + eps), so the ratio is
    s sqrt(1/4 + eps) = s beta_eff(1/2)/beta; group_factors is its largest value over k, group_bounds the claimed
    bound G/(2 sqrt(G - 1)), which p_hat(1 - p_hat) >= (G - 1)/G^2 gives (equality at eps = 0).
    """
    z = np.linspace(-40.0, 40.0, 8001)
    half = float(effective_beta(0.0, 1.0, eps))
    population = float(np.max(half / effective_beta(z, 1.0, eps)))
    factors, where = [], []
    for G in group_sizes:
        G = check_positive_int("G", G, minimum=2)
        ratios = []
        for k in range(1, G):
            rewards = (np.arange(G) < k).astype(float)
            advantage = group_advantage(rewards, "paper", eps)
            ratios.append(float(advantage[0] - advantage[-1]) * half)
        factors.append(max(ratios))
        where.append(int(np.argmax(ratios)) + 1)
    sizes = np.array(group_sizes)
    bounds = sizes / (2.0 * np.sqrt(sizes - 1.0))
    rows = [[int(G), f"{k}/{G}", f, b] for G, k, f, b in zip(sizes, where, factors, bounds, strict=True)]
    rows.append(["exact $p$", "$p \\to 0$ or $1$", population, np.sqrt((0.25 + eps) / eps)])
    headers = ["G", r"worst $\hat p$", r"largest $\beta_{\mathrm{eff}}(1/2)/\beta_{\mathrm{eff}}$", "bound"]
    return EffectiveBetaFactors(
        Table(headers, rows, ".3g"), population, float(np.sqrt((0.25 + eps) / eps)), sizes, np.array(factors), bounds
    )


@dataclass(frozen=True)
class VariantOrbit:
    """:func:`variant_orbit`: a variant's number of fixed points, the kind of its orbit from p_ref and the orbit's
    limit set as shown (section "The success recursion in logit form")."""

    label: str
    n_fixed_points: int
    verdict: str
    limit: str


def variant_orbit(variant: Variant, p_ref: float, beta: float, eps: float) -> VariantOrbit:
    """A variant's fixed points counted and its orbit from p_ref classified (the dynamics machinery)."""
    kind = orbit_kind(p_ref, beta, eps, variant=variant)
    summary = classify_orbits(p_ref, beta, eps, variant=variant)
    verdict = {"fixed_point": "fixed point", "chaotic": "chaotic"}.get(kind.kind, f"cycle, period {kind.period}")
    period = max(int(summary.period), 1)
    limit = summary.limit_logits[-period:]
    escaped = bool(np.isposinf(limit).all())
    verdict = "runs to p = 1" if escaped else verdict
    shown = "1 (logit +∞)" if escaped else " ↔ ".join(f"{expit(z):.4g}" for z in np.sort(limit))
    return VariantOrbit(variant.label, len(fixed_points(p_ref, beta, eps, variant=variant)), verdict, shown)


@dataclass(frozen=True)
class ConvergenceCases:
    """:func:`convergence_counterexamples`: each case's orbit (:class:`VariantOrbit`) and the table of them."""

    table: Table
    orbits: list[VariantOrbit]


def convergence_counterexamples(cases: Sequence[tuple[Variant, float, float, float]]) -> ConvergenceCases:
    """Section "When the iteration settles on a fixed point": the orbit of each (variant, p_ref, beta, eps) case.

    Each case goes through :func:`variant_orbit` (fixed points counted, the orbit from p_ref classified by the dynamics
    machinery), so a case whose orbit settles on a fixed point reads "fixed point" and the others say what they do.
    """
    orbits = [variant_orbit(v, p_ref, beta, eps) for v, p_ref, beta, eps in tqdm(cases, desc="orbits")]
    rows = [
        [o.label, p_ref, beta, eps, o.n_fixed_points, o.verdict, o.limit]
        for o, (_, p_ref, beta, eps) in zip(orbits, cases, strict=True)
    ]
    headers = ["variant", _P_REF, "β", "ε", "fixed points", f"orbit from {_P_REF}", "limit $p$"]
    return ConvergenceCases(Table(headers, rows, ".4g"), orbits)


def orbit_table(orbits: Sequence[VariantOrbit]) -> Table:
    """The :class:`VariantOrbit` of each variant as a table."""
    rows = [[o.label, o.n_fixed_points, o.verdict, o.limit] for o in orbits]
    return Table(["variant", "fixed points", f"orbit from {_P_REF}", "limit $p$"], rows, ".4g")


@dataclass(frozen=True)
class VariantFixedPoint:
    """One fixed point of mean+var at one alpha (:func:`variant_fixed_points`): its index from the lowest, p*, its
    logit, the multiplier g'(z*) and whether it is stable."""

    alpha: float
    index: int
    p: float
    logit: float
    multiplier: float
    stable: bool


def variant_fixed_points(p_ref: float, beta: float, eps: float, *, alphas: Sequence[float]) -> list[VariantFixedPoint]:
    """Every fixed point of mean+var at each alpha (section "The fixed points, against alpha = 1", the paper's Fig. 5
    case)."""
    return [
        VariantFixedPoint(alpha, i, fp.p, fp.logit, fp.slope, fp.stable)
        for alpha in alphas
        for i, fp in enumerate(fixed_points(p_ref, beta, eps, variant=Variant("mean_var", alpha)))
    ]


def fixed_point_table(points: Sequence[VariantFixedPoint]) -> Table:
    """The :class:`VariantFixedPoint` list as a table."""
    rows = [[f.alpha, f.index, f.p, f.logit, f.multiplier, f.stable] for f in points]
    return Table(
        ["α", "fixed point", "$p^*$", r"$\operatorname{logit} p^*$", "multiplier $g'(z^*)$", "stable"], rows, ".4g"
    )
