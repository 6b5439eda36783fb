"""Section "Long, wrong answers get longer" (``grpo_nb.chapters.tracker_questions.length_bias``): TRL's exact expected
gradient on the tabular policy against the book's per loss type, the drift claims, grpo's mechanism, each with
negative tests, the figure, and bad input."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.chapters.tracker_questions import length_bias as lb  # noqa: E402
from grpo_nb.family.length_bias import (  # noqa: E402
    TRL_ANSWER_WEIGHTS,
    Batching,
    LengthPolicy,
    answers,
    length_moment,
)

TOL = lb.TOL
#: A policy with one stop logit per content (answers of 2 or 3 tokens), for the cases with two groups and shuffles.
SHORT = LengthPolicy(np.array([0.0, -1.0]), np.array([[0.0], [0.7]]), correct=1)


@pytest.fixture(scope="module")
def probe():
    from grpo_nb.chapters.trl_grpo.advantage_probe import make_probe

    return make_probe(beta=0.0)


def test_the_torch_token_logps_are_the_tables_and_their_gradient_is_the_score() -> None:
    ids, mask = lb.encode_answers(lb.POLICY)
    params = torch.tensor(lb.POLICY.params, requires_grad=True, dtype=torch.float64)
    logp = (lb.tabular_token_logps(params, ids, policy=lb.POLICY) * mask).sum(1)
    ans = answers(lb.POLICY)
    assert np.abs(logp.detach().numpy() - np.log(ans.prob)).max() < 1e-14
    for i in range(len(ans.prob)):
        (grad,) = torch.autograd.grad(logp[i], params, retain_graph=True)
        assert np.abs(grad.numpy() - ans.score[i]).max() < 1e-14
    assert mask.sum(1).tolist() == ans.length.tolist()


def test_trl_s_micro_batch_gradient_does_not_depend_on_the_order_of_its_rows(probe) -> None:
    """What lets :func:`trl_expected_ascent` run each distinct micro-batch once."""
    codes = lb.encode_answers(lb.POLICY)
    rows = ((0, -0.5), (4, 1.5), (2, -0.5), (5, 0.25))
    for loss_type in lb.LOSS_TYPES:
        with lb._tabular_trainer(probe, lb.POLICY, Batching(4), loss_type) as params:
            first = lb._micro_batch_ascent(probe, params, codes, rows, 13)
            again = lb._micro_batch_ascent(probe, params, codes, rows[::-1], 13)
        assert np.abs(first - again).max() < 1e-7 and np.abs(first).max() > 1e-2, loss_type


def test_trl_agrees_with_the_book_for_every_loss_type_and_micro_batch(probe) -> None:
    before = (probe.trainer.loss_type, probe.trainer.max_completion_length, probe.trainer.num_generations)
    check = lb.trl_check(probe)
    assert check.passed and len(check.residuals) == len(lb.TRL_CASES) == 11
    assert all(row[-1] == f"< {TOL:.0e}" for row in check.table.rows)
    trainer = probe.trainer  # the probe's trainer is left as it was
    assert "_get_per_token_logps_and_entropies" not in vars(trainer) and not trainer.model.training
    assert (trainer.loss_type, trainer.max_completion_length, trainer.num_generations) == before
    symptom = {row[0]: row[1:] for row in lb.trl_symptom(check).rows}  # TRL's own step, one micro-batch
    assert list(symptom) == list(lb.LOSS_TYPES)
    assert all(symptom[lt][0].startswith("+") and symptom[lt][1].startswith("-") for lt in ("grpo", "bnpo", "dapo"))
    assert all(symptom[lt][:2] == [f"< {TOL:.0e}"] * 2 for lt in ("dr_grpo", "luspo"))


def test_trl_agrees_where_micro_batches_mix_two_groups(probe) -> None:
    cases = (("bnpo", Batching(2, 2, 2)), ("dapo", Batching(2, 2, 2)), ("dapo", Batching(2, 1, 2)))
    assert lb.trl_check(probe, SHORT, cases).passed


WRONG_WEIGHTS = [  # (loss type, the weight claimed for it, the cases of it that must fail)
    ("dr_grpo", "grpo", (("dr_grpo", Batching(4)),)),
    ("luspo", "grpo", (("luspo", Batching(4)),)),
    ("grpo", "luspo", (("grpo", Batching(4, 2)),)),
    ("bnpo", "dapo", (("bnpo", Batching(4, 2)), ("bnpo", Batching(4, 1)))),  # the micro-batch's tokens, not the batch's
    ("dapo", "bnpo", (("dapo", Batching(4, 2)),)),  # the batch's tokens, not the micro-batch's
]


@pytest.mark.parametrize(("loss_type", "claimed", "cases"), WRONG_WEIGHTS)
def test_a_wrong_aggregation_fails_the_trl_check(probe, monkeypatch, loss_type, claimed, cases) -> None:
    monkeypatch.setitem(lb.BOOK_WEIGHTS, loss_type, TRL_ANSWER_WEIGHTS[claimed])
    check = lb.trl_check(probe, lb.POLICY, cases)
    assert min(check.residuals) > 100 * TOL and not check.passed


def test_the_paper_s_advantage_fails_the_trl_check(probe, monkeypatch) -> None:
    monkeypatch.setattr(lb, "BOOK_ADVANTAGE_FORM", "paper")
    assert min(lb.trl_check(probe, lb.POLICY, (("grpo", Batching(4)),)).residuals) > 100 * TOL


def test_the_drift_claims_hold() -> None:
    check = lb.drift_check()
    assert check.passed and check.measured == lb.BOOK_CLAIMS
    assert [row[-1] for row in check.table.rows] == ["passes"] * 5
    assert check.ladder_table.rows[1][-1] == "micro-batch" and check.ladder_table.rows[3][-1] == "generation batch"
    v = check.ladder_values  # micro-batches 1, 2, 4, 8, then generation batches 8, 16, 32 (micro-batches of 8)
    assert v["bnpo"][0] == pytest.approx(v["grpo"][0], rel=1e-12)  # a micro-batch of one: the answer's token mean
    assert v["dapo"][3] == pytest.approx(v["bnpo"][3], rel=1e-12)  # one micro-batch: the same tokens counted


WRONG_CLAIMS = [
    ("grpo", lb.LengthClaim("none", "none", None)),  # "grpo has no length drift"
    ("dr_grpo", lb.LengthClaim("longer", "shorter", None)),
    ("bnpo", lb.LengthClaim("longer", "shorter", "generation_batch")),  # verl#2776's normaliser is the micro-batch
    ("dapo", lb.LengthClaim("longer", "shorter", "micro_batch")),
    ("luspo", lb.LengthClaim("longer", "shorter", None)),
]


@pytest.mark.parametrize(("loss_type", "claim"), WRONG_CLAIMS)
def test_a_wrong_drift_claim_fails(monkeypatch, loss_type, claim) -> None:
    monkeypatch.setitem(lb.BOOK_CLAIMS, loss_type, claim)
    assert lb.drift_check().failed == (loss_type,)


def test_claiming_that_dr_grpo_weights_like_grpo_also_fails_its_drift(monkeypatch) -> None:
    monkeypatch.setitem(lb.BOOK_WEIGHTS, "dr_grpo", TRL_ANSWER_WEIGHTS["grpo"])
    check = lb.drift_check()
    assert check.failed == ("dr_grpo",) and check.measured["dr_grpo"].wrong == "longer"


def test_grpo_s_mechanism_is_the_score_function_identity() -> None:
    check = lb.mechanism_check()
    assert check.passed and check.residual < check.tol and check.mean_advantage[0] < 0 < check.mean_advantage[1]


def test_a_wrong_mechanism_fails(monkeypatch) -> None:
    right = lb.book_stop_ascent
    no_advantage = lambda policy, G: right(policy, G) / lb.advantage_given_reward(policy, G, 0)  # noqa: E731
    with monkeypatch.context() as m:  # the advantage's sign left out: a(r) -> 1 for wrong answers
        m.setattr(lb, "BOOK_STOP_ASCENT", no_advantage)
        assert not lb.mechanism_check().passed
    with monkeypatch.context() as m:  # E[L] where the identity has E[1/L]
        m.setattr(lb, "length_moment", lambda policy, c, power: length_moment(policy, c, -power))
        assert not lb.mechanism_check().passed


def test_the_claims_hold_over_many_steps_and_the_figure_draws_them(monkeypatch) -> None:
    from grpo_nb.plots.length_bias import plot_length_drift

    monkeypatch.setattr(lb, "TRAJECTORY_STEPS", (0.5, 30))
    check = lb.trajectory_check()
    assert check.passed and list(check.trajectories) == list(lb.LOSS_TYPES)
    fig = plot_length_drift(check.trajectories)
    assert len(fig.axes) == 2 and all(len(ax.lines) == 5 for ax in fig.axes)
    monkeypatch.setitem(lb.BOOK_CLAIMS, "luspo", lb.LengthClaim("longer", "shorter", None))  # a wrong claim fails
    assert lb.trajectory_check().failed == ("luspo",)


def test_bad_input(probe) -> None:
    with pytest.raises(ValueError, match="loss_type"):
        lb.trl_expected_ascent(probe, "sapo", Batching(2))
    with pytest.raises(ValueError, match="batching"):  # 6**8 batches: too many to run TRL's loss on each
        lb.trl_expected_ascent(probe, "grpo", Batching(8))
    with pytest.raises(ValueError, match="correct"):
        LengthPolicy(np.zeros(2), np.zeros((2, 1)), correct=-1)
