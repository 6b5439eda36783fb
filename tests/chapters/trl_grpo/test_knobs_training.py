"""Section "Every knob, checked by TRL's own code", the knobs that act across TRL's steps
(``grpo_nb.chapters.trl_grpo.knobs_training``): ``num_iterations`` in real training steps, TRL's rule for storing
pi_old's log-probabilities and the reference sync, each rule against a wrong statement of it."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.chapters.trl_grpo import knobs_training  # noqa: E402
from grpo_nb.chapters.trl_grpo.advantage_probe import TOL  # noqa: E402


def test_mu_one_never_clips_and_mu_three_does():
    mu1 = knobs_training.mu_check(1)
    assert not mu1.stored and mu1.clipped == 0
    mu3 = knobs_training.mu_check(3)
    assert mu3.stored and mu3.clipped > 0


def test_old_logps_rule_is_trls_and_the_mu_only_rule_fails(monkeypatch):
    assert knobs_training.old_logps_check().agree
    monkeypatch.setattr(knobs_training, "book_stores_old_logps", lambda mu, spg, ga: mu > 1)
    assert not knobs_training.old_logps_check().agree


def test_ref_sync_mixes_weights_and_a_policy_swap_fails(monkeypatch):
    sync = knobs_training.ref_sync_check()
    assert sync.gap < TOL and sync.early < TOL
    monkeypatch.setattr(
        knobs_training, "book_ref_sync", lambda theta, theta_ref, alpha: (1 - alpha) * theta + alpha * theta_ref
    )
    assert knobs_training.ref_sync_check().gap > 100 * TOL
