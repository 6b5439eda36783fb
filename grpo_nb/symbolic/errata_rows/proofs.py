"""The errata of the proofs in the appendix of Mroueh (2025) v1: Eq. (9) in the proof of Theorem 2 (App. A),
and the proofs of Lemma 2, Theorem 3 and Lemmas 3 and 4 (App. B): slips in formulas, a step too weak for its strict
conclusion, and cross-references to the wrong lemma.

The formula rows derive their side from the paper's own starting point (f = h - p with Theorem 2's h, the
definitions of sigma and cosh) and compare both the printed and the corrected formula with it.
"""

from __future__ import annotations

import sympy as sp

from grpo_nb.symbolic import amplification
from grpo_nb.symbolic.amplification.steps import _is_positive
from grpo_nb.symbolic.errata_rows.record import Erratum, _all, _exp_check
from grpo_nb.symbolic.expressions import (
    BETA,
    EPS,
    P_REF,
    h_expr,
    omega_minus,
    omega_plus,
    sigmoid,
    variance_term,
)
from grpo_nb.symbolic.identity import Identity, check_equal
from grpo_nb.symbolic.policy_dynamics import theorem2_logistic_form

__all__ = [
    "LEMMA2_DISPLAY_RHS",
    "f_at_zero_check",
    "lemma2_display_check",
    "printed_eq9_ratio",
    "printed_lemma3_sigma_product",
    "rows",
]


def printed_eq9_ratio() -> sp.Expr:
    """Eq. (9) as printed: the first exponent of the denominator has p_{n-1}(1) (symbol ``p_{n-1}(1)``) in place
    of p_{n-1}(q) in the numerator 1 - p."""
    p1 = sp.Symbol("p_{n-1}(1)", positive=True)
    s = sp.sqrt(variance_term())
    up = P_REF * sp.exp(omega_plus() / BETA)
    down = P_REF * sp.exp((1 - p1) / (BETA * s)) + (1 - P_REF) * sp.exp(-omega_minus() / BETA)
    return up / down


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
        holds=_is_positive(b),
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


def printed_lemma3_sigma_product() -> sp.Expr:
    """Lemma 3's proof as printed: sigma(z)(1 - sigma(z)) = e^{-z}/(1 - e^{-z})^2 (the right side)."""
    return sp.exp(-amplification.Z) / (1 - sp.exp(-amplification.Z)) ** 2


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


def rows() -> list[Erratum]:
    """The rows of the appendix's proofs, in the paper's order: Eq. (9) (Theorem 2), Lemma 2 (its strict step, then
    its first display), Theorem 3 (f(0), b(p), the three cross-references), Lemma 3 (1) twice, Lemma 4."""
    return [
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
