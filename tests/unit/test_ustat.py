"""Tests of grpo_nb.ustat, Part 1: the softmax bandit, the group estimators, their exact moments, Lemma 1 and the
scaling law. Each exact route is checked against an independent one, each check is shown to fail on a wrong
formula, and bad input raises ValueError naming the parameter. The group-size chapter's analyses are tested in
tests/chapters/group_size/."""

from __future__ import annotations

from dataclasses import replace

import matplotlib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import softmax

matplotlib.use("Agg")

from grpo_nb import ustat  # noqa: E402
from grpo_nb.plots import ustat as figs  # noqa: E402
from grpo_nb.symbolic import ustat as symbolic  # noqa: E402
from grpo_nb.tabular import softmax_policy  # noqa: E402
from grpo_nb.tabular.algorithm1 import logits_expected_reward, make_task, reinforce_gradient  # noqa: E402
from grpo_nb.ustat import bandit, moments, scaling  # noqa: E402
from grpo_nb.ustat import estimators as est  # noqa: E402
from grpo_nb.ustat.bandit import PromptSet  # noqa: E402

LOGITS = np.array([0.3, -1.2, 0.8, 0.1, -0.4])
REWARD = np.array([1.0, 0.0, 0.0, 1.0, 0.0])


def _draws(fig) -> None:
    import matplotlib.pyplot as plt

    assert fig.axes
    plt.close(fig)


def _chapter_bandits() -> dict[float, tuple[np.ndarray, np.ndarray]]:
    """The group-size chapter's three bandits, by success probability (six answers, two right, make_task seed 3)."""
    values = (0.2, 0.5, 0.85)
    task = make_task(np.array(values), n_outcomes=6, n_success=2, seed=3)
    return {v: (task.ref_logits[i], task.reward[i]) for i, v in enumerate(values)}


def _bandit(seed: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    reward = np.zeros(k)
    reward[rng.choice(k, size=rng.integers(1, k), replace=False)] = 1.0
    return rng.normal(scale=1.5, size=k), reward


# ------------------------------------------------------------------ the bandit and the public API


def test_the_softmax_policy_has_one_home_that_algorithm1_and_the_bandit_read() -> None:
    """E_pi[r] and the policy gradient of a softmax policy live in grpo_nb.tabular.softmax_policy; Algorithm 1's
    tabular policy, the bandit and the public API re-export those functions, and the exact gradient is the on-policy
    (REINFORCE) one with the policy's own weights and the rewards as advantages."""
    assert logits_expected_reward is softmax_policy.logits_expected_reward
    assert reinforce_gradient is softmax_policy.reinforce_gradient
    assert ustat.exact_gradient is bandit.exact_gradient is softmax_policy.exact_gradient
    assert ustat.bandit_expected_reward is bandit.bandit_expected_reward is softmax_policy.bandit_expected_reward
    assert bandit.check_bandit is softmax_policy.check_bandit
    logits, reward = np.stack([LOGITS, -LOGITS]), np.stack([REWARD, REWARD])
    pi = softmax(logits, axis=-1)
    assert np.allclose(softmax_policy.reinforce_gradient(logits, pi, reward), ustat.exact_gradient(logits, reward))
    assert np.array_equal(
        softmax_policy.logits_expected_reward(logits, reward), ustat.bandit_expected_reward(logits, reward)
    )


def test_exact_gradient_is_pi_times_centred_reward_and_matches_differences() -> None:
    pi = softmax(LOGITS)
    v = pi @ REWARD
    assert np.allclose(ustat.exact_gradient(LOGITS, REWARD), pi * (REWARD - v), rtol=1e-14)
    step = 1e-6
    value = [float(softmax(LOGITS + s * step * e) @ REWARD) for e in np.eye(5) for s in (1, -1)]
    numeric = (np.array(value[::2]) - np.array(value[1::2])) / (2 * step)
    assert np.abs(ustat.exact_gradient(LOGITS, REWARD) - numeric).max() < 1e-8
    assert ustat.exact_gradient(LOGITS, REWARD).shape == (5,)
    batched = ustat.exact_gradient(np.stack([LOGITS, -LOGITS]), np.stack([REWARD, REWARD]))
    assert batched.shape == (2, 5) and np.allclose(batched[0], ustat.exact_gradient(LOGITS, REWARD))


def test_gradient_estimates_shape_seed_and_mean() -> None:
    a = ustat.gradient_estimates(LOGITS, REWARD, G=8, n_groups=20_000, estimator="grpo", seed=3)
    b = ustat.gradient_estimates(LOGITS, REWARD, 8, 20_000, "grpo", seed=3)
    assert a.shape == (20_000, 5) and np.array_equal(a, b)
    assert not np.array_equal(a, ustat.gradient_estimates(LOGITS, REWARD, 8, 20_000, "grpo", seed=4))
    for name in est.ALL_ESTIMATORS:
        x = ustat.gradient_estimates(LOGITS, REWARD, 8, 20_000, name, seed=1)
        m = moments.exact_moments(LOGITS, REWARD, 8, estimator=name)
        se = x.std(axis=0, ddof=1) / np.sqrt(x.shape[0])
        assert np.all(np.abs(x.mean(axis=0) - m.mean) < 5 * se + 1e-12), name
        mse = np.sum((x - m.target) ** 2, axis=1)
        assert abs(mse.mean() - m.mse) < 5 * mse.std() / np.sqrt(mse.size), name


def test_counts_and_explicit_samples_give_the_same_estimates() -> None:
    outcomes = est.sample_outcomes(LOGITS, 7, 300, seed=2)
    counts = np.stack([np.bincount(row, minlength=5) for row in outcomes]).astype(float)
    for name in est.ALL_ESTIMATORS:
        by_counts = est.estimates_from_counts(softmax(LOGITS), REWARD, counts, G=7, estimator=name)
        assert np.allclose(
            by_counts, est.estimates_from_outcomes(LOGITS, REWARD, outcomes, estimator=name), atol=1e-14
        ), name


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: ustat.gradient_estimates(LOGITS, REWARD, 1, 10, "grpo"), "G=1"),
        (lambda: ustat.gradient_estimates(LOGITS, REWARD * 0.5, 4, 10, "grpo"), "reward contains 0.5"),
        (lambda: ustat.gradient_estimates(LOGITS, REWARD[:4], 4, 10, "grpo"), "reward has shape"),
        (lambda: ustat.gradient_estimates(LOGITS, REWARD, 4, 10, "ppo"), "estimator='ppo'"),
        (lambda: ustat.gradient_estimates(LOGITS, REWARD, 4, 0, "grpo"), "n_groups=0"),
        (lambda: ustat.gradient_estimates(LOGITS, REWARD, 4, 10, "grpo", seed=-1), "seed=-1"),
        (lambda: ustat.gradient_estimates([np.nan, 1.0], [0, 1], 4, 10, "grpo"), "logits"),
        (lambda: ustat.gradient_estimates([1.0], [1], 4, 10, "grpo"), "logits has shape"),
        (lambda: ustat.gradient_estimates(np.ones((2, 3)), np.ones((2, 3)), 4, 10, "grpo"), "logits has shape"),
        (lambda: ustat.exact_gradient([0.0, np.inf], [0, 1]), "logits contains inf"),
        (lambda: ustat.exact_gradient([0.0, 1.0], [0, 2]), "reward contains 2.0"),
        (lambda: moments.exact_moments(LOGITS, REWARD, 1, estimator="grpo"), "G=1"),
        (lambda: moments.enumerate_moments(LOGITS, REWARD, 12, estimator="grpo"), "K\\^G"),
        (lambda: moments.expected_step_factor(0.0, 4, "grpo"), "p=0.0"),
        (lambda: moments.normalised_leading_constants(LOGITS, np.zeros(5)), "V=0.0"),
        (lambda: PromptSet(np.ones((2, 3)), np.ones((2, 3)), [0.5, 0.6]), "prompt_probs sums to"),
        (lambda: PromptSet(np.ones((2, 3)), np.ones((2, 3)), [1.0]), "prompt_probs has shape"),
        (lambda: PromptSet(np.ones(3), np.ones(3), [1.0]), "logits has shape"),
    ],
)
def test_bad_input_raises_value_error_naming_the_parameter(call, name) -> None:
    with pytest.raises(ValueError, match=name):
        call()


# ------------------------------------------------------------------ Lemma 1


def test_lemma1_symbolic_and_its_negative() -> None:
    for G in range(2, 6):
        assert symbolic.lemma1_identity(G).holds and symbolic.full_mean_identity(G).holds
    assert not symbolic.lemma1_identity(3, 2 * symbolic.pairwise_form(3)).holds
    assert not symbolic.full_mean_identity(3, factor=1).holds


@settings(deadline=None, max_examples=25)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 6), G=st.integers(2, 9))
def test_lemma1_on_random_groups(seed: int, k: int, G: int) -> None:
    logits, reward = _bandit(seed, k)
    o = est.sample_outcomes(logits, G, 50, seed=seed)
    loo = est.estimates_from_outcomes(logits, reward, o, estimator="grpo")
    assert np.allclose(est.pairwise_kernel_average(logits, reward, o), loo, atol=1e-14)
    assert np.allclose(
        est.estimates_from_outcomes(logits, reward, o, estimator="grpo_full_mean"), (G - 1) / G * loo, atol=1e-14
    )


# ------------------------------------------------------------------ exact moments and Theorem 2


@settings(deadline=None, max_examples=30)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 4), G=st.integers(2, 5), name=st.sampled_from(est.ALL_ESTIMATORS))
def test_sum_over_k_equals_enumeration(seed: int, k: int, G: int, name: str) -> None:
    logits, reward = _bandit(seed, k)
    a = moments.exact_moments(logits, reward, G, estimator=name)
    b = moments.enumerate_moments(logits, reward, G, estimator=name)
    assert np.allclose(a.mean, b.mean, atol=1e-13) and a.mse == pytest.approx(b.mse, rel=1e-9, abs=1e-15)


@settings(deadline=None, max_examples=30)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 7), G=st.integers(2, 300))
def test_hoeffding_decomposition_is_exact(seed: int, k: int, G: int) -> None:
    logits, reward = _bandit(seed, k)
    hc = moments.hoeffding_constants(logits, reward)
    assert moments.exact_moments(logits, reward, G, estimator="grpo").mse == pytest.approx(
        float(hc.grpo_mse(G)), rel=1e-9
    )
    assert moments.exact_moments(logits, reward, G, estimator="oracle").mse == pytest.approx(
        hc.trace_sigma / G, rel=1e-9
    )


def test_vanilla_beats_grpo_at_g2_for_a_weak_model() -> None:
    logits, reward = _chapter_bandits()[0.2]
    van, grp = (moments.exact_moments(logits, reward, 2, estimator=e).mse for e in ("vanilla", "grpo"))
    assert van < grp  # the leave-one-out baseline of a pair is a single noisy reward


# ------------------------------------------------------------------ the expected step factor and normalisation


@settings(deadline=None, max_examples=25)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 6), G=st.integers(2, 40), name=st.sampled_from(est.ALL_ESTIMATORS))
def test_expected_step_factor_scales_the_gradient(seed: int, k: int, G: int, name: str) -> None:
    logits, reward = _bandit(seed, k)
    v = float(softmax(logits) @ reward)
    c = moments.expected_step_factor(v, G, name)
    assert np.allclose(
        moments.exact_moments(logits, reward, G, estimator=name).mean,
        c * ustat.exact_gradient(logits, reward),
        atol=1e-13,
    )
    if name in ("vanilla", "grpo", "oracle"):
        assert c == pytest.approx(1.0, abs=1e-12)
    if name == "grpo_full_mean":
        assert c == pytest.approx((G - 1) / G, abs=1e-12)


def test_normalised_limit_is_the_delta_method_constant() -> None:
    for value, (logits, reward) in _chapter_bandits().items():
        std_limit, u_limit = moments.normalised_leading_constants(logits, reward)
        assert 4096 * moments.exact_moments(logits, reward, 4096, estimator="grpo_std").mse == pytest.approx(
            std_limit, rel=2e-3
        )
        if value == 0.5:
            assert std_limit == pytest.approx(u_limit, rel=1e-9)
        else:
            assert abs(std_limit / u_limit - 1) > 0.1  # normalisation changes the leading constant


# ------------------------------------------------------------------ minibatches and the scaling law


def _prompts() -> PromptSet:
    task = make_task(np.array([0.05, 0.3, 0.6, 0.8]), n_outcomes=5, n_success=2, seed=2)
    return PromptSet(task.ref_logits, task.reward, np.array([0.1, 0.2, 0.3, 0.4]))


def test_minibatch_mse_matches_monte_carlo_and_a_wrong_constant_fails() -> None:
    prompts = _prompts()
    fit = scaling.fit_scaling_constants(prompts, 64, (2, 4, 8, 16, 32, 64), n_batches=3000, seed=1)
    assert np.all(np.abs(fit.mse - fit.exact) < 2.2 * fit.half_width)
    for name in ("c1", "c2", "c3"):
        assert getattr(fit.fitted, name) == pytest.approx(getattr(fit.true, name), rel=0.15)
    wrong = replace(fit.true, c1=2 * fit.true.c1)
    assert np.any(np.abs(fit.mse - wrong.budget_mse(64, fit.groups)) > 3 * fit.half_width)
    _draws(figs.plot_budget(fit))


def test_optimal_group_size_is_universal() -> None:
    """N only scales the budget MSE, so its real minimiser is N-free by construction: check the formula for it."""
    c = scaling.scaling_constants(_prompts())
    g = np.linspace(1.2, 100, 20_000)
    assert g[np.argmin(c.budget_mse(256, g))] == pytest.approx(c.optimal_group_size, abs=0.01)
    assert c.theorem7_group_size == pytest.approx(c.optimal_group_size - 1)


def test_minibatch_estimates_are_unbiased_and_validate_input() -> None:
    prompts = _prompts()
    est_ = scaling.minibatch_estimates(prompts, 8, 4, n_batches=20_000, seed=0)
    se = est_.std(axis=0, ddof=1) / np.sqrt(est_.shape[0])
    assert np.all(np.abs(est_.mean(axis=0) - prompts.gradient) < 5 * se + 1e-12)
    assert scaling.minibatch_mse(prompts, 8, 4) == pytest.approx(
        float(scaling.scaling_constants(prompts).budget_mse(32, 4))
    )
    with pytest.raises(ValueError, match="does not divide"):
        scaling.budget_mse(prompts, 100, 8)
    with pytest.raises(ValueError, match="not a PromptSet"):
        scaling.scaling_constants("prompts")
    with pytest.raises(ValueError, match="B=0"):
        scaling.minibatch_estimates(prompts, 0, 4, n_batches=10)
