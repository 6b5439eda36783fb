"""Tests of grpo_nb.dynamics.fixed_points: every fixed point of Theorem 2's map, its slope and stability."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logit

from grpo_nb.dynamics.fixed_points import FixedPoint, fixed_points, fixed_points_grid
from grpo_nb.dynamics.map import h, h_prime, logit_map, logit_map_slope

SETTINGS = settings(deadline=None, max_examples=50)
betas = st.floats(1e-3, 1e3).map(float)
log_beta = st.floats(-3.0, 3.0).map(lambda x: 10.0**x)
p_refs = st.floats(-9.0, 9.0).map(lambda x: float(1.0 / (1.0 + np.exp(-2.3 * x))))  # logit in [-20.7, 20.7]
epss = st.one_of(
    st.just(0.0), st.floats(-12.0, 0.0).map(lambda x: 10.0**x), st.floats(-320.0, -12.0).map(lambda x: 10.0**x)
)
pos_eps = st.floats(-8.0, 0.0).map(lambda x: 10.0**x)


def _residual(z: float, p_ref: float, beta: float, eps: float) -> float:
    return float(logit_map(z, logit(p_ref), beta, eps) - z)


@SETTINGS
@given(p_ref=p_refs, beta=log_beta, eps=epss)
def test_every_fixed_point_has_tiny_logit_residual(p_ref: float, beta: float, eps: float) -> None:
    fps = fixed_points(p_ref, beta, eps)
    for fp in fps:
        assert abs(_residual(fp.logit, p_ref, beta, eps)) <= 1e-9 * max(1.0, abs(fp.logit))
        assert np.isfinite(fp.logit) and np.isfinite(fp.slope)
    assert [fp.logit for fp in fps] == sorted(fp.logit for fp in fps)
    if eps > 0:
        assert len(fps) in (1, 2, 3)
    else:
        assert len(fps) in (0, 1, 2)


@SETTINGS
@given(p_ref=p_refs, beta=st.floats(-2.0, 2.0).map(lambda x: 10.0**x), eps=pos_eps)
def test_no_fixed_point_is_missed_on_a_dense_logit_grid(p_ref: float, beta: float, eps: float) -> None:
    a = logit(p_ref)
    z_hi = a + 1.0 / (beta * np.sqrt(eps)) + 1.0
    g0 = float(logit_map(0.0, a, beta, eps))
    z = np.linspace(min(g0, 0.0) - 1.0, z_hi, 200_001)
    f = logit_map(z, a, beta, eps) - z
    cross = np.nonzero(np.sign(f[:-1]) * np.sign(f[1:]) <= 0)[0]
    found = np.array([fp.logit for fp in fixed_points(p_ref, beta, eps)])
    for i in cross:
        assert np.any((found >= z[i] - 1e-9 * abs(z[i])) & (found <= z[i + 1] + 1e-9 * abs(z[i + 1])))


@SETTINGS
@given(p_ref=p_refs, beta=log_beta, eps=epss)
def test_slope_is_central_difference_of_the_logit_map(p_ref: float, beta: float, eps: float) -> None:
    a = logit(p_ref)
    for fp in fixed_points(p_ref, beta, eps):
        d = 1e-6 * max(1.0, abs(fp.logit))
        fd = (logit_map(fp.logit + d, a, beta, eps) - logit_map(fp.logit - d, a, beta, eps)) / (2 * d)
        assert fp.slope == pytest.approx(float(fd), rel=1e-4, abs=1e-7)
        assert fp.stable == (abs(fp.slope) < 1.0)


@SETTINGS
@given(p_ref=p_refs, beta=log_beta, eps=epss)
def test_slope_equals_proposition1_h_prime_where_p_is_representable(p_ref: float, beta: float, eps: float) -> None:
    for fp in fixed_points(p_ref, beta, eps):
        if 1e-12 < fp.p < 1 - 1e-6:
            assert fp.slope == pytest.approx(h_prime(fp.p, p_ref, beta, eps), rel=1e-5, abs=1e-12)
            assert h(fp.p, p_ref, beta, eps) == pytest.approx(fp.p, rel=1e-9)


@SETTINGS
@given(p_ref=p_refs, beta=log_beta, eps=epss)
def test_every_fixed_point_amplifies_p_ref(p_ref: float, beta: float, eps: float) -> None:
    """Theorem 3 without condition (2): logit p* = logit p_ref + positive term."""
    for fp in fixed_points(p_ref, beta, eps):
        assert fp.logit > logit(p_ref)


def test_grid_matches_scalar_calls_and_broadcasts() -> None:
    p_ref = np.array([[0.001], [0.3], [0.9]])
    beta = np.array([0.05, 0.5, 5.0, 50.0])
    grid = fixed_points_grid(p_ref, beta, 1e-5)
    assert grid.logits.shape == (3, 4, 3) and grid.slopes.shape == (3, 4, 3) and grid.counts.shape == (3, 4)
    for i in range(3):
        for j in range(4):
            fps = fixed_points(float(p_ref[i, 0]), float(beta[j]), 1e-5)
            assert len(fps) == grid.counts[i, j]
            np.testing.assert_allclose([fp.logit for fp in fps], grid.logits[i, j, : len(fps)], rtol=1e-14)
            assert np.isnan(grid.logits[i, j, len(fps) :]).all()
            assert list(grid.stable[i, j, : len(fps)]) == [fp.stable for fp in fps]


def test_mixed_eps_grid_including_zero() -> None:
    grid = fixed_points_grid(0.2, 2.0, np.array([0.0, 1e-5, 0.1]))
    for k, eps in enumerate([0.0, 1e-5, 0.1]):
        fps = fixed_points(0.2, 2.0, eps)
        np.testing.assert_allclose([fp.logit for fp in fps], grid.logits[k, : len(fps)], rtol=1e-14)


def test_paper_divergent_case_has_three_fixed_points_and_only_the_top_one_is_stable() -> None:
    fps = fixed_points(0.001, 5.0, 1e-5)
    assert len(fps) == 3
    assert [fp.stable for fp in fps] == [False, False, True]
    assert fps[-1].logit == pytest.approx(
        logit(0.001) + 1 / (5 * np.sqrt(1e-5 + 1 / (4 * np.cosh(fps[-1].logit / 2) ** 2)))
    )


def test_fixed_point_next_to_one_is_not_one_and_sits_at_the_logit_cap() -> None:
    for p_ref, beta, eps in [(0.5, 1.0, 1e-5), (0.1, 0.01, 1e-5), (0.999999999, 1e-3, 1e-12)]:
        top = fixed_points(p_ref, beta, eps)[-1]
        cap = logit(p_ref) + 1 / (beta * np.sqrt(eps))
        assert top.logit <= cap * (1 + 1e-15) and top.logit == pytest.approx(cap, rel=1e-9)
        assert top.stable and 0 <= top.slope < 1e-100


def test_eps_zero_can_have_no_fixed_point() -> None:
    # g(z) = a + 2 cosh(z/2)/beta > z everywhere when beta is small and p_ref is not tiny
    assert fixed_points(0.5, 0.01, 0.0) == []
    grid = fixed_points_grid(0.5, 0.01, 0.0)
    assert grid.counts == 0 and np.isnan(grid.logits).all()


def test_fixed_point_is_frozen() -> None:
    fp = fixed_points(0.3, 1.0, 1e-5)[0]
    assert isinstance(fp, FixedPoint)
    with pytest.raises(AttributeError):
        fp.p = 0.5  # type: ignore[misc]


def test_extreme_ranges_have_no_nan_or_overflow() -> None:
    beta = np.logspace(-3, 3, 25)[:, None, None]
    p_ref = np.array([1e-9, 1e-5, 0.5, 1 - 1e-5, 1 - 1e-9])[None, :, None]
    eps = np.array([0.0, 1e-12, 1e-5, 1.0])[None, None, :]
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        grid = fixed_points_grid(p_ref, beta, eps)
    valid = ~np.isnan(grid.logits)
    assert np.isfinite(grid.logits[valid]).all() and np.isfinite(grid.slopes[valid]).all()
    assert (grid.counts[..., 1:] >= 1).all()


@pytest.mark.parametrize("eps", [5e-324, 1e-300, 1e-200, 1e-100])
def test_tiny_positive_eps_still_finds_the_fixed_points(eps: float) -> None:
    for p_ref, beta in [(0.5, 1.0), (0.001, 5.0), (1e-9, 1e-3), (1 - 1e-9, 1e3)]:
        fps = fixed_points(p_ref, beta, eps)
        assert len(fps) in (1, 3) and fps[-1].stable
        assert fps[-1].logit == pytest.approx(logit(p_ref) + 1 / (beta * np.sqrt(eps)), rel=1e-9)
        for fp in fps:
            assert abs(_residual(fp.logit, p_ref, beta, eps)) <= 1e-9 * max(1.0, abs(fp.logit))
            assert np.isfinite(fp.slope)


def test_logit_map_slope_is_sinh_for_eps_zero() -> None:
    z = np.linspace(-5, 5, 11)
    np.testing.assert_allclose(logit_map_slope(z, 2.0, 0.0), np.sinh(z / 2) / 2.0)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"p_ref": 0.0}, "p_ref"),
        ({"p_ref": 1.0}, "p_ref"),
        ({"p_ref": -0.1}, "p_ref"),
        ({"p_ref": float("nan")}, "p_ref"),
        ({"p_ref": "x"}, "p_ref"),
        ({"beta": 0.0}, "beta"),
        ({"beta": -1.0}, "beta"),
        ({"beta": float("inf")}, "beta"),
        ({"beta": float("nan")}, "beta"),
        ({"eps": -1e-9}, "eps"),
        ({"eps": float("nan")}, "eps"),
        ({"eps": float("inf")}, "eps"),
        ({"p_ref": [0.1, 0.2]}, "p_ref"),
        ({"beta": np.array([1.0])}, "beta"),
    ],
)
def test_bad_input_raises_value_error_naming_the_parameter(kwargs: dict, name: str) -> None:
    args = {"p_ref": 0.3, "beta": 1.0, "eps": 1e-5} | kwargs
    with pytest.raises(ValueError, match=name):
        fixed_points(**args)
    if np.ndim(kwargs[name]) == 0:
        with pytest.raises(ValueError, match=name):
            fixed_points_grid(**args)


def test_grid_rejects_non_broadcastable_shapes() -> None:
    with pytest.raises(ValueError, match="broadcastable"):
        fixed_points_grid(np.array([0.1, 0.2]), np.array([1.0, 2.0, 3.0]), 1e-5)
