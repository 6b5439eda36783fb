"""Section "Clip-higher cannot do anything: with one epoch the ratio is always 1"
(``grpo_nb.chapters.tracker_questions.clip_higher``): TRL's runs with the upper clip at 0.2 and 0.28, against the
book's statements of when a clip can bind and which tokens the upper clip acts on, and against wrong statements of
both."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.chapters.tracker_questions import clip_higher  # noqa: E402


@pytest.fixture(scope="module")
def check():
    return clip_higher.clip_higher_check(seed=0)


def test_check_holds_at_every_case(check):
    assert check.agree
    assert [c.setting for c in check.cases] == list(clip_higher.CLIP_HIGHER_CASES)


def test_one_step_per_generation_is_an_exact_identity(check):
    for c in check.cases:
        if c.optimizer_steps == 1:
            assert c.weight_gap == 0.0 and c.clip_share == 0.0 and c.high_share == 0.0
            assert c.ratio_gap < clip_higher.RATIO_TOL and c.band_tokens == 0


def test_several_steps_per_generation_clip(check):
    for c in check.cases:
        if c.optimizer_steps > 1:
            assert c.clip_share > 0 and c.ratio_gap > clip_higher.RATIO_TOL


def test_clip_higher_acting_at_mu_one_fails(monkeypatch):
    monkeypatch.setattr(clip_higher, "book_clip_can_bind", lambda mu, spg, ga: True)
    assert not clip_higher.clip_higher_check(seed=0, cases=((1, 1, 1),)).agree


def test_only_mu_matters_fails_when_the_batch_is_split(monkeypatch):
    monkeypatch.setattr(clip_higher, "book_clip_can_bind", lambda mu, spg, ga: mu > 1)
    assert not clip_higher.clip_higher_check(seed=0, cases=((1, 4, 1),)).agree


def test_every_positive_token_as_the_upper_clips_reach_fails(monkeypatch):
    monkeypatch.setattr(
        clip_higher,
        "book_clip_higher_tokens",
        lambda ratio, adv, low, *, clip_eps_high: np.broadcast_to(adv > 0, ratio.shape),
    )
    assert not clip_higher.clip_higher_check(seed=0, cases=((1, 1, 1),)).agree


def test_book_tokens_are_the_band_of_positive_advantage():
    ratio = np.r_[np.linspace(0.5, 1.5, 1001), 1 + 0.2, 1 + 0.28]  # with both kinks
    for adv, expected in ((1.0, (ratio > 1 + 0.2) & (ratio <= 1 + 0.28)), (-1.0, np.zeros_like(ratio, bool))):
        got = clip_higher.book_clip_higher_tokens(ratio, np.full_like(ratio, adv), 0.2, clip_eps_high=0.28)
        assert np.array_equal(got, expected)


def test_sweep_counts_seeds():
    counts = clip_higher.clip_higher_sweep((0, 1), cases=((1, 1, 1), (2, 1, 1)))
    assert counts[(1, 1, 1)] == (0, 0, 2)
    assert counts[(2, 1, 1)][0] == 2 and counts[(2, 1, 1)][2] == 2


@pytest.mark.parametrize(
    ("args", "kwargs", "name"),
    [
        ((0,), {}, "mu"),
        ((1, 0), {}, "steps_per_generation"),
        ((1, 3), {}, "steps_per_generation"),
        ((2, 1, 3), {}, "grad_accum"),
        ((1,), {"clip_eps_high": 0.1}, "clip_eps_high"),
        ((1,), {"lr": -1.0}, "lr"),
        ((1,), {"n_generations": 0}, "n_generations"),
    ],
)
def test_bad_input_names_the_parameter(args, kwargs, name):
    with pytest.raises(ValueError, match=name):
        clip_higher.clip_higher_pair(*args, **kwargs)
