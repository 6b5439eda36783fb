"""Section "The KL goes negative", the KL in training (``kl_in_training``): the early logged KL of real TRL steps, the
per-token gradient at large log-ratios, and the knob grid against its placebo; a wrong statement fails each check;
bad input raises ValueError naming the parameter."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.chapters.tracker_questions import kl_in_training, kl_numerics  # noqa: E402
from grpo_nb.chapters.trl_grpo.advantage_probe import make_probe  # noqa: E402


@pytest.fixture(scope="module")
def probe():
    return make_probe(beta=2.0, seed=0)


@pytest.fixture(scope="module")
def early():
    return kl_in_training.early_kl(seed=0)


# --- the early KL ---------------------------------------------------------------------------------------------------


def test_the_first_step_logs_zero_and_the_kl_grows_as_the_square_of_the_step(early):
    assert early.holds, early.verdicts
    assert all(f == 0.0 for f in early.first_step) and "small at TRL's default learning rate" in early.verdicts
    assert abs(early.growth_power - 2) < kl_in_training.GROWTH_TOL
    assert all(
        abs(lg - ex) <= kl_numerics.K3_BOUNDS["rounding"] for lg, ex in zip(early.logged, early.exact, strict=True)
    )
    assert early.exact[0] > early.exact[1] > early.exact[2] > 0 and len(early.table.rows) == 3


@pytest.mark.parametrize(
    ("key", "wrong"), [("growth_power", 1.0), ("growth_power", 3.0), ("first_step", 1e-3), ("default_lr_below", 1e-9)]
)
def test_a_wrong_statement_of_the_early_kl_fails(monkeypatch, key, wrong):
    monkeypatch.setitem(kl_in_training.EARLY_KL, key, wrong)
    assert not kl_in_training.early_kl(learning_rates=(1e-5, 1e-6), seed=0).holds


def test_a_logged_kl_claimed_exact_fails(monkeypatch):
    monkeypatch.setitem(kl_numerics.K3_BOUNDS, "rounding", 1e-12)  # "TRL logs the exact KL"
    assert not kl_in_training.early_kl(learning_rates=(1e-5, 1e-6), seed=0).verdicts["rounding"]


# --- the token gradient ---------------------------------------------------------------------------------------------


def test_the_token_gradient_is_exponential_without_the_ratio_and_linear_with_it(probe):
    g = kl_in_training.token_gradients(probe)
    assert g.holds and np.allclose(g.gradient[True], [-x for x in g.d], rtol=1e-5)
    assert g.gradient[False][-1] < -2000 and len(g.table.rows) == 4


def test_a_wrong_growth_fails(monkeypatch, probe):
    monkeypatch.setattr(kl_in_training, "TOKEN_GRADIENT_GROWTH", {True: "exponential", False: "linear"})
    g = kl_in_training.token_gradients(probe)
    assert not g.verdicts[True] and not g.verdicts[False]


# --- the knob grid --------------------------------------------------------------------------------------------------


def test_the_grid_shows_float64_k3_takes_nothing_away():
    found = kl_in_training.grid_verdicts()
    assert all(ok for _, ok in found.values())
    assert found["trl+kl_exact"][0].mean < 0 < found["trl+k3_float64"][0].mean


@pytest.mark.parametrize(("key", "wrong"), [("trl+k3_float64", "fewer"), ("trl+kl_exact", "not fewer")])
def test_a_wrong_grid_claim_fails(monkeypatch, key, wrong):
    monkeypatch.setitem(kl_in_training.GRID_CLAIMS, key, wrong)
    assert not kl_in_training.grid_verdicts()[key][1]


def test_the_stable_k3_lies_within_the_placebos_reach_and_the_exact_kl_beyond():
    reach, found = kl_in_training.placebo_verdicts()
    assert 1.0 < reach < 1.1 and all(found.values())


@pytest.mark.parametrize(("key", "wrong"), [("trl+k3_float64", "beyond"), ("trl+kl_exact", "within")])
def test_a_wrong_placebo_claim_fails(monkeypatch, key, wrong):
    monkeypatch.setitem(kl_in_training.PLACEBO_CLAIMS, key, wrong)
    assert not kl_in_training.placebo_verdicts()[1][key]


# --- bad input ------------------------------------------------------------------------------------------------------


def test_bad_input_names_the_parameter(probe, monkeypatch):
    with pytest.raises(ValueError, match="learning_rates"):
        kl_in_training.early_kl(learning_rates=(1e-4,))
    with pytest.raises(ValueError, match="learning_rates"):
        kl_in_training.early_kl(learning_rates=(1e-4, -1e-5))
    with pytest.raises(ValueError, match="d="):
        kl_in_training.token_gradients(probe, d=(1.0, 2.0))
    with pytest.raises(ValueError, match="key"):
        kl_in_training.grid_verdicts({"trl+nothing": "fewer"})
    with pytest.raises(ValueError, match="claim"):
        kl_in_training.grid_verdicts({"trl+kl_exact": "maybe"})
    monkeypatch.setattr(kl_in_training, "PLACEBO_CLAIMS", {"trl+book_loss": "within"})
    with pytest.raises(ValueError, match="key"):
        kl_in_training.placebo_verdicts()
