"""The amplification chapter's and the introduction's checks that can fail: Theorem 3 on Theorem 1's closed-form
policies (not the logit map), the first exact step at practical beta and the vacuity of Theorem 5's bound there, and
the introduction's reading of one exact step as KL-regularised reward maximisation at beta sqrt(V(p)). Each check is
shown to pass on the book's statement and to fail when fed the wrong one (monkeypatching the name the analysis
reads)."""

from __future__ import annotations

import numpy as np
import pytest

from grpo_nb import dynamics
from grpo_nb.chapters import amplification as amp
from grpo_nb.tabular import expected_reward, grpo_step, solve_grpo_step
from tests.book_layout import BOOK

BETAS = np.logspace(-2, 2, 5)


def test_theorem3_on_closed_form_policies():
    t = amp.theorem3_tabular(BETAS, [1e-5, 1e-2], n=3)
    assert t.above_ref and t.margin_ok and 1 <= t.min_ratio < 1.01 and t.failing_condition2 > 0
    assert len(t.table.rows) == amp.TABULAR_SPACES


def test_theorem3_tabular_fails_on_a_wrong_step(monkeypatch):
    real = amp.grpo_step
    monkeypatch.setattr(amp, "grpo_step", lambda pi_ref, pi, r, beta, eps: real(pi_ref, pi, r, 2 * beta, eps))
    doubled = amp.theorem3_tabular(BETAS, [1e-5], n=3)  # half the tilt: the margin is missed
    assert doubled.above_ref and not doubled.margin_ok

    def flipped(pi_ref, pi, r, beta, eps):  # the advantage's sign flipped: pi_ref^2 / pi_n, normalised
        q = pi_ref**2 / real(pi_ref, pi, r, beta, eps)
        return q / q.sum()

    monkeypatch.setattr(amp, "grpo_step", flipped)
    assert not amp.theorem3_tabular([1.0, 10.0, 100.0], [1e-5], n=2).above_ref  # beta >= 1: no underflow


def test_theorem3_tabular_bad_input():
    with pytest.raises(ValueError, match="eps"):
        amp.theorem3_tabular(BETAS, [0.0])
    with pytest.raises(ValueError, match="beta"):
        amp.theorem3_tabular([-1.0], [1e-5])


def test_first_step_saturates_and_theorem5_is_vacuous_at_practical_beta():
    for beta in (0.04, 0.001):
        f = amp.first_step(beta, 1e-5)
        assert f.saturated and f.min_gain_over_margin >= 1 - 1e-12 and f.theorem5_vacuous()
        assert f.max_log_miss < -40
    assert not amp.first_step(0.04, 1e-2).saturated  # "every prompt" needs a small eps
    assert not amp.first_step(1.0, 1e-5).theorem5_vacuous()  # at beta = 1 the bound keeps its content


def test_theorem5_check_fails_when_the_step_ignores_beta(monkeypatch):
    """The old sentence: the distance to the exact recursion does not depend on beta. A first step that ignores beta
    (always taken at beta = 1) makes the check fail."""
    real = amp.gibbs_log_policy
    monkeypatch.setattr(amp, "gibbs_log_policy", lambda lr, r, p, beta, eps: real(lr, r, p, 1.0, eps))
    f = amp.first_step(0.04, 1e-5)
    assert not f.theorem5_vacuous() and not f.saturated and f.min_gain_over_margin < 1


def test_practice_gain_is_checked_on_the_closed_form(monkeypatch):
    assert amp.practice_regime_table([0.3], [0.04], [1e-5]).gain_above_margin
    real = amp.gibbs_log_policy
    monkeypatch.setattr(amp, "gibbs_log_policy", lambda lr, r, p, beta, eps: real(lr, r, p, 2 * beta, eps))
    assert not amp.practice_regime_table([0.3], [0.04], [1e-5]).gain_above_margin


def test_first_step_bad_input():
    with pytest.raises(ValueError, match="eps"):
        amp.first_step(0.04, 0.0)
    with pytest.raises(ValueError, match="beta"):
        amp.first_step(-0.04, 1e-5)


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


def test_the_corrected_sentences():
    amplification, intro = (BOOK / "amplification.md").read_text(), (BOOK / "intro.md").read_text()
    assert '"at least $2/\\beta$ in log-odds"' not in amplification  # a phrase quoted from nowhere
    assert "governed by the per-step\nerrors, not by $\\beta$" not in amplification and "vacuous" in amplification
    assert "this is no lower bound on $\\beta$" in amplification  # Fig. 4's caption
    assert "hold by construction" in amplification  # the logit-map survey is an illustration
    assert "effective coefficient $\\beta\\sqrt{V(p_{n-1})}$" in intro


def test_the_safe_betas_the_page_states_are_safe():
    """The page says every beta <= 0.07295 and every beta >= 60.856 is safe at eps = 1e-5; the rounded 0.0730 it said
    before lies inside the unsafe interval."""
    from grpo_nb.dynamics.uniform_beta import safe_betas

    ((lo, hi),) = safe_betas(1e-5).unsafe
    assert 0.07295 < lo < 0.0730 < hi < 60.856
    text = (BOOK / "amplification.md").read_text()
    assert "every $\\beta \\le 0.07295$ and every $\\beta \\ge 60.856$" in text and "\\beta \\le 0.0730$" not in text
