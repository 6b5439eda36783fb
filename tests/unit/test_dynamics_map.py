"""Tests of grpo_nb.dynamics.map: Theorem 2's map h, Proposition 1's h', the orbit in logit space."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, logit

from grpo_nb.dynamics.map import (
    bernoulli_variance_of_logit,
    h,
    h_prime,
    iterate,
    iterate_logit,
    logit_h,
    logit_map,
)

SETTINGS = settings(deadline=None, max_examples=50)
p_refs = st.floats(1e-9, 1 - 1e-9)
betas = st.floats(-3.0, 3.0).map(lambda x: 10.0**x)
epss = st.one_of(st.just(0.0), st.floats(-12.0, 0.0).map(lambda x: 10.0**x))
inner_p = st.floats(1e-9, 1 - 1e-9)


@SETTINGS
@given(p=st.floats(0.0, 1.0), p_ref=p_refs, beta=betas, eps=st.floats(-12.0, 0.0).map(lambda x: 10.0**x))
def test_h_lies_in_the_closed_unit_interval_and_above_p_ref(p: float, p_ref: float, beta: float, eps: float) -> None:
    val = h(p, p_ref, beta, eps)
    assert 0.0 < val <= 1.0  # 1.0 only by float rounding; the logit stays finite
    assert np.isfinite(logit_h(p, p_ref, beta, eps))
    assert logit_h(p, p_ref, beta, eps) > logit(p_ref)


def test_h_is_strictly_inside_unit_interval_in_logit_terms() -> None:
    z = logit_h(np.linspace(0, 1, 101), 0.3, 1.0, 1e-5)
    # h(p) in (0, 1) exactly: its logit is finite (float64 rounds sigmoid(315) to 1.0, the logit keeps it)
    assert np.isfinite(z).all() and (z > logit(0.3)).all()


@SETTINGS
@given(
    p=st.floats(0.01, 0.99), p_ref=st.floats(1e-6, 1 - 1e-6), beta=st.floats(-1.0, 2.0).map(lambda x: 10.0**x), eps=epss
)
def test_h_prime_matches_central_differences(p: float, p_ref: float, beta: float, eps: float) -> None:
    d = 1e-6
    fd = (h(p + d, p_ref, beta, eps) - h(p - d, p_ref, beta, eps)) / (2 * d)
    assert h_prime(p, p_ref, beta, eps) == pytest.approx(fd, rel=1e-4, abs=1e-9)


@SETTINGS
@given(p=inner_p, p_ref=p_refs, beta=betas, eps=epss)
def test_h_prime_sign_follows_proposition1(p: float, p_ref: float, beta: float, eps: float) -> None:
    val = h_prime(p, p_ref, beta, eps)
    assert np.isfinite(val)
    if p < 0.5:
        assert val <= 0
    elif p > 0.5:
        assert val >= 0


@SETTINGS
@given(p_ref=p_refs, beta=betas, eps=epss, n=st.integers(0, 30))
def test_iterate_is_repeated_application_of_h(p_ref: float, beta: float, eps: float, n: int) -> None:
    orbit = iterate(p_ref, beta, eps, n)
    zs = iterate_logit(p_ref, beta, eps, n=n)
    assert orbit.shape == (n + 1,) and orbit[0] == pytest.approx(p_ref)
    z = logit(p_ref)
    for k in range(n):
        if not np.isfinite(z):
            break
        z_next = logit_map(z, logit(p_ref), beta, eps)
        assert zs[k + 1] == pytest.approx(z_next, rel=1e-12)
        p = expit(z)
        if 1e-12 < p < 1 - 1e-12:  # where p itself is representable, compare with h applied to p
            assert orbit[k + 1] == pytest.approx(h(p, p_ref, beta, eps), rel=1e-9, abs=1e-15)
        z = z_next


def test_iterate_broadcasts() -> None:
    orbit = iterate(np.array([0.1, 0.5]), np.array([[1.0], [2.0], [3.0]]), 1e-5, 4)
    assert orbit.shape == (5, 3, 2)
    np.testing.assert_allclose(orbit[:, 2, 1], iterate(0.5, 3.0, 1e-5, 4))


def test_no_nan_or_overflow_over_the_ranges() -> None:
    p = np.concatenate([[0.0, 1e-300, 1e-12], np.linspace(0, 1, 51), [1 - 1e-12, 1.0]])[:, None, None, None]
    p_ref = np.array([1e-9, 1e-4, 0.5, 1 - 1e-4, 1 - 1e-9])[None, :, None, None]
    beta = np.logspace(-3, 3, 13)[None, None, :, None]
    eps = np.array([1e-12, 1e-5, 1.0])[None, None, None, :]
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        assert np.isfinite(logit_h(p, p_ref, beta, eps)).all()
        assert np.isfinite(h(p, p_ref, beta, eps)).all()
    assert np.isfinite(h_prime(p, p_ref, beta, eps)).all()
    inner = p[(p >= 1e-12) & (p <= 1 - 1e-12)][:, None, None]
    assert np.isfinite(h(inner, p_ref[..., 0], beta[..., 0], 0.0)).all()
    assert np.isfinite(h_prime(inner, p_ref[..., 0], beta[..., 0], 0.0)).all()
    zs = iterate_logit(p_ref[0, :, :, :1], beta[0, :, :, :1], 1e-5, n=50)
    assert np.isfinite(zs).all()


def test_bernoulli_variance_of_logit_is_p_one_minus_p() -> None:
    z = np.linspace(-30, 30, 61)
    np.testing.assert_allclose(bernoulli_variance_of_logit(z), expit(z) * expit(-z), rtol=1e-12)
    np.testing.assert_allclose(bernoulli_variance_of_logit(z), 1 / (4 * np.cosh(z / 2) ** 2), rtol=1e-12)
    assert bernoulli_variance_of_logit(np.array(700.0)) > 0


def test_h_prime_at_eps_zero_next_to_zero_is_not_nan() -> None:
    assert np.isfinite(h_prime(1e-300, 0.5, 1.0, 0.0))


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"p": -0.1}, "p"),
        ({"p": 1.1}, "p"),
        ({"p": float("nan")}, "p"),
        ({"p": "x"}, "p"),
        ({"p": 0.0, "eps": 0.0}, "p"),
        ({"p": 1.0, "eps": 0.0}, "p"),
        ({"p_ref": 0.0}, "p_ref"),
        ({"p_ref": 1.0}, "p_ref"),
        ({"p_ref": float("nan")}, "p_ref"),
        ({"beta": 0.0}, "beta"),
        ({"beta": -1.0}, "beta"),
        ({"beta": float("inf")}, "beta"),
        ({"beta": float("nan")}, "beta"),
        ({"eps": -1e-3}, "eps"),
        ({"eps": float("nan")}, "eps"),
        ({"eps": float("inf")}, "eps"),
    ],
)
def test_bad_input_raises_value_error_naming_the_parameter(kwargs: dict, name: str) -> None:
    args = {"p": 0.3, "p_ref": 0.2, "beta": 1.0, "eps": 1e-5} | kwargs
    for func in (h, h_prime, logit_h):
        with pytest.raises(ValueError, match=rf"\b{name}="):
            func(**args)
    if name != "p":
        it_args = {k: v for k, v in args.items() if k != "p"}
        with pytest.raises(ValueError, match=rf"\b{name}="):
            iterate(**it_args, n=3)


@pytest.mark.parametrize("n", [-1, 1.5, "3", True])
def test_iterate_rejects_bad_n(n: object) -> None:
    with pytest.raises(ValueError, match="n="):
        iterate(0.3, 1.0, 1e-5, n)


def test_wrong_shapes_raise_value_error() -> None:
    with pytest.raises(ValueError):
        h(np.array([0.1, 0.2]), np.array([0.1, 0.2, 0.3]), 1.0, 1e-5)
