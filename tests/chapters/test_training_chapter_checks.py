"""Checks of the training chapters (GRPO iterations, parametric GRPO), each with a negative test that feeds a wrong
formula or a wrong claim and sees the verdict fail."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from scipy.special import softmax

from grpo_nb.chapters import parametric_grpo
from grpo_nb.chapters.grpo_iterations import clip_ratios, expected_group_gradient
from grpo_nb.chapters.parametric_grpo import propagate, run_summary, segment_slope_bound, summary_table, timing_table
from grpo_nb.dynamics import attractor, h, h_prime, iterate, orbit_kind
from grpo_nb.tabular.algorithm1 import algorithm1, grpo_surrogate, make_task, sample_counts, sample_outcomes
from grpo_nb.toylm.configs import CYCLING
from grpo_nb.toylm.task import make_task as make_digit_task
from grpo_nb.ustat.finite_group import signal_retention
from grpo_nb.weights import stabilised_advantage

EPS = 1e-5


def test_expected_group_gradient_is_the_signal_retention():
    grad = expected_group_gradient((0.05, 0.5, 0.97), (2, 5, 40), EPS)
    want = np.array([[signal_retention(p, G, EPS) for G in (2, 5, 40)] for p in (0.05, 0.5, 0.97)])
    assert np.abs(grad.ratio - want).max() < 1e-12
    assert grad.residual < 1e-12 and (grad.ratio < 1).all()
    assert len(grad.table.rows) == 3


def _sampled_mean_gradient(p: float, G: int, n_groups: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Monte Carlo: the G-sample objective's gradient at theta_old averaged over n_groups groups (mean, se, exact)."""
    task = make_task(np.array([p]), n_outcomes=8, seed=0)  # the prompt of expected_group_gradient
    logits, reward = np.repeat(task.ref_logits, n_groups, axis=0), np.repeat(task.reward, n_groups, axis=0)
    counts = sample_counts(sample_outcomes(logits, G, np.random.default_rng(seed)), 8)
    k = np.sum(counts * reward, axis=1, keepdims=True)
    adv = stabilised_advantage(reward, k / G, EPS)
    outcomes = np.broadcast_to(np.arange(8), logits.shape)
    _, grads = grpo_surrogate(logits, logits, logits, outcomes=outcomes, weights=counts / G, advantages=adv, beta=0.0)
    exact_adv = stabilised_advantage(task.reward, np.full((1, 1), p), EPS)
    one = task.ref_logits
    _, exact = grpo_surrogate(
        one, one, one, outcomes=outcomes[:1], weights=softmax(one, axis=-1), advantages=exact_adv, beta=0.0
    )
    return grads.mean(axis=0), grads.std(axis=0) / np.sqrt(n_groups), exact[0]


def test_expected_group_gradient_against_sampled_groups_and_the_unbiased_claim_fails():
    p, G = 0.9, 8
    grad = expected_group_gradient((p,), (G,), EPS)
    mean, se, exact = _sampled_mean_gradient(p, G, 40_000)
    big = np.abs(exact) > 0.2 * np.abs(exact).max()
    assert (np.abs(mean - grad.ratio[0, 0] * exact)[big] < 4 * se[big]).all()  # the exact sum over k agrees
    assert (np.abs(mean - exact)[big] > 10 * se[big]).any()  # the "unbiased update" formula is rejected


def test_clip_ratios_cross_the_band_only_with_many_inner_steps():
    task = make_task(np.array([0.1, 0.9]), n_outcomes=8, seed=0)
    long = algorithm1(task, beta=1.0, eps=EPS, mu=1000, lr=0.5, n=1, exact=True, clip_eps=0.2)
    facts = clip_ratios(long, task, EPS, clip_eps=0.2)
    assert facts.beyond.any() and facts.ratio.max() > 1.3
    short = algorithm1(task, beta=1.0, eps=EPS, mu=1, lr=0.05, n=1, exact=True, clip_eps=0.2)
    small = clip_ratios(short, task, EPS, clip_eps=0.2)
    assert not small.beyond.any()  # the chapter's "past the band" verdict fails on a run that did not get there
    assert np.allclose(facts.ratio, long.policies[1] / long.policies[0]) and len(facts.table.rows) == 2


def _perturbed_cycle(p_ref: float, beta: float, eps: float, kick: float, n: int = 8) -> np.ndarray:
    """The recursion from p_ref with one error: p~_2 = p_2 (1 + kick) at the cycle's low point, exact afterwards."""
    p = iterate(p_ref, beta, eps, n).copy()
    p[2] *= 1 + kick
    for k in range(3, n + 1):
        p[k] = h(p[k - 1], p_ref, beta, eps)
    return p[:, None]


def test_propagation_bound_holds_and_fails_with_a_wrong_slope(monkeypatch):
    p_ref, beta = 1e-3, 5.0
    assert orbit_kind(p_ref, beta, EPS).period == 2
    traj = _perturbed_cycle(p_ref, beta, EPS, 0.05)
    prop = propagate(traj, beta, EPS)
    assert prop.bound_holds
    assert prop.step_error[3:].max() < 1e-12 and prop.gap[3] > 10 * prop.gap[2]  # one error, multiplied by |h'|
    assert (prop.gap > prop.theorem5 + 1e-12).any()  # Theorem 5 with the step errors as delta_n fails here
    monkeypatch.setattr(parametric_grpo, "h_prime", lambda p, *args: 0.1 * np.asarray(h_prime(p, *args)))
    assert not propagate(traj, beta, EPS).bound_holds


def test_propagation_on_the_recursion_itself_has_no_error():
    traj = iterate(np.array([0.2, 0.6]), 2.0, 0.01, 6)
    prop = propagate(traj, 2.0, 0.01)
    assert np.abs(prop.gap).max() < 1e-12 and np.abs(prop.step_error).max() < 1e-12


def test_segment_slope_bound_is_at_least_both_endpoints():
    a, b = np.array([0.002, 0.3]), np.array([0.08, 0.31])
    bound = segment_slope_bound(a, b, 1e-3, 5.0, EPS)
    ends = np.maximum(np.abs(h_prime(a, 1e-3, 5.0, EPS)), np.abs(h_prime(b, 1e-3, 5.0, EPS)))
    assert (bound >= ends).all()


@pytest.mark.parametrize("bad", [np.zeros(3), np.zeros((1, 2)), np.full((3, 2), 1.5)])
def test_propagate_rejects_bad_input(bad):
    with pytest.raises(ValueError):
        propagate(bad, 5.0, EPS)


def test_cycling_config_has_a_hard_prompt_in_a_two_cycle_regime():
    assert CYCLING.grpo.eps == 1e-5 and CYCLING.grpo.beta == 5.0 and CYCLING.grpo.estimator == "exact"
    task = make_digit_task(CYCLING.task)
    assert "0+0=" in task.prompts_text and len(task.outputs) == 1000
    cycle = attractor(1e-3, CYCLING.grpo.beta, CYCLING.grpo.eps)  # one right answer in 1000
    assert len(cycle) == 2 and max(cycle) < 0.5


def _run(label: str, p_tilde: np.ndarray, p_theory: np.ndarray) -> SimpleNamespace:
    """A stand-in for a toy-LM run record: what the chapter's summaries read."""
    gap = np.abs(p_tilde - p_theory)
    one_step = np.full((p_tilde.shape[0] - 1, p_tilde.shape[1]), 0.01)
    times = {"wall_s": 2.0, "step_s": [0.5, 0.7], "rollout_tokens_per_s": None}
    return SimpleNamespace(label=label, p_tilde=p_tilde, p_theory=p_theory, gap=gap, one_step_tv=one_step,
                           tv_to_ideal=gap + 0.01, **times)  # fmt: skip


def test_run_summary_and_its_tables():
    p_theory = np.array([[0.2, 0.6], [0.5, 0.9]])
    run = _run("main", p_theory + np.array([[0.0, 0.0], [0.1, -0.05]]), p_theory)
    s = run_summary(run)
    assert s.mean_p_ref == pytest.approx(0.4) and s.mean_p_tilde == pytest.approx(0.725)
    assert s.mean_p_theory == pytest.approx(0.7) and s.max_gap == pytest.approx(0.1)
    assert s.median_max_gap == pytest.approx(0.075) and s.median_one_step_tv == pytest.approx(0.01)
    table = summary_table({"main": run}, ["mean_p_ref", "max_gap"])
    assert table.headers == ["run", "mean p_ref", "max gap"] and table.rows == [["main", s.mean_p_ref, s.max_gap]]
    assert timing_table({"main": run}).rows == [["main", "2.0", "0.600", ""]]
    with pytest.raises(ValueError, match="columns"):
        summary_table({"main": run}, ["mean p_ref"])  # a column's label is not its name
