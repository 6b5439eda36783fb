"""Unit tests of grpo_nb.symbolic.proofs (Appendix A-C of Mroueh 2025, step by step)."""

from __future__ import annotations

import sympy as sp

from grpo_nb.symbolic import proofs
from grpo_nb.symbolic.identity import Identity
from grpo_nb.symbolic.proofs import BETA, EPS, P_REF, P_STAR, P


def _all_hold(result: Identity | list[Identity]) -> bool:
    items = result if isinstance(result, list) else [result]
    return bool(items) and all(isinstance(i, Identity) and i.holds for i in items)


# ---- the contract used by the policy_dynamics / amplification chapters ------------------------


def test_theorem2_logistic_form_holds() -> None:
    assert _all_hold(proofs.theorem2_logistic_form())


def test_theorem2_rejects_wrong_ratio() -> None:
    # numerator exponent with the wrong sign: not the logistic form
    s = sp.sqrt(P * (1 - P) + EPS)
    up = P_REF * sp.exp(-(1 - P) / (BETA * s))
    wrong = up / (up + (1 - P_REF) * sp.exp(-P / (BETA * s)))
    assert not proofs.theorem2_logistic_form(wrong).holds


def test_proposition1_derivative_holds_and_rejects_sign_flip() -> None:
    assert _all_hold(proofs.proposition1_derivative())
    h = proofs.h_expr()
    flipped = h * (1 - h) * (1 - 2 * P) / (2 * BETA * (P * (1 - P) + EPS) ** sp.Rational(3, 2))
    assert not proofs.proposition1_derivative(flipped).holds


def test_lemma1_slope_holds_and_rejects_missing_factor() -> None:
    ident = proofs.lemma1_slope_at_fixed_point()
    assert ident.holds and ident.extra["fixed_point"].holds
    wrong = (2 * P_STAR - 1) / (2 * BETA * (P_STAR * (1 - P_STAR) + EPS) ** sp.Rational(3, 2))
    assert not proofs.lemma1_slope_at_fixed_point(wrong).holds


def test_remark1_discontinuity() -> None:
    items = proofs.remark1_discontinuity()
    assert isinstance(items, list) and len(items) >= 4
    assert _all_hold(items)
