"""grpo_nb.weights: the contrastive weights of Eq. (4), their identities and every kind of bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_nb.weights import omega_minus, omega_plus, weight_scale

SETTINGS = settings(deadline=None, max_examples=50)
open_p = st.floats(1e-9, 1 - 1e-9)
closed_p = st.floats(0.0, 1.0)
pos_eps = st.floats(-12.0, 0.0).map(lambda x: 10.0**x)


@SETTINGS
@given(p=open_p, eps=st.one_of(st.just(0.0), pos_eps))
def test_sum_is_inverse_std_and_ratio_is_odds(p: float, eps: float) -> None:
    wp, wm = omega_plus(p, eps), omega_minus(p, eps)
    assert np.isclose(wp + wm, 1.0 / np.sqrt(p * (1 - p) + eps), rtol=1e-12)
    assert np.isclose(wp * p, wm * (1 - p), rtol=1e-12, atol=0)  # omega+/omega- = (1-p)/p
    assert np.isclose(wp + wm, weight_scale(p, eps), rtol=1e-12)


@SETTINGS
@given(p=closed_p, eps=pos_eps)
def test_finite_and_nonnegative_on_closed_interval(p: float, eps: float) -> None:
    for w in (omega_plus(p, eps), omega_minus(p, eps), omega_plus(p, eps, eps_inside_root=False)):
        assert np.isfinite(w) and w >= 0


@SETTINGS
@given(p=open_p)
def test_eps_zero_is_whitened_bernoulli_advantage(p: float) -> None:
    assert np.isclose(omega_plus(p, 0.0), np.sqrt((1 - p) / p), rtol=1e-12)
    assert np.isclose(omega_minus(p, 0.0), np.sqrt(p / (1 - p)), rtol=1e-12)


def test_monotone_and_cross_at_half() -> None:
    p = np.linspace(0.0, 1.0, 2001)
    for eps in (1e-6, 1e-3, 0.1, 1.0):
        wp, wm = omega_plus(p, eps), omega_minus(p, eps)
        assert (np.diff(wp) < 0).all() and (np.diff(wm) > 0).all()
        assert ((wp > wm) == (p < 0.5)).all() or np.isclose(wp[p == 0.5], wm[p == 0.5]).all()
        assert np.isclose(omega_plus(0.5, eps), omega_minus(0.5, eps), rtol=1e-15)
        assert (wp[p < 0.5] > wm[p < 0.5]).all() and (wp[p > 0.5] < wm[p > 0.5]).all()


def test_endpoints_with_smoothing() -> None:
    eps = 1e-4
    assert omega_plus(0.0, eps) == pytest.approx(1 / np.sqrt(eps)) and omega_minus(0.0, eps) == 0.0
    assert omega_minus(1.0, eps) == pytest.approx(1 / np.sqrt(eps)) and omega_plus(1.0, eps) == 0.0
    # Eq. (3) as printed (eps outside the root) blows up like 1/eps instead of 1/sqrt(eps).
    assert omega_plus(0.0, eps, eps_inside_root=False) == pytest.approx(1 / eps)


@SETTINGS
@given(p=st.floats(0.01, 0.99), eps=st.floats(1e-6, 1e-3))
def test_eq3_printed_differs_at_first_order(p: float, eps: float) -> None:
    inside, outside = omega_plus(p, eps), omega_plus(p, eps, eps_inside_root=False)
    sd = np.sqrt(p * (1 - p))
    assert max(inside, outside) < omega_plus(p, 0.0)
    # sqrt(sd^2 + eps) < sd + eps exactly when 2 sd + eps > 1: only near p = 1/2 is the printed form smaller
    if 2 * sd + eps < 1 - 1e-9:
        assert inside < outside
    elif 2 * sd + eps > 1 + 1e-9:
        assert inside > outside
    # first-order expansions: inside ~ w0 (1 - eps/(2 sd^2)), outside ~ w0 (1 - eps/sd)
    w0 = omega_plus(p, 0.0)
    assert np.isclose(inside, w0 * (1 - eps / (2 * sd**2)), rtol=10 * (eps / sd**2) ** 2 + 1e-12)
    assert np.isclose(outside, w0 * (1 - eps / sd), rtol=10 * (eps / sd) ** 2 + 1e-12)


def test_vectorised_broadcast() -> None:
    out = omega_plus(np.linspace(0.1, 0.9, 5)[:, None], np.array([1e-3, 1e-1]))
    assert out.shape == (5, 2)
    assert isinstance(omega_minus(0.3, 1e-3), float)


def test_no_overflow_near_edges() -> None:
    p = np.array([1e-9, 1 - 1e-9])
    for eps in (0.0, 1e-12, 1.0):
        assert np.isfinite(omega_plus(p, eps)).all() and np.isfinite(omega_minus(p, eps)).all()


@pytest.mark.parametrize("fn", [omega_plus, omega_minus, weight_scale])
@pytest.mark.parametrize(
    ("p", "eps", "match"),
    [
        (-0.1, 1e-3, r"p=-0.1 is out of range; valid range is 0 <= p <= 1"),
        (1.5, 1e-3, r"p=1.5 is out of range"),
        (np.nan, 1e-3, r"p=nan contains NaN"),
        ("a", 1e-3, r"p='a' is not a real number"),
        (0.0, 0.0, r"p=0.0 with eps=0 is undefined.*0 < p < 1"),
        ([0.5, 1.0], 0.0, r"p=1.0 with eps=0"),
        (0.5, -1e-3, r"eps=-0.001 is out of range; valid range is 0 <= eps"),
        (0.5, np.nan, r"eps=nan contains NaN"),
        (0.5, np.inf, r"eps=inf is out of range"),
        (np.ones(3) * 0.5, np.ones(2) * 1e-3, r"shape|broadcast"),
    ],
)
def test_bad_input(fn, p, eps, match) -> None:
    with pytest.raises(ValueError, match=match):
        fn(p, eps)
