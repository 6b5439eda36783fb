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

from grpo_nb.clipping import clipped_term
from grpo_nb.dynamics.chaos_region import twin_orbit_growth
from grpo_nb.dynamics.cycle_geometry import no_cycle_threshold
from grpo_nb.dynamics.fixed_points import fixed_points
from grpo_nb.dynamics.map import iterate_logit, logit_h
from grpo_nb.dynamics.orbits import orbit_kind
from grpo_nb.dynamics.paper_bounds import theorem3_condition
from grpo_nb.report import escape_markdown, markdown_table
from grpo_nb.symbolic import amplification, parametric
from grpo_nb.symbolic.expressions import BETA, EPS, P_REF, P, h_expr, omega_minus, omega_plus, sigmoid, variance_term
from grpo_nb.symbolic.identity import Identity, check_equal
from grpo_nb.symbolic.policy_dynamics import remark1_discontinuity, theorem2_logistic_form

__all__ = [
    "Erratum",
    "errata",
    "errata_table",
    "fig3_readings",
    "orbit_converges",
    "printed_eq9_ratio",
    "printed_lemma3_sigma_product",
    "typeset",
    "unclipped_deviation",
]


@dataclass(frozen=True)
class Erratum:
    """One slip: where, what is printed, the correction, and the checks (printed_check is None when untestable)."""

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


def _eq3() -> Erratum:
    r = sp.Symbol("r")
    advantage = (r - P) / sp.sqrt(P * (1 - P) + EPS)  # (r - mu)/sqrt(sigma^2 + eps), mu = p, sigma^2 = p(1-p)
    corrected = _all(
        "(r - p)/sqrt(p(1-p)+eps) at r = 1, 0 equals Eq. (4)'s weights",
        [
            check_equal("A(r=1) = (1-p)/sqrt(p(1-p)+eps)", advantage.subs(r, 1), omega_plus()),
            check_equal("A(r=0) = -p/sqrt(p(1-p)+eps)", advantage.subs(r, 0), -omega_minus()),
        ],
    )
    printed = check_equal(
        "A(r=1) = (1-p)/(sqrt(p(1-p)) + eps)", advantage.subs(r, 1), (1 - P) / (sp.sqrt(P * (1 - P)) + EPS)
    )
    return Erratum(
        "Eq. (3), §2.2",
        "A = (1−p)/(√(p(1−p)) + ε) and −p/(√(p(1−p)) + ε): ε outside the root",
        "A = (1−p)/√(p(1−p)+ε) and −p/√(p(1−p)+ε), as the line above and Eq. (4) have it",
        "formula",
        corrected,
        printed,
        "stabilised_grpo",
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
    )


def _lemma2_f_minus() -> Erratum:
    f_at = h_expr(p=P_REF) - P_REF  # f(p_ref) with f(p) = h(p) - p
    printed = check_equal("f(p_ref) - p_ref = h(p_ref) - p_ref", f_at - P_REF, h_expr(p=P_REF) - P_REF)
    return Erratum(
        "Proof of Lemma 2, first display",
        "f(p_ref) − p_ref = 1/(1 + …) − p_ref",
        "f(p_ref) = h(p_ref) − p_ref = 1/(1 + …) − p_ref (f already subtracts p)",
        "formula",
        amplification.lemma2_f_at_pref(),
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


def _f_at_zero() -> Erratum:
    low = amplification.theorem3_case_low_pref()
    printed = check_equal("f(0) = 1", h_expr(p=sp.Integer(0)) - 0, sp.Integer(1))
    return Erratum(
        "Proof of Theorem 3, case p_ref ≤ 1/2",
        "f(0) = 1 > 0",
        "f(0) = h(0) = 1/(1 + (1−p_ref)/p_ref · e^{−1/(β√ε)}), which lies in (0, 1); so f(0) > 0",
        "formula",
        low[1],
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


def _theorem3_condition() -> Erratum:
    gap = amplification.theorem3_fixed_point_logit_gap()
    grid = amplification.theorem3_amplification_without_condition()
    return Erratum(
        "Theorem 3, condition (2)",
        "for p_ref > 1/2, p* > p_ref if β cosh²(1/(2β√(1/4+ε))) ≥ p_ref(1−p_ref)(2p_ref−1)/(2(p_ref(1−p_ref)+ε)^{3/2})",
        "p* > p_ref for every 0 < p_ref < 1, β > 0, ε ≥ 0: logit p* − logit p_ref = 1/(β√(p*(1−p*)+ε)) > 0; "
        "condition (2) is sufficient but not needed",
        "statement",
        _all("logit gap identity and every fixed point on a grid", [gap, grid]),
        None,
        "amplification",
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


def _divergent() -> Erratum:
    kind = orbit_kind(0.001, 5.0, 1e-5)
    lowest = fixed_points(0.001, 5.0, 1e-5)[0]
    check = Identity(
        name="beta = 5, p_ref = 0.001, eps = 1e-5: the orbit is a 2-cycle around an unstable fixed point",
        lhs=sp.Symbol(kind.kind),
        rhs=sp.Integer(kind.period or 0),
        holds=kind.kind == "cycle" and kind.period == 2 and lowest.slope < -1,
        relation="period",
        notes=f"lowest fixed point p* = {lowest.p:.4f} with h'(p*) = {lowest.slope:.3f}",
    )
    return Erratum(
        "§4, comment on Figure 5",
        "for β = 5 and p_ref = 0.001 the iteration shows a divergent behaviour",
        "the orbit stays in (0, 1) and settles on a 2-cycle: the nearby fixed point has slope below −1 (unstable)",
        "statement",
        check,
        None,
        "amplification",
    )


def _numeric(name: str, value: float, target: float, holds: bool, relation: str = "==", notes: str = "") -> Identity:
    """A numeric claim as an :class:`Identity` (value, target and the verdict computed by the caller)."""
    return Identity(name, sp.Float(value), sp.Float(target), bool(holds), relation=relation, notes=notes)


def orbit_converges(p_ref: float, beta: float, eps: float, *, n: int = 4000, tail: int = 200) -> bool:
    """Whether the orbit of Eq. (8) from p_ref has settled: its last ``tail`` logit steps are all below 1e-8."""
    z = iterate_logit(p_ref, beta, eps, n=n)
    return bool(np.max(np.abs(np.diff(z[-tail:]))) < 1e-8 * max(1.0, float(np.abs(z[-1]))))


def _convergence_claim() -> Erratum:
    cycle, chaos = (1e-3, 5.0, 1e-5), (1e-4, 5.2, 1e-5)
    p_c = no_cycle_threshold(5.0, 1e-5)
    printed = _numeric(
        "the orbit from p_ref converges, at the 2-cycle and at the chaotic example",
        sum(orbit_converges(*c) for c in (cycle, chaos)),
        2,
        all(orbit_converges(*c) for c in (cycle, chaos)),
    )
    kind_cycle, kind_chaos = orbit_kind(*cycle), orbit_kind(*chaos)
    twin = float(twin_orbit_growth(*chaos))
    corrected = _all(
        "counterexamples, and convergence above p_c",
        [
            _numeric(
                "beta = 5, p_ref = 1e-3: period of the limit cycle",
                kind_cycle.period or 0,
                2,
                kind_cycle.kind == "cycle" and kind_cycle.period == 2,
            ),
            _numeric(
                "beta = 5.2, p_ref = 1e-4: twin orbits 1e-10 apart separate to",
                twin,
                1e-3,
                kind_chaos.kind == "chaotic" and twin >= 1e-3,
                relation=">=",
            ),
            _numeric(
                "beta = 5, p_ref = p_c(5, 1e-5): the orbit converges",
                p_c,
                0.0,
                orbit_converges(float(p_c), 5.0, 1e-5),
                relation=">",
            ),
        ],
    )
    return Erratum(
        "Abstract; §1, contribution (3); §6, Conclusion",
        "the recursion of the success probability converges to a fixed point (the abstract without condition; "
        "contribution (3) and the conclusion 'under mild assumptions')",
        "Theorem 4 is local: it needs p_ref near a fixed point with |h′(p*)| < 1. From p_0 = p_ref the orbit can "
        "settle on a 2-cycle (β = 5, p_ref = 10⁻³, ε = 10⁻⁵: the paper's own Fig. 5 run) or be chaotic "
        "(β = 5.2, p_ref = 10⁻⁴); it converges for every β only when p_ref ≥ p_c(β, ε) = σ(−1/(β√(1/4+ε)))",
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
    grid = np.meshgrid(np.geomspace(1e-9, 1 - 1e-9, 9), np.geomspace(1e-3, 1e3, 9), [1e-8, 1e-5, 1e-2, 1.0])
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
    holds = theorem3_condition(p_ref, beta, 1e-5)
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


def _theorem5_factor2() -> Erratum:
    t0 = sp.Symbol("TV_0", positive=True)
    deltas = sp.symbols("delta_1:4", positive=True)
    tv_n = t0 + sum(deltas)  # Assumption 1 unrolled, with equality at every step

    def bound(factor: int) -> Identity:
        rhs = 2 * sum(deltas) + factor * t0
        residual = sp.simplify(2 * tv_n - rhs)
        return Identity(
            f"2 TV_3 <= 2 sum delta + {factor} TV_0",
            2 * tv_n,
            rhs,
            bool(residual.is_nonpositive),
            residual=residual,
            relation="<=",
        )

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
        "ε ∈ [0, 1] in f_ε, then 'without the clipping (ε → +∞)'",
        "the unclipped objective is the limit ε → ∞, outside the stated range: at ε = 1 the upper clip still "
        "binds (f_1(3, A) = 2A for A > 0), while f_ε(x, A) = xA once ε ≥ |x − 1|. The range is ε ≥ 0",
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
        _eq3(),
        _remark1(),
        _p_star_one(),
        _theorem3_condition(),
        _fig3_caption(),
        _divergent(),
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
