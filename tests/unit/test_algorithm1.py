"""grpo_nb.tabular.algorithm1: Algorithm 1 on tabular softmax policies; gradients, limits and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_nb.dynamics.map import h
from grpo_nb.tabular.algorithm1 import (
    TabularTask,
    algorithm1,
    grpo_surrogate,
    kl_to_reference,
    logits_expected_reward,
    make_task,
    sample_outcomes,
)
from grpo_nb.weights import omega_minus, omega_plus, stabilised_advantage

SETTINGS = settings(deadline=None, max_examples=20)


def _finite_difference(fn, theta: np.ndarray, step: float = 1e-6) -> np.ndarray:
    out = np.zeros_like(theta)
    for idx in np.ndindex(theta.shape):
        d = np.zeros_like(theta)
        d[idx] = step
        out[idx] = (fn(theta + d)[idx[0]] - fn(theta - d)[idx[0]]) / (2 * step)
    return out


@SETTINGS
@given(seed=st.integers(0, 10_000), clip=st.sampled_from([np.inf, 0.1, 0.3]), beta=st.floats(0.05, 5.0))
def test_surrogate_gradient_matches_finite_differences(seed: int, clip: float, beta: float) -> None:
    rng = np.random.default_rng(seed)
    task = make_task(rng.uniform(0.05, 0.95, size=3), n_outcomes=5, seed=seed)
    theta = task.ref_logits + 0.3 * rng.normal(size=task.ref_logits.shape)
    outcomes = sample_outcomes(task.ref_logits, 6, rng)
    weights, adv = np.full((3, 6), 1 / 6), rng.normal(size=(3, 6))
    args = (task.ref_logits, task.ref_logits)
    kw = {"outcomes": outcomes, "weights": weights, "advantages": adv, "beta": beta, "clip_eps": clip}
    _, grad = grpo_surrogate(theta, *args, **kw)
    fd = _finite_difference(lambda t: grpo_surrogate(t, *args, **kw)[0], theta)
    assert np.allclose(grad, fd, atol=1e-6)


def test_make_task_has_exact_reference_success() -> None:
    p_ref = np.array([1e-6, 0.2, 0.5, 0.999])
    task = make_task(p_ref, n_outcomes=6, seed=3)
    assert np.allclose(task.p_ref, p_ref, rtol=1e-10)
    assert np.allclose(task.pi_ref.sum(axis=-1), 1.0)
    assert np.allclose(kl_to_reference(task.ref_logits, task.ref_logits), 0.0, atol=1e-15)


def test_sampling_frequencies() -> None:
    task = make_task([0.3], n_outcomes=4, seed=0)
    idx = sample_outcomes(task.ref_logits, 200_000, np.random.default_rng(1))
    freq = np.bincount(idx[0], minlength=4) / idx.shape[1]
    assert np.allclose(freq, task.pi_ref[0], atol=5e-3)


def test_advantages_are_eq4_weights() -> None:
    r = np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    p = np.array([1 / 3, 1.0])
    a = stabilised_advantage(r, p[:, None], 1e-4)
    assert np.isclose(a[0, 0], omega_plus(1 / 3, 1e-4)) and np.isclose(a[0, 1], -omega_minus(1 / 3, 1e-4))
    assert np.allclose(a[1], 0.0)  # all successes: omega^+(1) = 0, no reward signal


def test_exact_mode_approaches_theorem2_with_many_inner_steps() -> None:
    task = make_task([0.1, 0.3, 0.6], n_outcomes=6, seed=2)
    errors = []
    for mu in (10, 100, 1000):
        run = algorithm1(task, beta=1.0, eps=1e-5, mu=mu, lr=0.5, n=3, exact=True)
        errors.append(np.abs(run.p_true[1:] - h(run.p_true[:-1], task.p_ref, 1.0, 1e-5)).max())
    assert errors[0] > errors[1] > errors[2] and errors[2] < 5e-3


def test_seeded_and_shapes() -> None:
    task = make_task([0.2, 0.7], n_outcomes=5, seed=0)
    a = algorithm1(task, beta=0.5, eps=1e-3, G=4, mu=3, n=4, seed=7, clip_eps=0.2)
    b = algorithm1(task, beta=0.5, eps=1e-3, G=4, mu=3, n=4, seed=7, clip_eps=0.2)
    assert np.array_equal(a.logits, b.logits)
    assert a.logits.shape == (5, 2, 5) and a.p_true.shape == (5, 2) and a.p_hat.shape == (4, 2)
    assert np.allclose(a.p_true, logits_expected_reward(a.logits, task.reward))
    assert ((a.p_hat * 4) == np.round(a.p_hat * 4)).all()  # p_hat = k/G


def test_clipping_limits_the_ratio_move() -> None:
    task = make_task([0.3], n_outcomes=4, seed=0)
    kw = {"beta": 1e-3, "eps": 1e-3, "mu": 200, "lr": 0.5, "n": 1, "exact": True}
    clipped, free = algorithm1(task, clip_eps=0.2, **kw), algorithm1(task, **kw)
    ratio = clipped.policies[1, 0] / clipped.policies[0, 0]
    # failures (A < 0) stop near 1 - clip; successes rise only through the softmax normalisation
    assert ratio[task.reward[0] == 0].min() > 0.8 - 0.05
    assert clipped.p_true[1, 0] - task.p_ref[0] < 0.5 * (free.p_true[1, 0] - task.p_ref[0])


def test_zero_iterations() -> None:
    run = algorithm1(make_task([0.4], seed=0), beta=1.0, eps=1e-3, n=0)
    assert run.p_hat.shape == (0, 1) and run.logits.shape[0] == 1


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"beta": 0.0}, r"beta=0.0 is out of range"),
        ({"beta": np.nan}, r"beta=nan"),
        ({"eps": -1.0}, r"eps=-1.0 is out of range"),
        ({"eps": 0.0}, r"eps=0.0 is out of range for Algorithm 1"),
        ({"eps": 0.0, "exact": True}, r"eps=0.0 is out of range for Algorithm 1"),
        ({"beta": 1e3, "lr": 0.5}, r"lr=0.5 is out of range for beta=1000.0.*2/beta"),
        ({"G": 0}, r"G=0 is out of range"),
        ({"G": 2.5}, r"G=2.5"),
        ({"mu": 0}, r"mu=0 is out of range"),
        ({"n": -1}, r"n=-1"),
        ({"lr": 0.0}, r"lr=0.0 is out of range"),
        ({"lr": np.inf}, r"lr=inf is out of range"),
        ({"clip_eps": -0.1}, r"clip_eps=-0.1 is out of range"),
    ],
)
def test_bad_input(kwargs, match) -> None:
    args = {"beta": 1.0, "eps": 1e-3} | kwargs
    with pytest.raises(ValueError, match=match):
        algorithm1(make_task([0.4], seed=0), **args)


def test_bad_task() -> None:
    with pytest.raises(ValueError, match="not a TabularTask"):
        algorithm1("task", beta=1.0, eps=1e-3)
    with pytest.raises(ValueError, match=r"ref_logits has shape"):
        TabularTask(np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match=r"reward has shape"):
        TabularTask(np.zeros((2, 3)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match=r"reward contains 0.5"):
        TabularTask(np.zeros((1, 2)), np.array([[0.5, 1.0]]))
    with pytest.raises(ValueError, match=r"non-finite"):
        TabularTask(np.array([[np.nan, 0.0]]), np.array([[0.0, 1.0]]))
    with pytest.raises(ValueError, match=r"p_ref=1.0 is out of range"):
        make_task([0.5, 1.0])
    with pytest.raises(ValueError, match=r"n_success=4 is out of range"):
        make_task([0.5], n_outcomes=4, n_success=4)
    with pytest.raises(ValueError, match=r"n_outcomes=1"):
        make_task([0.5], n_outcomes=1)


@pytest.mark.parametrize("beta", [1e-3, 1.0, 1e3])
@pytest.mark.parametrize("eps", [1e-12, 1e-5, 1.0])
@pytest.mark.parametrize("exact", [True, False])
def test_no_nan_or_overflow_at_extremes(beta: float, eps: float, exact: bool) -> None:
    task = make_task([1e-9, 0.3, 1 - 1e-9], n_outcomes=6, seed=0)
    with np.errstate(all="raise"):
        run = algorithm1(task, beta=beta, eps=eps, G=8, mu=50, n=3, exact=exact)
    assert np.isfinite(run.logits).all() and np.isfinite(run.kl).all()
    assert ((run.p_true >= 0) & (run.p_true <= 1)).all()
    if beta == 1e3:  # a strong KL keeps the policy at the reference
        assert np.allclose(run.p_true[-1], task.p_ref, atol=1e-2)
