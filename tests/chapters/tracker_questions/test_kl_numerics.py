"""Section "The KL goes negative", the value of TRL's k3 (``kl_numerics``): TRL's float32 k3 against k3 in float64 (an
absolute bound at small |d| only; at large d an absolute error growing as e^d and a relative one near 1e-7), and TRL's
loss on given log-probabilities; a wrong statement fails each check. The KL in training: ``test_kl_in_training.py``."""

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


# --- large |d| -------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def large_d():
    return kl_numerics.k3_large_d(n_values=20_000, seed=0)


def test_the_absolute_error_grows_as_e_to_the_d_and_the_relative_error_stays_small(large_d):
    assert large_d.holds, large_d.verdicts
    bounds = kl_numerics.K3_BOUNDS
    assert large_d.small_max_error <= bounds["rounding"]
    errors = [r.max_error_pos for r in large_d.rows]
    assert errors[0] > 10 * bounds["rounding"] and errors[1] > 30 * errors[0] and errors[2] > 30 * errors[1]  # e^4 ~ 55
    assert errors[2] > 1e-3 and all(r.max_error_neg < 1e-6 for r in large_d.rows)  # d < 0: |d| sets the size
    assert all(r.max_rel_error < bounds["large_d_relative"] for r in large_d.rows)
    assert large_d.terms_ratio <= bounds["terms_relative"]
    assert [row[2] for row in large_d.table.rows] == ["1e-06 to 1e-05", "1e-04 to 1e-03", "1e-02 to 1e-01"]
    assert len(large_d.table.rows) == len(kl_numerics.LARGE_D)


@pytest.mark.parametrize("seed", [1, 2])
def test_the_large_d_statements_hold_at_other_seeds(seed):
    assert kl_numerics.k3_large_d(n_values=20_000, seed=seed).holds


@pytest.mark.parametrize(
    ("name", "key", "wrong", "verdict"),
    [
        ("K3_BOUNDS", "rounding_max_d", np.inf, "absolute within rounding_max_d"),  # the former "at every |d|"
        ("K3_BOUNDS", "rounding_max_d", 5.0, "absolute within rounding_max_d"),  # "up to |d| = 5"
        ("K3_BOUNDS", "large_d_relative", 1e-8, "relative at large |d|"),  # "the relative error is far below 1e-7"
        ("K3_BOUNDS", "terms_relative", 1e-8, "terms"),  # "far below one float32 rounding of the terms"
        ("K3_BOUNDS", "rounding", 1.0, "beyond the small-|d| bound"),  # "the small-|d| bound holds at large d too"
        ("K3_BOUNDS", "negative_d", 1e-7, "d < 0"),  # "for d < 0 the error stays at the rounding of a number near 1"
    ],
)
def test_a_wrong_statement_at_large_d_fails(monkeypatch, name, key, wrong, verdict):
    monkeypatch.setitem(getattr(kl_numerics, name), key, wrong)
    found = kl_numerics.k3_large_d(n_values=20_000, seed=0)
    assert not found.holds and not found.verdicts[verdict]


@pytest.mark.parametrize("wrong", [{12.0: -7}, {4.0: -7}, {8.0: -5}])  # "a few 1e-7 at d ~ 12" (the former claim), ...
def test_a_wrong_order_of_the_large_d_error_fails(monkeypatch, wrong):
    for key, value in wrong.items():
        monkeypatch.setitem(kl_numerics.LARGE_D_ORDER, key, value)
    assert not kl_numerics.k3_large_d(n_values=20_000, seed=0).verdicts["orders"]


@pytest.mark.parametrize("wrong", [0.0, 0.5, 2.0])  # the absolute error does not grow; grows as e^(d/2); as e^(2d)
def test_a_wrong_growth_at_large_d_fails(monkeypatch, wrong):
    monkeypatch.setattr(kl_numerics, "LARGE_D_GROWTH", wrong)
    assert not kl_numerics.k3_large_d(n_values=20_000, seed=0).verdicts["grows as e^d"]


# --- TRL's loss on given log-probabilities ---------------------------------------------------------------------


def test_trls_token_gradient_and_value(probe):
    d = np.array([-2.0, -0.5, 0.5, 3.0])
    logp = np.full(4, -1.5)
    with_ratio = kl_numerics.trl_kl_token_gradient(probe, logp, logp + d, bias_correction=True)
    without = kl_numerics.trl_kl_token_gradient(probe, logp, logp + d, bias_correction=False)
    assert np.allclose(with_ratio, -d, rtol=1e-5, atol=1e-6) and np.allclose(without, -np.expm1(d), rtol=1e-5)
    logged = kl_numerics.trl_k3_logged(probe, logp, logp + d)
    assert np.allclose(logged, np.expm1(d) - d, rtol=1e-5)


# --- bad input ------------------------------------------------------------------------------------------------------


def test_bad_input_names_the_parameter(probe, monkeypatch):
    with pytest.raises(ValueError, match="n="):
        kl_numerics.k3_numerics(probe, n=0)
    with pytest.raises(ValueError, match="n=100"):
        kl_numerics.k3_numerics(probe, n=100, n_values=10)
    with pytest.raises(ValueError, match="scale"):
        kl_numerics.k3_numerics(probe, scales=(3e-3,), n=4, n_values=10)
    with pytest.raises(ValueError, match="n_values="):
        kl_numerics.k3_large_d(n_values=0)
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
