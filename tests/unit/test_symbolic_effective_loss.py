"""grpo_nb.symbolic.effective_loss (§2): each identity is derived from the Bernoulli statistics, the advantage or
the objective, and rejects the paper's misprints and wrong claims (the generic perturbation tests of every printed
formula are in tests/unit/test_symbolic_claims.py)."""

from __future__ import annotations

import sympy as sp

from grpo_nb.symbolic import effective_loss as el
from grpo_nb.symbolic.expressions import EPS, P
from grpo_nb.symbolic.identity import check_sign, check_vector_equal

EQ3_PRINTED = (1 - P) / (sp.sqrt(P * (1 - P)) + EPS)  # eps outside the root, as Eq. (3) prints it


def test_whitened_advantage_rejects_swapped_claims() -> None:
    wrong = el.whitened_advantage(claimed_success=sp.sqrt(P / (1 - P)), claimed_failure=sp.sqrt(P / (1 - P)))
    assert not wrong[0].holds and not wrong[1].holds


def test_stabilised_advantage_rejects_eq3_as_printed() -> None:
    assert all(i.holds for i in el.stabilised_advantage())
    assert not el.stabilised_advantage(claimed={"omega_plus": EQ3_PRINTED})[0].holds


def test_zero_mean_rejects_swapped_weights() -> None:
    swapped = {"omega_plus": P / sp.sqrt(P * (1 - P) + EPS), "omega_minus": (1 - P) / sp.sqrt(P * (1 - P) + EPS)}
    out = el.zero_mean_advantage(claimed=swapped)
    assert out[0].holds and not out[1].holds


def test_weight_ratio_and_crossing_reject_wrong_claims() -> None:
    assert not el.weight_identities(claimed={"ratio": P / (1 - P)})[1].holds
    assert not el.weight_identities(claimed={"crossing": sp.Rational(1, 3)})[2].holds


def test_contrastive_decomposition_rejects_eq3_weights_and_other_sizes_hold() -> None:
    assert el.contrastive_decomposition(n_success=1, n_fail=3).holds
    assert not el.contrastive_decomposition(claimed={"omega_plus": EQ3_PRINTED}).holds


def test_population_collapse_rejects_an_asymmetric_or_misprinted_objective() -> None:
    p_theta, kl, beta = sp.Symbol("p_theta"), sp.Symbol("KL"), sp.Symbol("beta", positive=True)
    assert all(i.holds for i in el.population_collapse(n_success=1, n_fail=2))
    printed_eps = {"objective": (p_theta - P) / (sp.sqrt(P * (1 - P)) + EPS) - beta * kl}
    assert not el.population_collapse(claimed=printed_eps)[0].holds
    success_weight_only = {"objective": (1 - P) / sp.sqrt(P * (1 - P) + EPS) * p_theta - beta * kl}
    assert not el.population_collapse(claimed=success_weight_only)[0].holds
    assert not el.population_collapse(claimed={"tilt": (1 - P) / (beta * sp.sqrt(P * (1 - P) + EPS))})[1].holds


def test_importance_weighting_rejects_eq3_weights() -> None:
    out = el.importance_weighting_at_old_policy(n_outcomes=2, claimed={"omega_plus": EQ3_PRINTED})
    assert not out[0].holds


def test_sign_check_rejects_wrong_sign_and_undecidable() -> None:
    assert not check_sign("wrong", (1 - P + 2 * EPS), "<", subs=el.OPEN_UNIT_SUBS).holds
    assert check_sign("right", (1 - P + 2 * EPS), ">", subs=el.OPEN_UNIT_SUBS).holds
    assert not check_sign("undecidable", 1 - 2 * P, ">", subs=el.OPEN_UNIT_SUBS).holds


def test_vector_check_rejects_nonzero() -> None:
    x = sp.Symbol("x")
    assert not check_vector_equal("v", sp.Matrix([x, 1]), sp.Matrix([x, 0])).holds
    assert check_vector_equal("v", sp.Matrix([x + x, 1]), sp.Matrix([2 * x, 1])).holds


def test_surrogate_gradient_differs_away_from_old_policy() -> None:
    idents = el.importance_weighting_at_old_policy(n_outcomes=2)
    sur = next(i for i in idents if "surrogate" in i.name)
    assert any(abs(v) > 1e-6 for v in sur.extra["surrogate_residual_elsewhere"])


def test_clipped_cases_reject_swapped_forms() -> None:
    assert all(i.holds for i in el.clipped_term_cases())
    wrong = el.clipped_term_cases(swap_cases=True)
    # outside the trust region the swapped forms are wrong; inside both reduce to x A
    assert sum(not i.holds for i in wrong) == 4


def test_verdict_names_the_identity_that_fails() -> None:
    moments = el.bernoulli_moments()
    assert el.verdict(moments, "both moments") == "✓ both moments"
    assert el.verdict(moments[0], "the mean") == "✓ the mean"
    wrong = el.bernoulli_moments(claimed={"variance": P**2})
    try:
        el.verdict(wrong, "both moments")
    except AssertionError as err:
        assert wrong[1].name in str(err)
    else:
        raise AssertionError("a failing identity passed the verdict")


def test_not_self_evident_leaves_out_identities_whose_sides_print_alike() -> None:
    moments = el.bernoulli_moments()  # E[r] = p prints as p = p; the variance is derived as -p(p - 1)
    assert [i.name for i in el.not_self_evident(moments)] == [moments[1].name]
    assert el.not_self_evident(el.zero_mean_advantage()) == []
