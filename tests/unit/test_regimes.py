"""Tests of grpo_nb.dynamics.regimes (regime map over (beta, p_ref)) and grpo_nb.dynamics.paper_bounds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, logit

from grpo_nb.dynamics.fixed_points import fixed_points, fixed_points_grid
from grpo_nb.dynamics.map import iterate_logit
from grpo_nb.dynamics.paper_bounds import (
    amplification_gap,
    prompt_free_beta_bound,
    theorem3_condition,
    theorem3_condition2_log_margin,
    theorem4_beta_bound,
    theorem4_beta_bound_logit,
)
from grpo_nb.dynamics.regimes import Regime, regime_map

SETTINGS = settings(deadline=None, max_examples=40)


@pytest.fixture(scope="module")
def small_map():
    beta = np.logspace(-2, 1.5, 24)[None, :]
    p_ref = np.logspace(-4, np.log10(0.99), 24)[:, None]
    return regime_map(p_ref, beta, 1e-5)


def test_known_points_get_the_expected_regime() -> None:
    r = regime_map(np.array([0.001, 0.5, 0.3]), np.array([5.0, 1.0, 1000.0]), np.array([1e-5, 1e-5, 1e-5])[0])
    assert r.regime[0] == Regime.CYCLE and r.period[0] >= 2
    assert r.regime[1] == Regime.NEAR_ONE and r.period[1] == 1
    assert r.regime[2] == Regime.INTERIOR
    assert r.stable_elsewhere[0] and not r.no_stable[0]  # the top fixed point is stable but not reached


def test_converged_orbits_sit_on_a_found_fixed_point(small_map) -> None:
    r = small_map
    conv = (r.regime == Regime.INTERIOR) | (r.regime == Regime.NEAR_ONE)
    assert conv.any() and (r.matched_index[conv] >= 0).all()
    z = np.take_along_axis(r.fixed_point_logits, r.matched_index[..., None].clip(0), axis=-1)[..., 0]
    assert np.allclose(z[conv], r.limit_logit[conv], rtol=1e-6)
    # a reached fixed point is not repelling
    slope = np.take_along_axis(r.fixed_point_slopes, r.matched_index[..., None].clip(0), axis=-1)[..., 0]
    assert (np.abs(slope[conv]) <= 1 + 1e-6).all()


def test_cycles_are_real_cycles(small_map) -> None:
    r = small_map
    idx = np.argwhere((r.regime == Regime.CYCLE) & (r.period > 1))
    assert len(idx) > 0
    for i, j in idx[:10]:
        k = int(r.period[i, j])
        z = iterate_logit(r.p_ref[i, j], r.beta[i, j], 1e-5, n=8000)[-4 * k :]
        assert np.allclose(z[k:], z[:-k], rtol=1e-6, atol=1e-6)
        assert not np.allclose(z[1:], z[:-1], rtol=1e-6, atol=1e-6)


def test_flags_are_consistent(small_map) -> None:
    r = small_map
    assert not (r.no_stable & r.stable_elsewhere).any()
    assert not (r.no_stable & ((r.regime == Regime.INTERIOR) | (r.regime == Regime.NEAR_ONE))).any()
    has_stable = ~r.no_stable
    nonconv = (r.regime == Regime.CYCLE) | (r.regime == Regime.CHAOTIC)
    assert (r.stable_elsewhere[has_stable & nonconv]).all()
    assert sum(r.counts()[name] for name in ("interior fixed point", "fixed point next to 1", "cycle", "chaotic")) == (
        r.regime.size
    )


def test_eps_zero_escape_is_next_to_one() -> None:
    r = regime_map(0.5, 0.01, 0.0)  # no fixed point at all with eps = 0: the orbit runs to p = 1
    assert r.regime == Regime.NEAR_ONE and r.n_fixed_points == 0 and np.isposinf(r.limit_logit)


@pytest.mark.parametrize(
    ("args", "name"),
    [
        ((0.0, 1.0, 1e-5), "p_ref"),
        ((0.5, -1.0, 1e-5), "beta"),
        ((0.5, 1.0, -1e-5), "eps"),
        ((0.5, 1.0, [1e-5, 1e-3]), "eps"),
        ((float("nan"), 1.0, 1e-5), "p_ref"),
    ],
)
def test_regime_map_bad_input(args: tuple, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        regime_map(*args)
    with pytest.raises(ValueError, match="match_rtol"):
        regime_map(0.5, 1.0, 1e-5, match_rtol=2.0)


# ----- paper bounds -----

p_refs = st.floats(-9.0, 9.0).map(lambda x: float(1.0 / (1.0 + np.exp(-2.3 * x))))
log_beta = st.floats(-3.0, 3.0).map(lambda x: 10.0**x)
epss = st.one_of(st.just(0.0), st.floats(-12.0, 0.0).map(lambda x: 10.0**x))


def test_amplification_holds_on_a_dense_grid_where_condition2_fails() -> None:
    p_ref = np.linspace(0.5005, 1 - 1e-6, 80)[:, None, None]
    beta = np.logspace(-3, 3, 80)[None, :, None]
    eps = np.array([0.0, 1e-8, 1e-5, 1e-2, 1.0])[None, None, :]
    fails = ~theorem3_condition(p_ref, beta, eps)
    assert fails.sum() > 100
    gap = amplification_gap(p_ref, beta, eps)
    lower = 1.0 / (np.broadcast_to(beta, gap.shape) * np.sqrt(0.25 + np.broadcast_to(eps, gap.shape)))
    ok = ~np.isnan(gap)
    assert (gap[ok] >= lower[ok] * (1 - 1e-9)).all() and (gap[ok] > 0).all()


@SETTINGS
@given(p_ref=p_refs, beta=log_beta, eps=epss)
def test_theorem4_bound_over_beta_is_the_slope(p_ref: float, beta: float, eps: float) -> None:
    for fp in fixed_points(p_ref, beta, eps):
        bound = float(theorem4_beta_bound_logit(fp.logit, eps))
        assert bound / beta == pytest.approx(abs(fp.slope), rel=1e-9, abs=1e-300)
        assert (beta > bound) == fp.stable or abs(abs(fp.slope) - 1) < 1e-9
        if 1e-6 < fp.p < 1 - 1e-6:
            assert float(theorem4_beta_bound(fp.p, eps)) == pytest.approx(bound, rel=1e-6)


def test_condition2_matches_direct_formula_where_it_does_not_overflow() -> None:
    p_ref = np.linspace(0.51, 0.999, 50)[:, None]
    beta = np.logspace(-1, 2, 50)[None, :]
    eps = 1e-3
    lhs = beta * np.cosh(1 / (2 * beta * np.sqrt(0.25 + eps))) ** 2
    rhs = p_ref * (1 - p_ref) * (2 * p_ref - 1) / (2 * (p_ref * (1 - p_ref) + eps) ** 1.5)
    np.testing.assert_allclose(theorem3_condition2_log_margin(p_ref, beta, eps), np.log(lhs / rhs), rtol=1e-10)
    assert (theorem3_condition(p_ref, beta, eps) == (lhs >= rhs)).all()
    assert theorem3_condition(np.linspace(0.01, 0.5, 9), 1e3, 1e-5).all()  # case (1)
    with np.errstate(over="raise", invalid="raise"):
        assert np.isfinite(theorem3_condition2_log_margin(0.9, 1e-3, 0.0))


def test_paper_bounds_bad_input() -> None:
    with pytest.raises(ValueError, match="p_ref"):
        theorem3_condition(1.0, 1.0, 1e-5)
    with pytest.raises(ValueError, match="beta"):
        amplification_gap(0.5, 0.0, 1e-5)
    with pytest.raises(ValueError, match="eps"):
        theorem4_beta_bound(0.5, -1.0)
    with pytest.raises(ValueError, match="p_star"):
        theorem4_beta_bound(1.5, 1e-5)
    with pytest.raises(ValueError, match="p_star"):
        theorem4_beta_bound(1.0, 0.0)
    with pytest.raises(ValueError, match="z_star"):
        theorem4_beta_bound_logit(float("nan"), 1e-5)
    with pytest.raises(ValueError, match="eps"):
        prompt_free_beta_bound(-1.0)


@pytest.mark.parametrize("eps", [1e-8, 1e-5, 1e-2, 0.2])
def test_the_prompt_free_bound_is_above_theorem4s_bound_at_every_p(eps: float) -> None:
    """Remark 2: B(p) < 1/(3^{3/2} sqrt(eps)) for every p, and the bound is nearly reached when eps is small; a wrong
    bound (eps -> 2 eps in the variance term) is beaten by B somewhere."""
    p = expit(np.linspace(-30, 0, 200001))  # B(p) = B(1 - p); its peak sits near p(1 - p) = 2 eps
    peak = float(theorem4_beta_bound(p, eps).max())
    assert peak < prompt_free_beta_bound(eps)
    if eps <= 1e-5:
        assert peak > 0.99 * prompt_free_beta_bound(eps) and peak > prompt_free_beta_bound(2 * eps)
    assert prompt_free_beta_bound(0.0) == np.inf


def test_gap_is_the_lowest_fixed_point() -> None:
    grid = fixed_points_grid(0.001, 5.0, 1e-5)
    assert amplification_gap(0.001, 5.0, 1e-5) == pytest.approx(grid.logits[0] - logit(0.001))


def test_figure_functions_draw_without_error() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    from grpo_nb.widgets import dynamics as wd

    for fig in (
        wd.draw_fig2((0.1,), (1.0,), 1e-5),
        wd.draw_fig2((0.3,), (2.0,), 0.0),
        wd.draw_fig3(1e-5, 21, 21),
        wd.draw_fig4((1e-5,)),
        wd.draw_fig5(((0.001, 5.0),), 1e-5, 10),
        wd.draw_cobweb(0.001, 5.0, 1e-5, n=20),
        wd.draw_regime_maps((1e-5,), n_beta=8, n_p=8),
    ):
        assert isinstance(fig, Figure) and fig.axes
        fig.canvas.draw()
        plt.close(fig)
