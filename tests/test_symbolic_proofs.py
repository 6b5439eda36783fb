"""Unit tests of grpo_nb.symbolic.proofs (Appendix A-C of Mroueh 2025, step by step)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_nb.symbolic import proofs, proofs_policy
from grpo_nb.symbolic import proofs_amplification as amp
from grpo_nb.symbolic import proofs_convergence as conv
from grpo_nb.symbolic import proofs_parametric as par
from grpo_nb.symbolic.identity import Identity
from grpo_nb.symbolic.proofs import BETA, EPS, P_REF, P_STAR, P
from grpo_nb.tabular.policy import total_variation


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


# ---- Section 3: Theorems 1 and 2, Proposition 1 -------------------------------------------------


def test_theorem1_steps_hold() -> None:
    assert _all_hold(proofs_policy.theorem1_first_order_conditions(2, 1))
    assert _all_hold(proofs_policy.theorem1_gibbs_variational_identity(2, 2))
    assert _all_hold(proofs_policy.theorem1_concavity(1, 2))
    assert _all_hold(proofs_policy.theorem1_partition_split(3, 2))


def test_theorem1_random_perturbations_never_improve() -> None:
    ident = proofs_policy.theorem1_random_perturbations(n_cases=10, n_perturbations=50, seed=3)
    assert ident.holds and ident.extra["max_gain"] <= 1e-12


def test_theorem1_derivation_matches_tabular_grpo_step() -> None:
    ident = proofs_policy.theorem1_matches_grpo_step(n_cases=10, seed=2)
    assert ident.holds and ident.extra["max_abs_difference"] <= 1e-12


def test_theorem2_and_proposition1_steps_hold() -> None:
    assert _all_hold(proofs.theorem2_success_recursion(2, 3))
    assert _all_hold(proofs.proposition1_sigmoid_chain())
    assert _all_hold(proofs.proposition1_sign())
    assert _all_hold(proofs.proposition1_minimum_gap())


@pytest.mark.parametrize(
    ("func", "kwargs"),
    [
        (proofs_policy.theorem1_first_order_conditions, {"n_success": 0}),
        (proofs_policy.theorem1_partition_split, {"n_fail": -1}),
        (proofs_policy.theorem1_concavity, {"n_success": 1.5}),
        (proofs_policy.theorem1_random_perturbations, {"n_cases": 0}),
        (proofs_policy.theorem1_random_perturbations, {"n_perturbations": True}),
        (proofs.theorem2_success_recursion, {"n_success": 0}),
    ],
)
def test_bad_sizes_raise(func: object, kwargs: dict) -> None:
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        func(**kwargs)


# ---- Appendix B: Lemmas 2-4, Theorem 3 ----------------------------------------------------------


def test_lemmas_hold() -> None:
    assert _all_hold(amp.lemma2_f_at_pref())
    assert _all_hold(amp.lemma3_part1())
    assert _all_hold(amp.lemma3_part1_steps())
    assert _all_hold(amp.lemma3_part2(n_samples=2000))
    assert _all_hold(amp.lemma4_cosh_pref())


def test_lemma_checks_reject_wrong_formulas() -> None:
    z = amp.Z
    assert not amp.lemma3_part1(1 / (4 * sp.cosh(z) ** 2)).holds
    wrong_cosh = ((1 - P_REF) ** 2 / P_REF**2 + P_REF**2 / (1 - P_REF) ** 2 + 2) / 4
    assert not amp.lemma4_cosh_pref(claimed=wrong_cosh)[0].holds
    v = P * (1 - P) + EPS
    b = 1 / sp.sqrt(v)
    assert not amp.theorem3_xi_derivative((2 * P - 1) * sp.sinh(b / BETA) / (2 * BETA * v ** sp.Rational(3, 2))).holds


def test_theorem3_both_cases_and_the_short_proof() -> None:
    assert _all_hold(amp.theorem3_case_low_pref(n_grid=15))
    high = amp.theorem3_case_high_pref(n_grid=15)
    assert _all_hold(high)
    assert high[-1].extra["n_condition"] > 0
    assert _all_hold(amp.theorem3_xi_derivative())
    assert _all_hold(amp.theorem3_fixed_point_logit_gap())
    grid = amp.theorem3_amplification_without_condition(n_grid=30)
    assert grid.holds and grid.extra["n_condition_fails"] > 0


@settings(deadline=None, max_examples=50)
@given(z=st.floats(1e-3, 40.0), a=st.floats(1e-3, 40.0))
def test_lemma3_part2_inequality(z: float, a: float) -> None:
    lhs = 1.0 / (4.0 * np.cosh((z + a) / 2) ** 2)
    rhs = 1.0 / (4.0 * np.cosh(z / 2) ** 2 * np.cosh(a / 2) ** 2)
    assert lhs <= rhs * (1 + 1e-12)


# ---- Theorems 4 and 6 ---------------------------------------------------------------------------


@pytest.mark.parametrize("args", [(0.3, 10.0, 1e-5), (0.1, 2.0, 1e-5), (0.8, 5.0, 1e-5), (0.2, 1.0, 1e-2)])
def test_local_contraction_and_convergence(args: tuple) -> None:
    checks = conv.theorem6_local_contraction(*args)
    assert checks and _all_hold(checks)
    for c in conv.local_contraction(*args):
        assert c.k < 1 and c.lo < c.p_star < c.hi and c.sup_slope <= c.k
    assert conv.theorem4_local_convergence(*args).holds


def test_theorem4_is_local_a_two_cycle_reaches_no_interval() -> None:
    # the paper's "divergent" case: the orbit settles on a 2-cycle, not on a fixed point
    assert not conv.theorem4_local_convergence(0.001, 5.0, 1e-5).holds


@settings(deadline=None, max_examples=25)
@given(p_ref=st.floats(0.02, 0.98), beta=st.floats(1.0, 20.0), eps=st.sampled_from([1e-5, 1e-3, 1e-2]))
def test_theorem6_holds_wherever_a_stable_fixed_point_is_examined(p_ref: float, beta: float, eps: float) -> None:
    assert all(i.holds for i in conv.theorem6_local_contraction(p_ref, beta, eps))


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"p_ref": 1.0, "beta": 1.0, "eps": 0.1}, "p_ref"),
        ({"p_ref": 0.5, "beta": 0.0, "eps": 0.1}, "beta"),
        ({"p_ref": 0.5, "beta": 1.0, "eps": np.nan}, "eps"),
        ({"p_ref": 0.5, "beta": 1.0, "eps": 0.1, "n_steps": 0}, "n_steps"),
    ],
)
def test_local_contraction_bad_input(kwargs: dict, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        conv.local_contraction(**kwargs)


def test_theorem4_bad_input() -> None:
    with pytest.raises(ValueError, match="n"):
        conv.theorem4_local_convergence(0.3, 1.0, 0.1, n=-3)
    with pytest.raises(ValueError, match="p_ref"):
        conv.theorem4_local_convergence(-0.3, 1.0, 0.1)


# ---- Theorem 5 ----------------------------------------------------------------------------------


def test_theorem5_checks_hold() -> None:
    assert _all_hold(par.theorem5_success_gap_vs_tv(n_pairs=300))
    assert _all_hold(par.theorem5_telescoped_bound(n_steps=20, seed=1))
    assert _all_hold(par.theorem5_limit_need_not_exist())


@settings(deadline=None, max_examples=50)
@given(seed=st.integers(0, 10_000), m=st.integers(2, 9))
def test_success_gap_at_most_tv(seed: int, m: int) -> None:
    rng = np.random.default_rng(seed)
    a, b = rng.dirichlet(np.ones(m), size=2)
    reward = rng.integers(0, 2, size=m)
    assert abs(np.dot(a - b, reward)) <= total_variation(a, b) + 1e-12


def test_theorem5_bad_input() -> None:
    with pytest.raises(ValueError, match="a.shape"):
        total_variation(np.ones(3) / 3, np.ones(4) / 4)
    with pytest.raises(ValueError, match="a="):
        total_variation(np.array([np.nan, 1.0]), np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="b="):
        total_variation(np.array([0.5, 0.5]), np.array([-0.5, 1.5]))
    with pytest.raises(ValueError, match="n_outcomes"):
        par.theorem5_success_gap_vs_tv(n_outcomes=1)
    with pytest.raises(ValueError, match="n_pairs"):
        par.theorem5_success_gap_vs_tv(n_pairs=0)
    with pytest.raises(ValueError, match="beta"):
        par.theorem5_telescoped_bound(beta=-2.0)
    with pytest.raises(ValueError, match="p_ref"):
        par.theorem5_limit_need_not_exist(p_ref=1.5)
    with pytest.raises(ValueError, match="c="):
        par.theorem5_limit_need_not_exist(c=0.6)


def test_checks_table_keeps_one_row_per_check_with_pipes_escaped() -> None:
    items = par.theorem5_success_gap_vs_tv(n_pairs=50)
    table = proofs.checks_table(items).data
    lines = table.splitlines()
    assert len(lines) == len(items) + 2
    assert all(line.count(" | ") == 3 for line in lines[2:])  # |p~ - p| in names is escaped
