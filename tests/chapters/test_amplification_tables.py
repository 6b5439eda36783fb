"""The amplification chapter's table-building checks (:mod:`grpo_nb.chapters.amplification`): each verdict holds on
the book's cases and fails when the formula behind it is wrong."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit, logit

from grpo_nb.chapters import amplification as amp
from grpo_nb.dynamics.regimes import Regime, regime_map

P_REF = expit(np.linspace(-6, 6, 12))[:, None]


BETA = np.logspace(-1.5, 1.5, 12)[None, :]


def test_theorem3_survey_and_its_negative(monkeypatch):
    s = amp.theorem3_survey(P_REF, BETA, [0.0, 1e-5], n=10)
    assert all(s.gap_reaches_margin) and all(s.orbit_gaps_positive) and len(s.table.rows) == 2
    assert s.failing_with_fixed_point == [int(n) for n in s.table.column("…and a fixed point exists")]
    real = amp.amplification_gap
    monkeypatch.setattr(amp, "amplification_gap", lambda p, b, e: 0.5 * real(p, b, e))  # a gap half as large
    assert not all(amp.theorem3_survey(P_REF, BETA, [1e-5], n=10).gap_reaches_margin)


def test_theorem4_stability_check_and_its_negative(monkeypatch):
    c = amp.theorem4_stability_check(P_REF, BETA, 1e-5)
    assert c.max_relative_error < 1e-5 and c.bound_matches_stability
    assert all(v.count == v.as_predicted for v in c.moved.values())
    real = amp.theorem4_beta_bound_logit
    monkeypatch.setattr(amp, "theorem4_beta_bound_logit", lambda z, e: 2 * real(z, e))  # a misplaced factor 2
    assert amp.theorem4_stability_check(P_REF, BETA, 1e-5).max_relative_error > 0.5


def test_beta_bound_peaks_match_the_small_eps_value():
    peaks = amp.beta_bound_peaks((1e-5, 1e-3))
    for f in peaks.peaks:
        assert f.at_half == 0 and abs(f.peak * np.sqrt(f.eps) * 3**1.5 - 1) < 0.05
    assert peaks.table.headers[0] == "ε" and len(peaks.table.rows) == 2
    assert [f.variance_at_peak for f in peaks.peaks] == peaks.table.column("p*(1−p*) at the peak")


def test_condition2_region_and_orbit_table():
    beta = np.logspace(-3, 3, 121)
    p = expit(np.linspace(0.0, logit(1 - 1e-9), 121))[1:]
    region = amp.condition2_failure_region(p, beta, [1e-5, 1e-2]).by_eps
    assert region[1e-5].n_failing > 0 and region[1e-2].n_failing == 0 and region[1e-2].beta_range is None
    orbits = amp.orbit_table([(0.001, 5.0), (0.5, 1.0)], 1e-5)
    assert all(orbits.consistent) and orbits.table.column("orbit") == ["cycle", "fixed_point"]
    assert [k.kind for k in orbits.kinds] == ["cycle", "fixed_point"]


def test_two_cycle_report_and_bad_input():
    c = amp.two_cycle_report(0.001, 5.0, 1e-5)
    assert c.swap_error < 1e-6 and -1 < c.multiplier < 1 and np.allclose(c.shrink, abs(c.multiplier), atol=1e-2)
    assert c.table.column("quantity")[0] == "cycle p values" and len(c.table.rows) == 6
    with pytest.raises(ValueError, match="not a 2-cycle"):
        amp.two_cycle_report(0.5, 1.0, 1e-5)


def test_regime_count_table_counts_every_grid_point():
    rm = regime_map(P_REF, BETA, 1e-5)
    row = amp.regime_count_table({1e-5: rm}).rows[0]
    assert sum(int(row[1 + r]) for r in Regime) == rm.regime.size


EPS = np.array([0.0, 1e-5, 1e-2, 1.0])


def test_cosh2_grows_with_the_derived_exponent_and_not_with_one():
    fit = amp.condition2_small_beta_growth(EPS, 1 / np.sqrt(0.25 + EPS))
    assert all(fit.matches) and np.allclose(fit.fitted, fit.claimed, rtol=1e-6)
    assert not any(amp.condition2_small_beta_growth(EPS, np.ones(4)).matches)  # the old e^{1/beta}
    assert not any(amp.condition2_small_beta_growth(EPS, 1.001 / np.sqrt(0.25 + EPS)).matches)  # off by 0.1 %
    with pytest.raises(ValueError, match="claimed"):
        amp.condition2_small_beta_growth(EPS, [2.0])


def test_condition2_everywhere_matches_the_failure_region():
    beta = np.logspace(-3, 3, 241)
    p = expit(np.linspace(0.0, 20.0, 241))[1:]
    region = amp.condition2_failure_region(p, beta, [1e-5, 1e-3, 1e-2]).by_eps
    ends = amp.condition2_everywhere([1e-5, 1e-3, 1e-2]).by_eps
    for eps, e in ends.items():
        assert e.rhs_max < e.cap and e.holds_everywhere == (e.lhs_min >= e.rhs_max)
        assert e.holds_everywhere == (region[eps].n_failing == 0)  # "holds everywhere" iff the grid sees no failure
        if region[eps].n_failing:
            assert region[eps].beta_range[1] < e.cap  # no failure above 1/(3^1.5 sqrt eps)


def test_theorem4_stability_check_fails_with_a_wrong_bound(monkeypatch):
    p_ref = expit(np.linspace(-6, 6, 10))[:, None]
    beta = np.logspace(-1.5, 1.5, 10)[None, :]
    c = amp.theorem4_stability_check(p_ref, beta, 1e-5)
    assert c.max_relative_error < 1e-5 and c.bound_matches_stability and c.n_fixed_points > 100
    real = amp.theorem4_beta_bound_logit
    monkeypatch.setattr(amp, "theorem4_beta_bound_logit", lambda z, e: real(z, 2 * e))  # eps -> 2 eps
    assert amp.theorem4_stability_check(p_ref, beta, 1e-5).max_relative_error > 1e-2


def test_negative_checks_of_condition2_everywhere():
    e = amp.condition2_everywhere([1e-5]).by_eps[1e-5]
    assert e.rhs_max > 1 / (5.5 * np.sqrt(1e-5))  # a tighter claimed bound on the right-hand side is false
    assert e.lhs_min < e.rhs_max and not e.holds_everywhere  # so (2) fails somewhere at eps = 1e-5
