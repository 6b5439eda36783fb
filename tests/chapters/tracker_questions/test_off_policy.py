"""Section "Off-policy correction" (``grpo_nb.chapters.tracker_questions.off_policy``): the token scores, the exact
group moments against the family's dynamic programme, the unbounded sequence ratio's direction, TRL's gradient per
correction against the book's, each with negative tests, the figure, and bad input."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.chapters.tracker_questions import off_policy as op  # noqa: E402
from grpo_nb.family.length_bias import TRL_ANSWER_WEIGHTS, Batching, answers, expected_ascent  # noqa: E402

UNBOUNDED = "sequence ratio, no bound"
DEFAULT = op.MODES[4].label
OPSM = op.MODES[-1].label


@pytest.fixture(scope="module")
def probe():
    from grpo_nb.chapters.trl_grpo.advantage_probe import make_probe

    return make_probe(beta=0.0)


def test_the_token_scores_add_up_to_the_answer_s_score() -> None:
    trainer, _ = op.stale_pair(3)
    assert np.abs(op.token_scores(trainer).sum(axis=1) - answers(trainer).score).max() < 1e-12


def test_the_on_policy_moments_are_the_family_s_exact_dr_grpo_step() -> None:
    trainer, _ = op.stale_pair(2)
    mean, variance = op._group_moments(trainer, trainer, op.BOOK_WEIGHTS["no correction"])
    book = expected_ascent(trainer, Batching(op.GROUP_SIZE), TRL_ANSWER_WEIGHTS["dr_grpo"])
    assert np.abs(mean - book).max() < 1e-12 and variance > 0


def test_the_stale_pair_lags_by_exact_steps() -> None:
    trainer, sampler = op.stale_pair(1)
    step = op.LAG_LR * expected_ascent(sampler, Batching(op.GROUP_SIZE), TRL_ANSWER_WEIGHTS["grpo"])
    assert np.abs(trainer.params - sampler.params - step).max() < 1e-15


@pytest.mark.parametrize("lag", op.LAGS)
def test_the_unbounded_sequence_ratio_keeps_the_on_policy_direction(lag) -> None:
    steps = {s.label: s for s in op.mode_survey(lag).steps}
    assert steps[UNBOUNDED].angle < op.ANGLE_TOL
    assert abs(steps[UNBOUNDED].wrong_drift) < op.ZERO_DRIFT and abs(steps[UNBOUNDED].right_drift) < op.ZERO_DRIFT


def test_a_geometric_mean_in_place_of_the_product_turns_the_step(monkeypatch) -> None:
    def geometric(lr, m, neg):
        return np.broadcast_to(np.exp(lr.sum(axis=1, keepdims=True) / m.sum(axis=1, keepdims=True)), lr.shape)

    monkeypatch.setitem(op.BOOK_WEIGHTS, UNBOUNDED, geometric)
    assert {s.label: s for s in op.mode_survey(4).steps}[UNBOUNDED].angle > 1.0


def test_trl_agrees_with_the_book_for_every_correction(probe) -> None:
    check = op.trl_check(probe)
    assert check.passed and len(check.gaps) == len(op.MODES) * len(op.CHECK_LAGS)


def _truncate_for_mask(lr, m, neg):
    return np.minimum(np.exp(lr), op.IS_CAP)


def _mean_for_product(lr, m, neg):
    seq = np.exp(lr.sum(axis=1, keepdims=True) / m.sum(axis=1, keepdims=True))
    return np.broadcast_to(np.where(seq <= op.IS_CAP, seq, 0.0), lr.shape)


@pytest.mark.parametrize(
    ("label", "wrong"),
    [("token_mask", _truncate_for_mask), (DEFAULT, _mean_for_product), (OPSM, None)],
)
def test_a_wrong_weight_fails_the_trl_check(probe, monkeypatch, label, wrong) -> None:
    right = op.BOOK_WEIGHTS[label]
    ignoring_the_sign = lambda lr, m, neg: right(lr, m, True)  # noqa: E731  (the mask applied to every answer)
    monkeypatch.setitem(op.BOOK_WEIGHTS, label, wrong or ignoring_the_sign)
    assert not op.trl_check(probe).passed


def test_the_default_mask_drops_lengths_of_the_right_answer_unequally() -> None:
    masks = op.length_masks(op.TABLE_LAG)
    right = masks.reward == 1
    assert masks.sequence_masked[right].any() and not masks.sequence_masked[right].all()
    default = {s.label: s for s in op.mode_survey(op.TABLE_LAG).steps}[DEFAULT]
    assert default.right_drift > op.ZERO_DRIFT and default.angle > 10


def test_the_figure_draws_every_correction() -> None:
    from grpo_nb.plots import off_policy as figs

    fig = figs.plot_correction_lags([op.mode_survey(lag) for lag in (1, 4)])
    assert len(fig.axes) == 3 and all(len(ax.lines) >= len(op.MODES) for ax in fig.axes)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="lag"):
        op.stale_pair(0)
    with pytest.raises(ValueError, match="lag"):
        op.mode_survey(-1)
