"""Tests of grpo_nb.chapters.group_size, the group-size chapter's analyses (Part 1 in ``u_statistic``, Part 2 in
``finite_groups``): each passes on the right formulas and fails when a wrong one is fed in (monkeypatched into the
module the check calls), and the chapter's figures draw from their results."""

from __future__ import annotations

from dataclasses import replace

import matplotlib
import numpy as np
from scipy.special import expit

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from grpo_nb.chapters import group_size as checks  # noqa: E402
from grpo_nb.chapters.group_size import finite_groups, u_statistic  # noqa: E402
from grpo_nb.dynamics.map import iterate  # noqa: E402
from grpo_nb.plots import ustat as figs  # noqa: E402
from grpo_nb.tabular.algorithm1 import algorithm1, make_task  # noqa: E402
from grpo_nb.ustat import estimators as est  # noqa: E402
from grpo_nb.ustat import finite_group as fg  # noqa: E402
from grpo_nb.ustat import moments  # noqa: E402
from grpo_nb.ustat.scaling import ScalingFit  # noqa: E402

LOGITS = np.array([0.3, -1.2, 0.8, 0.1, -0.4])
REWARD = np.array([1.0, 0.0, 0.0, 1.0, 0.0])


def _draws(fig) -> None:
    assert fig.axes
    plt.close(fig)


# ------------------------------------------------------------------ Part 1: the gradient as a U-statistic


def test_the_chapter_bandits_and_the_gradient_check() -> None:
    bandits = checks.bandits()
    assert list(bandits) == ["V = 0.2", "V = 0.5", "V = 0.85"]
    for label, (logits, reward) in bandits.items():
        v = float(np.exp(logits) @ reward / np.exp(logits).sum())
        assert abs(v - float(label[4:])) < 1e-12 and reward.sum() == 2
        assert checks.gradient_check(logits, reward) < 1e-8
    assert checks.gradient_check(LOGITS, REWARD) < 1e-8
    assert checks.gradient_check(LOGITS, REWARD[::-1]) < 1e-8  # any reward
    assert checks.gradient_check(LOGITS, REWARD, step=1.0) > 1e-4  # too coarse a difference is told apart


def test_lemma1_check_fails_on_a_wrong_kernel(monkeypatch) -> None:
    lemma = checks.lemma1_check((LOGITS, REWARD), groups=(3, 5), n_groups=50)
    assert lemma.worst < 1e-12 and len(lemma.table.rows) == 2
    monkeypatch.setattr(
        u_statistic, "pairwise_kernel_average", lambda lg, rw, o: 2 * est.pairwise_kernel_average(lg, rw, o)
    )
    assert checks.lemma1_check((LOGITS, REWARD), groups=(3, 5), n_groups=50).worst > 1e-3


def test_exact_routes_fail_on_a_wrong_estimator(monkeypatch) -> None:
    small = checks.bandits((0.3,), n_answers=3, n_correct=1)["V = 0.3"]
    assert checks.exact_routes(small, (2, 3)).worst < 1e-10
    monkeypatch.setattr(
        u_statistic,
        "enumerate_moments",
        lambda lg, rw, G, *, estimator: moments.enumerate_moments(lg, rw, G, estimator="vanilla"),
    )
    assert checks.exact_routes(small, (2, 3)).worst > 0.01


def test_mse_curves_order_and_their_checks_fail_on_doctored_curves() -> None:
    bandits = {k: v for k, v in checks.bandits().items() if k != "V = 0.5"}  # the chapter's weak and strong bandits
    curves = checks.mse_curves(bandits, (2, 4, 16, 64), n_groups=4000, seed=0)
    assert curves.worst_z() < 4.5
    assert curves.ordering_from("V = 0.85") == 2 and curves.ordering_from("V = 0.2") == 4
    ratio = curves.grpo_over_oracle("V = 0.2")
    assert np.all(np.diff(ratio) < 0) and ratio[-1] < 1.03
    doctored = replace(curves, exact={k: 1.2 * v for k, v in curves.exact.items()})
    assert doctored.worst_z() > 10
    swapped = dict(curves.exact)
    swapped["V = 0.85", "grpo"] = curves.exact["V = 0.85", "vanilla"] * 1.01
    assert replace(curves, exact=swapped).ordering_from("V = 0.85") is None  # a wrong MSE breaks the ordering
    fit = checks.theorem2_fit(curves, "V = 0.2", bandits["V = 0.2"])
    assert abs(fit.z_leading) < 4 and abs(fit.z_residual) < 4
    wrong = checks.theorem2_fit(curves, "V = 0.2", bandits["V = 0.85"])  # constants of another bandit
    assert max(abs(wrong.z_leading), abs(wrong.z_residual)) > 4
    _draws(figs.plot_mse_curves(curves.groups, curves.mc, curves.half_width, exact=curves.exact))


def test_budget_table_reads_the_scaling_fit() -> None:
    fit = ScalingFit(8, np.array([2, 4]), np.array([1.0, 2.0]), np.array([0.5, 0.5]), np.array([1.5, 2.0]), None, None)
    table = checks.budget_table(fit)
    assert table.column("B = N/G") == ["4", "2"] and table.column("|MC − exact| / half-width") == [1.0, 0.0]


def test_optimal_group_size_grows_for_hard_prompts() -> None:
    scan = checks.difficulty_scan((0.3, 0.03, 0.003), n_prompts=6)
    assert np.all(np.diff(scan.optimal_group_size) > 0) and len(scan.table.rows) == 3


def test_normalisation_table_reads_the_delta_method_constants() -> None:
    bandits = checks.bandits()
    norm = checks.normalisation_table(bandits, (2, 8, 1024))
    assert list(norm.bias) == list(bandits) and len(norm.table.rows) == 9
    for label, (logits, reward) in bandits.items():
        assert (norm.std_limit[label], norm.u_limit[label]) == moments.normalised_leading_constants(logits, reward)
        assert abs(norm.g_mse[label][-1] / norm.std_limit[label] - 1) < 0.01
        assert norm.bias[label][0] > norm.bias[label][-1]


# ------------------------------------------------------------------ Part 2: finite groups in the dynamics


def test_step_factor_check_and_its_negative(monkeypatch) -> None:
    bandits = checks.bandits((0.3, 0.7))
    step = checks.step_factor_check(bandits, (2, 5))
    assert step.worst < 1e-12
    assert np.allclose(step.factor["grpo", 5], 1.0) and np.allclose(step.factor["grpo_full_mean", 5], 4 / 5)
    monkeypatch.setattr(finite_groups, "expected_step_factor", lambda p, G, e: 1.0)
    assert checks.step_factor_check(bandits, (2, 5)).worst > 1e-3


def test_retention_table_is_the_signal_retention() -> None:
    retained = checks.retention_table((0.01, 0.5), (2, 8), eps=1e-5)
    assert retained.rho.shape == (2, 2) and retained.rho[1, 1] == fg.signal_retention(0.5, 8, 1e-5)


def test_replay_is_exact_and_fails_for_a_wrong_inner_loop() -> None:
    assert checks.replay_check((0.1, 0.6), beta=1.0, eps=1e-5, G=6, mu=15, lr=0.5, n=5, seed=3) < 1e-12
    task = make_task(np.array([0.3]), n_outcomes=2, seed=0)
    run = algorithm1(task, beta=1.0, eps=1e-5, G=6, mu=15, lr=0.5, n=3, seed=3)
    wrong = fg.StepModel(0.3, 1.0, 1e-5, 6, rule="inner_loop", mu=15, lr=0.25)
    z = [wrong.a]
    for k in np.rint(run.p_hat[:, 0] * 6).astype(int):
        z.append(float(fg.step_logits(wrong, z[-1], k)))
    assert np.abs(expit(np.array(z)) - run.p_true[:, 0]).max() > 1e-3


def test_a_wrong_rule_is_told_apart_from_algorithm1_runs() -> None:
    cmp = checks.trajectory_comparison(0.1, 1.0, 1e-5, groups=(4,), mu=20, lr=0.5, n=5, n_seeds=800, seed=1)
    assert np.abs(cmp.z_scores(4)).max() < 4.5 and 0.65 < cmp.band_coverage(4) < 0.95
    plug = fg.finite_group_law(fg.StepModel(0.1, 1.0, 1e-5, 4, rule="plug_in"), 5)
    assert np.abs(replace(cmp, laws={4: plug}).z_scores(4)).max() > 5


def test_iterations_gap_is_predicted_by_the_law() -> None:
    gap = checks.iterations_gap((0.3, 0.9), beta=1.0, eps=1e-5, G=8, mu=20, lr=0.5, n=6, book_seeds=20, n_seeds=400)
    assert np.all(np.abs(gap.book - gap.law) < 3 * gap.book_se)
    assert np.all(np.abs(gap.book - gap.h) > 4 * gap.book_se)
    assert np.all(np.abs(gap.two - gap.law) < 4 * gap.two_se)


def test_zero_variance_study_orders_the_rules() -> None:
    zv = checks.zero_variance_study(0.01, 1.0, 1e-5, G=8, mu=20, lr=0.5, n=6, n_seeds=400, seed=0)
    final = {rule: law.mean[-1] for rule, law in zv.law.items()}
    assert final["resample"] > final["drop"] > final["keep"]
    assert all(np.abs(z).max() < 4.5 for z in zv.z.values())
    assert set(zv.solved) == set(zv.runs) == {"keep", "drop", "resample"}


def test_bursts_of_a_hard_prompt_with_groups_of_16() -> None:
    bursts = checks.burst_statistics(1e-3, 5.0, 1e-5, groups=(16,), n=100, n_chains=100, seed=0)
    assert bursts.at_ref[16] > 0.95 and bursts.alternating[16] < 0.05
    assert bursts.path[16].shape == (80,) and len(bursts.table.rows) == 2


def test_toy_lm_gap_summary_on_synthetic_runs() -> None:
    p_ref = np.array([0.2, 0.5, 0.8])
    faithful = np.vstack([fg.finite_group_law(fg.StepModel(p, 2.0, 0.01, 16), 4).mean for p in p_ref]).T
    gap = checks.toy_lm_gap(p_ref, faithful, beta=2.0, eps=0.01, G=16)
    assert np.allclose(gap.law, gap.measured) and len(gap.table.rows) == 5
    assert np.allclose(gap.h, iterate(p_ref, 2.0, 0.01, 4).mean(axis=1))
    assert gap.late_law == gap.late_measured


def test_the_chapter_figures_draw_from_the_results() -> None:
    cmp = checks.trajectory_comparison(0.2, 1.0, 1e-5, groups=(2, 8), mu=5, lr=0.5, n=3, n_seeds=50)
    p = np.geomspace(1e-3, 0.99, 20)
    maps = checks.expected_map_curves(0.2, 1.0, 1e-5, groups=(2, 8), p=p)
    zv = checks.zero_variance_study(0.05, 1.0, 1e-5, G=4, mu=5, lr=0.5, n=3, n_seeds=50)
    bursts = checks.burst_statistics(1e-3, 5.0, 1e-5, groups=(16,), n=30, n_chains=5, transient=5, n_shown=20)
    keep, _ = fg.expected_map_orbits(1e-3, np.array([5.0, 9.0]), 1e-5, G=16, transient=50, n_keep=4)
    for fig in (
        figs.plot_chain_comparison(cmp.laws, cmp.runs, cmp.recursion),
        figs.plot_expected_maps(p, maps, {"G = 2": fg.signal_retention(p, 2, 1e-5)}),
        figs.plot_zero_variance(zv.law, zv.solved, zv.runs, recursion=iterate(0.05, 1.0, 1e-5, 3)),
        figs.plot_hard_prompt_finite_group(np.array([5.0, 9.0]), {"H_16": keep}, {"G = 16": bursts.path[16]}),
    ):
        _draws(fig)
