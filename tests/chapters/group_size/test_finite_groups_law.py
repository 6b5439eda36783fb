"""Tests of grpo_nb.chapters.group_size.finite_groups_law, the sections "The expected step of a finite group", "The
finite-group recursion on a two-answer prompt" and "The law against Algorithm 1 runs" of the group-size chapter: each
analysis passes on the right formulas and on the claim the page makes, and fails when a wrong one is fed in
(monkeypatched into the module the check calls) or on the statement the page replaced; Part 2's figures draw from
the results of its analyses."""

from __future__ import annotations

from dataclasses import replace

import matplotlib
import numpy as np

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from scipy.special import expit  # noqa: E402

from grpo_nb.chapters import group_size as checks  # noqa: E402
from grpo_nb.chapters.group_size import finite_groups_law  # noqa: E402
from grpo_nb.dynamics.map import iterate  # noqa: E402
from grpo_nb.plots import ustat as figs  # noqa: E402
from grpo_nb.tabular.algorithm1 import algorithm1, make_task  # noqa: E402
from grpo_nb.ustat import finite_group as fg  # noqa: E402


def _draws(fig) -> None:
    assert fig.axes
    plt.close(fig)


# ------------------------------------------------------------------ the expected step of a finite group


def test_step_factor_check_and_its_negative(monkeypatch) -> None:
    bandits = checks.bandits((0.3, 0.7))
    step = checks.step_factor_check(bandits, (2, 5))
    assert step.worst < 1e-12
    assert np.allclose(step.factor["grpo", 5], 1.0) and np.allclose(step.factor["grpo_full_mean", 5], 4 / 5)
    monkeypatch.setattr(finite_groups_law, "expected_step_factor", lambda p, G, e: 1.0)
    assert checks.step_factor_check(bandits, (2, 5)).worst > 1e-3


def test_retention_table_is_the_signal_retention() -> None:
    retained = checks.retention_table((0.01, 0.5), (2, 8), eps=1e-5)
    assert retained.rho.shape == (2, 2) and retained.rho[1, 1] == fg.signal_retention(0.5, 8, 1e-5)


# ------------------------------------------------------------------ the finite-group recursion on a two-answer prompt


def test_replay_is_exact_and_fails_for_a_wrong_inner_loop() -> None:
    assert checks.replay_check((0.1, 0.6), beta=1.0, eps=1e-5, G=6, mu=15, lr=0.5, n=5, seed=3) < 1e-12
    task = make_task(np.array([0.3]), n_outcomes=2, seed=0)
    run = algorithm1(task, beta=1.0, eps=1e-5, G=6, mu=15, lr=0.5, n=3, seed=3)
    wrong = fg.StepModel(0.3, 1.0, 1e-5, 6, rule="inner_loop", mu=15, lr=0.25)
    z = [wrong.a]
    for k in np.rint(run.p_hat[:, 0] * 6).astype(int):
        z.append(float(fg.step_logits(wrong, z[-1], k)))
    assert np.abs(expit(np.array(z)) - run.p_true[:, 0]).max() > 1e-3


# ------------------------------------------------------------------ the law against Algorithm 1 runs


def test_a_wrong_rule_is_told_apart_from_algorithm1_runs() -> None:
    cmp = checks.trajectory_comparison(0.1, 1.0, 1e-5, groups=(4,), mu=20, lr=0.5, n=5, n_seeds=800, seed=1)
    assert np.abs(cmp.z_scores(4)).max() < 4.5 and 0.65 < cmp.band_coverage(4) < 0.95
    plug = fg.finite_group_law(fg.StepModel(0.1, 1.0, 1e-5, 4, rule="plug_in"), 5)
    assert np.abs(replace(cmp, laws={4: plug}).z_scores(4)).max() > 5


def test_g64_is_within_0_01_of_the_recursion_from_n2_but_lags_at_n1() -> None:
    cmp = checks.trajectory_comparison(0.1, 1.0, 1e-5, groups=(64,), mu=20, lr=0.5, n=8, n_seeds=2, seed=0)
    lag = np.abs(cmp.laws[64].mean - cmp.recursion)
    assert lag[2:].max() < 0.01 < lag[1] < 0.05  # the page's check
    assert not lag.max() < 0.01  # the old "within 0.01" (at every iteration) fails at n = 1


# ------------------------------------------------------------------ Part 2's figures


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
