"""The analyses of "GRPO iterations" (:mod:`grpo_nb.chapters.grpo_iterations`), each with a negative test that
feeds a wrong formula or the claim the page replaced and sees the verdict fail."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import softmax

from grpo_nb.chapters import grpo_iterations
from grpo_nb.chapters.grpo_iterations import clip_ratios, expected_group_gradient, mean_one_step_gap, one_step_gaps
from grpo_nb.dynamics import h
from grpo_nb.tabular.algorithm1 import (
    algorithm1,
    grpo_surrogate,
    make_task,
    sample_counts,
    sample_outcomes,
)
from grpo_nb.ustat.finite_group import signal_retention
from grpo_nb.weights import stabilised_advantage

EPS = 1e-5


def _symmetry_verdict(sym: grpo_iterations.RetentionSymmetry) -> None:
    """The asserts of the cell on the symmetry of the signal retention (GRPO iterations)."""
    assert sym.asymmetry < 1e-12
    r8, none8 = sym.retention[:, 1], sym.no_signal[:, 1]
    assert [round(100 * x) for x in r8] == [26, 70, 90, 92, 70, 26] and [round(100 * x) for x in none8[:2]] == [92, 43]


PS, GROUPS = (0.01, 0.1, 0.3, 0.6, 0.9, 0.99), (2, 8, 64, 512)


def test_signal_retention_is_symmetric_in_p_and_one_minus_p():
    sym = grpo_iterations.retention_symmetry(PS, GROUPS, EPS)
    _symmetry_verdict(sym)
    assert sym.retention[1, 1] == pytest.approx(sym.retention[4, 1], abs=1e-12)  # p = 0.1 and p = 0.9 alike


def test_symmetry_verdict_fails_on_a_one_sided_explanation(monkeypatch):
    # "near p = 1 the groups are all right": a retention that loses only the all-right groups is one-sided
    monkeypatch.setattr(grpo_iterations, "signal_retention", lambda p, G, eps: 1 - p**G)
    with pytest.raises(AssertionError):
        _symmetry_verdict(grpo_iterations.retention_symmetry(PS, GROUPS, EPS))


def test_the_largest_inner_loop_gap_is_the_hard_prompts_first_step():
    p_ref = np.array([0.1, 0.3, 0.6, 0.9])
    run = algorithm1(make_task(p_ref, n_outcomes=8, seed=0), beta=1.0, eps=EPS, mu=1000, lr=0.5, n=2, exact=True)
    gap = np.abs(run.p_true[1:] - h(run.p_true[:-1], p_ref, 1.0, EPS)).max(axis=0)
    assert gap.argmax() == 0  # the hard prompt, p_ref = 0.1
    assert gap[2:].max() < gap[0]  # the former "the gap comes from the nearly solved prompts" fails


def test_one_step_gaps_shrink_with_inner_steps_and_grow_with_a_wrong_p_ref():
    p_ref = np.array([0.2, 0.7])
    task = make_task(p_ref, n_outcomes=6, seed=0)
    runs = [algorithm1(task, beta=1.0, eps=1e-5, mu=mu, lr=0.5, n=3, exact=True) for mu in (10, 300)]
    few, many = (one_step_gaps(r, task, p_ref, 1.0, 1e-5) for r in runs)
    assert many.p_gap < few.p_gap and many.tv < few.tv and many.p_gap < 5e-3  # the chapter's tolerance
    assert mean_one_step_gap(runs[1], p_ref[::-1], 1.0, 1e-5) > 10 * mean_one_step_gap(runs[1], p_ref, 1.0, 1e-5)


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
