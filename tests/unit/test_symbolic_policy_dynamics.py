"""grpo_nb.symbolic.policy_dynamics (§3, App. A): Theorems 1-2, Proposition 1, Remark 1; checks that can fail."""

from __future__ import annotations

import pytest
import sympy as sp

from grpo_nb.symbolic import expressions as ex
from grpo_nb.symbolic import policy_dynamics as pd
from grpo_nb.symbolic.expressions import BETA, EPS, P_REF, P
from grpo_nb.symbolic.identity import Identity


def _all_hold(result: Identity | list[Identity]) -> bool:
    items = result if isinstance(result, list) else [result]
    return bool(items) and all(isinstance(i, Identity) and i.holds for i in items)


# ---- the contract used by the policy_dynamics / amplification chapters ------------------------


def test_theorem2_logistic_form_holds() -> None:
    assert _all_hold(pd.theorem2_logistic_form())


def test_theorem2_rejects_wrong_ratio() -> None:
    # numerator exponent with the wrong sign: not the logistic form
    s = sp.sqrt(P * (1 - P) + EPS)
    up = P_REF * sp.exp(-(1 - P) / (BETA * s))
    wrong = up / (up + (1 - P_REF) * sp.exp(-P / (BETA * s)))
    assert not pd.theorem2_logistic_form(wrong).holds


def test_proposition1_derivative_holds_and_rejects_sign_flip() -> None:
    assert _all_hold(pd.proposition1_derivative())
    h = ex.h_expr()
    flipped = h * (1 - h) * (1 - 2 * P) / (2 * BETA * (P * (1 - P) + EPS) ** sp.Rational(3, 2))
    assert not pd.proposition1_derivative(flipped).holds


def test_remark1_discontinuity() -> None:
    items = pd.remark1_discontinuity()
    assert isinstance(items, list) and len(items) >= 4
    assert _all_hold(items)


# ---- Section 3: Theorems 1 and 2, Proposition 1 -------------------------------------------------


def test_theorem1_steps_hold() -> None:
    assert _all_hold(pd.theorem1_first_order_conditions(2, 1))
    assert _all_hold(pd.theorem1_gibbs_variational_identity(2, 2))
    assert _all_hold(pd.theorem1_concavity(1, 2))
    assert _all_hold(pd.theorem1_partition_split(3, 2))


def test_theorem1_random_perturbations_never_improve() -> None:
    ident = pd.theorem1_random_perturbations(n_cases=10, n_perturbations=50, seed=3)
    assert ident.holds and ident.extra["max_gain"] <= 1e-12


def test_theorem1_derivation_matches_tabular_grpo_step() -> None:
    ident = pd.theorem1_matches_grpo_step(n_cases=10, seed=2)
    assert ident.holds and ident.extra["max_abs_difference"] <= 1e-12


def test_theorem2_and_proposition1_steps_hold() -> None:
    assert _all_hold(pd.theorem2_success_recursion(2, 3))
    assert _all_hold(pd.proposition1_sigmoid_chain())
    assert _all_hold(pd.proposition1_sign())
    assert _all_hold(pd.proposition1_minimum_gap())


@pytest.mark.parametrize(
    ("func", "kwargs"),
    [
        (pd.theorem1_first_order_conditions, {"n_success": 0}),
        (pd.theorem1_partition_split, {"n_fail": -1}),
        (pd.theorem1_concavity, {"n_success": 1.5}),
        (pd.theorem1_random_perturbations, {"n_cases": 0}),
        (pd.theorem1_random_perturbations, {"n_perturbations": True}),
        (pd.theorem2_success_recursion, {"n_success": 0}),
    ],
)
def test_bad_sizes_raise(func: object, kwargs: dict) -> None:
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        func(**kwargs)


def test_numeric_theorem1_checks_can_fail(monkeypatch) -> None:
    assert not pd.theorem1_random_perturbations(n_cases=5, n_perturbations=50, start_mix=0.5).holds

    def shifted(ref, prev, reward, beta, eps):  # the closed form at eps twice too large
        from grpo_nb.tabular.closed_form import grpo_step

        return grpo_step(ref, prev, reward, beta, 2 * eps)

    monkeypatch.setattr(pd, "grpo_step", shifted)
    assert not pd.theorem1_matches_grpo_step(n_cases=5).holds


def test_minimum_gap_is_an_inequality_that_rejects_a_wrong_sign() -> None:
    out = pd.proposition1_minimum_gap()
    assert out[-1].relation == ">=" and all(i.holds for i in out)
    v, vh = P * (1 - P) + EPS, sp.Rational(1, 4) + EPS
    flipped = -((P - sp.Rational(1, 2)) ** 2) / (BETA * sp.sqrt(v) * sp.sqrt(vh) * (sp.sqrt(v) + sp.sqrt(vh)))
    assert not pd.proposition1_minimum_gap(claimed={"rationalised": flipped})[-1].holds


def test_theorem2_rejects_eq9_with_eps_outside_the_root() -> None:
    printed3 = 1 / (1 + (1 - P_REF) / P_REF * sp.exp(-1 / (BETA * (sp.sqrt(P * (1 - P)) + EPS))))
    assert not pd.theorem2_logistic_form(claimed={"h": printed3}).holds
