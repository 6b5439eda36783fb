"""The one numpy home of each shared formula, tested against an independent evaluation and on bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, logit, softmax

from grpo_nb import kl
from grpo_nb.clipping import clipped_term
from grpo_nb.dynamics.map import (
    log_abs_logit_map_slope,
    logit_map,
    logit_map_cap,
    logit_map_margin,
    logit_map_power,
    logit_map_slope,
)
from grpo_nb.tabular.closed_form import grpo_step
from grpo_nb.tabular.policy import expected_reward, gibbs_log_policy, total_variation
from grpo_nb.validation import check_binary_reward, check_map_params, check_policy, check_scalar, scalar_or_array
from grpo_nb.weights import omega_minus, omega_plus, stabilised_advantage


@settings(deadline=None, max_examples=60)
@given(
    z=st.floats(-700, 700),
    beta=st.floats(1e-3, 1e3),
    eps=st.sampled_from([0.0, 1e-9, 1e-5, 1e-2, 1.0]),
)
def test_logit_map_slope_is_the_derivative_of_the_logit_map(z: float, beta: float, eps: float) -> None:
    """g'(z) against a central difference of g (Prop. 1 in logit coordinates)."""
    if eps == 0 and abs(z) > 600:
        return  # sinh(z/2)/beta is the exact slope there; the difference quotient of exp-size values is not
    d = 1e-6 * max(1.0, abs(z))
    num = (logit_map(z + d, 0.3, beta, eps) - logit_map(z - d, 0.3, beta, eps)) / (2 * d)
    ana = float(logit_map_slope(z, beta, eps))
    assert ana == pytest.approx(float(num), rel=1e-4, abs=1e-6 * max(1.0, abs(float(logit_map(z, 0.3, beta, eps)))))


def test_slope_and_log_slope_agree_and_stay_finite() -> None:
    z = np.array([-50.0, -1.0, 0.0, 0.5, 3.0, 800.0, 1e300])
    for eps in (0.0, 1e-5):
        s = logit_map_slope(z, 2.0, eps)
        log_abs = log_abs_logit_map_slope(z, 2.0, eps)
        finite = s != 0
        assert np.allclose(np.log(np.abs(s[finite & np.isfinite(s)])), log_abs[finite & np.isfinite(s)])
    assert np.isfinite(log_abs_logit_map_slope(1e300, 1.0, 1e-5))
    assert logit_map_slope(0.0, 1.0, 1e-5) == 0.0  # the critical point p = 1/2


def test_logit_map_power_composes_the_map() -> None:
    z = np.linspace(-5, 5, 11)
    manual = z
    for _ in range(7):
        manual = logit_map(manual, -2.0, 1.5, 1e-5)
    assert np.array_equal(logit_map_power(z, -2.0, 1.5, 1e-5, n=7), manual)
    assert np.array_equal(logit_map_power(z, -2.0, 1.5, 1e-5, n=0), z)


def test_stabilised_advantage_is_the_centred_reward_over_the_smoothed_std() -> None:
    r = np.array([[1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0]])
    p = r.mean(axis=1, keepdims=True)
    for eps in (0.0, 1e-5, 0.1):
        expected = (r - p) / np.sqrt(p * (1 - p) + eps)
        assert np.allclose(stabilised_advantage(r, p, eps), expected, rtol=1e-14)
    assert stabilised_advantage(1, 0.25, 1e-3) == pytest.approx(omega_plus(0.25, 1e-3))
    assert stabilised_advantage(0, 0.25, 1e-3) == pytest.approx(-omega_minus(0.25, 1e-3))


def test_stabilised_advantage_rejects_non_binary_rewards_and_bad_p() -> None:
    with pytest.raises(ValueError, match="reward contains 0.5"):
        stabilised_advantage([0.5, 1.0], 0.5, 1e-5)
    with pytest.raises(ValueError, match="p=1.5"):
        stabilised_advantage([0.0, 1.0], 1.5, 1e-5)
    with pytest.raises(ValueError, match="eps=0"):
        stabilised_advantage([0.0, 1.0], 1.0, 0.0)


@settings(deadline=None, max_examples=40)
@given(seed=st.integers(0, 10_000), beta=st.floats(1e-3, 1e3), eps=st.sampled_from([1e-9, 1e-5, 1e-2, 1.0]))
def test_gibbs_policy_is_theorem1_batched(seed: int, beta: float, eps: float) -> None:
    rng = np.random.default_rng(seed)
    pi_ref = rng.dirichlet(np.ones(6), size=3)
    pi_prev = rng.dirichlet(np.ones(6), size=3)
    reward = rng.integers(0, 2, size=(3, 6)).astype(float)
    p_prev = expected_reward(pi_prev, reward)
    log_batched = gibbs_log_policy(np.log(pi_ref), reward, p_prev, beta, eps)
    batched = np.exp(log_batched)
    one_by_one = np.stack([grpo_step(pi_ref[q], pi_prev[q], reward[q], beta, eps) for q in range(3)])
    assert np.allclose(batched, one_by_one, rtol=1e-12, atol=1e-300)
    assert np.allclose(batched.sum(axis=1), 1.0)
    # the Gibbs tilt: log pi_n - log pi_ref differs between a success and a failure by (omega^+ + omega^-)/beta
    for q in range(3):
        if 0 < reward[q].sum() < 6:
            s, f = np.flatnonzero(reward[q])[0], np.flatnonzero(1 - reward[q])[0]
            gap = (log_batched[q, s] - np.log(pi_ref[q, s])) - (log_batched[q, f] - np.log(pi_ref[q, f]))
            expected = (omega_plus(p_prev[q], eps) + omega_minus(p_prev[q], eps)) / beta
            assert gap == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_expected_reward_and_total_variation() -> None:
    logits = np.array([[0.0, 1.0, -1.0], [2.0, 2.0, 2.0]])
    reward = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    pi = softmax(logits, axis=-1)
    assert np.allclose(expected_reward(pi, reward), [pi[0, 0] + pi[0, 2], 1 / 3])
    assert expected_reward(np.array([0.5, 0.5 + 1e-15]), np.array([1.0, 1.0])) == 1.0  # clipped at 1
    assert np.allclose(total_variation(pi, pi[::-1]), 0.5 * np.abs(pi - pi[::-1]).sum(axis=1))
    assert np.allclose(total_variation(pi, pi), 0.0)
    with pytest.raises(ValueError, match="differ"):
        total_variation(np.ones(3) / 3, np.ones(4) / 4)
    with pytest.raises(ValueError, match="not a probability vector"):
        total_variation(np.array([0.5, 0.5]), np.array([-0.5, 1.5]))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: check_binary_reward("reward", [0.0, 2.0]), r"reward contains 2\.0; valid values are 0 and 1"),
        (lambda: check_binary_reward("reward", [0.0, 1.0], shape=(3,)), r"reward has shape \(2,\); valid: shape"),
        (lambda: check_binary_reward("rewards", 1.0, min_last=2), r"rewards has shape \(\); valid shape is"),
        (lambda: check_binary_reward("reward", ["a"]), r"reward=\['a'\] is not an array of numbers"),
        (lambda: check_policy("pi", [0.5, 0.6]), r"pi sums to 1\.1"),
        (lambda: check_policy("pi", [[1.0]]), r"pi has shape \(1, 1\)"),
        (lambda: check_policy("pi", [1.5, -0.5]), r"pi=.* has a negative or non-finite entry"),
        (lambda: check_map_params(0.5, [1.0, 2.0], [1e-5, 1e-5, 1e-5], broadcast=True), r"do not broadcast"),
        (lambda: check_map_params(0.5, [1.0, 2.0], 1e-5, scalar=True), r"beta has shape \(2,\); valid input is a"),
        (lambda: check_map_params(np.nan, 1.0, 1e-5), r"p_ref=nan contains NaN"),
        (lambda: check_scalar("eps", np.zeros(2)), r"eps has shape \(2,\)"),
    ],
)
def test_validators_name_parameter_value_and_range(call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call()


def test_scalar_or_array_and_map_params_broadcast() -> None:
    assert isinstance(scalar_or_array(np.asarray(1.5)), float)
    arr = np.ones(2)
    assert scalar_or_array(arr) is arr
    p_ref, beta, eps = check_map_params(0.3, [1.0, 2.0], 1e-5, broadcast=True)
    assert p_ref.shape == beta.shape == eps.shape == (2,)
    assert float(logit(expit(0.2))) == pytest.approx(0.2)


def test_map_cap_and_margin_bound_every_step_of_the_map() -> None:
    """g(z) - a lies in [margin, cap - a]: the margin is reached at z = 0, the cap approached as |z| grows."""
    z = np.linspace(-40, 40, 2001)
    for beta, eps in ((0.3, 1e-5), (5.0, 1e-2), (1e3, 1.0)):
        a = logit(1e-3)
        g = logit_map(z, a, beta, eps)
        margin, cap = logit_map_margin(beta, eps), logit_map_cap(a, beta, eps)
        assert margin == pytest.approx(float(logit_map(0.0, a, beta, eps)) - a, rel=1e-12)
        assert np.all(g >= a + margin - 1e-12) and np.all(g <= cap + 1e-12)
        assert float(logit_map(60.0, a, beta, eps)) == pytest.approx(cap, rel=1e-9)
    assert logit_map_cap(0.0, 1.0, 0.0) == np.inf  # eps = 0: the map is unbounded
    assert logit_map_margin(2.0, 0.0) == pytest.approx(1.0)  # 1/(beta sqrt(1/4))


def test_kl_estimators_match_their_definitions_and_expectations() -> None:
    rng = np.random.default_rng(3)
    log_pi, log_ref = np.log(rng.dirichlet(np.ones(6))), np.log(rng.dirichlet(np.ones(6)))
    d = log_ref - log_pi
    assert np.allclose(kl.k1(log_pi, log_ref), -d) and np.allclose(kl.k2(log_pi, log_ref), d**2 / 2)
    assert np.allclose(kl.k3(log_pi, log_ref), np.exp(d) - d - 1, rtol=1e-12)
    exact = float(np.exp(log_pi) @ (log_pi - log_ref))
    assert float(kl.categorical_kl(log_pi, log_ref)) == pytest.approx(exact, rel=1e-14)
    # k1 and k3 are unbiased: their expectation under pi is the KL
    for estimator in (kl.k1, kl.k3):
        assert float(np.exp(log_pi) @ estimator(log_pi, log_ref)) == pytest.approx(exact, rel=1e-12)
    assert np.all(kl.k3(log_pi, log_ref) >= 0) and kl.k3(np.log(0.5), np.log(0.5)) == 0.0


def test_torch_kl_twins_match_the_numpy_home() -> None:
    torch = pytest.importorskip("torch")
    from grpo_nb.toylm.grpo import exact_kl, k3_kl

    rng = np.random.default_rng(1)
    log_pi, log_ref = np.log(rng.dirichlet(np.ones(7), size=3)), np.log(rng.dirichlet(np.ones(7), size=3))
    t_pi, t_ref = torch.tensor(log_pi), torch.tensor(log_ref)
    assert np.allclose(k3_kl(t_pi, t_ref).numpy(), kl.k3(log_pi, log_ref), rtol=1e-12, atol=1e-15)
    assert np.allclose(exact_kl(t_pi, t_ref).numpy(), kl.categorical_kl(log_pi, log_ref), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("clip_eps", [None, 0.0, 0.2, 1.5])
def test_torch_clip_matches_the_numpy_home(clip_eps) -> None:
    torch = pytest.importorskip("torch")
    from grpo_nb.toylm.grpo import clipped_term as torch_clipped_term

    x, adv = np.meshgrid(np.linspace(0.05, 3.0, 60), np.linspace(-2.0, 2.0, 41))
    numpy_value = clipped_term(x, adv, np.inf if clip_eps is None else clip_eps)
    torch_value = torch_clipped_term(torch.tensor(x), torch.tensor(adv), clip_eps).numpy()
    assert np.allclose(torch_value, numpy_value, rtol=1e-14, atol=0)


@pytest.mark.parametrize(("clip_low", "clip_high"), [(0.2, 0.28), (0.2, np.inf), (np.inf, 0.2), (0.0, 1.5)])
def test_torch_asymmetric_clip_matches_the_numpy_home(clip_low, clip_high) -> None:
    torch = pytest.importorskip("torch")
    from grpo_nb.tabular.clip_bias import asymmetric_clipped_term
    from grpo_nb.toylm.grpo import clipped_term as torch_clipped_term

    x, adv = np.meshgrid(np.linspace(0.05, 3.0, 60), np.linspace(-2.0, 2.0, 41))
    numpy_value = asymmetric_clipped_term(x, adv, clip_low=clip_low, clip_high=clip_high)
    torch_value = torch_clipped_term(torch.tensor(x), torch.tensor(adv), clip_low, clip_eps_high=clip_high).numpy()
    assert np.allclose(torch_value, numpy_value, rtol=1e-14, atol=0)
    swapped = torch_clipped_term(torch.tensor(x), torch.tensor(adv), clip_high, clip_eps_high=clip_low).numpy()
    assert not np.allclose(swapped, numpy_value)  # the two bounds are told apart


@pytest.mark.parametrize(("form", "eps"), [("paper", 1e-5), ("paper", 0.3), ("trl", 1e-4)])
def test_torch_group_advantage_matches_the_numpy_home(form: str, eps: float) -> None:
    torch = pytest.importorskip("torch")
    from grpo_nb.advantage import group_advantage
    from grpo_nb.toylm.grpo import group_advantage as torch_group_advantage

    rewards = (np.random.default_rng(4).random((40, 8)) < 0.4).astype(float)
    expected = group_advantage(rewards, form, eps)
    assert np.allclose(
        torch_group_advantage(torch.tensor(rewards), form, eps).numpy(), expected, rtol=1e-12, atol=1e-15
    )
