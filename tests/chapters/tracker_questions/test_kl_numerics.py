"""Section "The KL goes negative" (``kl_numerics``): TRL's float32 k3 against k3 in float64, the early logged KL of
real TRL steps, the per-token gradient at large log-ratios, and the knob grid; a wrong statement fails each check."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.chapters.tracker_questions import kl_numerics  # noqa: E402
from grpo_nb.chapters.trl_grpo.advantage_probe import make_probe  # noqa: E402


@pytest.fixture(scope="module")
def probe():
    return make_probe(beta=2.0, seed=0)


@pytest.fixture(scope="module")
def numerics(probe):
    return kl_numerics.k3_numerics(probe, n=64, n_values=20_000, seed=0)


@pytest.fixture(scope="module")
def early():
    return kl_numerics.early_kl(seed=0)


# --- the cancellation -----------------------------------------------------------------------------------------------


def test_trls_k3_rounds_within_the_bound_and_only_it_goes_below_zero(numerics):
    assert numerics.holds, numerics.verdicts
    small = numerics.rows[-1]  # |d| ~ 1e-4
    assert small.trl_negative_share > 0 and small.expm1_negative_share == 0 and small.exact_negative_share == 0
    assert small.trl_zero_share > 0.9 and small.median_rel_error >= 0.9 and small.loss_replica_gap == 0
    assert numerics.rows[0].trl_negative_share == 0 and numerics.rows[0].median_rel_error < 0.01
    assert len(numerics.table.rows) == 3


@pytest.mark.parametrize("seed", [1, 2])
def test_the_cancellation_statements_hold_at_other_seeds(seed):
    assert kl_numerics.k3_numerics(make_probe(beta=2.0, seed=seed), n=64, n_values=20_000, seed=seed).holds


@pytest.mark.parametrize(
    ("name", "wrong", "verdict"),
    [
        ("K3_BOUNDS", {"rounding": 1e-8}, "rounding"),  # "the error is far below float32's spacing at 1"
        ("K3_BOUNDS", {"stable_relative": 1e-9}, "stable"),  # "expm1 is exact in float32"
        ("K3_BOUNDS", {"gradient": 1e-9}, "gradient"),  # "the gradient is exact"
        ("NEGATIVE_VALUES", {"trl": False}, "negative values"),  # "TRL's k3 is never below 0"
        ("NEGATIVE_VALUES", {"expm1": True}, "negative values"),  # "expm1 goes below 0 too"
        ("MEDIAN_ERROR", {1e-3: (0.0, 0.01)}, "median error"),  # "at |d| ~ 1e-3 the value is still good"
        ("MEDIAN_ERROR", {1e-4: (0.0, 0.5)}, "median error"),  # "at |d| ~ 1e-4 half the digits survive"
    ],
)
def test_a_wrong_statement_of_the_numerics_fails(monkeypatch, probe, name, wrong, verdict):
    for key, value in wrong.items():
        monkeypatch.setitem(getattr(kl_numerics, name), key, value)
    found = kl_numerics.k3_numerics(probe, n=32, n_values=20_000, seed=0)
    assert not found.holds and not found.verdicts[verdict]


def test_a_negative_value_beyond_rounding_would_fail(monkeypatch, probe):
    """A bound so tight that TRL's rounding-sized negative values exceed it."""
    monkeypatch.setitem(kl_numerics.K3_BOUNDS, "rounding", 1e-8)
    assert not kl_numerics.k3_numerics(probe, n=32, n_values=20_000, seed=0).verdicts["negatives are rounding"]


# --- the early KL ---------------------------------------------------------------------------------------------------


def test_the_first_step_logs_zero_and_the_kl_grows_as_the_square_of_the_step(early):
    assert early.holds, early.verdicts
    assert all(f == 0.0 for f in early.first_step) and "small at TRL's default learning rate" in early.verdicts
    assert abs(early.growth_power - 2) < kl_numerics.GROWTH_TOL
    assert all(
        abs(lg - ex) <= kl_numerics.K3_BOUNDS["rounding"] for lg, ex in zip(early.logged, early.exact, strict=True)
    )
    assert early.exact[0] > early.exact[1] > early.exact[2] > 0 and len(early.table.rows) == 3


@pytest.mark.parametrize(
    ("key", "wrong"), [("growth_power", 1.0), ("growth_power", 3.0), ("first_step", 1e-3), ("default_lr_below", 1e-9)]
)
def test_a_wrong_statement_of_the_early_kl_fails(monkeypatch, key, wrong):
    monkeypatch.setitem(kl_numerics.EARLY_KL, key, wrong)
    assert not kl_numerics.early_kl(learning_rates=(1e-5, 1e-6), seed=0).holds


def test_a_logged_kl_claimed_exact_fails(monkeypatch):
    monkeypatch.setitem(kl_numerics.K3_BOUNDS, "rounding", 1e-12)  # "TRL logs the exact KL"
    assert not kl_numerics.early_kl(learning_rates=(1e-5, 1e-6), seed=0).verdicts["rounding"]


def test_trls_token_gradient_and_value(probe):
    d = np.array([-2.0, -0.5, 0.5, 3.0])
    logp = np.full(4, -1.5)
    with_ratio = kl_numerics.trl_kl_token_gradient(probe, logp, logp + d, bias_correction=True)
    without = kl_numerics.trl_kl_token_gradient(probe, logp, logp + d, bias_correction=False)
    assert np.allclose(with_ratio, -d, rtol=1e-5, atol=1e-6) and np.allclose(without, -np.expm1(d), rtol=1e-5)
    logged = kl_numerics.trl_k3_logged(probe, logp, logp + d)
    assert np.allclose(logged, np.expm1(d) - d, rtol=1e-5)


# --- the token gradient ---------------------------------------------------------------------------------------------


def test_the_token_gradient_is_exponential_without_the_ratio_and_linear_with_it(probe):
    g = kl_numerics.token_gradients(probe)
    assert g.holds and np.allclose(g.gradient[True], [-x for x in g.d], rtol=1e-5)
    assert g.gradient[False][-1] < -2000 and len(g.table.rows) == 4


def test_a_wrong_growth_fails(monkeypatch, probe):
    monkeypatch.setattr(kl_numerics, "TOKEN_GRADIENT_GROWTH", {True: "exponential", False: "linear"})
    g = kl_numerics.token_gradients(probe)
    assert not g.verdicts[True] and not g.verdicts[False]


# --- the knob grid --------------------------------------------------------------------------------------------------


def test_the_grid_shows_float64_k3_takes_nothing_away():
    found = kl_numerics.grid_verdicts()
    assert all(ok for _, ok in found.values())
    assert found["trl+kl_exact"][0].mean < 0 < found["trl+k3_float64"][0].mean


@pytest.mark.parametrize(("key", "wrong"), [("trl+k3_float64", "fewer"), ("trl+kl_exact", "not fewer")])
def test_a_wrong_grid_claim_fails(monkeypatch, key, wrong):
    monkeypatch.setitem(kl_numerics.GRID_CLAIMS, key, wrong)
    assert not kl_numerics.grid_verdicts()[key][1]


# --- bad input ------------------------------------------------------------------------------------------------------


def test_bad_input_names_the_parameter(probe, monkeypatch):
    with pytest.raises(ValueError, match="n="):
        kl_numerics.k3_numerics(probe, n=0)
    with pytest.raises(ValueError, match="n=100"):
        kl_numerics.k3_numerics(probe, n=100, n_values=10)
    with pytest.raises(ValueError, match="scale"):
        kl_numerics.k3_numerics(probe, scales=(3e-3,), n=4, n_values=10)
    with pytest.raises(ValueError, match="learning_rates"):
        kl_numerics.early_kl(learning_rates=(1e-4,))
    with pytest.raises(ValueError, match="learning_rates"):
        kl_numerics.early_kl(learning_rates=(1e-4, -1e-5))
    with pytest.raises(ValueError, match="d="):
        kl_numerics.token_gradients(probe, d=(1.0, 2.0))
    with pytest.raises(ValueError, match="key"):
        kl_numerics.grid_verdicts({"trl+nothing": "fewer"})
    with pytest.raises(ValueError, match="claim"):
        kl_numerics.grid_verdicts({"trl+kl_exact": "maybe"})
    with pytest.raises(ValueError, match="logp and ref_logp"):
        kl_numerics.trl_kl_token_gradient(probe, [-1.0, -2.0], [-1.0], bias_correction=True)
    with pytest.raises(ValueError, match="len\\(logp\\)"):
        kl_numerics.trl_kl_token_gradient(probe, [-1.0] * 10_000, [-1.0] * 10_000, bias_correction=True)
    with pytest.raises(ValueError, match="logp and ref_logp"):
        kl_numerics.trl_k3_logged(probe, [], [])
    monkeypatch.setattr(probe.trainer, "beta", 0.0)
    with pytest.raises(ValueError, match="beta"):
        kl_numerics.trl_kl_token_gradient(probe, [-1.0], [-1.0], bias_correction=True)
    with pytest.raises(ValueError, match="beta"):
        kl_numerics.k3_numerics(probe, n=4, n_values=10)
