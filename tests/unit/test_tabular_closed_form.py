"""Theorem 1's closed form against an independent numerical maximiser, and Theorem 2 through it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_nb.dynamics.map import iterate
from grpo_nb.tabular.closed_form import (
    StepInputs,
    check_step_inputs,
    grpo_objective,
    grpo_step,
    policy_expected_reward,
    solve_grpo_step,
    success_orbit,
)
from grpo_nb.weights import omega_minus, omega_plus

SETTINGS = settings(deadline=None, max_examples=50)


def _instance(seed: int, n: int = 50) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
    rng = np.random.default_rng(seed)
    pi_ref = rng.dirichlet(np.full(n, 0.5))
    reward = (rng.random(n) < rng.uniform(0.05, 0.95)).astype(float)
    pi_prev = rng.dirichlet(np.ones(n))
    return pi_ref, pi_prev, reward, float(10 ** rng.uniform(-1, 1)), float(10 ** rng.uniform(-6, -1))


@SETTINGS
@given(seed=st.integers(0, 2**31 - 1))
def test_closed_form_matches_numerical_solver(seed: int) -> None:
    pi_ref, pi_prev, reward, beta, eps = _instance(seed)
    closed = grpo_step(pi_ref, pi_prev, reward, beta, eps)
    numeric = solve_grpo_step(pi_ref, pi_prev, reward, beta, eps)
    assert np.max(np.abs(closed - numeric)) < 1e-6
    assert closed.sum() == pytest.approx(1.0, abs=1e-12)
    j_closed = grpo_objective(closed, pi_ref, pi_prev, reward, beta, eps)
    # the closed form is the maximiser: no perturbation on the simplex does better
    rng = np.random.default_rng(seed)
    for _ in range(5):
        other = 0.9 * closed + 0.1 * rng.dirichlet(np.ones(closed.size))
        assert grpo_objective(other, pi_ref, pi_prev, reward, beta, eps) < j_closed


@SETTINGS
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(0, 40))
def test_iterated_step_gives_theorem2_recursion(seed: int, n: int) -> None:
    pi_ref, _, reward, beta, eps = _instance(seed)
    p_ref = policy_expected_reward(pi_ref, reward)
    if not 0 < p_ref < 1:
        return
    np.testing.assert_allclose(
        success_orbit(pi_ref, reward, beta, eps, n=n), iterate(p_ref, beta, eps, n), rtol=1e-9, atol=1e-12
    )


def test_p_ref_zero_leaves_the_policy_unchanged() -> None:
    pi_ref = np.array([0.0, 0.2, 0.3, 0.5])
    reward = np.array([1.0, 0.0, 0.0, 0.0])
    out = grpo_step(pi_ref, pi_ref, reward, 0.5, 1e-5)
    np.testing.assert_allclose(out, pi_ref, atol=1e-15)
    np.testing.assert_allclose(solve_grpo_step(pi_ref, pi_ref, reward, 0.5, 1e-5), pi_ref, atol=1e-9)
    assert success_orbit(pi_ref, reward, 0.5, 1e-5, n=5).max() == 0.0


def test_all_rewards_one_keeps_pi_ref_and_success_one() -> None:
    rng = np.random.default_rng(1)
    pi_ref = rng.dirichlet(np.ones(50))
    reward = np.ones(50)
    out = grpo_step(pi_ref, pi_ref, reward, 0.3, 1e-5)
    np.testing.assert_allclose(out, pi_ref, rtol=1e-12)
    np.testing.assert_allclose(solve_grpo_step(pi_ref, pi_ref, reward, 0.3, 1e-5), pi_ref, atol=1e-9)
    assert success_orbit(pi_ref, reward, 0.3, 1e-5, n=3) == pytest.approx(np.ones(4))


def test_small_beta_does_not_overflow() -> None:
    pi_ref, pi_prev, reward, _, _ = _instance(3)
    out = grpo_step(pi_ref, pi_prev, reward, 1e-3, 1e-8)
    assert np.isfinite(out).all() and out.sum() == pytest.approx(1.0)


def test_weights_match_equation4() -> None:
    p = np.linspace(0, 1, 11)
    w_plus, w_minus = omega_plus(p, 1e-3), omega_minus(p, 1e-3)
    sd = np.sqrt(p * (1 - p) + 1e-3)
    np.testing.assert_allclose(w_plus, (1 - p) / sd)
    np.testing.assert_allclose(w_minus, p / sd)


GOOD = {"pi_ref": [0.5, 0.5], "pi_prev": [0.25, 0.75], "reward": [1, 0], "beta": 1.0, "eps": 1e-5}


@pytest.mark.parametrize(
    ("change", "name"),
    [
        ({"pi_ref": [0.5, 0.6]}, "pi_ref"),
        ({"pi_ref": [1.5, -0.5]}, "pi_ref"),
        ({"pi_ref": [[0.5, 0.5]]}, "pi_ref"),
        ({"pi_ref": [float("nan"), 1.0]}, "pi_ref"),
        ({"pi_ref": "ab"}, "pi_ref"),
        ({"pi_ref": []}, "pi_ref"),
        ({"pi_prev": [0.2, 0.2]}, "pi_prev"),
        ({"pi_prev": [0.2, 0.3, 0.5]}, "pi_prev"),
        ({"reward": [1, 2]}, "reward"),
        ({"reward": [0.5, 0]}, "reward"),
        ({"reward": [1, 0, 1]}, "reward"),
        ({"reward": ["a", "b"]}, "reward"),
        ({"beta": 0.0}, "beta"),
        ({"beta": -2.0}, "beta"),
        ({"beta": float("nan")}, "beta"),
        ({"beta": [1.0, 2.0]}, "beta"),
        ({"eps": -1.0}, "eps"),
        ({"eps": float("inf")}, "eps"),
        ({"eps": 0.0, "pi_prev": [1.0, 0.0]}, "p_prev"),
    ],
)
def test_bad_input_raises_value_error_naming_the_parameter(change: dict, name: str) -> None:
    args = GOOD | change
    for func in (grpo_step, solve_grpo_step):
        with pytest.raises(ValueError, match=name):
            func(**args)


def test_other_bad_inputs() -> None:
    with pytest.raises(ValueError, match="n="):
        success_orbit([0.5, 0.5], [1, 0], 1.0, 1e-5, n=-1)
    with pytest.raises(ValueError, match="pi has shape"):
        grpo_objective([1.0], [0.5, 0.5], [0.5, 0.5], [1, 0], 1.0, 1e-5)
    with pytest.raises(ValueError, match="p="):
        omega_plus(1.5, 1e-5)
    with pytest.raises(ValueError, match="step_size"):
        solve_grpo_step([0.5, 0.5], [0.5, 0.5], [1, 0], 1.0, 1e-5, step_size=1.5)
    with pytest.raises(ValueError, match="max_iter"):
        solve_grpo_step([0.5, 0.5], [0.5, 0.5], [1, 0], 1.0, 1e-5, max_iter=0)


def test_step_inputs_are_read_by_name() -> None:
    step = check_step_inputs([0.25, 0.75], [0.5, 0.5], [1, 0], 2.0, 1e-5, normalization="mean")
    assert isinstance(step, StepInputs) and step.p_prev == 0.5 and step.normalization == "mean"
    assert (step.beta, step.eps) == (2.0, 1e-5) and list(step.reward) == [1.0, 0.0] and step.pi_ref[1] == 0.75
    with pytest.raises(ValueError, match="pi_prev has shape"):
        check_step_inputs([0.5, 0.5], [1.0], [1, 0], 1.0, 1e-5)
