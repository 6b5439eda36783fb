"""Errata of Mroueh (2025) v1, each with a check that the corrected statement holds and, where the printed one is a
formula, that the printed one fails.

Only slips of the paper itself are listed. Gaps left by the PDF-to-text extraction of our copy (a vanished minus
sign, "<" or inline formula, e.g. "Assuming 0 and replacing" or "(1ϵ)") are not errata and are not listed.
A row whose printed text could also be what the extraction made of a correct formula (a lost pair of parentheses,
say) is kept, with :attr:`Erratum.extraction` set: the table marks it "unverified: extraction".
Four kinds: ``formula`` (a printed expression is wrong), ``reference`` (a step cites the wrong lemma), ``step`` (a
true inequality too weak for the conclusion drawn from it), and ``statement`` (the claim needs a stronger or weaker
form; the chapter named in :attr:`Erratum.chapter` settles it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import sympy as sp
from IPython.display import Markdown
from scipy.special import expit, logit

from grpo_nb.advantage import group_advantage, group_rewards
from grpo_nb.clipping import clipped_term
from grpo_nb.constants import CLIP_EPS, PAPER_EPS, TRL_STD_EPS
from grpo_nb.dynamics.chaos_region import twin_orbit_growth
from grpo_nb.dynamics.cycle_geometry import flip_interval, no_cycle_threshold
from grpo_nb.dynamics.fixed_points import fixed_points, fixed_points_grid
from grpo_nb.dynamics.map import h, h_prime, iterate_logit, logit_h
from grpo_nb.dynamics.orbits import attractor, orbit_kind
from grpo_nb.dynamics.paper_bounds import prompt_free_beta_bound, theorem3_condition
from grpo_nb.dynamics.uniform_beta import prompt_beta_bound, safe_betas, supremum_bound
from grpo_nb.family import loss
from grpo_nb.kl import expected_estimator_gradient, softmax_kl_gradients
from grpo_nb.report import escape_markdown, markdown_table
from grpo_nb.symbolic import amplification, parametric
from grpo_nb.symbolic.expressions import (
    BETA,
    CLIP,
    EPS,
    P_REF,
    P,
    advantage,
    eq9_ratio,
    h_expr,
    omega_minus,
    omega_plus,
    reward_mean,
    reward_variance,
    sigmoid,
    variance_term,
)
from grpo_nb.symbolic.identity import Identity, check_equal, check_on_open_unit
from grpo_nb.symbolic.policy_dynamics import remark1_discontinuity, theorem2_logistic_form

__all__ = [
    "CONVERGENCE_CASES",
    "EQ3_PRINTED_READINGS",
    "Erratum",
    "absorbing_p_ref_check",
    "clip_gradient_gap",
    "divergent_remark",
    "eq3_printed_check",
    "eq3_weights_check",
    "errata",
    "errata_table",
    "f_at_zero_check",
    "fig3_readings",
    "fig4_reading_checks",
    "k3_gradient_gaps",
    "lemma2_display_check",
    "orbit_converges",
    "p_c_prediction",
    "printed_eq9_ratio",
    "printed_lemma3_sigma_product",
    "section21_display_check",
    "section21_numeric_gap",
    "stable_two_cycle",
    "theorem5_unrolled_check",
    "threshold_reading_check",
    "trl_checks",
    "typeset",
    "unclipped_deviation",
]


@dataclass(frozen=True)
class Erratum:
    """One slip: where, what is printed, the correction, and the checks (printed_check is None when no check can
    reject the printed text: a cross-reference, a step, or a sentence that was true of what it described when it was
    written)."""

    location: str
    printed: str
    corrected: str
    kind: str
    corrected_check: Identity
    printed_check: Identity | None = None
    chapter: str | None = None
    extraction: bool = False

    @property
    def confirmed(self) -> bool:
        """The corrected statement holds, and the printed one (where testable) fails."""
        return self.corrected_check.holds and (self.printed_check is None or not self.printed_check.holds)


def _all(name: str, items: list[Identity], notes: str = "") -> Identity:
    return Identity(
        name=name,
        lhs=sp.Integer(sum(i.holds for i in items)),
        rhs=sp.Integer(len(items)),
        holds=all(i.holds for i in items),
        notes=notes,
        extra={"steps": items},
    )


def _any(name: str, items: list[Identity]) -> Identity:
    """Holds when one of ``items`` does: a printed text that can be read several ways is rejected only when every
    reading fails."""
    return Identity(
        name=name,
        lhs=sp.Integer(sum(i.holds for i in items)),
        rhs=sp.Integer(1),
        holds=any(i.holds for i in items),
        relation=">=",
        extra={"steps": items},
    )


def _exp_check(name: str, lhs: sp.Expr, rhs: sp.Expr) -> Identity:
    residual = sp.simplify((lhs - rhs).rewrite(sp.exp))
    return Identity(name=name, lhs=lhs, rhs=rhs, holds=bool(residual == 0), residual=residual)


def printed_eq9_ratio() -> sp.Expr:
    """Eq. (9) as printed: the first exponent of the denominator has p_{n-1}(1) (symbol ``p_{n-1}(1)``) in place
    of p_{n-1}(q) in the numerator 1 - p."""
    p1 = sp.Symbol("p_{n-1}(1)", positive=True)
    s = sp.sqrt(variance_term())
    up = P_REF * sp.exp(omega_plus() / BETA)
    down = P_REF * sp.exp((1 - p1) / (BETA * s)) + (1 - P_REF) * sp.exp(-omega_minus() / BETA)
    return up / down


def printed_lemma3_sigma_product() -> sp.Expr:
    """Lemma 3's proof as printed: sigma(z)(1 - sigma(z)) = e^{-z}/(1 - e^{-z})^2 (the right side)."""
    return sp.exp(-amplification.Z) / (1 - sp.exp(-amplification.Z)) ** 2


def eq3_weights_check(success: sp.Expr, failure: sp.Expr, label: str) -> Identity:
    """Eq. (3) of §2.2: the smoothed advantage (r - mu)/sqrt(sigma^2 + eps) with mu, sigma^2 the Bernoulli(p)
    statistics (computed by sympy.stats, not typed), derived at r = 1 and r = 0 and compared with a claimed pair
    ``success``, ``failure`` (typed formulas in p and eps); ``label`` names the claimed pair."""
    derived = [advantage(sp.Integer(r), reward_mean(P), reward_variance(P)) for r in (1, 0)]
    return _all(
        f"Eq. (3) derived from the Bernoulli statistics equals {label}",
        [
            check_equal(f"A(r=1) derived = {label}", derived[0], success),
            check_equal(f"A(r=0) derived = {label}", derived[1], failure),
        ],
    )


def section21_display_check(conditional: bool) -> Identity:
    """§2.1, the last line of the display after "conditioning on q", derived on a finite outcome set: an old policy
    with success mass p spread over two outcomes (free positive weights a_i) and 1 - p over two (b_j), rewards 1, 1,
    0, 0, and per-outcome clipped ratios m_i > 0 (min(x_i, 1 + epsilon) on a success, max(x_i, 1 - epsilon) on a
    failure, §2.1's case form). The left side, E_old[f(x, A)] = sum_i pi_old,i A(r_i) m_i with A from the old
    policy's reward statistics (no smoothing), against the display: sqrt((1-p)/p) E[m 1_{r=1}] -
    sqrt(p/(1-p)) E[m 1_{r=0}] (``conditional=False``), or with each expectation read as conditional on the
    reward, E[m | r=1] = E[m 1_{r=1}]/p and E[m | r=0] = E[m 1_{r=0}]/(1-p) (``conditional=True``)."""
    a, b = sp.symbols("a_1:3", positive=True), sp.symbols("b_1:3", positive=True)
    old = [P * x / sum(a) for x in a] + [(1 - P) * x / sum(b) for x in b]
    m, rewards = sp.symbols("m_1:5", positive=True), [1, 1, 0, 0]
    mean = sp.cancel(sum(o * r for o, r in zip(old, rewards, strict=True)))
    var = sp.factor(sp.cancel(sum(o * (r - mean) ** 2 for o, r in zip(old, rewards, strict=True))))
    lhs = sum(o * advantage(r, mean, var, eps=0) * x for o, r, x in zip(old, rewards, m, strict=True))
    success, failure = old[0] * m[0] + old[1] * m[1], old[2] * m[2] + old[3] * m[3]
    if conditional:
        success, failure = success / P, failure / (1 - P)
    rhs = sp.sqrt((1 - P) / P) * success - sp.sqrt(P / (1 - P)) * failure
    reading = "E[m | r]" if conditional else "E[m 1_{r}]"
    return check_on_open_unit(f"E_old[f(x, A)] derived = the display read as {reading}", lhs, rhs, p=P)


def section21_numeric_gap(clip_eps: float = CLIP_EPS, *, n_cases: int = 50, seed: int = 0) -> float:
    """The same display with the clip itself: the largest |E_old[f_eps(x, A)] - (sqrt((1-p)/p) E[min(x, 1+eps)
    1_{r=1}] - sqrt(p/(1-p)) E[max(x, 1-eps) 1_{r=0}])| over ``n_cases`` random old and new policies on six
    outcomes (three successes), f_eps from :func:`grpo_nb.clipping.clipped_term`, exact expectations."""
    rng, gap = np.random.default_rng(seed), 0.0
    success = np.array([True, True, True, False, False, False])
    for _ in range(n_cases):
        old, new = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
        x, p = new / old, old[success].sum()
        adv = np.where(success, np.sqrt((1 - p) / p), -np.sqrt(p / (1 - p)))
        lhs = float(np.sum(old * clipped_term(x, adv, clip_eps)))
        up = np.sum(old * np.minimum(x, 1 + clip_eps) * success)
        down = np.sum(old * np.maximum(x, 1 - clip_eps) * ~success)
        gap = max(gap, abs(lhs - (np.sqrt((1 - p) / p) * up - np.sqrt(p / (1 - p)) * down)))
    return gap


def _section21_conditional() -> Erratum:
    gap = section21_numeric_gap()
    corrected = _all(
        "the display with the indicators inside the expectations",
        [
            section21_display_check(conditional=False),
            _numeric("50 random policies, clip 0.2: largest gap to E_old[f_eps(x, A)]", gap, 1e-12, gap < 1e-12,
                     relation="<"),
        ],
    )  # fmt: skip
    return Erratum(
        "§2.1, last line of the display after 'conditioning on q'",
        "√((1−p)/p) E[min(x, 1+ϵ)] − √(p/(1−p)) E[max(x, 1−ϵ)], each E over o ∼ π_old with r(q, o) = 1 "
        "(resp. 0) written under it, one line after E[f_ϵ(x, A) 1_{r=1}] + E[f_ϵ(x, A) 1_{r=0}]",
        "E[min(x, 1+ϵ) 1_{r=1}] and E[max(x, 1−ϵ) 1_{r=0}] over o ∼ π_old, as the line before and the next display "
        "have them. Read as conditional expectations, the usual meaning of a condition under E, the printed line "
        "drops the factors p and 1−p: E[X 1_{r=1}] = p E[X | r = 1]",
        "formula",
        corrected,
        section21_display_check(conditional=True),
        "effective_loss",
    )


#: The denominators that Eq. (3) as printed, sqrt(p(1-p)) + epsilon, can be read as: the clip's letter (CLIP) or the
#: smoothing's (EPS), outside the root, and the clip's letter inside it (a lost brace).
EQ3_PRINTED_READINGS: dict[str, sp.Expr] = {
    "clip's epsilon outside the root": sp.sqrt(P * (1 - P)) + CLIP,
    "smoothing eps outside the root": sp.sqrt(P * (1 - P)) + EPS,
    "clip's epsilon inside the root": sp.sqrt(P * (1 - P) + CLIP),
}


def eq3_printed_check(readings: dict[str, sp.Expr] | None = None) -> Identity:
    """Eq. (3) as printed, under each reading of its denominator (default :data:`EQ3_PRINTED_READINGS`), against the
    advantage derived from the Bernoulli statistics (:func:`eq3_weights_check`): holds when some reading matches."""
    readings = EQ3_PRINTED_READINGS if readings is None else readings
    return _any(
        "Eq. (3) as printed, under some reading of its symbol, equals the derived advantage",
        [eq3_weights_check((1 - P) / d, -P / d, label) for label, d in readings.items()],
    )


def _eq3() -> Erratum:
    root = sp.sqrt(P * (1 - P) + EPS)  # the corrected pair, typed as the line above Eq. (3) has it
    corrected = eq3_weights_check((1 - P) / root, -P / root, "(1-p)/sqrt(p(1-p)+eps), -p/sqrt(p(1-p)+eps)")
    return Erratum(
        "Eq. (3), §2.2",
        "A = (1−p)/(√(p(1−p)) + ϵ) and −p/(√(p(1−p)) + ϵ): ε outside the root, and set in ϵ, the letter of the "
        "clip f_ϵ of §2 (the only place where the two letters are mixed)",
        "A = (1−p)/√(p(1−p)+ε) and −p/√(p(1−p)+ε), with §2.2's smoothing ε inside the root, as the line above and "
        "Eq. (4) have it. The printed pair fails with either letter outside the root, and with ϵ inside it",
        "formula",
        corrected,
        eq3_printed_check(),
        "stabilised_grpo",
        extraction=True,  # a brace lost around p(1−p)+ε would print the same text, and ϵ/ε is one glyph pair
    )


def _eq9() -> Erratum:
    return Erratum(
        "Eq. (9), proof of Theorem 2",
        "p_{n−1}(1) in the first exponent of the denominator",
        "p_{n−1}(q), as in the numerator; then Eq. (9) equals the logistic form of h",
        "formula",
        theorem2_logistic_form(),
        theorem2_logistic_form(printed_eq9_ratio()),
        "policy_dynamics",
        extraction=True,  # "(1)" for "(q)" is a character the extraction could have misread
    )


def _f(p: sp.Expr) -> sp.Expr:
    """f(p) = h(p) - p, with h Theorem 2's map (Eq. 8) as the shared expressions define it."""
    return h_expr(p=p) - p


#: The right side of the first display of Lemma 2's proof, typed from the paper: 1/(1 + ... e^{-...}) - p_ref.
LEMMA2_DISPLAY_RHS = 1 / (1 + (1 - P_REF) / P_REF * sp.exp(-1 / (BETA * sp.sqrt(P_REF * (1 - P_REF) + EPS)))) - P_REF


def lemma2_display_check(lhs: str, subtract: int) -> Identity:
    """Lemma 2's first display with left side ``lhs`` = f(p_ref) - ``subtract`` * p_ref, derived from f = h - p, against
    the display's typed right side :data:`LEMMA2_DISPLAY_RHS` (printed: ``subtract`` = 1; corrected: 0)."""
    return check_equal(
        f"{lhs} derived from f = h - p equals the display", _f(P_REF) - subtract * P_REF, LEMMA2_DISPLAY_RHS
    )


def _lemma2_f_minus() -> Erratum:
    printed = lemma2_display_check("f(p_ref) - p_ref", 1)
    return Erratum(
        "Proof of Lemma 2, first display",
        "f(p_ref) − p_ref = 1/(1 + …) − p_ref",
        "f(p_ref) = h(p_ref) − p_ref = 1/(1 + …) − p_ref (f already subtracts p)",
        "formula",
        _all(
            "the display with f(p_ref) on the left, and f(p_ref) > 0",
            [lemma2_display_check("f(p_ref)", 0), amplification.lemma2_f_at_pref()],
        ),
        printed,
        "amplification",
    )


def _lemma2_strict() -> Erratum:
    return Erratum(
        "Proof of Lemma 2, first line",
        "exp(−1/(β√(p_ref(1−p_ref)+ε))) ≤ 1, followed by a strict >",
        "exp(…) < 1, strictly (the exponent is negative), which is what the strict inequality needs",
        "step",
        amplification.lemma2_f_at_pref(),
        None,
        "amplification",
    )


def f_at_zero_check(claimed: sp.Expr, label: str) -> Identity:
    """f(0) = h(0) - 0 derived from Theorem 2's h (Eq. 8), against a ``claimed`` value (printed: 1)."""
    return check_equal(f"f(0) derived from f = h - p equals {label}", _f(sp.Integer(0)), claimed)


def _f_at_zero() -> Erratum:
    low = amplification.theorem3_case_low_pref()
    typed = 1 / (1 + (1 - P_REF) / P_REF * sp.exp(-1 / (BETA * sp.sqrt(EPS))))
    corrected = _all(
        "f(0) derived, and 0 < h(0) < 1", [f_at_zero_check(typed, "1/(1 + A e^{-1/(beta sqrt eps)})"), low[1]]
    )
    printed = f_at_zero_check(sp.Integer(1), "1")
    return Erratum(
        "Proof of Theorem 3, case p_ref ≤ 1/2",
        "f(0) = 1 > 0",
        "f(0) = h(0) = 1/(1 + (1−p_ref)/p_ref · e^{−1/(β√ε)}), which lies in (0, 1); so f(0) > 0",
        "formula",
        corrected,
        printed,
        "amplification",
    )


def _beta_of_p() -> Erratum:
    b = 1 / sp.sqrt(variance_term())
    check = Identity(
        name="b(p) = 1/sqrt(p(1-p)+eps) > 0",
        lhs=b,
        rhs=sp.Integer(0),
        holds=amplification._is_positive(b),
        relation=">",
    )
    return Erratum(
        "Proof of Theorem 3, case p_ref > 1/2",
        "a(p_ref) > 0 and β(p) > 0",
        "a(p_ref) > 0 and b(p) > 0 (β is the constant KL weight; b(p) = 1/√(p(1−p)+ε))",
        "formula",
        check,
        extraction=True,  # "β(p)" for "b(p)" is a letter the extraction could have misread
    )


def _ref_lemma3_1() -> Erratum:
    return Erratum(
        "Proof of Theorem 3, f′ rewritten with cosh",
        "(Using Lemma 2 (1))",
        "Lemma 3 (1): σ(z)(1−σ(z)) = 1/(4cosh²(z/2)); Lemma 2 is f(p_ref) > 0 and has no parts",
        "reference",
        amplification.lemma3_part1(),
    )


def _ref_lemma3_2() -> Erratum:
    return Erratum(
        "Proof of Theorem 3, the cosh product bound",
        "On the other hand by Lemma 2(2)",
        "by Lemma 3 (2): σ(z+a)(1−σ(z+a)) ≤ 1/(4cosh²(z/2)cosh²(a/2)) for z, a > 0",
        "reference",
        _all("Lemma 3 (2), its steps", amplification.lemma3_part2()),
    )


def _ref_lemma4() -> Erratum:
    return Erratum(
        "Proof of Theorem 3, replacing cosh²(a(p_ref)/2)",
        "Using Lemma 3 (2)",
        "Lemma 4: cosh²(a(p_ref)/2) = 1/(4 p_ref (1−p_ref))",
        "reference",
        amplification.lemma4_cosh_pref()[-1],
    )


def _lemma3_sigma() -> Erratum:
    z = amplification.Z
    corrected = _exp_check(
        "sigma(1-sigma) = e^{-z}/(1+e^{-z})^2", sigmoid(z) * (1 - sigmoid(z)), sp.exp(-z) / (1 + sp.exp(-z)) ** 2
    )
    printed = _exp_check(
        "sigma(1-sigma) = e^{-z}/(1-e^{-z})^2", sigmoid(z) * (1 - sigmoid(z)), printed_lemma3_sigma_product()
    )
    return Erratum(
        "Proof of Lemma 3 (1)",
        "σ(z)(1−σ(z)) = e^{−z}/(1 − e^{−z})²",
        "σ(z)(1−σ(z)) = e^{−z}/(1 + e^{−z})²",
        "formula",
        corrected,
        printed,
    )


def _lemma3_cosh_sigma() -> Erratum:
    x = amplification.X
    corrected = _exp_check(
        "cosh^2 x = 1/(4 sigma(2x)(1-sigma(2x)))", sp.cosh(x) ** 2, 1 / (4 * sigmoid(2 * x) * (1 - sigmoid(2 * x)))
    )
    printed = _exp_check(
        "cosh^2 x = sigma(2x)(1-sigma(2x))/4", sp.cosh(x) ** 2, sigmoid(2 * x) * (1 - sigmoid(2 * x)) / 4
    )
    return Erratum(
        "Proof of Lemma 3 (1)",
        "cosh²(x) = ¼ σ(2z)(1−σ(2z))",
        "cosh²(x) = 1/(4 σ(2x)(1−σ(2x))): the reciprocal, and x in place of z",
        "formula",
        corrected,
        printed,
    )


def _lemma4_cosh() -> Erratum:
    printed_expr = ((1 - P_REF) ** 2 / P_REF**2 + P_REF**2 / (1 - P_REF) ** 2 + 2) / 4
    return Erratum(
        "Proof of Lemma 4",
        "cosh(x) = ½(e^x + e^{−x}) = ¼((1−p_ref)²/p_ref² + p_ref²/(1−p_ref)² + 2) = …",
        "cosh(x) = ½(√(p_ref/(1−p_ref)) + √((1−p_ref)/p_ref)); the printed middle term is cosh²(2x)",
        "formula",
        amplification.lemma4_cosh_pref()[0],
        amplification.lemma4_cosh_pref(claimed=printed_expr)[0],
    )


def _remark1() -> Erratum:
    items = remark1_discontinuity()
    no_fixed_point = Identity(
        name="eps = 0, p_ref = 1/2, beta = 0.1: no fixed point in (0, 1)",
        lhs=sp.Integer(len(fixed_points(0.5, 0.1, 0.0))),
        rhs=sp.Integer(0),
        holds=len(fixed_points(0.5, 0.1, 0.0)) == 0,
    )
    return Erratum(
        "Remark 1",
        "with ε = 0, h is no longer continuous at 0 and 1, and fixed points in [0, 1] are not guaranteed",
        "with ε = 0 the formula is undefined at p = 0, 1 and may have no fixed point in (0, 1); its one-sided "
        "limits there are 1, so its continuous extension has h(0) = h(1) = 1 and the fixed point p = 1",
        "statement",
        _all(
            "limits at 0+ and 1-, undefined end points, and an example without interior fixed point",
            [*items, no_fixed_point],
        ),
        None,
        "policy_dynamics",
    )


def _theorem5_limsup() -> Erratum:
    witness = parametric.theorem5_limit_need_not_exist()
    telescoped = parametric.theorem5_telescoped_bound()
    sharper = parametric.theorem5_success_gap_vs_tv()
    printed = Identity(
        name="|p~_n - p*| has a limit under Assumption 1",
        lhs=witness.lhs,
        rhs=sp.Integer(0),
        holds=not witness.holds,
        relation="->",
        notes="Fails: the witness sequence satisfies Assumption 1 and keeps oscillating.",
    )
    return Erratum(
        "Theorem 5 and its proof",
        "lim_{n→∞} |p̃_n − p*| ≤ 2δ*",
        "limsup_{n→∞} |p̃_n − p*| ≤ 2δ* (the limit need not exist); since 1{r=1} is an event, "
        "|p̃ − p| ≤ TV and the bound improves to δ*",
        "statement",
        _all("telescoped bound and the sharper TV bound", [*telescoped, *sharper]),
        printed,
        "parametric_grpo",
    )


def divergent_remark() -> Identity:
    """The paper's "divergent" run (beta = 5, p_ref = 0.001, eps = 1e-5) does not converge, so "divergent" is right;
    more precisely its orbit settles on a 2-cycle around an unstable fixed point (slope below -1)."""
    kind = orbit_kind(0.001, 5.0, PAPER_EPS)
    lowest = fixed_points(0.001, 5.0, PAPER_EPS)[0]
    two_cycle = kind.kind == "cycle" and kind.period == 2 and lowest.slope < -1
    check = Identity(
        name="beta = 5, p_ref = 0.001, eps = 1e-5: the orbit is a 2-cycle around an unstable fixed point",
        lhs=sp.Symbol(kind.kind),
        rhs=sp.Integer(kind.period or 0),
        holds=two_cycle and not orbit_converges(0.001, 5.0, PAPER_EPS),
        relation="period",
        notes=f"lowest fixed point p* = {lowest.p:.4f} with h'(p*) = {lowest.slope:.3f}; the orbit does not converge",
    )
    return check


def absorbing_p_ref_check(p_ref: sp.Expr) -> Identity:
    """Eq. (9), the success mass of Theorem 1's policy (:func:`grpo_nb.symbolic.expressions.eq9_ratio`, defined at
    p_ref = 0 where the logistic form of h is not), at the given ``p_ref``: holds when it is 0 for every p, so the
    orbit from p_0 = p_ref = 0 stays at 0 and its only fixed point is p_ref itself (no amplification)."""
    value = sp.simplify(eq9_ratio(p_ref=sp.sympify(p_ref)))
    return Identity(
        name=f"Eq. (9) at p_ref = {p_ref}: h(p) = 0 for every p",
        lhs=value,
        rhs=sp.Integer(0),
        holds=bool(value == 0),
        residual=value,
    )


def _numeric(name: str, value: float, target: float, holds: bool, relation: str = "==", notes: str = "") -> Identity:
    """A numeric claim as an :class:`Identity` (value, target and the verdict computed by the caller)."""
    return Identity(name, sp.Float(value), sp.Float(target), bool(holds), relation=relation, notes=notes)


def orbit_converges(p_ref: float, beta: float, eps: float, *, n: int = 4000, tail: int = 200) -> bool:
    """Whether the orbit of Eq. (8) from p_ref has settled: its last ``tail`` logit steps are all below 1e-8."""
    z = iterate_logit(p_ref, beta, eps, n=n)
    return bool(np.max(np.abs(np.diff(z[-tail:]))) < 1e-8 * max(1.0, float(np.abs(z[-1]))))


def stable_two_cycle(p_ref: float, beta: float, eps: float) -> Identity:
    """Whether the orbit of Eq. (8) from p_ref settles on a stable 2-cycle {a, b}: :func:`orbit_kind` finds period 2,
    h(h(a)) = a and h(a) = b within 1e-9 (relative), a != b, and the cycle's multiplier h'(a) h'(b) (Proposition 1's
    h') lies in (-1, 1). ``notes`` gives the cycle and its multiplier."""
    kind = orbit_kind(p_ref, beta, eps)
    name = f"beta = {beta:g}, p_ref = {p_ref:g}, eps = {eps:g}: a stable 2-cycle (|multiplier| < 1)"
    if kind.kind != "cycle" or kind.period != 2:
        return _numeric(name, np.inf, 1.0, False, relation="<", notes=f"the orbit's kind is {kind.kind}")
    lo, hi = attractor(p_ref, beta, eps)
    back = float(h(float(h(lo, p_ref, beta, eps)), p_ref, beta, eps))
    image = float(h(lo, p_ref, beta, eps))
    closed = abs(back - lo) <= 1e-9 * lo and abs(image - hi) <= 1e-9 * hi and hi > lo * (1 + 1e-6)
    multiplier = float(h_prime(lo, p_ref, beta, eps) * h_prime(hi, p_ref, beta, eps))
    notes = f"the orbit alternates between p = {lo:.4f} and {hi:.3f}, multiplier h'(a) h'(b) = {multiplier:.2f}"
    return _numeric(name, abs(multiplier), 1.0, closed and abs(multiplier) < 1, relation="<", notes=notes)


def p_c_prediction(p_ref: float, beta: float, eps: float) -> bool | None:
    """What the no-cycle threshold p_c(beta, eps) = sigmoid(-1/(beta sqrt(1/4 + eps))) predicts for the orbit of Eq. (8)
    from p_ref: convergence (True) when p_ref >= p_c, and nothing (None) below it, where p_c is no longer sufficient
    (it is not necessary: most prompts below p_c converge too)."""
    return True if p_ref >= float(no_cycle_threshold(beta, eps)) else None


def _convergence_cases() -> tuple[tuple[float, float, float], ...]:
    """The (p_ref, beta, eps) on which :func:`threshold_reading_check` tests the threshold's reading: p_ref = 0.2 and
    0.45 on a beta grid from 0.05 to 50, p_ref = p_c itself at beta = 5, the two counterexamples to convergence, and
    prompts 10% below and above the first doubling threshold p_up(5, 1e-5)."""
    eps, p_up = PAPER_EPS, flip_interval(5.0, PAPER_EPS)[1]
    grid = [(p, float(b), eps) for p in (0.2, 0.45) for b in np.geomspace(0.05, 50.0, 13)]
    edge = [(float(no_cycle_threshold(5.0, eps)), 5.0, eps), (1e-3, 5.0, eps), (1e-4, 5.2, eps)]
    return (*grid, *edge, (0.9 * p_up, 5.0, eps), (1.1 * p_up, 5.0, eps))


CONVERGENCE_CASES = _convergence_cases()


def threshold_reading_check() -> Identity:
    """The orbit from p_ref on every case of :data:`CONVERGENCE_CASES` against :func:`p_c_prediction` (read from this
    module, so a test can replace it): holds when every prediction made is right (convergence = the orbit settles on a
    fixed point, :func:`grpo_nb.dynamics.orbits.orbit_kind`). Reading p_c as necessary as well fails at p_ref = 0.2,
    beta = 5, which converges although 0.2 < p_c(5, 1e-5) = 0.40."""
    made = wrong = 0
    for case in CONVERGENCE_CASES:
        prediction = p_c_prediction(*case)
        if prediction is not None:
            made += 1
            wrong += prediction != (orbit_kind(*case).kind == "fixed_point")
    return _numeric(
        f"p_c's reading on {len(CONVERGENCE_CASES)} orbits: wrong predictions (of {made} made)",
        wrong,
        0,
        wrong == 0 and made > 0,
    )


def _convergence_claim() -> Erratum:
    cycle, chaos, eps = (1e-3, 5.0, PAPER_EPS), (1e-4, 5.2, PAPER_EPS), PAPER_EPS
    second = (1e-3, 3.0, PAPER_EPS)
    p_c, p_up = float(no_cycle_threshold(5.0, eps)), flip_interval(5.0, eps)[1]
    printed = _numeric(
        "the orbit from p_ref converges, at the two 2-cycles and at the chaotic example",
        sum(orbit_converges(*c) for c in (cycle, second, chaos)),
        3,
        all(orbit_converges(*c) for c in (cycle, second, chaos)),
    )
    stable = stable_two_cycle(*second)
    lo, hi = attractor(*second) if stable.holds else (np.nan, np.nan)
    kind_cycle, kind_chaos = orbit_kind(*cycle), orbit_kind(*chaos)
    below, above = orbit_kind(0.9 * p_up, 5.0, eps), orbit_kind(1.1 * p_up, 5.0, eps)
    twin = float(twin_orbit_growth(*chaos))
    corrected = _all(
        "counterexamples, p_c sufficient but not necessary, cycles below p_up",
        [
            _numeric(
                "beta = 5, p_ref = 1e-3: period of the limit cycle",
                kind_cycle.period or 0,
                2,
                kind_cycle.kind == "cycle" and kind_cycle.period == 2,
            ),
            stable,
            _numeric(
                "beta = 5.2, p_ref = 1e-4: twin orbits 1e-10 apart separate to",
                twin,
                1e-3,
                kind_chaos.kind == "chaotic" and twin >= 1e-3,
                relation=">=",
            ),
            threshold_reading_check(),
            _numeric(
                "beta = 5: p_ref = 0.2 < p_c converges",
                0.2,
                p_c,
                0.2 < p_c and orbit_kind(0.2, 5.0, eps).kind == "fixed_point",
                relation="<",
            ),
            _numeric(
                "beta = 5: 0.9 p_up gives a 2-cycle, 1.1 p_up a fixed point",
                p_up,
                0.0,
                below.kind == "cycle" and below.period == 2 and above.kind == "fixed_point",
                relation=">",
            ),
        ],
    )
    return Erratum(
        "Abstract; §1, contribution (3); §6, Conclusion",
        "the recursion of the success probability converges to a fixed point (the abstract without condition; "
        "contribution (3) and the conclusion 'under mild assumptions')",
        "Theorem 4 is local: it needs p_ref near a fixed point with |h′(p*)| < 1. From p_0 = p_ref the orbit can "
        "settle on a 2-cycle (β = 5, p_ref = 10⁻³, ε = 10⁻⁵: the paper's own Fig. 5 run; "
        f"β = 3: a stable 2-cycle between p = {lo:.3f} and {hi:.2f}) or be chaotic (β = 5.2, p_ref = 10⁻⁴). "
        "p_ref ≥ p_c(β, ε) = σ(−1/(β√(1/4+ε))) is sufficient for convergence, not "
        f"necessary: at β = 5, ε = 10⁻⁵, p_c = {p_c:.2f}, yet p_ref = 0.2 converges; cycles there need "
        f"p_ref < p_up = {p_up:.3g}",
        "statement",
        corrected,
        printed,
        "hard_prompts",
    )


def _p_star_one() -> Erratum:
    a = sp.Symbol("a", real=True)
    beta, eps = sp.symbols("beta varepsilon", positive=True)
    p_ref = 1 / (1 + sp.exp(-a))
    h_at_one = 1 / (1 + (1 - p_ref) / p_ref * sp.exp(-1 / (beta * sp.sqrt(eps))))  # Eq. (8) at p = 1 (v = 0)
    gap = sp.simplify(1 - h_at_one)
    grid = np.meshgrid(np.geomspace(1e-9, 1 - 1e-9, 9), np.geomspace(1e-3, 1e3, 9), [1e-8, PAPER_EPS, 1e-2, 1.0])
    finite = np.isfinite(logit_h(1.0, *grid))
    interior = fixed_points(0.3, 2.0, 1e-2)
    corrected = _all(
        "h(1) < 1 for eps > 0, and an example without a fixed point near 1",
        [
            Identity("1 - h(1) > 0 (eps > 0)", gap, sp.Integer(0), bool(gap.is_positive), relation=">"),
            _numeric(
                "grid of (p_ref, beta, eps): points with logit h(1) finite",
                finite.sum(),
                finite.size,
                bool(finite.all()),
            ),
            _numeric(
                "p_ref = 0.3, beta = 2, eps = 1e-2: largest fixed point",
                interior[-1].p,
                0.99,
                len(interior) == 1 and interior[-1].p < 0.99,
                relation="<",
            ),
        ],
    )
    return Erratum(
        "§3, after Proposition 1 (reading Fig. 2)",
        "p* = 1 is almost always a fixed point",
        "for ε > 0, h(1) = σ(logit p_ref + 1/(β√ε)) < 1, so p = 1 is never a fixed point; there is often a fixed "
        "point next to 1, with logit ≈ logit p_ref + 1/(β√ε), but not always (p_ref = 0.3, β = 2, ε = 10⁻²: the "
        "only fixed point is interior). With ε = 0, 1 is a fixed point of the continuous extension only",
        "statement",
        corrected,
        check_equal("h(1) = 1", h_at_one, sp.Integer(1)),
        "policy_dynamics",
    )


def fig3_readings(holds: np.ndarray, p_ref: np.ndarray, beta: np.ndarray) -> tuple[bool, bool, bool]:
    """Read a grid of Theorem 3's condition (2) (``holds``, broadcast with ``p_ref`` and ``beta``) three ways.

    caption: it never holds for p_ref < 0.9 and beta > 10 ("satisfied only for high p and small beta"); text: it
    never holds for p_ref > 0.99 and beta < 1e-2 ("for high p_ref, beta not too small"); island: it fails
    somewhere, and only at p_ref > 0.95, 0.3 < beta < 61.
    """
    b, p = np.broadcast_arrays(beta, p_ref)
    fails = ~holds
    caption = not holds[(p < 0.9) & (b > 10)].any()
    text = not holds[(p > 0.99) & (b < 1e-2)].any()
    island = bool(fails.any() and np.all((p[fails] > 0.95) & (b[fails] > 0.3) & (b[fails] < 61)))
    return caption, text, island


def _fig3_caption() -> Erratum:
    beta = np.logspace(-3, 3, 301)[None, :]
    p_ref = expit(np.linspace(0.0, logit(1 - 1e-9), 301))[1:, None]
    holds = theorem3_condition(p_ref, beta, PAPER_EPS)
    caption, text, island = fig3_readings(holds, p_ref, beta)
    fails = ~holds
    printed = _numeric(
        "either reading of caption and text matches the computed region",
        caption + text,
        1,
        caption or text,
        relation=">=",
    )
    corrected = _numeric(
        "eps = 1e-5: grid points where condition (2) fails, all with p_ref > 0.95, 0.3 < beta < 61",
        fails.sum(),
        0,
        island,
        relation=">",
    )
    return Erratum(
        "§4, Fig. 3's caption and the sentence after it",
        "caption: condition (2) is 'mostly satisfied only for high p and small β (Blue area)'; text: the "
        "condition is mild, and 'for high p_ref, β needs to be selected not too small'",
        "the two contradict each other, and neither matches the computed region: at ε = 10⁻⁵ condition (2) fails "
        "only on an island, p_ref above about 0.96 and 0.3 < β < 61; it holds at every β for lower p_ref, and at "
        "small β for every p_ref. The figure itself is not in our text copy",
        "statement",
        corrected,
        printed,
        "amplification",
    )


def _stable_everywhere(p_ref: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    """Per beta: whether every prompt of ``p_ref`` has a stable lowest fixed point (Lemma 1's slope above -1 at the
    fixed point below 1/2 where there is one; a lowest fixed point above 1/2 is never unstable)."""
    fp = fixed_points_grid(p_ref[:, None], beta[None, :], eps)
    slope = np.where(fp.logits < 0, fp.slopes, np.inf).min(axis=-1)
    return np.all(slope > -1, axis=0)


def fig4_reading_checks(eps: float = PAPER_EPS) -> tuple[Identity, Identity]:
    """Fig. 4 and Remark 2 read B(p*) as a lower bound on beta; p* moves with beta, so it is none. Returns (printed,
    corrected) checks over p_ref in [1e-12, 1/2] (400 prompts) and 61 betas from 1e-2 to 1e3:

    printed: the betas at which every prompt's lowest fixed point is stable form [beta_0, inf) (fails: small beta is
    safe, then unsafe, then safe); corrected: the unsafe betas are the one interval of
    :func:`grpo_nb.dynamics.uniform_beta.safe_betas` (grid betas within 2% of its ends are skipped), whose upper end
    is max_p B(p) (:func:`~grpo_nb.dynamics.uniform_beta.supremum_bound`), just below Remark 2's 1/(3^{3/2} sqrt eps);
    and for one prompt (p_ref = 1e-4) the lowest fixed point is stable below its unstable interval as well.
    """
    p_ref, beta = np.geomspace(1e-12, 0.5, 400), np.geomspace(1e-2, 1e3, 61)
    stable = _stable_everywhere(p_ref, beta, eps)
    upward = bool(np.all(stable[np.argmax(stable) :])) if stable.any() else False
    printed = _numeric(
        "betas with every lowest fixed point stable form [beta_0, inf): grid betas out of order",
        int(np.sum(np.diff(stable.astype(int)) < 0)),
        0,
        upward and bool(np.all(np.diff(stable.astype(int)) >= 0)),
    )
    safe = safe_betas(eps)
    (lo, hi), sup = safe.unsafe[0], supremum_bound(eps)
    away = (beta < lo / 1.02) | ((beta > lo * 1.02) & (beta < hi / 1.02)) | (beta > hi * 1.02)
    inside = (beta > lo) & (beta < hi)
    one = prompt_beta_bound(1e-4, eps)
    probe = np.array([one.beta_from / 2, np.sqrt(one.beta_from * one.beta_q), 2 * one.beta_q])
    probe_stable = _stable_everywhere(np.array([1e-4]), probe, eps)
    corrected = _all(
        "the unsafe betas form one interval, bounded below as well as above",
        [
            _numeric(
                f"grid betas whose verdict disagrees with the interval ({lo:.5g}, {hi:.6g})",
                int(np.sum(stable[away] == inside[away])),
                0,
                len(safe.unsafe) == 1 and bool(np.all(stable[away] != inside[away])),
            ),
            _numeric(
                "upper end = max_p B(p) (Remark 2's supremum), below 1/(3^{3/2} sqrt eps)",
                hi,
                sup.beta,
                abs(hi - sup.beta) <= 1e-9 * sup.beta and hi < prompt_free_beta_bound(eps),
            ),
            _numeric(
                "p_ref = 1e-4: stable below, unstable inside, stable above its interval",
                one.beta_from,
                0.0,
                one.beta_from > 0 and probe_stable.tolist() == [True, False, True],
                relation=">",
            ),
        ],
    )
    return printed, corrected


def _fig4_lower_bound() -> Erratum:
    printed, corrected = fig4_reading_checks()
    (lo, hi), one = safe_betas(PAPER_EPS).unsafe[0], prompt_beta_bound(1e-4, PAPER_EPS)
    return Erratum(
        "§4, Fig. 4's caption and the text after it; Remark 2",
        "B(p*) is the 'lower bound on β to ensure local convergence'; uniformly in q, 'take sup on q in all lower "
        "bounds'",
        "β > B(p*) is a condition at the fixed point p*, which moves with β, so B(p*) is no lower bound on β: a "
        f"prompt's lowest fixed point is unstable on an interval of β and stable again below it (p_ref = 10⁻⁴, "
        f"ε = 10⁻⁵: {one.beta_from:.4f} < β < {one.beta_q:.2f}). For p_ref in [10⁻¹², ½] at ε = 10⁻⁵ the β at which "
        f"some lowest fixed point is unstable form one interval, ({lo:.5f}, {hi:.4f}); its upper end, the supremum "
        "over prompts, is the largest value of B, just below the prompt-free bound 1/(3^{3/2}√ε)",
        "statement",
        corrected,
        printed,
        "amplification",
    )


def clip_gradient_gap(clip_eps: float, *, off_policy: bool, seed: int = 0) -> float:
    """The largest |gradient difference| between GRPO-Clip with clip range ``clip_eps`` and GRPO-No-Clip (clip range
    inf), both as :func:`grpo_nb.family.loss` computes TRL's ``loss_type="grpo"`` loss, on 8 answers of 5 tokens with
    random advantages: on-policy (old log-probabilities equal to the current ones, TRL at ``num_iterations`` = 1) or
    off-policy (independent random old log-probabilities, a later inner step of ``num_iterations`` > 1)."""
    rng = np.random.default_rng(seed)
    logp, adv = np.log(rng.uniform(0.05, 0.95, size=(8, 5))), rng.normal(size=8)
    old = np.log(rng.uniform(0.05, 0.95, size=logp.shape)) if off_policy else logp
    clipped = loss("grpo", logp, adv, old_logp=old, clip_eps=clip_eps).grad
    free = loss("grpo", logp, adv, old_logp=old, clip_eps=np.inf).grad
    return float(np.max(np.abs(clipped - free)))


def k3_gradient_gaps(placement: str, *, seed: int = 0) -> tuple[float, float]:
    """k3's exact expected gradient (:func:`grpo_nb.kl.expected_estimator_gradient`, one-token answers, on-policy)
    placed as ``placement`` ("loss": k3 alone, TRL with ``use_bias_correction_kl=False``; "ratio_weighted": k3 times
    the token's ratio, TRL 1.16's default) against the gradients of the two KL directions
    (:func:`grpo_nb.kl.softmax_kl_gradients`) on 20 random softmax policies of 6 outcomes. Returns the largest
    distance to grad KL(pi || pi_ref), Eq. (2)'s reverse KL, and to grad KL(pi_ref || pi), the forward KL."""
    rng = np.random.default_rng(seed)
    reverse_gap = forward_gap = 0.0
    for _ in range(20):
        logits, log_ref = rng.normal(size=6), np.log(rng.dirichlet(np.ones(6)))
        k3 = expected_estimator_gradient(logits, log_ref, "k3", placement=placement)
        reverse, forward = softmax_kl_gradients(logits, log_ref)
        reverse_gap = max(reverse_gap, float(np.max(np.abs(k3 - reverse))))
        forward_gap = max(forward_gap, float(np.max(np.abs(k3 - forward))))
    return reverse_gap, forward_gap


def trl_checks(seed: int = 0) -> Identity:
    """§2.3's "GRPO-No-Clip is the one implemented in TRL", read against TRL's loss as :mod:`grpo_nb.family`,
    :mod:`grpo_nb.kl` and :mod:`grpo_nb.advantage` model it: the clip does not act on-policy (TRL's default
    ``num_iterations`` = 1, clip ranges 0.2 and 1e-3) and does act off-policy (``num_iterations`` > 1); k3 times
    the ratio has the expected gradient of Eq. (2)'s reverse KL and k3 alone that of the forward KL
    (:func:`k3_gradient_gaps`); TRL's group advantage (Bessel std + 1e-4 outside the root) is not Eq. (4)'s weight
    with the same 1e-4 inside it, for every success count of a group of 8."""
    on = max(clip_gradient_gap(e, off_policy=False, seed=seed) for e in (CLIP_EPS, 1e-3))
    off = min(clip_gradient_gap(e, off_policy=True, seed=seed) for e in (CLIP_EPS, 1e-3))
    weighted, alone = k3_gradient_gaps("ratio_weighted", seed=seed)[0], k3_gradient_gaps("loss", seed=seed)[1]
    rewards = group_rewards(np.arange(1, 8), 8)
    ratio = group_advantage(rewards, "trl")[:, 0] / group_advantage(rewards, "paper", eps=TRL_STD_EPS)[:, 0]
    return _all(
        "TRL's clip acts only off-policy, its KL gradient depends on the ratio, its advantage is not Eq. (4)'s",
        [
            _numeric("on-policy (mu = 1): largest gradient gap, clip 0.2 or 1e-3 vs no clip", on, 1e-12, on < 1e-12,
                     relation="<"),
            _numeric("off-policy (mu > 1): smallest such gap, the clip acts", off, 1e-3, off > 1e-3, relation=">"),
            _numeric("k3 times the ratio: largest distance to grad KL(pi || pi_ref)", weighted, 1e-12,
                     weighted < 1e-12, relation="<"),
            _numeric("k3 alone: largest distance to grad KL(pi_ref || pi)", alone, 1e-12, alone < 1e-12,
                     relation="<"),
            _numeric("G = 8, k = 1..7: largest TRL / Eq. (4) advantage of a success (Bessel: below 1)",
                     float(ratio.max()), 0.99, bool(np.all(ratio < 0.99)), relation="<"),
        ],
    )  # fmt: skip


def _trl_no_clip() -> Erratum:
    return Erratum(
        "§2.3, after (GRPO-No-Clip)",
        "the no-clip formulation (GRPO-No-Clip) 'is the one currently implemented' in TRL, 'hence we will focus in "
        "what follows on this version'",
        "True of the clip, not of the weights or the KL. When v1 appeared, TRL's release (0.15.2, 25 February 2025) "
        "had no clip and one gradient step per batch; the clip was already on TRL's main branch (pull request 2899, "
        "merged 20 February 2025, which notes that μ = 1 matches the loss before it). Since its release in 0.16.0 "
        "(22 March 2025) TRL implements GRPO-Clip with μ inner steps per batch; at its "
        "default μ = 1 (TRL 1.16 too, with its default batching) the ratio is 1 in value, the clip never acts and "
        "the gradient is No-Clip's; at μ > 1 the later steps clip. In 0.15.2 and 1.16 alike "
        "the advantage divides by the Bessel-corrected std plus 10⁻⁴, outside the root, not by "
        "√(p(1−p)+ε); the KL is k3 per token, whose expected gradient (one-token answers, on-policy) is that of the "
        "forward KL(π_ref‖π) without the ratio (TRL 0.15; 1.16 with its bias-correction flag off) and that of "
        "Eq. (2)'s KL(π‖π_ref) with it (1.16's default, when β > 0; its default β is 0)",
        "statement",
        trl_checks(),
        None,  # the sentence was true of TRL's latest release when v1 appeared: there is no printed claim to reject
        "trl_grpo",
    )


#: Theorem 5's symbols: TV(pi~_0, pi_0) and the per-step errors delta_1..delta_3 of Assumption 1.
TV0 = sp.Symbol("TV_0", positive=True)
DELTAS = sp.symbols("delta_1:4", positive=True)


def theorem5_unrolled_check(claimed: sp.Expr, label: str) -> Identity:
    """Assumption 1, TV_k <= TV_{k-1} + delta_k, iterated three times from TV_0 with equality (the largest TV_3 it
    allows), gives 2 TV_3; the check holds when 2 TV_3 <= ``claimed`` for all positive symbols (sympy decides the sign
    of the difference)."""
    tv = TV0
    for delta in DELTAS:  # the recursion of Assumption 1, step by step
        tv = tv + delta
    residual = sp.simplify(2 * tv - claimed)
    return Identity(f"2 TV_3 from Assumption 1 <= {label}", 2 * tv, claimed, bool(residual.is_nonpositive),
                    residual=residual, relation="<=")  # fmt: skip


def _theorem5_factor2() -> Erratum:
    def bound(factor: int) -> Identity:
        return theorem5_unrolled_check(2 * sum(DELTAS) + factor * TV0, f"2 sum delta + {factor} TV_0")

    return Erratum(
        "Proof of Theorem 5, second line of the display",
        "2 TV(π̃_n‖π_n) ≤ 2 Σδ_i + TV(π̃_0, π_0)",
        "2 TV(π̃_n‖π_n) ≤ 2 Σδ_i + 2 TV(π̃_0‖π_0): unrolling Assumption 1, the factor 2 multiplies every term. "
        "Harmless in the theorem, where TV(π̃_0‖π_0) = 0",
        "formula",
        bound(2),
        bound(1),
        "parametric_grpo",
        extraction=True,
    )


def unclipped_deviation(clip_eps: object) -> float:
    """max |f_eps(x, A) - x A| over x in [0, 5] (shape (501, 1)) and four advantages; ``clip_eps`` is a number or
    a function of x."""
    x = np.linspace(0.0, 5.0, 501)[:, None]
    adv = np.array([-1.0, -0.3, 0.4, 1.0])[None, :]
    clip = clip_eps(x) if callable(clip_eps) else clip_eps
    return float(np.max(np.abs(clipped_term(x, adv, clip) - x * adv)))


def _clip_range() -> Erratum:
    at_one = unclipped_deviation(1.0)
    wide = unclipped_deviation(lambda x: np.abs(x - 1.0))
    limit = unclipped_deviation(np.inf)
    printed = _numeric("max |f_1(x, A) - x A| (eps = 1, the top of [0, 1])", at_one, 0.0, at_one < 1e-12)
    corrected = _numeric(
        "max |f_eps(x, A) - x A| for eps >= |x - 1| and eps = inf",
        max(wide, limit),
        0.0,
        wide < 1e-12 and limit < 1e-12,
    )
    return Erratum(
        "§2, GRPO-Clip and §2.3",
        "ϵ ∈ [0, 1] in f_ϵ, then 'without the clipping (ϵ → +∞)'",
        "the unclipped objective is the limit ϵ → ∞, outside the stated range: at ϵ = 1 the upper clip still "
        "binds (f_1(3, A) = 2A for A > 0), while f_ϵ(x, A) = xA once ϵ ≥ |x − 1|. The range is ϵ ≥ 0",
        "statement",
        corrected,
        printed,
        "effective_loss",
    )


def errata() -> list[Erratum]:
    """Every erratum we found, in the order of the paper."""
    return [
        _convergence_claim(),
        _clip_range(),
        _section21_conditional(),
        _eq3(),
        _trl_no_clip(),
        _remark1(),
        _p_star_one(),
        _fig3_caption(),
        _fig4_lower_bound(),
        _theorem5_limsup(),
        _theorem5_factor2(),
        _eq9(),
        _lemma2_strict(),
        _lemma2_f_minus(),
        _f_at_zero(),
        _beta_of_p(),
        _ref_lemma3_1(),
        _ref_lemma3_2(),
        _ref_lemma4(),
        _lemma3_sigma(),
        _lemma3_cosh_sigma(),
        _lemma4_cosh(),
    ]


# Typesetting of the plain-text formulas of the errata and of the checks' names: ``p_ref``, ``V^{3/2}``,
# ``e^{−z}``, ``lim_{n→∞}`` become inline math, the Greek names (beta, eps, pi, ...) their letters.
_GREEK_WORDS = {"beta": "β", "eps": "ε", "pi": "π", "sigma": "σ", "delta": "δ", "xi": "ξ"}
_WORDS = re.compile(r"(?<![A-Za-z])(" + "|".join(_GREEK_WORDS) + r")(?![A-Za-z])")
_SYMBOLS = (("<=", "≤"), (">=", "≥"), ("->", "→"), ("||", "‖"), ("sqrt", "√"), ("p~", "p̃"), ("^2", "²"))
_TIMES = re.compile(r"(?<=\d)x(?=\d)|(?<=[\d\])]) x (?=\S)| x (?=\d)")
_TEX_NAMES = {
    "p̃": r"\tilde p",
    "π̃": r"\tilde\pi",
    "TV": r"\mathrm{TV}",
    "lim": r"\lim",
    "limsup": r"\limsup",
    "sum": r"\sum",
    "Σδ": r"\Sigma\delta",
}
# a base (a word, a Greek letter, a number or a closing bracket) with sub- and superscripts: X_{...}, X^{...}, X_y
_SCRIPT = re.compile(
    r"(?P<base>(?<![A-Za-z_.])(?:[A-Za-zΣ\u0370-\u03ff]\u0303?)+|\d+(?:\.\d+)?|\)|\])"
    r"(?P<script>(?:[_^]\{[^{}]*\}|_[A-Za-z0-9\u0370-\u03ff]+\*?|\^[A-Za-z0-9])+)"
)


def _tex_script(script: str) -> str:
    """A sub- or superscript in TeX: p_ref's subscript upright, arrows, infinity and ≤ as commands, braces added."""
    script = re.sub(r"^_ref\b", r"_{\\mathrm{ref}}", script)
    script = script.replace("→", r"\to ").replace("∞", r"\infty").replace("≤", r"\le ")
    return re.sub(r"([_^])([^{\\][^_^{}]*)", lambda m: m.group(1) + "{" + m.group(2) + "}", script)


def typeset(text: str) -> str:
    """``text``, plain words with formulas typed as ``p_ref``, ``V^{3/2}``, ``e^{−z}`` or ``lim_{n→∞}``, as MyST
    Markdown: each sub- or superscripted symbol becomes inline math, Greek names become their letters, ``<=`` and
    ``sqrt`` become ≤ and √, and the rest is escaped so that it shows as typed."""
    for plain, symbol in _SYMBOLS:
        text = text.replace(plain, symbol)
    text = _WORDS.sub(lambda m: _GREEK_WORDS[m.group(1)], text)
    text = _TIMES.sub(lambda m: "×" if m.group(0) == "x" else " × ", text)
    out, last = [], 0
    for m in _SCRIPT.finditer(text):
        base, script = m.group("base"), m.group("script")
        out.append(escape_markdown(text[last : m.start()]))
        if base in (")", "]"):
            out.append(f"{escape_markdown(base)}${_tex_script(script)}$")
        else:
            out.append(f"${_TEX_NAMES.get(base, base)}{_tex_script(script)}$")
        last = m.end()
    out.append(escape_markdown(text[last:]))
    return "".join(out)


def errata_table(entries: list[Erratum] | None = None) -> Markdown:
    """The errata as a Markdown table: location and kind, printed, corrected, and the outcome of both checks.

    Five columns, so that the long printed and corrected statements get the width of the page.
    """
    entries = errata() if entries is None else entries
    rows = []
    for i, e in enumerate(entries, start=1):
        printed = "n/a" if e.printed_check is None else ("fails" if not e.printed_check.holds else "HOLDS")
        corrected = "holds" if e.corrected_check.holds else "FAILS"
        rows.append(
            [
                str(i),
                f"{typeset(e.location)} ({e.kind}{'; unverified: extraction' if e.extraction else ''})",
                typeset(e.printed),
                typeset(e.corrected),
                f"{corrected} / {printed}",
            ]
        )
    return markdown_table(["#", "where (kind)", "printed", "corrected", "corrected check / printed check"], rows)
