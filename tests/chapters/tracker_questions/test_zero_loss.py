"""Section "The loss is exactly 0 at the first step, and yet the model learns" (``zero_loss``): TRL's first-step loss
and gradient against the book's statements; a wrong statement fails the check."""

from __future__ import annotations

import os

import pytest
import torch

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.chapters.tracker_questions import zero_loss  # noqa: E402


def test_the_first_step_logs_a_zero_loss_and_still_moves_p():
    run = zero_loss.first_step_run(seed=0)
    assert abs(run.loss) <= 1e-6 and run.grad_norm > 0.5 and run.largest_change > 0.01
    assert run.p_before.shape == run.p_after.shape == run.successes.shape == (4,)


def test_the_cause_is_measured_on_trls_loss():
    chk = zero_loss.first_step_check(seed=0)
    assert chk.explained and abs(chk.value) <= zero_loss.TOL and abs(chk.cut_value) > 100 * zero_loss.TOL


def test_a_value_that_ignores_the_lengths_fails(monkeypatch):
    monkeypatch.setattr(zero_loss, "book_first_step_value", lambda adv, mask: float(-adv.mean()))
    assert not zero_loss.first_step_check(seed=0).explained


def test_a_value_stated_as_always_zero_fails(monkeypatch):
    monkeypatch.setattr(zero_loss, "book_first_step_value", lambda adv, mask: 0.0)
    assert not zero_loss.first_step_check(seed=0).explained


@pytest.mark.parametrize("wrong", ["zero", "sign"])
def test_a_wrong_gradient_fails(monkeypatch, wrong):
    right = zero_loss.book_first_step_surrogate
    stated = {"zero": lambda logp, adv, mask: 0 * right(logp, adv, mask),  # "a zero loss has a zero gradient"
              "sign": lambda logp, adv, mask: -right(logp, adv, mask)}[wrong]  # fmt: skip
    monkeypatch.setattr(zero_loss, "book_first_step_surrogate", stated)
    chk = zero_loss.first_step_check(seed=0)
    assert not chk.explained and chk.grad_gap > 0.5


def test_the_value_formula_on_a_small_batch():
    adv = torch.tensor([1.0, -1.0]).numpy()
    assert zero_loss.book_first_step_value(adv, [[1, 1, 1], [1, 0, 0]]) == pytest.approx(-0.5)
