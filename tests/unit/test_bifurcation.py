"""Tests of the bifurcation tools and the high-precision chaos confirmation (grpo_nb.dynamics.bifurcation,
grpo_nb.dynamics.high_precision): the period-doubling cascade of Eq. (8) in logit coordinates."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_nb.dynamics.bifurcation import (
    FEIGENBAUM_DELTA,
    accumulation_point,
    bifurcation_diagram,
    critical_orbit_logit,
    doubling_betas,
    feigenbaum_ratios,
    period_runs,
    superstable_betas,
)
from grpo_nb.dynamics.fixed_points import fixed_points
from grpo_nb.dynamics.high_precision import (
    mp_logit_orbit,
    mp_lyapunov,
    renormalised_separation_rate,
    separation_test,
)
from grpo_nb.dynamics.map import iterate_logit
from grpo_nb.dynamics.orbits import OrbitClass, classify_orbits, finite_time_exponent_se, orbit_kind

CASCADE = (1e-4, 1e-5)  # p_ref, eps of the chapter's cascade
CHAOTIC_CASE = (1e-4, 5.2, 1e-5)
TWO_CYCLE_CASE = (1e-3, 5.0, 1e-5)


@pytest.fixture(scope="module")
def cascade() -> tuple[np.ndarray, np.ndarray]:
    r = superstable_betas(*CASCADE, n_doublings=8)
    return r, doubling_betas(*CASCADE, r)


def test_superstable_cycles_pass_through_p_one_half(cascade) -> None:
    r, _ = cascade
    assert r.size == 8 and np.all(np.diff(r) < 0)
    for k, beta in enumerate(r, start=1):
        z = critical_orbit_logit(CASCADE[0], beta, CASCADE[1], n=2**k)
        assert abs(float(z)) < 1e-6
        # the critical point does not return earlier: minimal period 2^k
        zs = [float(critical_orbit_logit(CASCADE[0], beta, CASCADE[1], n=2**j)) for j in range(k)]
        assert min(abs(x) for x in zs) > 1e-3


def test_orbit_from_p_ref_follows_the_cascade(cascade) -> None:
    r, b = cascade
    s = classify_orbits(CASCADE[0], r[:4], CASCADE[1])
    assert s.period.tolist() == [2, 4, 8, 16]
    # interleaving B_1 > R_1 > B_2 > R_2 > ...
    assert np.all(b > r) and np.all(b[1:] < r[:-1])
    # just above B_1 a (slowly converging, multiplier ~ -0.999) fixed point, just below it a 2-cycle
    s = classify_orbits(CASCADE[0], b[0] * np.array([1.02, 1.001, 0.999, 0.98]), CASCADE[1])
    assert s.period.tolist() == [1, 1, 2, 2]
    # and the same around B_2 (2-cycle -> 4-cycle)
    s = classify_orbits(CASCADE[0], b[1] * np.array([1.001, 0.999]), CASCADE[1])
    assert s.period.tolist() == [2, 4]


def test_first_doubling_is_where_the_fixed_point_slope_is_minus_one(cascade) -> None:
    """Cross-check with grpo_nb.dynamics.fixed_points (Lemma 1's slope at the fixed point below p = 1/2)."""
    _, b = cascade
    lower = [fp for fp in fixed_points(CASCADE[0], b[0], CASCADE[1]) if fp.logit < 0]
    assert len(lower) == 1 and abs(lower[0].slope + 1.0) < 1e-9


def test_feigenbaum_ratios_converge(cascade) -> None:
    r, b = cascade
    for seq in (r, b):
        ratios = feigenbaum_ratios(seq)
        err = np.abs(ratios - FEIGENBAUM_DELTA)
        assert err[-1] < 5e-3 and err[-1] < err[0]


def test_diagram_and_runs() -> None:
    beta = np.geomspace(3.0, 30.0, 120)
    d = bifurcation_diagram(CASCADE[0], beta, CASCADE[1], transient=1500, n_lyapunov=512)
    assert d.limit_logits.shape == (120, 128) and d.limit_p.shape == (120, 128)
    runs = period_runs(d)
    assert sum(r.n_points for r in runs) == beta.size
    assert runs[-1].kind == "fixed_point" and runs[-1].beta_max == beta[-1]
    assert all(r1.beta_max < r2.beta_min for r1, r2 in zip(runs, runs[1:], strict=False))


@settings(deadline=None, max_examples=15)
@given(logit_ref=st.floats(0.0, 15.0), log_beta=st.floats(-2.0, 2.0), eps=st.sampled_from([0.0, 1e-5, 1e-2]))
def test_no_cycle_when_p_ref_at_least_one_half(logit_ref: float, log_beta: float, eps: float) -> None:
    """For p_ref >= 1/2 the orbit stays in z > 0, where g increases: it is monotone, so never a cycle."""
    p_ref = float(1.0 / (1.0 + np.exp(-logit_ref)))
    s = classify_orbits(p_ref, 10.0**log_beta, eps, transient=500, n_keep=64, max_period=16, n_lyapunov=256)
    assert int(s.period) == 1


def test_high_precision_confirms_chaos() -> None:
    k = orbit_kind(*CHAOTIC_CASE)
    assert k.kind == "chaotic"
    res = separation_test(*CHAOTIC_CASE, n_pairs=6, dps=60)
    assert np.all(res.growth_steps > 0)  # 1e-30 grows past 1e-6 for every pair ...
    for i, m in enumerate(res.growth_steps):  # ... at the linearised rate along the orbit
        assert np.max(np.abs(res.log_separation[i, :m] - res.predicted[i, :m])) < 1e-3
    lam_mp = mp_lyapunov(*CHAOTIC_CASE, n=2000)
    assert abs(res.mean_rate - k.lyapunov) < 0.15 * k.lyapunov
    assert abs(lam_mp - k.lyapunov) < 0.1 * k.lyapunov
    # the result is independent of the working precision (not rounding noise)
    res2 = separation_test(*CHAOTIC_CASE, n_pairs=2, dps=90)
    m = res2.growth_steps[0]
    assert np.allclose(res2.log_separation[:, : m + 1], res.log_separation[:2, : m + 1], atol=1e-9)


def test_renormalised_rate_is_the_lyapunov_exponent() -> None:
    lam = orbit_kind(*CHAOTIC_CASE, n_lyapunov=20000).lyapunov  # chaos: a 3000-step rate scatters around lambda
    rate = renormalised_separation_rate(*CHAOTIC_CASE, n=3000)
    assert abs(rate - lam) <= 4 * finite_time_exponent_se(*CHAOTIC_CASE, n=3000)
    lam = orbit_kind(*TWO_CYCLE_CASE, n_lyapunov=20000).lyapunov  # a stable cycle: no scatter
    assert abs(renormalised_separation_rate(*TWO_CYCLE_CASE, n=3000) - lam) <= 1e-6 * abs(lam)


def test_high_precision_control_two_cycle_contracts() -> None:
    k = orbit_kind(*TWO_CYCLE_CASE)
    res = separation_test(*TWO_CYCLE_CASE, n_pairs=2, n=200, dps=60)
    assert np.all(res.growth_steps == -1)
    assert np.allclose(res.final_rate, k.lyapunov, rtol=1e-3)


def test_mp_orbit_matches_float64_orbit_on_a_stable_cycle() -> None:
    z_mp = np.array([float(z) for z in mp_logit_orbit(*TWO_CYCLE_CASE, n=300, dps=30)])
    z64 = iterate_logit(*TWO_CYCLE_CASE, n=300)
    assert np.allclose(z_mp, z64, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(
    ("func", "args", "kwargs", "match"),
    [
        (bifurcation_diagram, (0.0, [1.0, 2.0], 1e-5), {}, "p_ref"),
        (bifurcation_diagram, (1e-3, [1.0, 2.0], -1.0), {}, "eps"),
        (bifurcation_diagram, (1e-3, [2.0, 1.0], 1e-5), {}, "beta"),
        (bifurcation_diagram, (1e-3, [0.0, 1.0], 1e-5), {}, "beta"),
        (bifurcation_diagram, (1e-3, [[1.0, 2.0]], 1e-5), {}, "beta"),
        (bifurcation_diagram, ([1e-3, 1e-2], [1.0, 2.0], 1e-5), {}, "p_ref"),
        (superstable_betas, (0.6, 1e-5), {}, "p_ref"),
        (superstable_betas, (np.nan, 1e-5), {}, "p_ref"),
        (superstable_betas, (1e-3, 1e-5, 0), {}, "n_doublings"),
        (critical_orbit_logit, (1e-3, -2.0, 1e-5), {"n": 3}, "beta"),
        (critical_orbit_logit, (1e-3, 2.0, 1e-5), {"n": -1}, "n"),
        (doubling_betas, (1e-3, 1e-5, [1.0, 2.0]), {}, "superstable"),
        (doubling_betas, (1e-2, 1e-5, [0.435]), {}, "superstable"),
        (feigenbaum_ratios, ([1.0, 2.0],), {}, "betas"),
        (feigenbaum_ratios, ([1.0, 3.0, 2.0],), {}, "monotone"),
        (separation_test, (1e-4, 5.2, 1e-5), {"delta0": 0.1}, "delta0"),
        (separation_test, (1e-4, 5.2, 1e-5), {"delta0": 1e-50, "dps": 40}, "delta0"),
        (separation_test, (1e-4, 5.2, 1e-5), {"threshold": 2.0}, "threshold"),
        (separation_test, (1e-4, 0.0, 1e-5), {}, "beta"),
        (separation_test, (1e-4, 5.2, 1e-5), {"dps": 5}, "dps"),
        (mp_lyapunov, (1e-4, 5.2, -1.0), {}, "eps"),
        (renormalised_separation_rate, (1e-4, 5.2, 1e-5), {"renormalise_at": 0.5}, "renormalise_at"),
        (renormalised_separation_rate, (1e-4, 5.2, 1e-5), {"delta0": 1.0}, "delta0"),
        (renormalised_separation_rate, (1e-4, 5.2, 1e-5), {"n": 0}, "n"),
        (mp_logit_orbit, (1.0, 5.2, 1e-5), {"n": 3}, "p_ref"),
        (mp_logit_orbit, (0.1, [5.2, 1.0], 1e-5), {"n": 3}, "beta"),
    ],
)
def test_bad_input_raises(func, args, kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        func(*args, **kwargs)


def test_chaotic_band_is_classified_chaotic_not_cycle() -> None:
    beta = np.linspace(5.19, 5.21, 5)
    s = classify_orbits(1e-4, beta, 1e-5)
    assert np.all((s.kind == OrbitClass.CHAOTIC) | (s.period >= 1))
    assert np.all(s.lyapunov[s.kind == OrbitClass.CHAOTIC] > 0)


def test_widget_draws_without_error() -> None:
    import matplotlib

    matplotlib.use("Agg")
    from grpo_nb.widgets.bifurcation import bifurcation_explorer

    w = bifurcation_explorer(n_beta=40).widget
    w.f(**w.kwargs)  # interact swallows exceptions outside IPython: call the drawing function directly
    w.f(log10_p_ref=-0.31, eps=1e-2)


def test_accumulation_point_sums_the_geometric_tail() -> None:
    delta = FEIGENBAUM_DELTA
    gaps = 1.0 / delta ** np.arange(12)  # an exactly geometric cascade from 10 down
    b = 10.0 - np.concatenate([[0.0], np.cumsum(gaps)])
    limit = 10.0 - 1.0 / (1.0 - 1.0 / delta)
    assert accumulation_point(b[:5]) == pytest.approx(limit, rel=1e-12)
    assert accumulation_point(-b[:5]) == pytest.approx(-limit, rel=1e-12)  # increasing sequences too


@pytest.mark.parametrize("betas", [[1.0], [3.0, 2.0, 2.5], [3.0, float("nan")], [[3.0, 2.0]]])
def test_accumulation_point_bad_input(betas) -> None:
    with pytest.raises(ValueError, match="betas="):
        accumulation_point(betas)
