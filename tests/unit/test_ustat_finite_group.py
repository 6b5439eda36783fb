"""Tests of grpo_nb.ustat.finite_group and its chapter checks: the finite-group step is tabular Algorithm 1 on a
two-answer prompt, its law (computed without sampling) matches seeded runs, dynamic sampling, robustness at the
edges of the parameter range, and bad input. Each check is shown to fail on a wrong model."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, logit

from grpo_nb.dynamics.map import h, iterate
from grpo_nb.tabular.algorithm1 import algorithm1, make_task
from grpo_nb.ustat import estimator_checks
from grpo_nb.ustat import finite_group as fg
from grpo_nb.ustat import finite_group_checks as dyn
from grpo_nb.ustat.estimators import limit_scale
from grpo_nb.ustat.moments import expected_step_factor


def test_tilt_with_exact_p_is_theorem2() -> None:
    """C(k) with p_hat = p_old gives logit h(p) - a = 1/sqrt(v + eps): Theorem 2 is the G -> infinity step."""
    for p in (0.125, 0.5, 0.875):
        G = 8
        k = int(p * G)
        model = fg.StepModel(0.2, 1.7, 1e-3, G)
        assert fg.step_logits(model, logit(p), k) == pytest.approx(float(logit(h(p, 0.2, 1.7, 1e-3))), rel=1e-12)
    assert fg.group_tilt(0.3, np.array([0, 8]), 8, 1e-5).tolist() == [0.0, 0.0]  # no signal, no tilt


@settings(deadline=None, max_examples=30)
@given(p=st.floats(1e-4, 1 - 1e-4), G=st.integers(2, 80), eps=st.sampled_from([1e-5, 1e-3, 0.1]))
def test_signal_retention_is_the_step_factor_of_the_paper_advantage(p: float, G: int, eps: float) -> None:
    rho = fg.signal_retention(p, G, eps)
    assert 0 < rho <= 1 + 1e-12
    if eps == 1e-5:  # grpo_paper's fixed smoothing
        assert rho == pytest.approx(expected_step_factor(p, G, "grpo_paper") / limit_scale("grpo_paper", p), rel=1e-10)


def test_signal_retention_of_a_hard_prompt_is_sqrt_g_minus_1_p() -> None:
    for G in (2, 8, 32):
        assert fg.signal_retention(1e-4, G, 1e-9) == pytest.approx(np.sqrt((G - 1) * 1e-4), rel=0.02)  # eps << p
    assert fg.signal_retention(0.3, 4096, 1e-5) == pytest.approx(1.0, abs=1e-3)


def test_replay_is_exact_and_fails_for_a_wrong_inner_loop() -> None:
    assert dyn.replay_check((0.1, 0.6), beta=1.0, eps=1e-5, G=6, mu=15, lr=0.5, n=5, seed=3) < 1e-12
    task = make_task(np.array([0.3]), n_outcomes=2, seed=0)
    run = algorithm1(task, beta=1.0, eps=1e-5, G=6, mu=15, lr=0.5, n_iterations=3, seed=3)
    wrong = fg.StepModel(0.3, 1.0, 1e-5, 6, rule="inner_loop", mu=15, lr=0.25)
    z = [wrong.a]
    for k in np.rint(run.p_hat[:, 0] * 6).astype(int):
        z.append(float(fg.step_logits(wrong, z[-1], k)))
    assert np.abs(expit(np.array(z)) - run.p_true[:, 0]).max() > 1e-3


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"rule": "inner_loop", "mu": 20, "lr": 0.5},
        {"no_signal": "drop"},
        {"no_signal": "resample", "max_draws": 8},
        {"rule": "plug_in"},
    ],
)
def test_law_matches_the_simulated_chain_and_the_expected_map(kw) -> None:
    model = fg.StepModel(0.1, 1.0, 1e-5, 6, **kw)
    law = fg.finite_group_law(model, 6)
    assert law.mean[1] == pytest.approx(fg.expected_map(model, 0.1), rel=1e-9)
    chains = fg.simulate_chain(model, 6, 100_000, seed=1)
    se = chains.std(axis=1) / np.sqrt(chains.shape[1])
    assert np.all(np.abs(chains.mean(axis=1) - law.mean) < 5 * se + 1e-12)
    assert np.allclose(fg.finite_group_law(model, 6, width=5e-4).mean, law.mean, atol=1e-6)  # the merge grid is fine
    assert np.allclose(law.std, chains.std(axis=1), atol=0.01)


def test_a_wrong_rule_is_told_apart_from_algorithm1_runs() -> None:
    cmp = dyn.trajectory_comparison(0.1, 1.0, 1e-5, (4,), mu=20, lr=0.5, n=5, n_seeds=800, seed=1)
    assert np.abs(cmp.z_scores(4)).max() < 4.5 and 0.65 < cmp.band_coverage(4) < 0.95
    plug = fg.finite_group_law(fg.StepModel(0.1, 1.0, 1e-5, 4, rule="plug_in"), 5)
    assert np.abs(replace(cmp, laws={4: plug}).z_scores(4)).max() > 5


def test_dynamic_sampling_in_algorithm1_matches_its_recursion() -> None:
    for rule in ("drop", "resample"):
        model = fg.StepModel(0.02, 1.0, 1e-5, 4, rule="inner_loop", mu=10, lr=0.5, no_signal=rule, max_draws=16)
        law = fg.finite_group_law(model, 4)
        task = make_task(np.full(1500, 0.02), n_outcomes=2, seed=0)
        run = algorithm1(
            task, beta=1.0, eps=1e-5, G=4, mu=10, lr=0.5, n_iterations=4, seed=2, no_signal=rule, max_draws=16
        )
        se = run.p_true.std(axis=1) / np.sqrt(1500)
        assert np.all(np.abs(run.p_true.mean(axis=1) - law.mean) < 5 * se + 1e-12), rule
    keep = fg.finite_group_law(replace(model, no_signal="keep"), 4)
    assert np.abs(run.p_true.mean(axis=1) - keep.mean).max() > 10 * se.max()  # resample runs are not "keep"
    q = 0.98**4 + 0.02**4
    assert law.draws[0] == pytest.approx((1 - q**16) / (1 - q), rel=1e-9)


def test_algorithm1_keep_is_unchanged_and_no_signal_is_validated() -> None:
    task = make_task(np.array([0.2, 0.7]), n_outcomes=4, seed=0)
    a = algorithm1(task, beta=1.0, eps=1e-5, G=4, mu=5, n_iterations=3, seed=1)
    b = algorithm1(task, beta=1.0, eps=1e-5, G=4, mu=5, n_iterations=3, seed=1, no_signal="keep")
    assert np.array_equal(a.p_true, b.p_true)
    with pytest.raises(ValueError, match="no_signal='skip'"):
        algorithm1(task, beta=1.0, eps=1e-5, no_signal="skip")
    with pytest.raises(ValueError, match="max_draws=0"):
        algorithm1(task, beta=1.0, eps=1e-5, no_signal="resample", max_draws=0)


@settings(deadline=None, max_examples=40)
@given(
    p_ref=st.sampled_from([1e-9, 1e-6, 1e-3, 0.3, 0.9, 1 - 1e-9]),
    beta=st.floats(1e-3, 1e3),
    eps=st.sampled_from([1e-9, 1e-5, 0.1, 1.0]),
    G=st.sampled_from([2, 7, 64]),
    rule=st.sampled_from(["keep", "drop", "resample"]),
)
def test_no_nan_at_the_edges_of_the_parameter_range(p_ref: float, beta: float, eps: float, G: int, rule: str) -> None:
    model = fg.StepModel(p_ref, beta, eps, G, no_signal=rule)
    law = fg.finite_group_law(model, 4, width=1e-2)
    assert np.all(np.isfinite(law.mean)) and np.all((law.mean >= 0) & (law.mean <= 1))
    assert np.all(np.isfinite(law.quantiles)) and abs(law.atoms_mass.sum() - 1) < 1e-9
    m = fg.expected_map(model, np.array([0.0, p_ref, 0.5, 1.0]))
    assert np.all(np.isfinite(m)) and np.all((m >= 0) & (m <= 1))
    assert np.all(np.isfinite(fg.simulate_chain(model, 3, 50, seed=0)))


@pytest.mark.parametrize(
    ("kw", "name"),
    [
        ({"p_ref": 0.0}, "p_ref=0.0"),
        ({"beta": -1.0}, "beta=-1.0"),
        ({"eps": 0.0}, "eps=0.0"),
        ({"G": 1}, "G=1"),
        ({"rule": "exact"}, "rule='exact'"),
        ({"no_signal": "skip"}, "no_signal='skip'"),
        ({"rule": "inner_loop", "mu": 0, "lr": 0.1}, "mu=0"),
        ({"rule": "inner_loop", "mu": 5, "lr": 5.0}, "lr=5.0"),
        ({"max_draws": 0}, "max_draws=0"),
    ],
)
def test_step_model_rejects_bad_input(kw, name) -> None:
    base = {"p_ref": 0.1, "beta": 1.0, "eps": 1e-5, "G": 8}
    with pytest.raises(ValueError, match=name):
        fg.StepModel(**(base | kw))


def test_other_functions_reject_bad_input() -> None:
    model = fg.StepModel(0.1, 1.0, 1e-5, 8)
    with pytest.raises(ValueError, match="p=1.5"):
        fg.expected_map(model, 1.5)
    with pytest.raises(ValueError, match="p=0.0"):
        fg.signal_retention(0.0, 8, 1e-5)
    with pytest.raises(ValueError, match="n_steps=0"):
        fg.finite_group_law(model, 0)
    with pytest.raises(ValueError, match="width=1.0"):
        fg.finite_group_law(model, 3, width=1.0)
    with pytest.raises(ValueError, match="not a StepModel"):
        fg.finite_group_law("model", 3)


# ------------------------------------------------------------------ chapter checks


def test_step_factor_check_and_its_negative(monkeypatch) -> None:
    bandits = estimator_checks.bandits((0.3, 0.7))
    _, worst = dyn.step_factor_check(bandits, (2, 5))
    assert worst < 1e-12
    monkeypatch.setattr(dyn, "expected_step_factor", lambda p, G, e: 1.0)
    _, worst = dyn.step_factor_check(bandits, (2, 5))
    assert worst > 1e-3


def test_iterations_gap_is_predicted_by_the_law() -> None:
    _, gap = dyn.iterations_gap((0.3, 0.9), beta=1.0, eps=1e-5, G=8, mu=20, lr=0.5, n=6, book_seeds=20, n_seeds=400)
    assert np.all(np.abs(gap["book"] - gap["law"]) < 3 * gap["book_se"])
    assert np.all(np.abs(gap["book"] - gap["h"]) > 4 * gap["book_se"])
    assert np.all(np.abs(gap["two"] - gap["law"]) < 4 * gap["two_se"])


def test_zero_variance_study_orders_the_rules() -> None:
    _, zv = dyn.zero_variance_study(0.01, 1.0, 1e-5, 8, mu=20, lr=0.5, n=6, n_seeds=400, seed=0)
    final = {rule: f["law"].mean[-1] for rule, f in zv.items()}
    assert final["resample"] > final["drop"] > final["keep"]
    assert all(np.abs(f["z"]).max() < 4.5 for f in zv.values())


def test_expected_map_orbits_and_bursts() -> None:
    betas = np.array([8.0, 12.0])
    _, per = dyn.expected_map_orbits(1e-3, 1e-5, betas, 16, transient=800, n_keep=16)
    assert np.all(per == 2)  # h has a fixed point there; the expected map of groups of 16 alternates
    _, bursts = dyn.burst_statistics(1e-3, 5.0, 1e-5, (16,), n=100, n_chains=100, seed=0)
    assert bursts[16]["at_ref"] > 0.95 and bursts[16]["alternating"] < 0.05


def test_toy_lm_gap_summary_on_synthetic_runs() -> None:
    p_ref = np.array([0.2, 0.5, 0.8])
    faithful = np.vstack([fg.finite_group_law(fg.StepModel(p, 2.0, 0.01, 16), 4).mean for p in p_ref]).T
    table, facts = dyn.toy_lm_gap(p_ref, faithful, beta=2.0, eps=0.01, G=16)
    assert np.allclose(facts["law"], facts["measured"]) and len(table.rows) == 5
    assert np.allclose(facts["h"], iterate(p_ref, 2.0, 0.01, 4).mean(axis=1))


def test_explorer_and_figures_draw_without_error() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from grpo_nb.plots import ustat as figs
    from grpo_nb.widgets.ustat import finite_group_explorer

    w = finite_group_explorer(n=5).widget
    w.f(**w.kwargs)  # interact swallows exceptions outside IPython: call the drawing function directly
    w.f(log10_p_ref=-3.5, beta=0.3, G=200, no_signal="resample")
    cmp = dyn.trajectory_comparison(0.2, 1.0, 1e-5, (2, 8), mu=5, lr=0.5, n=3, n_seeds=50)
    p = np.geomspace(1e-3, 0.99, 20)
    maps = dyn.expected_map_curves(0.2, 1.0, 1e-5, (2, 8), p)
    _, zv = dyn.zero_variance_study(0.05, 1.0, 1e-5, 4, mu=5, lr=0.5, n=3, n_seeds=50)
    _, bursts = dyn.burst_statistics(1e-3, 5.0, 1e-5, (16,), n=30, n_chains=5, burn_in=5, n_shown=20)
    keep, _ = dyn.expected_map_orbits(1e-3, 1e-5, np.array([5.0, 9.0]), 16, transient=50, n_keep=4)
    for fig in (
        figs.plot_chain_comparison(cmp),
        figs.plot_expected_maps(p, maps, {"G = 2": fg.signal_retention(p, 2, 1e-5)}),
        figs.plot_zero_variance(zv, iterate(0.05, 1.0, 1e-5, 3)),
        figs.plot_hard_prompt_finite_group(np.array([5.0, 9.0]), {"H_16": keep}, {"G = 16": bursts[16]["path"]}),
    ):
        assert fig.axes
        plt.close(fig)
