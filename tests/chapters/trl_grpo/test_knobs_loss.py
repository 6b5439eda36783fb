"""Section "Every knob, checked by TRL's own code", the knobs of TRL's loss (``grpo_nb.chapters.trl_grpo.knobs_loss``):
the KL term, the loss aggregation, the clip range and ``delta``, the ratio level, each against the book's formula
with a negative test, and bad input."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.chapters.trl_grpo import advantage_probe, knobs_loss  # noqa: E402
from grpo_nb.trl_adapters.trainer import beta_effective  # noqa: E402

TOL = advantage_probe.TOL


def test_kl_is_k3_and_a_wrong_estimator_fails(probe, monkeypatch):
    assert knobs_loss.kl_check(probe) < TOL
    assert knobs_loss.kl_check(probe, bias_correction=True) < TOL
    book_kl = knobs_loss.book_kl
    wrong = {
        "k1": lambda logp, ref, log_ratio, *, bias_correction: (logp - ref).double().numpy(),  # -d
        "k2": lambda logp, ref, log_ratio, *, bias_correction: ((ref - logp) ** 2 / 2).double().numpy(),  # d^2 / 2
    }
    for name, formula in wrong.items():
        with monkeypatch.context() as m:
            m.setattr(knobs_loss, "book_kl", formula)
            assert knobs_loss.kl_check(probe) > 100 * TOL, name
    # the ratio claimed the wrong way round
    monkeypatch.setattr(
        knobs_loss,
        "book_kl",
        lambda logp, ref, log_ratio, *, bias_correction: book_kl(
            logp, ref, log_ratio, bias_correction=not bias_correction
        ),
    )
    assert knobs_loss.kl_check(probe) > 100 * TOL  # a ratio without the flag
    assert knobs_loss.kl_check(probe, bias_correction=True) > 100 * TOL  # no ratio with the flag


def test_loss_aggregation_per_loss_type_and_a_wrong_one_fails(probe, monkeypatch):
    for lt in knobs_loss.LOSS_TYPES:
        assert knobs_loss.loss_type_check(probe, lt) < TOL
    aggregate = knobs_loss.aggregate
    for loss_type, claimed in (("grpo", "bnpo"), ("dr_grpo", "bnpo"), ("dapo", "grpo")):
        with monkeypatch.context() as m:
            m.setattr(
                knobs_loss,
                "aggregate",
                lambda x, mask, lt, *, max_len, n_generated=None, c=claimed: aggregate(
                    x, mask, c, max_len=max_len, n_generated=n_generated
                ),
            )
            assert knobs_loss.loss_type_check(probe, loss_type) > 100 * TOL, (loss_type, claimed)


def test_clip_range_and_a_wrong_upper_range_fails(probe, monkeypatch):
    assert knobs_loss.clip_check(probe, 0.2) < TOL and knobs_loss.clip_check(probe, 0.2, 0.28) < TOL
    clipped = knobs_loss.book_clipped_term
    with monkeypatch.context() as m:  # the book claims a symmetric clip where TRL's upper range is 0.28
        m.setattr(
            knobs_loss, "book_clipped_term", lambda x, a, low, *, clip_eps_high: clipped(x, a, low, clip_eps_high=low)
        )
        assert knobs_loss.clip_check(probe, 0.2, 0.28) > 100 * TOL
    with monkeypatch.context() as m:  # the book claims no upper clip: the clip does act
        m.setattr(
            knobs_loss, "book_clipped_term", lambda x, a, low, *, clip_eps_high: clipped(x, a, low, clip_eps_high=1e3)
        )
        assert knobs_loss.clip_check(probe, 0.2) > 100 * TOL


def test_sequence_level_ratio_and_the_wrong_level_fails(probe, monkeypatch):
    assert (
        knobs_loss.sequence_ratio_check(probe, "sequence") < TOL
        and knobs_loss.sequence_ratio_check(probe, "token") < TOL
    )
    log_ratio = knobs_loss.book_log_ratio
    other = {"sequence": "token", "token": "sequence"}
    monkeypatch.setattr(knobs_loss, "book_log_ratio", lambda lr, mask, level: log_ratio(lr, mask, other[level]))
    assert knobs_loss.sequence_ratio_check(probe, "sequence") > 100 * TOL
    assert knobs_loss.sequence_ratio_check(probe, "token") > 100 * TOL


def test_bad_input_raises(probe):
    with pytest.raises(ValueError, match="loss_type"):
        knobs_loss.aggregate(np.zeros((2, 2)), np.ones((2, 2)), "ppo", max_len=2)
    with pytest.raises(ValueError, match="scale_rewards='global'"):
        advantage_probe.advantage_check(probe, "global")
    with pytest.raises(ValueError, match="level='answer'"):
        knobs_loss.sequence_ratio_check(probe, "answer")
    with pytest.raises(ValueError, match="loss_type='ppo'"):
        knobs_loss.loss_type_check(probe, "ppo")
    with pytest.raises(ValueError, match="G=1"):
        beta_effective(1.0, 1)
    with pytest.raises(ValueError, match="beta=-1"):
        beta_effective(-1.0, 8)
    assert beta_effective(1.0, 2) == pytest.approx(np.sqrt(2))


def test_dr_grpo_divides_by_max_completion_length_and_dapo_by_the_generated_count(probe_beta0, monkeypatch):
    probe = probe_beta0
    for lt in knobs_loss.LOSS_TYPES:
        assert knobs_loss.loss_type_check(probe, lt) < TOL
    aggregate = knobs_loss.aggregate

    def dr_grpo_by_width(x, mask, lt, *, max_len, n_generated=None):  # L_max taken as the padded width
        return aggregate(x, mask, lt, max_len=max_len - 2, n_generated=n_generated)

    def dapo_as_bnpo(x, mask, lt, *, max_len, n_generated=None):  # the old check's dapo: the mask's own count
        return aggregate(x, mask, "bnpo" if lt == "dapo" else lt, max_len=max_len, n_generated=n_generated)

    with monkeypatch.context() as m:
        m.setattr(knobs_loss, "aggregate", dr_grpo_by_width)
        assert knobs_loss.loss_type_check(probe, "dr_grpo") > 100 * TOL
    with monkeypatch.context() as m:
        m.setattr(knobs_loss, "aggregate", dapo_as_bnpo)
        assert knobs_loss.loss_type_check(probe, "dapo") > 100 * TOL
    with pytest.raises(ValueError, match="n_generated"):
        knobs_loss.aggregate(probe.logp.numpy(), probe.logp.numpy() * 0 + 1, "dapo", max_len=2)


def test_delta_caps_the_ratio_and_ignoring_it_fails(probe_beta0, monkeypatch):
    probe = probe_beta0
    assert knobs_loss.clip_check(probe, 0.2, delta=1.5) < TOL
    monkeypatch.setattr(knobs_loss, "book_delta_ratio", lambda ratio, delta: ratio)
    assert knobs_loss.clip_check(probe, 0.2, delta=1.5) > 100 * TOL
