"""Tests of grpo_nb.ustat.paper_results: prompt-only baselines (Corollary 5), the arcsin objective and the closed form
of the normalised estimator's constant (Proposition 13), the off-policy k3 gradient (Theorem 12). Each formula is
checked against an independent route, and each check is shown to reject a wrong formula."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from scipy.special import softmax

from grpo_nb.kl import expected_estimator_gradient
from grpo_nb.ustat import paper_results as pr
from grpo_nb.ustat.bandit import bandit_expected_reward, score_norms
from grpo_nb.ustat.moments import exact_moments, normalised_leading_constants

LOGITS = np.array([0.3, -1.2, 0.8, 0.1, -0.4])
REWARD = np.array([1.0, 0.0, 0.0, 1.0, 0.0])
V = sp.Symbol("V", positive=True)


def _random_bandits(n: int = 6, seed: int = 0):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        k = int(rng.integers(3, 8))
        reward = np.zeros(k)
        reward[rng.choice(k, size=int(rng.integers(1, k)), replace=False)] = 1.0
        yield rng.normal(size=k), reward


@pytest.mark.parametrize("G", [2, 5, 16])
def test_constant_baseline_mse_is_vanilla_and_oracle_at_zero_and_v(G: int) -> None:
    for logits, reward in _random_bandits():
        v = float(bandit_expected_reward(logits, reward))
        mse_0, mse_v = pr.constant_baseline_mse(logits, reward, [0.0, v], G=G)
        assert mse_0 == pytest.approx(exact_moments(logits, reward, G, estimator="vanilla").mse, rel=1e-12)
        assert mse_v == pytest.approx(exact_moments(logits, reward, G, estimator="oracle").mse, rel=1e-12)


def test_b_star_is_the_least_mse_and_v_is_not() -> None:
    grid = np.linspace(-1, 2, 30001)
    for logits, reward in _random_bandits():
        b = pr.optimal_constant_baseline(logits, reward)
        least = grid[np.argmin(pr.constant_baseline_mse(logits, reward, grid, G=4))]
        assert abs(b - least) < 2e-4
        pi = softmax(logits)
        expected = float(bandit_expected_reward(logits, reward)) + pr.score_reward_covariance(logits, reward) / (
            pi @ score_norms(pi)
        )
        assert b == pytest.approx(expected, rel=1e-12)
    # the old claim b* = V: wrong on a generic bandit, right when |s|^2 does not depend on the answer (uniform pi)
    v = float(bandit_expected_reward(LOGITS, REWARD))
    assert abs(pr.optimal_constant_baseline(LOGITS, REWARD) - v) > 1e-2
    assert pr.constant_baseline_mse(LOGITS, REWARD, v, G=8) > pr.constant_baseline_mse(
        LOGITS, REWARD, pr.optimal_constant_baseline(LOGITS, REWARD), G=8
    )
    uniform = np.zeros(5)
    assert pr.optimal_constant_baseline(uniform, REWARD) == pytest.approx(0.4, abs=1e-15)
    assert abs(pr.score_reward_covariance(uniform, REWARD)) < 1e-15


def test_the_arcsin_identity_holds_and_rejects_other_objectives() -> None:
    assert pr.arcsin_identity().holds
    assert not pr.arcsin_identity(sp.log(V / (1 - V))).holds  # log-odds: derivative 1/(V(1-V)), not 1/sigma
    assert not pr.arcsin_identity(V).holds  # the value itself: plain GRPO's objective
    assert not pr.arcsin_identity(sp.asin(sp.sqrt(V))).holds  # the factor 2 matters
    with pytest.raises(ValueError, match="claimed"):
        pr.arcsin_identity({"objectif": V})


def test_arcsin_value_is_the_objective_of_the_normalised_gradient() -> None:
    v = float(bandit_expected_reward(LOGITS, REWARD))
    assert pr.arcsin_value(LOGITS, REWARD) == pytest.approx(2 * np.arcsin(np.sqrt(v)), rel=1e-15)


def test_the_delta_method_closed_form_is_derived_and_rejects_another_coefficient() -> None:
    assert pr.delta_method_identity().holds
    for wrong in (sp.Rational(1, 2), sp.Integer(1), sp.Integer(0)):
        assert not pr.delta_method_identity(wrong).holds


def test_the_closed_form_matches_the_delta_method_constant() -> None:
    for logits, reward in _random_bandits(8, seed=1):
        delta, u_limit = normalised_leading_constants(logits, reward)
        assert pr.normalised_limit_closed_form(logits, reward) == pytest.approx(delta, rel=1e-12)
        assert delta <= u_limit * (1 + 1e-12)
    with pytest.raises(ValueError, match="V="):
        pr.normalised_limit_closed_form(LOGITS, np.zeros(5))


def test_off_policy_k3_gradient_is_on_policy_when_nothing_moved() -> None:
    log_ref = np.log(softmax(LOGITS[::-1]))
    on_policy = expected_estimator_gradient(LOGITS, log_ref, "k3", placement="loss")
    assert np.abs(pr.off_policy_k3_gradient(LOGITS, LOGITS, log_ref) - on_policy).max() < 1e-15
    moved = pr.off_policy_k3_gradient(LOGITS + 0.1 * REWARD, LOGITS, log_ref)
    assert (
        np.abs(moved - expected_estimator_gradient(LOGITS + 0.1 * REWARD, log_ref, "k3", placement="loss")).max() > 1e-4
    )


def test_bad_input_raises_naming_the_parameter() -> None:
    with pytest.raises(ValueError, match="G"):
        pr.constant_baseline_mse(LOGITS, REWARD, 0.5, G=0)
    with pytest.raises(ValueError, match="baseline"):
        pr.constant_baseline_mse(LOGITS, REWARD, np.nan, G=4)
    with pytest.raises(ValueError, match="logits"):
        pr.optimal_constant_baseline(np.zeros((2, 5)), np.zeros((2, 5)))
    with pytest.raises(ValueError, match="reward"):
        pr.score_reward_covariance(LOGITS, np.full(5, 0.5))
    with pytest.raises(ValueError, match="logits_old"):
        pr.off_policy_k3_gradient(LOGITS, np.zeros(4), LOGITS)
    with pytest.raises(ValueError, match="log_ref"):
        pr.off_policy_k3_gradient(LOGITS, LOGITS, np.full(5, np.inf))
