"""grpo_nb.dynamics.cycle_geometry: the no-cycle threshold p_c, the flip points, and where cycles lie."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit, logit

from grpo_nb.dynamics import cycle_geometry as cg
from grpo_nb.dynamics.fixed_points import fixed_points
from grpo_nb.dynamics.map import logit_map, logit_map_slope


def test_threshold_is_where_g0_vanishes_and_below_one_half() -> None:
    beta, eps = np.geomspace(1e-1, 1e3, 7)[:, None], np.array([0.0, 1e-5, 1e-2, 1.0])[None, :]
    p_c = cg.no_cycle_threshold(beta, eps)
    assert np.all(p_c < 0.5)
    assert np.allclose(logit_map(0.0, logit(p_c), beta, eps), 0.0, atol=1e-12)


def test_flip_interval_gives_slope_minus_one_at_the_fixed_point() -> None:
    lo, up = cg.flip_interval(5.0, 1e-5)
    for p in (lo, up):
        fp = [f for f in fixed_points(p, 5.0, 1e-5) if f.logit < 0]
        assert len(fp) == 1 and abs(fp[0].slope + 1) < 1e-6
    assert 1e-3 < up < 2e-3  # the paper's p_ref = 1e-3 cycles at beta = 5: just below the flip point
    assert np.isnan(cg.flip_interval(100.0, 1e-5)[1])  # |g'| < 1 everywhere: no flip at all
    assert cg.flip_interval(1.0, 0.0)[0] == 0.0  # eps = 0: the slope stays below -1 down to z = -inf
    assert float(logit_map_slope(-40.0, 1.0, 0.0)) < -1


def test_limit_cycles_find_the_papers_two_cycle_and_reject_eps_zero() -> None:
    lc = cg.limit_cycles(1e-3, 5.0, 1e-5)
    assert lc.period[:2].tolist() == [2, 2]  # from p_ref and from z = 0
    assert set(lc.period.tolist()) == {1, 2}  # starts high in the interval reach the fixed point near p = 1
    assert np.all(expit(lc.window[lc.period == 2].max(axis=1)) < 0.5)  # the paper's cycle lies below 1/2
    with pytest.raises(ValueError, match="eps"):
        cg.limit_cycles(1e-3, 5.0, 0.0)


def test_survey_counts_and_its_negative() -> None:
    s = cg.cycle_location_survey(np.geomspace(1e-6, 0.3, 8)[:, None], np.geomspace(0.3, 30, 8)[None, :], 1e-5)
    assert s.n_cycles > 0 and s.n_straddle == s.n_cycles and s.n_long_cross == s.n_long
    assert s.periods_below_half.tolist() in ([2], [])
    # negative: on p_ref >= p_c nothing cycles, so the survey reports no cycles at all
    none = cg.cycle_location_survey(0.45, np.geomspace(0.3, 30, 8), 1e-5)
    assert none.n_cycles == 0


def test_threshold_survey_small_grid() -> None:
    t = cg.threshold_survey([0.2, 2.0], [1e-5])
    assert t.cycles_above == 0 and t.non_monotone_above == 0 and t.cycles_between == 0
    assert t.two_cycles_below == t.n_below == 2
    assert abs(t.gap_ratio[0, 0] - 1) < 0.02 and t.gap_ratio[0, 1] < t.gap_ratio[0, 0]  # leading order as beta -> 0
    with pytest.raises(ValueError, match="eps"):
        cg.threshold_survey([1.0], [0.0])
    with pytest.raises(ValueError, match="beta"):
        cg.no_cycle_threshold(-1.0, 1e-5)
