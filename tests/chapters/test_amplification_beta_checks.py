"""Tests of the amplification chapter's beta sections (:mod:`grpo_nb.chapters.amplification`): Theorem 4's hypothesis
against amplification, Remark 2's per-prompt and uniform bounds, and the practical betas. Each check is also fed a
wrong formula or a wrong condition (the module-level name it reads, replaced), and must then fail. The prompt-free
bound itself is a formula of :mod:`grpo_nb.dynamics.paper_bounds`, tested in tests/unit/test_regimes.py."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from grpo_nb.chapters import amplification as amp
from grpo_nb.dynamics.paper_bounds import prompt_free_beta_bound
from grpo_nb.dynamics.regimes import Regime

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
    monkeypatch.setattr(amp, "contraction_on_ball", lambda *args, **kwargs: 0.5)  # L = 1/2 at every stable fixed point
    assert not amp.theorem4_hypothesis_grid(P4, B4, 1e-5).banach_ok
    assert not amp.hypothesis_table([0.9, 1e-4], np.logspace(-2, 2, 21), 1e-5).implies


def test_hypothesis_table_and_bad_input():
    hyp = amp.hypothesis_table([0.9, 1e-4], np.logspace(-2, 2, 21), 1e-5)
    assert hyp.implies and hyp.banach_ok and len(hyp.table.rows) == 2 and hyp.holds.shape == hyp.converges.shape
    assert hyp.fails_but_converges == int((~hyp.holds & hyp.converges).sum())
    assert amp._runs(np.array([True, True, False, True]), np.arange(4.0)) == "[0, 1], [3, 3]"
    with pytest.raises(ValueError, match="beta"):
        amp.theorem4_hypothesis_grid(0.5, -1.0, 1e-5)
    assert amp.contraction_on_ball(0.6, 0.5, 1.0, 0.0) > 0  # eps = 0 leaves out p = 0 and 1


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
    monkeypatch.setattr(amp, "k3", lambda logp, logp_ref: logp - logp_ref)  # k1 in place of k3: no longer its gradient
    g = amp.kl_penalty_gradients(np.array([0.0, 1.0, -1.0]), np.array([1.0, 0.0, 0.5]))
    assert not np.allclose(g.k3_loss, g.kl_reverse, atol=1e-4)
