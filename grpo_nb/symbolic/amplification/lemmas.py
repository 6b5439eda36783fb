"""Lemmas 1-4 of §4 of Mroueh (2025) (App. B), step by step: Lemma 2, f(p_ref) > 0; Lemma 3, the product
sigma(z)(1 - sigma(z)) as a cosh and its bound for a sum; Lemma 4, cosh^2(a(p_ref)/2) = 1/(4 p_ref (1 - p_ref));
Lemma 1, h'(p*) at a fixed point, with the p_ref of a given fixed point solved by sympy.

Each check derives its side from h (:mod:`grpo_nb.symbolic.expressions`) or from the definitions of sigma and cosh
and compares it with the formula the paper prints; ``claimed={key: expr}`` replaces a printed formula.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from grpo_nb.symbolic import expressions as ex
from grpo_nb.symbolic.amplification.steps import A_POS, Claimed, X, Z, _exp_check, _grid_identity, _is_positive
from grpo_nb.symbolic.expressions import BETA, EPS, OPEN_UNIT_SUBS, P_REF, P_STAR, P, sigmoid
from grpo_nb.symbolic.identity import Identity, check_equal, claims

__all__ = [
    "fixed_point_reference",
    "lemma1_slope_at_fixed_point",
    "lemma2_f_at_pref",
    "lemma3_part1",
    "lemma3_part1_steps",
    "lemma3_part2",
    "lemma4_cosh_pref",
]


# --------------------------------------------------------------------------------------------
# Lemma 2: f(p_ref) > 0
# --------------------------------------------------------------------------------------------


def lemma2_f_at_pref(claimed: Claimed = None) -> Identity:
    """Lemma 2: f(p_ref) = h(p_ref) - p_ref > 0 for all beta > 0, eps >= 0.

    Checked as: the odds of h(p_ref), derived from h, are the odds of p_ref times e^{c} (claim ``exponent``,
    printed c = 1/(beta sqrt(p_ref(1-p_ref)+eps))), c > 0 by sympy's assumptions, so h(p_ref) > p_ref because the
    odds p/(1-p) are strictly increasing in p.
    """
    c = claims(claimed, {"exponent": 1 / (BETA * sp.sqrt(P_REF * (1 - P_REF) + EPS))}, main="exponent")
    h_at = ex.h_expr(p=P_REF)
    odds_ratio = (h_at / (1 - h_at)) / (P_REF / (1 - P_REF))
    ident = check_equal(
        "Lemma 2: odds h(p_ref) / odds p_ref = e^c", odds_ratio, sp.exp(c["exponent"]), claim="exponent"
    )
    return Identity(
        name="Lemma 2: f(p_ref) = h(p_ref) - p_ref > 0",
        lhs=h_at - P_REF,
        rhs=sp.Integer(0),
        holds=ident.holds and _is_positive(c["exponent"]),
        relation=">",
        residual=ident.residual,
        notes="exp(-c) < 1 strictly because c = 1/(beta sqrt(p_ref(1-p_ref)+eps)) > 0.",
        extra={"odds_identity": ident, "claim": "exponent", "claimed": c["exponent"]},
    )


# --------------------------------------------------------------------------------------------
# Lemma 3 and Lemma 4 (cosh identities)
# --------------------------------------------------------------------------------------------


def lemma3_part1(claimed: Claimed = None) -> Identity:
    """Lemma 3 (1): sigma(z)(1 - sigma(z)) = 1/(4 cosh^2(z/2)) (claim ``cosh_form``, an expression in :data:`Z`)."""
    c = claims(claimed, {"cosh_form": 1 / (4 * sp.cosh(Z / 2) ** 2)}, main="cosh_form")
    ident = _exp_check("", sigmoid(Z) * (1 - sigmoid(Z)), c["cosh_form"], claim="cosh_form")
    return Identity(**{**ident.__dict__, "name": "Lemma 3 (1): sigma(z)(1 - sigma(z)) = 1/(4 cosh^2(z/2))"})


def lemma3_part1_steps(claimed: Claimed = None) -> list[Identity]:
    """The proof of Lemma 3 (1) as printed, corrected: cosh^2 x expansions (claims ``expanded``, ``factored_exp``,
    ``square``), sigma(1-sigma) = e^{-z}/(1+e^{-z})^2 (claim ``sigma_product``), and
    cosh^2(x) = 1/(4 sigma(2x)(1 - sigma(2x))) (claim ``cosh_sigma``)."""
    c = claims(
        claimed,
        {
            "expanded": (sp.exp(2 * X) + sp.exp(-2 * X) + 2) / 4,
            "factored_exp": sp.exp(2 * X) * (1 + sp.exp(-4 * X) + 2 * sp.exp(-2 * X)) / 4,
            "square": (1 + sp.exp(-2 * X)) ** 2 * sp.exp(2 * X) / 4,
            "sigma_product": sp.exp(-Z) / (1 + sp.exp(-Z)) ** 2,
            "cosh_sigma": 1 / (4 * sigmoid(2 * X) * (1 - sigmoid(2 * X))),
        },
    )
    c2 = sp.cosh(X) ** 2
    return [
        _exp_check("cosh^2 x = (e^{2x} + e^{-2x} + 2)/4", c2, c["expanded"], "expanded"),
        _exp_check("= e^{2x}(1 + e^{-4x} + 2e^{-2x})/4", c2, c["factored_exp"], "factored_exp"),
        _exp_check("= (1 + e^{-2x})^2 e^{2x}/4", c2, c["square"], "square"),
        _exp_check(
            "sigma(z)(1 - sigma(z)) = e^{-z}/(1 + e^{-z})^2",
            sigmoid(Z) * (1 - sigmoid(Z)),
            c["sigma_product"],
            "sigma_product",
        ),
        _exp_check("cosh^2(x) = 1/(4 sigma(2x)(1 - sigma(2x)))", c2, c["cosh_sigma"], "cosh_sigma"),
    ]


def lemma3_part2(
    seed: int = 0, n_samples: int = 20000, claimed: Claimed = None, *, bound_scale: float = 1.0
) -> list[Identity]:
    """Lemma 3 (2): for z, a > 0, sigma(z+a)(1-sigma(z+a)) <= 1/(4 cosh^2(z/2) cosh^2(a/2)).

    Steps: the addition formula cosh((z+a)/2) = cosh(z/2)cosh(a/2) + sinh(z/2)sinh(a/2) (claim ``addition``), the
    sinh product is positive for z, a > 0 (sympy assumptions), and a random check of the inequality on
    (z, a) log-uniform in [1e-3, 50]^2 (margin = rhs - lhs, relative). ``bound_scale`` multiplies the right side
    (a value below 1 claims a bound that is too strong, for tests that the grid check can fail).
    """
    zp = sp.Symbol("z", positive=True)
    cross = sp.sinh(zp / 2) * sp.sinh(A_POS / 2)
    c = claims(claimed, {"addition": sp.cosh(zp / 2) * sp.cosh(A_POS / 2) + cross}, main="addition")
    rng = np.random.default_rng(seed)
    z, a = 10 ** rng.uniform(-3, np.log10(50), size=(2, n_samples))
    lhs = 1.0 / (4.0 * np.cosh((z + a) / 2) ** 2)
    rhs = bound_scale / (4.0 * np.cosh(z / 2) ** 2 * np.cosh(a / 2) ** 2)
    margin = float(np.min((rhs - lhs) / rhs))
    return [
        _exp_check(
            "cosh((z+a)/2) = cosh(z/2)cosh(a/2) + sinh(z/2)sinh(a/2)",
            sp.cosh((zp + A_POS) / 2),
            c["addition"],
            "addition",
        ),
        Identity(
            name="sinh(z/2) sinh(a/2) > 0 for z, a > 0",
            lhs=cross,
            rhs=sp.Integer(0),
            holds=bool(cross.is_positive),
            relation=">",
        ),
        _grid_identity(
            "Lemma 3 (2) on random z, a > 0: 1/(4cosh^2(z/2)cosh^2(a/2)) - sigma(z+a)(1-sigma(z+a)) >= 0",
            margin,
            f"{n_samples} log-uniform samples in [1e-3, 50]^2, seed {seed}; margin relative to the right side.",
        ),
    ]


def lemma4_cosh_pref(claimed: Claimed = None) -> list[Identity]:
    """Lemma 4: with a = log(p_ref/(1-p_ref)), cosh(a/2) = (sqrt(p/(1-p)) + sqrt((1-p)/p))/2 (claim ``cosh_half``),
    (p/(1-p) + (1-p)/p + 2)/4 = 1/(4p(1-p)) (claim ``expanded``) and cosh^2(a/2) = 1/(4 p_ref (1 - p_ref)) (claim
    ``cosh_squared``), each derived from the definition of cosh by sympy."""
    c = claims(
        claimed,
        {
            "cosh_half": (sp.sqrt(P_REF / (1 - P_REF)) + sp.sqrt((1 - P_REF) / P_REF)) / 2,
            "expanded": 1 / (4 * P_REF * (1 - P_REF)),
            "cosh_squared": 1 / (4 * P_REF * (1 - P_REF)),
        },
        main="cosh_half",
    )
    x = sp.log(P_REF / (1 - P_REF)) / 2
    step = sp.simplify((sp.cosh(x).rewrite(sp.exp) - c["cosh_half"]).subs(OPEN_UNIT_SUBS))
    square = sp.simplify(
        (sp.cosh(x) ** 2).rewrite(sp.exp).subs(OPEN_UNIT_SUBS) - c["cosh_squared"].subs(OPEN_UNIT_SUBS)
    )
    expanded = (P_REF / (1 - P_REF) + (1 - P_REF) / P_REF + 2) / 4
    return [
        Identity(
            name="Lemma 4 proof: cosh(a/2) = (sqrt(p_ref/(1-p_ref)) + sqrt((1-p_ref)/p_ref))/2",
            lhs=sp.cosh(x),
            rhs=c["cosh_half"],
            holds=bool(step == 0),
            residual=step,
            extra={"claim": "cosh_half", "claimed": c["cosh_half"]},
        ),
        check_equal("cosh^2(a/2) = (p/(1-p) + (1-p)/p + 2)/4 = 1/(4p(1-p))", expanded, c["expanded"], claim="expanded"),
        Identity(
            name="Lemma 4: cosh^2(a(p_ref)/2) = 1/(4 p_ref (1 - p_ref))",
            lhs=sp.cosh(x) ** 2,
            rhs=c["cosh_squared"],
            holds=bool(square == 0),
            residual=square,
            extra={"claim": "cosh_squared", "claimed": c["cosh_squared"]},
        ),
    ]


# --------------------------------------------------------------------------------------------
# Lemma 1 (slope at a fixed point) and the fixed-point relation
# --------------------------------------------------------------------------------------------


def fixed_point_reference(p_star: sp.Expr = P_STAR) -> sp.Expr:
    """The p_ref for which p_star is a fixed point of h, solved by sympy from h(p_star) = p_star."""
    solutions = sp.solve(sp.Eq(ex.h_expr(p=p_star), p_star), P_REF)
    if len(solutions) != 1:
        raise ValueError(f"h(p*) = p* has {len(solutions)} solutions for p_ref; expected exactly 1")
    return solutions[0]


def lemma1_slope_at_fixed_point(claimed: Claimed = None) -> Identity:
    """Lemma 1: at a fixed point p* = h(p*), h'(p*) = p*(1-p*)(2p*-1)/(2 beta (p*(1-p*)+eps)^{3/2}) (claim ``slope``,
    an expression in :data:`P_STAR`).

    Every p* in (0, 1) is a fixed point for exactly one p_ref, which sympy solves from h(p*) = p*
    (:func:`fixed_point_reference`); with that p_ref, sympy checks h(p*) = p* and compares d h/dp at p* with the
    printed formula.
    """
    c = claims(
        claimed,
        {
            "slope": P_STAR
            * (1 - P_STAR)
            * (2 * P_STAR - 1)
            / (2 * BETA * (P_STAR * (1 - P_STAR) + EPS) ** sp.Rational(3, 2))
        },
        main="slope",
    )
    p_ref_star = fixed_point_reference()
    h_star = ex.h_expr(p_ref=p_ref_star)
    fixed = check_equal("h(p*) = p* for the solved p_ref", h_star.subs(P, P_STAR), P_STAR)
    slope = sp.factor(sp.simplify(sp.diff(h_star, P).subs(P, P_STAR)))
    ident = check_equal("Lemma 1: h'(p*) at a fixed point", slope, c["slope"], claim="slope")
    return Identity(
        **{
            **ident.__dict__,
            "holds": ident.holds and fixed.holds,
            "notes": "h(1-h) becomes p*(1-p*) because h(p*) = p*.",
            "extra": {**ident.extra, "fixed_point": fixed},
        },
    )
