"""grpo_nb.symbolic.amplification (§4, App. B): Lemmas 1-4 and Theorem 3, and checks that can fail."""

from __future__ import annotations

import numpy as np
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_nb.symbolic import amplification as am
from grpo_nb.symbolic.expressions import BETA, EPS, P_REF, P_STAR, P
from grpo_nb.symbolic.identity import Identity


def _all_hold(result: Identity | list[Identity]) -> bool:
    items = result if isinstance(result, list) else [result]
    return bool(items) and all(isinstance(i, Identity) and i.holds for i in items)


# ---- Appendix B: Lemmas 2-4, Theorem 3 ----------------------------------------------------------


def test_lemmas_hold() -> None:
    assert _all_hold(am.lemma2_f_at_pref())
    assert _all_hold(am.lemma3_part1())
    assert _all_hold(am.lemma3_part1_steps())
    assert _all_hold(am.lemma3_part2(n_samples=2000))
    assert _all_hold(am.lemma4_cosh_pref())


def test_lemma_checks_reject_wrong_formulas() -> None:
    z = am.Z
    assert not am.lemma3_part1(1 / (4 * sp.cosh(z) ** 2)).holds
    wrong_cosh = ((1 - P_REF) ** 2 / P_REF**2 + P_REF**2 / (1 - P_REF) ** 2 + 2) / 4
    assert not am.lemma4_cosh_pref(claimed=wrong_cosh)[0].holds
    v = P * (1 - P) + EPS
    b = 1 / sp.sqrt(v)
    assert not am.theorem3_xi_derivative((2 * P - 1) * sp.sinh(b / BETA) / (2 * BETA * v ** sp.Rational(3, 2))).holds


def test_theorem3_both_cases_and_the_short_proof() -> None:
    assert _all_hold(am.theorem3_case_low_pref(n_grid=15))
    high = am.theorem3_case_high_pref(n_grid=15)
    assert _all_hold(high)
    assert high[-1].extra["n_condition"] > 0
    assert _all_hold(am.theorem3_xi_derivative())
    assert _all_hold(am.theorem3_fixed_point_logit_gap())
    grid = am.theorem3_amplification_without_condition(n_grid=30)
    assert grid.holds and grid.extra["n_condition_fails"] > 0


@settings(deadline=None, max_examples=50)
@given(z=st.floats(1e-3, 40.0), a=st.floats(1e-3, 40.0))
def test_lemma3_part2_inequality(z: float, a: float) -> None:
    lhs = 1.0 / (4.0 * np.cosh((z + a) / 2) ** 2)
    rhs = 1.0 / (4.0 * np.cosh(z / 2) ** 2 * np.cosh(a / 2) ** 2)
    assert lhs <= rhs * (1 + 1e-12)


def test_lemma1_slope_holds_and_rejects_missing_factor() -> None:
    ident = am.lemma1_slope_at_fixed_point()
    assert ident.holds and ident.extra["fixed_point"].holds
    wrong = (2 * P_STAR - 1) / (2 * BETA * (P_STAR * (1 - P_STAR) + EPS) ** sp.Rational(3, 2))
    assert not am.lemma1_slope_at_fixed_point(wrong).holds


def test_theorem3_short_proof_rejects_the_gap_without_its_square_root() -> None:
    assert am.theorem3_fixed_point_logit_gap().holds
    assert not am.theorem3_fixed_point_logit_gap(1 / (BETA * (P_STAR * (1 - P_STAR) + EPS))).holds


def test_fixed_point_reference_is_solved_not_typed() -> None:
    p_ref = am.fixed_point_reference()
    h_at = 1 / (1 + (1 - p_ref) / p_ref * sp.exp(-1 / (BETA * sp.sqrt(P_STAR * (1 - P_STAR) + EPS))))
    assert sp.simplify(h_at - P_STAR) == 0


def test_bound_step_rejects_the_misplaced_factor_4() -> None:
    b = 1 / sp.sqrt(P * (1 - P) + EPS)
    wrong = {"bound_step": 4 * P_REF * (1 - P_REF) / sp.cosh(b / (2 * BETA)) ** 2}
    assert not am.theorem3_case_high_pref(n_grid=5, claimed=wrong)[5].holds
    wrong_half = {"xi_half": sp.cosh(1 / (BETA * sp.sqrt(sp.Rational(1, 4) + EPS))) ** 2}
    assert not am.theorem3_case_high_pref(n_grid=5, claimed=wrong_half)[7].holds


def test_grid_checks_fail_on_a_bound_that_is_too_strong() -> None:
    assert not am.lemma3_part2(n_samples=500, bound_scale=0.5)[-1].holds
    high = am.theorem3_case_high_pref(n_grid=9, bound_scale=0.5)
    assert not high[-2].holds and high[-1].holds
    assert am.theorem3_amplification_without_condition(n_grid=20).holds
    assert not am.theorem3_amplification_without_condition(n_grid=20, bound_scale=1.05).holds


def test_the_low_case_grid_check_is_strict() -> None:
    low = am.theorem3_case_low_pref(n_grid=9)
    assert low[-1].relation == ">" and low[-1].extra["min_margin"] > 0
    assert not am._grid_identity("f > 0", 0.0, "", strict=True).holds
