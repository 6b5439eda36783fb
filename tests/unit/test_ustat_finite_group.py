"""Tests of grpo_nb.ustat.finite_group: the finite-group step is Theorem 2 with exact p, its law (computed without
sampling) matches the simulated chain, dynamic sampling in tabular Algorithm 1 matches its recursion, the expected
map's own orbits, robustness at the edges of the parameter range, and bad input. Each check is shown to fail on a
wrong model. The group-size chapter's analyses are tested in tests/chapters/group_size/."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logit

from grpo_nb.dynamics.map import h
from grpo_nb.tabular.algorithm1 import algorithm1, make_task
from grpo_nb.ustat import finite_group as fg
from grpo_nb.ustat.estimators import limit_scale
from grpo_nb.ustat.moments import expected_step_factor


def test_tilt_with_exact_p_is_theorem2() -> None:
    """C(k) with p_hat = p_old gives logit h(p) - a = 1/sqrt(v + eps): Theorem 2 is the G -> infinity step."""
    for p in (0.125, 0.5, 0.875):
        G = 8
        k = int(p * G)
        model = fg.StepModel(0.2, 1.7, 1e-3, G)
        assert fg.step_logits(model, logit(p), k) == pytest.approx(float(logit(h(p, 0.2, 1.7, 1e-3))), rel=1e-12)
    assert fg.group_tilt(0.3, np.array([0, 8]), 8, eps=1e-5).tolist() == [0.0, 0.0]  # no signal, no tilt


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


def test_dynamic_sampling_in_algorithm1_matches_its_recursion() -> None:
    for rule in ("drop", "resample"):
        model = fg.StepModel(0.02, 1.0, 1e-5, 4, rule="inner_loop", mu=10, lr=0.5, no_signal=rule, max_draws=16)
        law = fg.finite_group_law(model, 4)
        task = make_task(np.full(1500, 0.02), n_outcomes=2, seed=0)
        run = algorithm1(task, beta=1.0, eps=1e-5, G=4, mu=10, lr=0.5, n=4, seed=2, no_signal=rule, max_draws=16)
        se = run.p_true.std(axis=1) / np.sqrt(1500)
        assert np.all(np.abs(run.p_true.mean(axis=1) - law.mean) < 5 * se + 1e-12), rule
    keep = fg.finite_group_law(replace(model, no_signal="keep"), 4)
    assert np.abs(run.p_true.mean(axis=1) - keep.mean).max() > 10 * se.max()  # resample runs are not "keep"
    q = 0.98**4 + 0.02**4
    assert law.draws[0] == pytest.approx((1 - q**16) / (1 - q), rel=1e-9)


def test_algorithm1_keep_is_unchanged_and_no_signal_is_validated() -> None:
    task = make_task(np.array([0.2, 0.7]), n_outcomes=4, seed=0)
    a = algorithm1(task, beta=1.0, eps=1e-5, G=4, mu=5, n=3, seed=1)
    b = algorithm1(task, beta=1.0, eps=1e-5, G=4, mu=5, n=3, seed=1, no_signal="keep")
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
    with pytest.raises(ValueError, match="n=0"):
        fg.finite_group_law(model, 0)
    with pytest.raises(ValueError, match="width=1.0"):
        fg.finite_group_law(model, 3, width=1.0)
    with pytest.raises(ValueError, match="not a StepModel"):
        fg.finite_group_law("model", 3)
    with pytest.raises(ValueError, match="beta=-1.0"):
        fg.expected_map_orbits(1e-3, np.array([1.0, -1.0]), 1e-5, G=16)
    with pytest.raises(ValueError, match="p_ref=1.0"):
        fg.expected_map_orbits(1.0, np.array([1.0]), 1e-5, G=16)
    with pytest.raises(ValueError, match="G=1"):
        fg.expected_map_orbits(1e-3, np.array([1.0]), 1e-5, G=1)
    with pytest.raises(ValueError, match="n_keep=1"):
        fg.expected_map_orbits(1e-3, np.array([1.0]), 1e-5, G=16, n_keep=1)


def test_expected_map_orbits_follow_the_expected_map_and_find_its_2_cycle() -> None:
    """The orbit is the expected map iterated (maximiser, groups kept), not h; where h has a fixed point (beta 8 and
    12 from p_ref = 1e-3) the expected map of groups of 16 alternates."""
    betas = np.array([8.0, 12.0])
    keep, per = fg.expected_map_orbits(1e-3, betas, 1e-5, G=16, transient=800, n_keep=16)
    assert np.all(per == 2)
    for b, beta in enumerate(betas):
        step = fg.expected_map(fg.StepModel(1e-3, beta, 1e-5, 16), keep[b, :-1])
        assert np.allclose(step, keep[b, 1:], rtol=1e-9)
        assert not np.allclose(h(keep[b, :-1], 1e-3, beta, 1e-5), keep[b, 1:], rtol=1e-3)


def test_the_finite_group_explorer_draws() -> None:
    import matplotlib

    matplotlib.use("Agg")

    from grpo_nb.widgets.ustat import finite_group_explorer

    w = finite_group_explorer(n=5).widget
    w.f(**w.kwargs)  # interact swallows exceptions outside IPython: call the drawing function directly
    w.f(log10_p_ref=-3.5, beta=0.3, G=200, no_signal="resample")
