"""Tests of the amplification chapter's analyses (:mod:`grpo_nb.chapters.amplification`), and of the introduction's
reading of one exact step, that can fail: Theorem 3 on Theorem 1's closed-form policies (not the logit map), Theorem
4's hypothesis against amplification, Remark 2's per-prompt and uniform bounds, the practical betas, the first exact
step at practical beta and the vacuity of Theorem 5's bound there, and the introduction's reading of one exact step as
KL-regularised reward maximisation at beta sqrt(V(p)). Each check is shown to pass on the book's statement and to fail
when fed the wrong one: a wrong formula or a wrong condition monkeypatched into the section module whose name the
analysis reads. The prompt-free bound itself is a formula of :mod:`grpo_nb.dynamics.paper_bounds`, tested in
tests/unit/test_regimes.py."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit, logit

from grpo_nb import dynamics
from grpo_nb.chapters import amplification as amp
from grpo_nb.chapters.amplification import beta_in_practice, local_convergence, theorem3, theorem4_hypothesis
from grpo_nb.dynamics.paper_bounds import prompt_free_beta_bound
from grpo_nb.dynamics.regimes import Regime, regime_grid, regime_map
from grpo_nb.dynamics.uniform_beta import safe_betas
from grpo_nb.tabular import expected_reward, grpo_step, solve_grpo_step
from tests.book_layout import BOOK, chapter_text

# ---- Section "Amplification (Theorem 3)" -----------------------------------------------------------------------------


BETAS = np.logspace(-2, 2, 5)


def test_theorem3_on_closed_form_policies():
    t = amp.theorem3_tabular(BETAS, [1e-5, 1e-2], n=3)
    assert t.above_ref and t.margin_ok and 1 <= t.min_ratio < 1.01 and t.failing_condition2 > 0
    assert len(t.table.rows) == theorem3.TABULAR_SPACES


def test_theorem3_tabular_fails_on_a_wrong_step(monkeypatch):
    real = theorem3.grpo_step
    monkeypatch.setattr(theorem3, "grpo_step", lambda pi_ref, pi, r, beta, eps: real(pi_ref, pi, r, 2 * beta, eps))
    doubled = amp.theorem3_tabular(BETAS, [1e-5], n=3)  # half the tilt: the margin is missed
    assert doubled.above_ref and not doubled.margin_ok

    def flipped(pi_ref, pi, r, beta, eps):  # the advantage's sign flipped: pi_ref^2 / pi_n, normalised
        q = pi_ref**2 / real(pi_ref, pi, r, beta, eps)
        return q / q.sum()

    monkeypatch.setattr(theorem3, "grpo_step", flipped)
    assert not amp.theorem3_tabular([1.0, 10.0, 100.0], [1e-5], n=2).above_ref  # beta >= 1: no underflow


def test_theorem3_tabular_bad_input():
    with pytest.raises(ValueError, match="eps"):
        amp.theorem3_tabular(BETAS, [0.0])
    with pytest.raises(ValueError, match="beta"):
        amp.theorem3_tabular([-1.0], [1e-5])


# ---- Section "Theorem 4's hypothesis against amplification" ----------------------------------------------------------


P4 = np.array([0.9, 0.3, 0.01, 1e-4])[:, None]
B4 = np.logspace(-2, 2, 41)[None, :]


def test_theorem4_hypothesis_implies_banach_and_the_margin_is_two_over_beta():
    hyp = amp.theorem4_hypothesis_grid(P4, B4, 1e-5)
    assert hyp.banach_ok and np.nanmin(hyp.gap_ratio) >= 1 - 1e-12
    assert hyp.holds_somewhere[:, 0].all() and not hyp.holds_somewhere[3, 20:].any()
    # the claim "at least 2/beta" without the sqrt(1 + 4 eps) fails at eps = 1 near p* = 1/2
    wide = amp.theorem4_hypothesis_grid(expit(np.linspace(-3, 0, 30))[:, None], B4, 1.0)
    assert np.nanmin(wide.gap_ratio) / np.sqrt(5) < 1


def test_a_condition_that_ignores_the_gap_breaks_banach(monkeypatch):
    # L = 1/2 at every stable fixed point
    monkeypatch.setattr(theorem4_hypothesis, "contraction_on_ball", lambda *args, **kwargs: 0.5)
    assert not amp.theorem4_hypothesis_grid(P4, B4, 1e-5).banach_ok
    assert not amp.hypothesis_table([0.9, 1e-4], np.logspace(-2, 2, 21), 1e-5).implies


def test_hypothesis_table_and_bad_input():
    hyp = amp.hypothesis_table([0.9, 1e-4], np.logspace(-2, 2, 21), 1e-5)
    assert hyp.implies and hyp.banach_ok and len(hyp.table.rows) == 2 and hyp.holds.shape == hyp.converges.shape
    assert hyp.fails_but_converges == int((~hyp.holds & hyp.converges).sum())
    assert theorem4_hypothesis._runs(np.array([True, True, False, True]), np.arange(4.0)) == "[0, 1], [3, 3]"
    with pytest.raises(ValueError, match="beta"):
        amp.theorem4_hypothesis_grid(0.5, -1.0, 1e-5)
    assert amp.contraction_on_ball(0.6, 0.5, 1.0, 0.0) > 0  # eps = 0 leaves out p = 0 and 1


# ---- Section "Remark 2: one β for all prompts" -----------------------------------------------------------------------


def test_uniform_beta_is_below_the_prompt_free_bound_and_close_to_it():
    prompts, betas = np.logspace(-9, np.log10(0.5), 40), np.logspace(-2, 3, 301)
    bounds = amp.per_prompt_bounds(prompts, betas, 1e-5)
    cap = prompt_free_beta_bound(1e-5)
    assert bounds.one_interval.all() and (bounds.beta_q < cap).all() and bounds.uniform > 0.95 * cap
    assert bounds.uniform == bounds.beta_q.max() and len(bounds.table(every=10).rows) == 4
    # a wrong prompt-free bound (eps -> 2 eps in the variance term) is beaten by some prompt
    assert bounds.uniform > prompt_free_beta_bound(2e-5)
    no_eps = amp.per_prompt_bounds(prompts, betas, 0.0)
    assert (np.diff(no_eps.beta_q) <= 0).all() and no_eps.beta_q[0] > 10 * no_eps.beta_q[-10]


def test_uniform_beta_report_is_exact_where_the_grid_is_not():
    prompts, betas = np.logspace(-12, np.log10(0.5), 40), np.logspace(-2, 3, 301)  # a coarser grid than the page's
    report = amp.uniform_beta_report(prompts, betas, 1e-5)
    assert len(report.safe.unsafe) == 1 and report.upper == report.supremum.beta
    # the grid's largest beta_q (and its prompt's exact one) fall below the supremum; the supremum's prompt reaches it
    assert report.grid.uniform < report.grid_worst_exact < report.upper
    assert abs(report.supremum_prompt_exact / report.upper - 1) < 1e-6
    # the hardest prompt is unstable just above the interval's start, and no grid prompt is unstable below it
    assert abs(report.hardest_slope_above) > 1 and np.nanmin(report.grid.beta_from) > report.lower
    # the old reading, "one beta for all prompts needs beta near the largest per-prompt bound", is false
    assert report.lower < 0.1 < report.grid.uniform and "exactly when" in report.verdict()
    with pytest.raises(ValueError, match="p_lo"):
        amp.uniform_beta_report(prompts, betas, 1e-5, p_lo=0.6)


def test_uniform_beta_bad_input():
    with pytest.raises(ValueError, match="betas"):
        amp.per_prompt_bounds([0.1], [2.0, 1.0], 1e-5)
    with pytest.raises(ValueError, match="p_ref"):
        amp.per_prompt_bounds([1.5], [1.0], 1e-5)


def test_the_safe_betas_the_page_states_are_safe():
    """The page says every beta <= 0.07295 and every beta >= 60.856 is safe at eps = 1e-5; the rounded 0.0730 it said
    before lies inside the unsafe interval."""
    from grpo_nb.dynamics.uniform_beta import safe_betas

    ((lo, hi),) = safe_betas(1e-5).unsafe
    assert 0.07295 < lo < 0.0730 < hi < 60.856
    text = chapter_text("amplification")
    assert "every $\\beta \\le 0.07295$ and every $\\beta \\ge 60.856$" in text and "\\beta \\le 0.0730$" not in text


# ---- Section "What β means in practice" ------------------------------------------------------------------------------


def test_practical_betas_saturate_every_prompt():
    practice = amp.practice_regime_table([0.9, 1e-4], [0.04, 0.001], [0.0, 1e-5])
    assert all((rm.regime == Regime.NEAR_ONE).all() for rm in practice.maps.values())
    assert practice.saturated and practice.gain_above_margin
    assert all(practice.table.column("saturated after one step"))
    assert {beta for _, beta in amp.PRACTICE_BETAS} == {0.04, 0.001, 0.0}


def test_small_beta_limit_and_its_bad_input():
    lim = amp.small_beta_limit(0.3, [1e-1, 1e-2, 1e-3], 1e-5)
    assert lim.first_gain_ok and np.allclose(lim.limit_rate, 1 / np.sqrt(1e-5), rtol=1e-3)
    assert np.allclose(lim.first_gain_rate, 1 / np.sqrt(0.21 + 1e-5))
    with pytest.raises(ValueError, match="eps"):
        amp.small_beta_limit(0.3, [0.1], 0.0)


def test_k3_gradient_is_the_reverse_kl_gradient_and_the_ratio_fixes_it():
    rng = np.random.default_rng(0)
    g = amp.kl_penalty_gradients(rng.normal(size=5), rng.normal(size=5))
    assert g.k3_mean_error < 1e-12
    assert np.allclose(g.k3_loss, g.kl_reverse, atol=1e-8) and not np.allclose(g.k3_loss, g.kl_forward, atol=1e-2)
    assert np.allclose(g.k3_ratio_loss, g.kl_forward, atol=1e-8)
    with pytest.raises(ValueError, match="logits_ref"):
        amp.kl_penalty_gradients([0.0, 1.0], [0.0, 1.0, 2.0])


def test_negative_checks_of_the_beta_sections(monkeypatch):
    cycling = amp.practice_regime_table([1e-3], [5.0], [1e-5])  # beta = 5 is no practical beta: the orbit cycles
    assert cycling.maps[1e-5].regime[0, 0] == Regime.CYCLE and not cycling.saturated
    lim = amp.small_beta_limit(0.3, [1e-1, 1e-2], 1e-5)
    assert not (lim.first_gain_rate >= 4 / np.sqrt(1 + 4e-5)).any()  # a first gain of 4/beta is not guaranteed
    # k1 in place of k3: no longer its gradient
    monkeypatch.setattr(beta_in_practice, "k3", lambda logp, logp_ref: logp - logp_ref)
    g = amp.kl_penalty_gradients(np.array([0.0, 1.0, -1.0]), np.array([1.0, 0.0, 0.5]))
    assert not np.allclose(g.k3_loss, g.kl_reverse, atol=1e-4)


def _theorem5_cell_holds(f: amp.FirstStep) -> bool:
    """The page's asserts on Theorem 5's floor at practical beta, as written there."""
    paper, binary = (f.theorem5_floor(0.5, constant=c) for c in (2, 1))
    return f.max_log_miss < -40 and paper[1] < 2 * np.exp(-40) and binary[1] < np.exp(-40)


def test_first_step_saturates_and_theorem5_has_a_floor_at_practical_beta():
    for beta in (0.04, 0.001):
        f = amp.first_step(beta, 1e-5)
        assert f.saturated and f.min_gain_over_margin >= 1 - 1e-12 and _theorem5_cell_holds(f)
        paper, binary = (f.theorem5_floor(0.5, constant=c) for c in (2, 1))
        assert paper[0] == 1.0 and binary[0] == 0.5  # 2 (1 - 1/2) and 1 (1 - 1/2): the leads of the two floors
    assert not amp.first_step(0.04, 1e-2).saturated  # "every prompt" needs a small eps
    lead, deficit = amp.first_step(1.0, 1e-5).theorem5_floor(0.5, constant=2)
    assert lead - deficit <= 0  # at beta = 1 no floor holds across the prompts: the bound keeps its content


def test_theorem5_floor_is_not_vacuous_with_the_constant_1():
    # the former wording, "vacuous", read with the constant 1 of a 0/1 reward: that floor stays near 1/2, below the
    # trivial bound 1, so only the paper's constant 2 makes the bound vacuous
    f = amp.first_step(0.04, 1e-5)
    lead, deficit = f.theorem5_floor(0.5, constant=1)
    assert 0.49 < lead - deficit < 0.51
    lead, deficit = f.theorem5_floor(0.25, constant=2)  # a trained success rate of 1/4: the floor passes 1
    assert lead - deficit > 1


def test_theorem5_check_fails_when_the_step_ignores_beta(monkeypatch):
    """The old sentence: the distance to the exact recursion does not depend on beta. A first step that ignores beta
    (always taken at beta = 1) makes the check fail."""
    real = beta_in_practice.gibbs_log_policy
    monkeypatch.setattr(beta_in_practice, "gibbs_log_policy", lambda lr, r, p, beta, eps: real(lr, r, p, 1.0, eps))
    f = amp.first_step(0.04, 1e-5)
    assert not _theorem5_cell_holds(f) and not f.saturated and f.min_gain_over_margin < 1


def test_theorem5_floor_bad_input():
    f = amp.first_step(0.04, 1e-5, n_grid=11)
    with pytest.raises(ValueError, match="^p_tilde="):
        f.theorem5_floor(1.0, constant=2)
    with pytest.raises(ValueError, match="^constant="):
        f.theorem5_floor(0.5, constant=3)


def test_practice_gain_is_checked_on_the_closed_form(monkeypatch):
    assert amp.practice_regime_table([0.3], [0.04], [1e-5]).gain_above_margin
    real = beta_in_practice.gibbs_log_policy
    monkeypatch.setattr(beta_in_practice, "gibbs_log_policy", lambda lr, r, p, beta, eps: real(lr, r, p, 2 * beta, eps))
    assert not amp.practice_regime_table([0.3], [0.04], [1e-5]).gain_above_margin


def test_first_step_bad_input():
    with pytest.raises(ValueError, match="eps"):
        amp.first_step(0.04, 0.0)
    with pytest.raises(ValueError, match="beta"):
        amp.first_step(-0.04, 1e-5)


# ---- The chapter's corrected sentences -------------------------------------------------------------------------------


def test_the_corrected_sentences():
    amplification, intro = chapter_text("amplification"), (BOOK / "intro.md").read_text()
    assert '"at least $2/\\beta$ in log-odds"' not in amplification  # a phrase quoted from nowhere
    assert "governed by the per-step\nerrors, not by $\\beta$" not in amplification and "vacuous" in amplification
    assert "this is no lower bound on $\\beta$" in amplification  # Fig. 4's caption
    assert "hold by construction" in amplification  # the logit-map survey is an illustration
    assert "effective coefficient $\\beta\\sqrt{V(p_{n-1})}$" in intro


# ---- The introduction: one exact step as KL-regularised reward maximisation ------------------------------------------


def _step_against_kl_optimum(effective: bool) -> float:
    """Largest gap between Theorem 1's step and the maximiser of E[r] - b KL(pi || pi_ref) on the introduction's
    random outcome spaces, with b = beta sqrt(V(p_prev)) (``effective``) or b = beta."""
    rng, worst = np.random.default_rng(1), 0.0
    for _ in range(20):
        pi_ref, pi_prev = rng.dirichlet(np.ones(8), size=2)
        reward = np.r_[1.0, 0.0, rng.random(6) < 0.5]
        beta, eps, p = rng.uniform(0.2, 5.0), 10 ** rng.uniform(-5, -1), expected_reward(pi_prev, reward)
        b = beta * np.sqrt(p * (1 - p) + eps) if effective else beta
        optimum = solve_grpo_step(pi_ref, pi_prev, reward, b, eps, normalization="mean")
        worst = max(worst, float(np.abs(grpo_step(pi_ref, pi_prev, reward, beta, eps) - optimum).max()))
    return worst


def test_intro_step_is_kl_regularised_at_the_effective_beta_not_at_beta():
    assert _step_against_kl_optimum(effective=True) < 1e-9
    assert _step_against_kl_optimum(effective=False) > 1e-3


def test_intro_fixed_point_is_the_optimum_at_beta_sqrt_v_of_p_star():
    reward, pi_ref = np.r_[1.0, 1.0, 0.0, 0.0, 0.0], np.r_[0.04, 0.06, 0.3, 0.3, 0.3]
    fps = dynamics.fixed_points(0.1, 1.0, 1e-5)
    for fp in fps:
        for b, ok in ((np.sqrt(fp.p * (1 - fp.p) + 1e-5), True), (1.0, False)):
            pi = solve_grpo_step(pi_ref, pi_ref, reward, b, 1e-5, normalization="mean")
            gap = abs(float(expected_reward(pi, reward)) - fp.p)
            assert (gap < 1e-9) == ok, (fp, b, gap)


# Tables and their verdicts (regions, orbits, regimes), each failed by a wrong formula.

P_REF = expit(np.linspace(-6, 6, 12))[:, None]
BETA = np.logspace(-1.5, 1.5, 12)[None, :]


def test_theorem3_survey_and_its_negative(monkeypatch):
    s = amp.theorem3_survey(P_REF, BETA, [0.0, 1e-5], n=10)
    assert all(s.gap_reaches_margin) and all(s.orbit_gaps_positive) and len(s.table.rows) == 2
    assert s.failing_with_fixed_point == [int(n) for n in s.table.column("…and a fixed point exists")]
    real = theorem3.amplification_gap
    monkeypatch.setattr(theorem3, "amplification_gap", lambda p, b, e: 0.5 * real(p, b, e))  # a gap half as large
    assert not all(amp.theorem3_survey(P_REF, BETA, [1e-5], n=10).gap_reaches_margin)


def test_theorem4_stability_check_and_its_negative(monkeypatch):
    c = amp.theorem4_stability_check(P_REF, BETA, 1e-5)
    assert c.max_relative_error < 1e-5 and c.bound_matches_stability
    assert all(v.count == v.as_predicted for v in c.moved.values())
    real = local_convergence.theorem4_beta_bound_logit
    # a misplaced factor 2
    monkeypatch.setattr(local_convergence, "theorem4_beta_bound_logit", lambda z, e: 2 * real(z, e))
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


def test_oscillating_orbits_stay_below_the_middle_fixed_point():
    rm = regime_map(*regime_grid(40, 40), 1e-5)
    missed = amp.missed_stable_points(rm, n=2000)
    assert missed.with_stable > 0 and missed.stable_is_top and missed.margin > 0 and missed.tail_gap > 1


def test_the_former_hatching_check_cannot_fail_and_the_new_one_can(monkeypatch):
    """With every orbit declared a cycle, the map's flags still pass the former assert (for an oscillating point
    "stable elsewhere" only says that a stable fixed point exists); the orbits themselves climb to the top one."""
    from grpo_nb.dynamics import orbits, regimes

    real = orbits.classify_orbits

    def all_cycles(*args, **kwargs):
        s = real(*args, **kwargs)
        return type(s)(
            **{**s.__dict__, "kind": np.full_like(s.kind, orbits.OrbitClass.CYCLE), "period": 2 + 0 * s.period}
        )

    monkeypatch.setattr(regimes, "classify_orbits", all_cycles)
    rm = regime_map(*regime_grid(20, 20), 1e-5)
    oscillating = (rm.regime == Regime.CYCLE) | (rm.regime == Regime.CHAOTIC)
    assert oscillating.all() and rm.stable_elsewhere[oscillating & ~rm.no_stable].all()  # the former assert holds
    missed = amp.missed_stable_points(rm, n=2000)
    assert missed.with_stable > 0 and missed.tail_gap < 1e-6  # the new one fails: those orbits reach a stable one
    assert not (missed.stable_is_top and missed.margin > 0)


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
    real = local_convergence.theorem4_beta_bound_logit
    monkeypatch.setattr(local_convergence, "theorem4_beta_bound_logit", lambda z, e: real(z, 2 * e))  # eps -> 2 eps
    assert amp.theorem4_stability_check(p_ref, beta, 1e-5).max_relative_error > 1e-2


def test_negative_checks_of_condition2_everywhere():
    e = amp.condition2_everywhere([1e-5]).by_eps[1e-5]
    assert e.rhs_max > 1 / (5.5 * np.sqrt(1e-5))  # a tighter claimed bound on the right-hand side is false
    assert e.lhs_min < e.rhs_max and not e.holds_everywhere  # so (2) fails somewhere at eps = 1e-5


def test_cycles_need_beta_1_to_20_only_on_the_regime_grid():
    # the former "cycles and chaos need beta of order 1 to 20" holds for p_ref >= 1e-4 (the map's grid) ...
    assert all(dynamics.orbit_kind(p, 30.0, 1e-5).kind == "fixed_point" for p in np.geomspace(1e-4, 0.999, 40))
    # ... but a harder prompt cycles at beta = 60, 1,500 times the practical 0.04, inside Remark 2's interval
    assert dynamics.orbit_kind(1e-6, 60.0, 1e-5).kind == "cycle"
    (unsafe,) = safe_betas(1e-5, p_lo=1e-12).unsafe
    assert 60.0 < unsafe[1] < 61 and unsafe[1] / 0.04 > 1500


def test_theorem3_with_a_numerical_maximiser_and_its_negative(monkeypatch):
    good = amp.theorem3_solver_check([1, 10, 100], 1e-5, n=2)
    assert good.above_ref and good.min_ratio >= 1 and good.max_gap_to_closed_form < 1e-13
    real = theorem3.solve_step
    monkeypatch.setattr(theorem3, "solve_step", lambda pr, pp, r, b, e: real(pr, pp, r, 2 * b, e))  # beta doubled
    wrong = amp.theorem3_solver_check([1, 10, 100], 1e-5, n=2)
    assert wrong.min_ratio < 1 and wrong.max_gap_to_closed_form > 1e-3
    assert good.min_ratio > wrong.min_ratio
