"""Section "Every knob, checked by TRL's own code", TRL's defaults (``grpo_nb.chapters.trl_grpo.knobs_defaults``):
the stated defaults are TRL's and a wrong one is caught; ``beta``'s default 0 builds no reference model and puts no
KL in the loss."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.chapters.trl_grpo import knobs_defaults  # noqa: E402
from grpo_nb.chapters.trl_grpo.advantage_probe import TOL  # noqa: E402


def test_beta_default_is_zero_without_reference_or_kl():
    beta0 = knobs_defaults.beta_default_check()
    assert beta0.default == 0 and not beta0.has_reference and beta0.loss < TOL


def test_trls_defaults_are_the_stated_ones_and_a_wrong_claim_is_caught(monkeypatch):
    assert knobs_defaults.defaults_check() == {}
    monkeypatch.setattr(knobs_defaults, "BOOK_DEFAULTS", {"beta": 0.04, "loss_type": "grpo"})
    assert knobs_defaults.defaults_check() == {
        "beta": (0.0, 0.04),
        "loss_type": ("dapo", "grpo"),
    }


def test_new_defaults_are_trls_and_a_wrong_one_is_caught(monkeypatch):
    assert knobs_defaults.defaults_check() == {}
    monkeypatch.setitem(knobs_defaults.BOOK_DEFAULTS, "num_generations", 16)
    monkeypatch.setitem(knobs_defaults.BOOK_DEFAULTS, knobs_defaults.SPG_KEY, 1)
    assert set(knobs_defaults.defaults_check()) == {"num_generations", knobs_defaults.SPG_KEY}
