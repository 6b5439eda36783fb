"""Tests of grpo_nb.dynamics.orbits: fixed points, cycles and chaos of the success recursion (Eq. 8)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, logit

from grpo_nb.dynamics.map import log_abs_logit_map_slope, logit_map
from grpo_nb.dynamics.orbits import (
    ChaoticOrbitError,
    OrbitClass,
    OrbitKind,
    attractor,
    classify_orbits,
    finite_time_exponent_se,
    orbit_kind,
)

SETTINGS = settings(deadline=None, max_examples=30)
FAST = {"transient": 600, "n_keep": 64, "max_period": 16, "n_lyapunov": 256, "max_extensions": 1}

# The three cases of the hard_prompts chapter (eps = 1e-5, the paper's value).
FIXED_POINT_CASE = (1e-3, 10.0, 1e-5)  # strong KL: a stable fixed point
TWO_CYCLE_CASE = (1e-3, 5.0, 1e-5)  # the paper's Fig. 5 "divergent" case: a stable 2-cycle
CHAOTIC_CASE = (1e-4, 5.2, 1e-5)  # inside the chaotic band after the period-doubling cascade


def _g(z: float, p_ref: float, beta: float, eps: float) -> float:
    return float(logit_map(z, logit(p_ref), beta, eps))


def test_known_fixed_point() -> None:
    k = orbit_kind(*FIXED_POINT_CASE)
    assert isinstance(k, OrbitKind)
    assert k.kind == "fixed_point" and k.period == 1 and k.lyapunov < 0
    (p_star,) = attractor(*FIXED_POINT_CASE)
    z = float(logit(p_star))
    assert abs(_g(z, *FIXED_POINT_CASE) - z) <= 1e-9 * max(1.0, abs(z))
    assert p_star > FIXED_POINT_CASE[0]  # Thm 3: amplification


def test_known_two_cycle_is_the_papers_divergent_case() -> None:
    k = orbit_kind(*TWO_CYCLE_CASE)
    assert k.kind == "cycle" and k.period == 2 and k.lyapunov < 0
    cycle = attractor(*TWO_CYCLE_CASE)
    assert len(cycle) == 2 and cycle[0] < cycle[1]
    z0, z1 = (float(logit(p)) for p in cycle)
    assert abs(_g(z0, *TWO_CYCLE_CASE) - z1) <= 1e-8 * max(1.0, abs(z1))
    assert abs(_g(z1, *TWO_CYCLE_CASE) - z0) <= 1e-8 * max(1.0, abs(z0))
    assert abs(z1 - z0) > 1.0  # a genuine 2-cycle, not a fixed point seen twice


def test_known_chaotic_case_is_never_a_cycle() -> None:
    k = orbit_kind(*CHAOTIC_CASE)
    assert k.kind == "chaotic" and k.period is None and k.lyapunov > 0.1
    with pytest.raises(ChaoticOrbitError, match="chaotic"):
        attractor(*CHAOTIC_CASE)


def test_escape_to_one_with_eps_zero() -> None:
    s = classify_orbits(0.3, 0.01, 0.0)
    assert int(s.kind) == OrbitClass.FIXED_POINT and int(s.period) == 1
    assert np.isposinf(s.limit_logits).all() and s.lyapunov == -np.inf
    assert attractor(0.3, 0.01, 0.0) == (1.0,)


def test_fixed_point_within_1e_minus_300_of_one_keeps_its_logit() -> None:
    s = classify_orbits(1e-3, 2.0, 1e-5)
    z = s.limit_logits[..., -1]
    assert int(s.kind) == OrbitClass.FIXED_POINT and float(z) > 100.0 and np.isfinite(z)
    assert abs(_g(float(z), 1e-3, 2.0, 1e-5) - float(z)) <= 1e-12 * float(z)


def test_vectorised_matches_scalar_and_broadcasts() -> None:
    betas = np.array([FIXED_POINT_CASE[1], TWO_CYCLE_CASE[1]])
    s = classify_orbits(np.array([[1e-3], [1e-3]]), betas, 1e-5)
    assert s.kind.shape == (2, 2) and s.limit_logits.shape == (2, 2, 256)
    assert s.kind[0].tolist() == [OrbitClass.FIXED_POINT, OrbitClass.CYCLE]
    assert s.period[1].tolist() == [1, 2]


def test_log_derivative_matches_finite_differences() -> None:
    z = np.linspace(-40.0, 40.0, 161) + 0.05
    for beta, eps in [(0.7, 1e-3), (3.0, 1e-5), (0.2, 0.0)]:
        d = 1e-6 * np.maximum(1.0, np.abs(z))
        num = (logit_map(z + d, 0.1, beta, eps) - logit_map(z - d, 0.1, beta, eps)) / (2 * d)
        ana = np.exp(log_abs_logit_map_slope(z, beta, eps)) * np.sign(z)
        assert np.allclose(num, ana, rtol=1e-5, atol=1e-7)  # FD cancellation ~1e-16 |g| / d
    assert np.isfinite(log_abs_logit_map_slope(1e300, 1.0, 1e-5))
    assert log_abs_logit_map_slope(0.0, 1.0, 1e-5) == -np.inf  # the critical point p = 1/2


@SETTINGS
@given(
    logit_ref=st.floats(-20.0, 20.0),
    log_beta=st.floats(-3.0, 3.0),
    eps=st.one_of(st.just(0.0), st.floats(-12.0, 0.0).map(lambda x: 10.0**x)),
)
def test_reported_limit_sets_are_invariant(logit_ref: float, log_beta: float, eps: float) -> None:
    p_ref, beta = float(1.0 / (1.0 + np.exp(-logit_ref))), 10.0**log_beta
    s = classify_orbits(p_ref, beta, eps, **FAST)
    kind, period = int(s.kind), int(s.period)
    assert kind in (OrbitClass.FIXED_POINT, OrbitClass.CYCLE, OrbitClass.CHAOTIC)
    assert not np.isnan(s.lyapunov)
    if kind == OrbitClass.CHAOTIC:
        assert period == 0 and s.lyapunov > 0
        with pytest.raises(ChaoticOrbitError):
            attractor(p_ref, beta, eps, **FAST)
    elif period >= 1:
        zs = s.limit_logits[-period:]
        if np.isfinite(zs).all():
            images = logit_map(zs, logit(p_ref), beta, eps)
            assert np.allclose(np.roll(zs, -1), images, rtol=1e-6, atol=1e-6)
        assert len(attractor(p_ref, beta, eps, **FAST)) == period


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((0.1, 0.0, 1e-5), "beta"),
        ((0.1, -1.0, 1e-5), "beta"),
        ((0.1, np.inf, 1e-5), "beta"),
        ((0.0, 1.0, 1e-5), "p_ref"),
        ((1.0, 1.0, 1e-5), "p_ref"),
        ((1.5, 1.0, 1e-5), "p_ref"),
        ((0.1, 1.0, -1e-5), "eps"),
        ((np.nan, 1.0, 1e-5), "p_ref"),
        ((0.1, np.nan, 1e-5), "beta"),
        ((0.1, 1.0, np.nan), "eps"),
        ((0.1, 1.0, "x"), "eps"),
    ],
)
def test_bad_parameters_raise(args: tuple, match: str) -> None:
    for func in (classify_orbits, orbit_kind, attractor):
        with pytest.raises(ValueError, match=match):
            func(*args)


def test_bad_shapes_and_options_raise() -> None:
    with pytest.raises(ValueError, match="broadcast"):
        classify_orbits(np.full(2, 0.1), np.ones(3), 1e-5)
    with pytest.raises(ValueError, match="scalar"):
        orbit_kind(np.full(2, 0.1), 1.0, 1e-5)
    with pytest.raises(ValueError, match="scalar"):
        attractor(0.1, np.ones(2), 1e-5)
    for options, name in [
        ({"transient": -1}, "transient"),
        ({"transient": 1.5}, "transient"),
        ({"max_period": 0}, "max_period"),
        ({"n_keep": 10, "max_period": 8}, "n_keep"),
        ({"n_lyapunov": 10}, "n_lyapunov"),
        ({"tol": 0.0}, "tol"),
        ({"tol": float("nan")}, "tol"),
        ({"chaos_threshold": -1.0}, "chaos_threshold"),
        ({"max_extensions": -1}, "max_extensions"),
    ]:
        with pytest.raises(ValueError, match=name):
            classify_orbits(0.1, 1.0, 1e-5, **options)


def test_scalar_orbit_that_needs_extra_rounds_is_classified() -> None:
    """Regression (found by hypothesis): a scalar orbit left undecided after the first window crashed
    np.nonzero on a 0-d array; p_ref = sigmoid(-13), beta = 10**2.09375, eps = 0."""
    s = classify_orbits(expit(-13.0), 10**2.09375, 0.0, transient=200, n_keep=64, max_period=16, n_lyapunov=256)
    assert s.kind.shape == () and s.limit_logits.shape == (64,)
    assert int(s.kind) == OrbitClass.FIXED_POINT and int(s.period) == 1


def test_finite_time_exponent_se_shrinks_like_one_over_root_n() -> None:
    short, long = (finite_time_exponent_se(*CHAOTIC_CASE, n=n) for n in (250, 4000))
    assert 2 < short / long < 8  # sqrt(16) = 4 for independent stretches
    assert finite_time_exponent_se(*TWO_CYCLE_CASE, n=250) < 1e-6 * short  # a stable cycle: no scatter
    with pytest.raises(ValueError, match="n_batches"):
        finite_time_exponent_se(*CHAOTIC_CASE, n=100, n_batches=1)
    with pytest.raises(ValueError, match=r"^n=5 is out of range"):
        finite_time_exponent_se(*CHAOTIC_CASE, n=5)
