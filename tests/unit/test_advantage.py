"""grpo_nb.advantage: the four group-advantage forms, their relations, and every kind of bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_nb.advantage import (
    ADVANTAGE_FORMS,
    group_advantage,
    group_rewards,
    mean_success_advantage,
    success_fraction,
)
from grpo_nb.weights import omega_minus, omega_plus

SETTINGS = settings(deadline=None, max_examples=50)
groups = st.integers(2, 64).flatmap(lambda G: st.lists(st.sampled_from([0.0, 1.0]), min_size=G, max_size=G))
mixed_groups = groups.filter(lambda r: 0 < sum(r) < len(r))
pos_eps = st.floats(-12.0, 0.0).map(lambda x: 10.0**x)


@SETTINGS
@given(r=groups, eps=pos_eps)
def test_paper_form_is_omega_weights(r: list[float], eps: float) -> None:
    a = group_advantage(r, "paper", eps)
    p = float(np.mean(r))
    expected = np.where(np.asarray(r) == 1, omega_plus(p, eps), -omega_minus(p, eps))
    assert np.allclose(a, expected, rtol=1e-12, atol=0)


@SETTINGS
@given(r=mixed_groups)
def test_population_is_paper_without_smoothing_and_trl_is_bessel_rescaled(r: list[float]) -> None:
    G = len(r)
    pop = group_advantage(r, "population")
    assert np.allclose(pop, group_advantage(r, "paper", 0.0), rtol=1e-12)
    trl_no_eps = group_advantage(r, "trl", 0.0)
    assert np.allclose(trl_no_eps, np.sqrt((G - 1) / G) * pop, rtol=1e-12)
    assert np.allclose(group_advantage(r, "mean_only") * np.std(r), pop * np.var(r), rtol=1e-12, atol=1e-15)


@SETTINGS
@given(r=groups)
@pytest.mark.parametrize("form", ADVANTAGE_FORMS)
def test_zero_sum_and_sign(form: str, r: list[float]) -> None:
    a = group_advantage(r, form)
    assert abs(a.sum()) < 1e-9 * len(r) * max(1.0, np.abs(a).max())
    arr = np.asarray(r)
    if 0 < arr.sum() < len(arr):
        assert (a[arr == 1] > 0).all() and (a[arr == 0] < 0).all()


@pytest.mark.parametrize("form", ADVANTAGE_FORMS)
@pytest.mark.parametrize("G", [2, 4, 8, 16, 64])
def test_all_equal_groups_give_zero_advantage(form: str, G: int) -> None:
    r = group_rewards(np.array([0, G]), G)
    assert (group_advantage(r, form) == 0).all()


def test_batched_over_leading_axes() -> None:
    rng = np.random.default_rng(0)
    r = (rng.random((3, 5, 8)) < 0.4).astype(float)
    for form in ADVANTAGE_FORMS:
        a = group_advantage(r, form)
        assert a.shape == r.shape
        assert np.allclose(a[1, 2], group_advantage(r[1, 2], form))
    assert success_fraction(r).shape == (3, 5)


def test_trl_matches_torch_std() -> None:
    torch = pytest.importorskip("torch")
    r = torch.tensor([[1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0], [1.0] * 8], dtype=torch.float64)
    expected = (r - r.mean(dim=1, keepdim=True)) / (r.std(dim=1, keepdim=True) + 1e-4)
    assert np.allclose(group_advantage(r.numpy(), "trl"), expected.numpy(), rtol=1e-14, atol=0)


def test_group_rewards_counts() -> None:
    r = group_rewards(np.arange(5), 4)
    assert r.shape == (5, 4) and (r.sum(axis=1) == np.arange(5)).all()


@pytest.mark.parametrize(
    ("rewards", "form", "eps", "match"),
    [
        (5.0, "paper", None, r"rewards has shape \(\)"),
        (np.zeros((3, 0)), "paper", None, r"group size G >= 1"),
        ([1.0], "trl", None, r"G >= 2"),
        ([0.0, 0.5, 1.0], "paper", None, r"rewards contains 0.5; valid values are 0 and 1"),
        ([0.0, np.nan], "paper", None, r"rewards contains nan"),
        ([0.0, 2.0], "mean_only", None, r"rewards contains 2.0"),
        (["a", "b"], "paper", None, r"rewards=.* is not an array of numbers"),
        ([0.0, 1.0], "bessel", None, r"form='bessel' is not an advantage form"),
        ([0.0, 1.0], "paper", -1e-3, r"eps=-0.001 is out of range"),
        ([0.0, 1.0], "paper", np.nan, r"eps=nan"),
        ([0.0, 1.0], "paper", [1e-3, 1e-2], r"must be a scalar"),
        ([1.0, 1.0], "paper", 0.0, r"p_hat=1.0 with eps=0 is undefined"),
        ([0.0, 0.0], "trl", 0.0, r"all rewards equal"),
        ([0.0, 1.0], "population", 1e-3, r"valid range is eps = 0"),
        ([0.0, 1.0], "mean_only", 1e-3, r"valid range is eps = 0"),
    ],
)
def test_bad_input(rewards, form, eps, match) -> None:
    with pytest.raises(ValueError, match=match):
        group_advantage(rewards, form, eps)


@pytest.mark.parametrize(
    ("k", "G"), [(np.array([-1]), 4), (np.array([5]), 4), (np.array([1.5]), 4), (np.array([1]), 0)]
)
def test_group_rewards_bad_input(k, G) -> None:
    with pytest.raises(ValueError, match=r"k=|G="):
        group_rewards(k, G)


def _batch(seed: int, n_groups: int, p: float = 0.3, G: int = 8) -> tuple[np.ndarray, np.ndarray]:
    rewards = (np.random.default_rng(seed).random((n_groups, G)) < p).astype(float)
    return rewards, rewards - rewards.mean(axis=1, keepdims=True)


def test_mean_success_advantage_is_the_pooled_mean_and_its_se_the_spread_over_batches() -> None:
    rewards, centred = _batch(0, 20_000)
    mean, se = mean_success_advantage(rewards, centred)
    assert mean == pytest.approx(centred[rewards == 1].mean(), rel=1e-12)
    means = np.array([mean_success_advantage(*_batch(seed, 2_000))[0] for seed in range(1, 301)])
    _, se_small = mean_success_advantage(*_batch(1, 2_000))
    assert 0.85 < means.std(ddof=1) / se_small < 1.15  # the standard error is the batches' spread
    assert abs(mean - 0.7 * 7 / 8) < 4 * se  # E over successes of 1 - p_hat is (1 - p)(G - 1)/G


def test_the_per_answer_standard_error_is_too_small() -> None:
    # the former standard error treated the successes of one group as independent: it is almost half the right one
    rewards, centred = _batch(0, 20_000)
    _, se = mean_success_advantage(rewards, centred)
    successes = centred[rewards == 1]
    naive = successes.std() / np.sqrt(successes.size)
    assert 1.7 < se / naive < 2.0
    means = np.array([mean_success_advantage(*_batch(seed, 2_000))[0] for seed in range(1, 301)])
    small_rewards, small_centred = _batch(1, 2_000)
    small = small_centred[small_rewards == 1]
    assert means.std(ddof=1) > 1.5 * small.std() / np.sqrt(small.size)  # the naive se misses the batches' spread


@pytest.mark.parametrize(
    ("rewards", "advantages", "match"),
    [
        (np.ones(4), np.zeros(4), "n_groups"),
        (np.ones((1, 4)), np.zeros((1, 4)), "n_groups"),
        (np.zeros((3, 4)), np.zeros((3, 4)), "no success"),
        (np.ones((3, 4)), np.zeros((3, 5)), "advantages"),
        (np.ones((3, 4)), np.full((3, 4), np.nan), "advantages"),
        (np.full((3, 4), 2.0), np.zeros((3, 4)), "rewards"),
    ],
)
def test_mean_success_advantage_bad_input(rewards, advantages, match) -> None:
    with pytest.raises(ValueError, match=match):
        mean_success_advantage(rewards, advantages)
