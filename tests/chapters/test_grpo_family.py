"""The chapter "The GRPO family": each check passes on the book's statement and fails on a wrong one."""

from __future__ import annotations

import sys
from dataclasses import replace

import pytest

from grpo_nb import family
from grpo_nb.chapters import grpo_family as checks


def test_family_table_has_every_method() -> None:
    assert len(checks.family_table().table.rows) == len(family.METHOD_NAMES)


def test_row_identities_hold_and_fail_on_wrong_statements(monkeypatch) -> None:
    ids = checks.row_identities()
    assert max(ids.rloo_gap, ids.pairwise_gap, ids.gspo_gap, ids.silent_gap) < checks.TOL
    monkeypatch.setattr(checks, "rloo_factor", lambda G: 1.0)  # the G/(G-1) factor dropped
    monkeypatch.setattr(checks, "silent_probability", lambda p, G: p**G)  # the all-failure group forgotten
    monkeypatch.setattr(checks, "PAIR_SCALE", {"grpo": 1.0, "dr_grpo": 0.5, "rloo": 1.0})  # eps ignored... barely
    wrong = checks.row_identities()
    assert wrong.rloo_gap > 0.1 and wrong.silent_gap > 0.1 and wrong.pairwise_gap > checks.TOL


def test_gspo_identity_fails_with_a_summed_ratio(monkeypatch) -> None:
    loss_module = sys.modules["grpo_nb.family.loss"]  # the package rebinds the name ``loss`` to the function
    real = loss_module._log_ratio

    def summed(row, logp, old_logp, mask):
        if row.ratio == "sequence_mean":
            row = family.method("rloo")  # the product of the token ratios, not their geometric mean
        return real(row, logp, old_logp, mask)

    monkeypatch.setattr(loss_module, "_log_ratio", summed)
    assert checks.row_identities().gspo_gap > 1e-3


def test_kl_directions_and_a_swapped_direction_fails(monkeypatch) -> None:
    kl = checks.kl_estimators()
    assert kl.direction_gap < checks.TOL and kl.optimum_gap < 1e-9 and kl.forward_change > 0.05
    swapped = dict(checks.CLAIMED_DIRECTION) | {("k3", "loss"): "reverse"}
    monkeypatch.setattr(checks, "CLAIMED_DIRECTION", swapped)
    assert checks.kl_estimators().direction_gap > 1e-3


def test_regime_survey() -> None:
    survey = checks.regime_survey()
    assert survey.cycles["Dr. GRPO (mean only)"] == 0 < survey.cycles["GRPO (std)"] and survey.cycles_where_unstable


@pytest.mark.filterwarnings("ignore")
def test_trl_matches_the_book_and_not_a_wrong_aggregation(monkeypatch) -> None:
    trl = checks.trl_comparison()
    assert trl.advantage_gap < checks.TOL_TRL and max(trl.loss_gap, trl.grad_gap) < checks.TOL

    def wrong_loss(name, *args, **kwargs):  # DAPO read as a per-answer mean: TRL must disagree
        return family.loss("grpo" if name == "dapo" else name, *args, **kwargs)

    monkeypatch.setattr(checks, "LOSS", wrong_loss)
    monkeypatch.setattr(checks, "ADVANTAGE", lambda name, r, **kw: family.advantage("dr_grpo", r))
    wrong = checks.trl_comparison()
    assert wrong.loss_gap > 1e-6 and wrong.advantage_gap > 0.1


def test_the_trl_loss_cases_come_from_the_records() -> None:
    """TRL's knobs of the loss comparison, derived from each method's record, are the ones the page prints."""
    assert checks.TRL_LOSS_CASES == {
        "grpo": ({"loss_type": "grpo", "beta": 0.04}, {"beta": 0.04}),
        "dr_grpo": ({"loss_type": "dr_grpo", "beta": 0.04, "use_bias_correction_kl": False},
                    {"beta": 0.04, "bias_correction": False}),
        "dapo": ({"loss_type": "dapo", "epsilon_high": 0.28}, {}),
        "bnpo": ({"loss_type": "bnpo", "beta": 0.04}, {"beta": 0.04}),
        "gspo": ({"loss_type": "grpo", "importance_sampling_level": "sequence", "epsilon_low": 3e-4,
                  "epsilon_high": 4e-4}, {}),
        "cispo": ({"loss_type": "cispo", "epsilon_high": 5.0}, {}),
    }  # fmt: skip
    assert [list(k) for k, _ in checks.TRL_LOSS_CASES.values()][4] == [
        "loss_type", "importance_sampling_level", "epsilon_low", "epsilon_high"
    ]  # fmt: skip
    wider = replace(family.method("dapo"), clip_range=(0.1, 0.28))  # a changed record changes the knobs
    assert checks._loss_case(wider)[0] == {"loss_type": "dapo", "epsilon_low": 0.1, "epsilon_high": 0.28}


def test_the_family_table_reads_every_field_of_the_records(monkeypatch) -> None:
    table = checks.family_table()
    assert table.loss_table.rows[2] == ["DAPO", "token", r"$[1-\epsilon, 1+\epsilon_h]$", "none", "batch token mean"]
    assert table.trl_table.rows[2] == ["DAPO", '`loss_type="dapo"`, `epsilon_high=0.28`, `beta=0`']
    changed = tuple(replace(m, kl="reward", kl_estimator="k1") if m.name == "dapo" else m for m in family.METHODS)
    monkeypatch.setattr(family, "METHODS", changed)
    assert checks.family_table().loss_table.rows[2][3] == "reward, $k_1$"
