"""Tests of the math behind the amplification chapter's beta sections: Theorem 4's hypothesis against amplification,
Remark 2's per-prompt and uniform bounds, and the practical betas. Each check is also fed a wrong formula or a wrong
condition, and must then fail. (Condition (2)'s small-beta growth and its prompt-free end are chapter analyses,
:mod:`grpo_nb.chapters.amplification`: their tests are in tests/chapters/test_chapter_checks.py.)"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from grpo_nb.dynamics import practical_beta as pb
from grpo_nb.dynamics import theorem4_hypothesis as t4h
from grpo_nb.dynamics import uniform_beta as ub
from grpo_nb.dynamics.regimes import Regime

P4 = np.array([0.9, 0.3, 0.01, 1e-4])[:, None]
B4 = np.logspace(-2, 2, 41)[None, :]


def test_theorem4_hypothesis_implies_banach_and_the_margin_is_two_over_beta():
    hyp = t4h.theorem4_hypothesis_grid(P4, B4, 1e-5)
    assert hyp.banach_ok and np.nanmin(hyp.gap_ratio) >= 1 - 1e-12
    assert hyp.holds_somewhere[:, 0].all() and not hyp.holds_somewhere[3, 20:].any()
    # the claim "at least 2/beta" without the sqrt(1 + 4 eps) fails at eps = 1 near p* = 1/2
    wide = t4h.theorem4_hypothesis_grid(expit(np.linspace(-3, 0, 30))[:, None], B4, 1.0)
    assert np.nanmin(wide.gap_ratio) / np.sqrt(5) < 1


def test_a_condition_that_ignores_the_gap_breaks_banach():
    ignores_gap = t4h.theorem4_hypothesis_grid(P4, B4, 1e-5, condition=lambda *args: 0.5)
    assert not ignores_gap.banach_ok


def test_hypothesis_table_and_bad_input():
    table, v = t4h.hypothesis_table([0.9, 1e-4], np.logspace(-2, 2, 21), 1e-5)
    assert v["implies"] and v["banach_ok"] and len(table.rows) == 2
    assert t4h._runs(np.array([True, True, False, True]), np.arange(4.0)) == "[0, 1], [3, 3]"
    with pytest.raises(ValueError, match="beta"):
        t4h.theorem4_hypothesis_grid(0.5, -1.0, 1e-5)
    assert t4h.contraction_on_ball(0.6, 0.5, 1.0, 0.0) > 0  # eps = 0 leaves out p = 0 and 1


def test_uniform_beta_is_below_the_prompt_free_bound_and_close_to_it():
    prompts, betas = np.logspace(-9, np.log10(0.5), 40), np.logspace(-2, 3, 301)
    bounds = ub.per_prompt_bounds(prompts, betas, 1e-5)
    cap = ub.prompt_free_bound(1e-5)
    assert bounds.one_interval.all() and (bounds.beta_q < cap).all() and bounds.uniform > 0.95 * cap
    assert bounds.uniform == bounds.beta_q.max() and len(bounds.table(every=10).rows) == 4
    # a wrong prompt-free bound (eps -> 2 eps in the variance term) is beaten by some prompt
    assert bounds.uniform > ub.prompt_free_bound(2e-5)
    assert ub.prompt_free_bound(0.0) == np.inf
    no_eps = ub.per_prompt_bounds(prompts, betas, 0.0)
    assert (np.diff(no_eps.beta_q) <= 0).all() and no_eps.beta_q[0] > 10 * no_eps.beta_q[-10]


def test_uniform_beta_bad_input():
    with pytest.raises(ValueError, match="betas"):
        ub.per_prompt_bounds([0.1], [2.0, 1.0], 1e-5)
    with pytest.raises(ValueError, match="eps"):
        ub.prompt_free_bound(-1.0)
    with pytest.raises(ValueError, match="p_ref"):
        ub.per_prompt_bounds([1.5], [1.0], 1e-5)


def test_practical_betas_saturate_every_prompt():
    table, maps = pb.practice_regime_table([0.9, 1e-4], [0.04, 0.001], [0.0, 1e-5])
    assert all((rm.regime == Regime.NEAR_ONE).all() for rm in maps.values()) and all(r[5] for r in table.rows)
    assert {beta for _, beta in pb.PRACTICE_BETAS} == {0.04, 0.001, 0.0}


def test_small_beta_limit_and_its_bad_input():
    lim = pb.small_beta_limit(0.3, [1e-1, 1e-2, 1e-3], 1e-5)
    assert lim.first_gain_ok and np.allclose(lim.limit_rate, 1 / np.sqrt(1e-5), rtol=1e-3)
    assert np.allclose(lim.first_gain_rate, 1 / np.sqrt(0.21 + 1e-5))
    with pytest.raises(ValueError, match="eps"):
        pb.small_beta_limit(0.3, [0.1], 0.0)


def test_k3_gradient_is_the_reverse_kl_gradient_and_the_ratio_fixes_it():
    rng = np.random.default_rng(0)
    g = pb.kl_penalty_gradients(rng.normal(size=5), rng.normal(size=5))
    assert g.k3_mean_error < 1e-12
    assert np.allclose(g.k3_loss, g.kl_reverse, atol=1e-8) and not np.allclose(g.k3_loss, g.kl_forward, atol=1e-2)
    assert np.allclose(g.k3_ratio_loss, g.kl_forward, atol=1e-8)
    with pytest.raises(ValueError, match="logits_ref"):
        pb.kl_penalty_gradients([0.0, 1.0], [0.0, 1.0, 2.0])


def test_negative_checks_of_the_beta_sections():
    _, maps = pb.practice_regime_table([1e-3], [5.0], [1e-5])  # beta = 5 is no practical beta: the orbit cycles
    assert maps[1e-5].regime[0, 0] == Regime.CYCLE
    lim = pb.small_beta_limit(0.3, [1e-1, 1e-2], 1e-5)
    assert not (lim.first_gain_rate >= 4 / np.sqrt(1 + 4e-5)).any()  # a first gain of 4/beta is not guaranteed
