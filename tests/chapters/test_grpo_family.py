"""The chapter "The GRPO family": each check passes on the book's statement and fails on a wrong one."""

from __future__ import annotations

import sys
from dataclasses import replace

import numpy as np
import pytest

from grpo_nb import family
from grpo_nb.chapters import grpo_family as checks
from grpo_nb.chapters.grpo_family import climbs, identities, kl_direction, new_rows, table, trl_check


def test_family_table_has_every_method() -> None:
    assert len(checks.family_table().table.rows) == len(family.METHOD_NAMES)


def test_row_identities_hold_and_fail_on_wrong_statements(monkeypatch) -> None:
    ids = checks.row_identities()
    assert max(ids.rloo_gap, ids.pairwise_gap, ids.gspo_gap, ids.silent_gap) < checks.TOL
    monkeypatch.setattr(identities, "rloo_factor", lambda G: 1.0)  # the G/(G-1) factor dropped
    monkeypatch.setattr(identities, "silent_probability", lambda p, G: p**G)  # the all-failure group forgotten
    monkeypatch.setattr(identities, "PAIR_SCALE", {"grpo": 1.0, "dr_grpo": 0.5, "rloo": 1.0})  # eps ignored... barely
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


def test_rloo_is_dr_grpo_for_one_token_answers_only(monkeypatch) -> None:
    """The former wording ("RLOO is Dr. GRPO with beta scaled by (G-1)/G", without a scope) fails on two tokens; a
    wrong beta map fails on one token too."""
    gap = checks.rloo_against_dr_grpo()
    assert gap.one_token < 1e-12 and gap.two_tokens[0] > 1e-3
    monkeypatch.setattr(identities, "rloo_factor", lambda G: 1.0)  # Dr. GRPO at the same beta as RLOO
    assert checks.rloo_against_dr_grpo().one_token > 1e-3


def test_kl_directions_and_a_swapped_direction_fails(monkeypatch) -> None:
    kl = checks.kl_estimators()
    assert kl.direction_gap < checks.TOL and kl.optimum_gap < 1e-9 and kl.forward_change > 0.05
    swapped = dict(checks.CLAIMED_DIRECTION) | {("k3", "loss"): "reverse"}
    monkeypatch.setattr(kl_direction, "CLAIMED_DIRECTION", swapped)
    assert checks.kl_estimators().direction_gap > 1e-3


@pytest.mark.parametrize(
    "wrong",
    [
        {("k2", "loss"): ("sequence", False)},  # the former wording: every reverse placement keeps the answers' KL
        {("k3", "ratio_weighted"): ("sequence", True)},
        {("k2", "loss"): ("per-token", True)},  # k2 read as importance-weighted
        {("k1", "reward"): ("per-token", False)},
    ],
)
def test_kl_scope_holds_and_fails_on_a_wider_claim(monkeypatch, wrong) -> None:
    scope = checks.kl_scope()
    assert scope.claims_hold and scope.sequence_distance[0] > 0.01
    assert abs(scope.inner_p1[("k3", "ratio_weighted")] - scope.gibbs_p1) < 1e-9
    assert min(abs(scope.inner_p1[k] - scope.gibbs_p1) for k in [("k2", "loss"), ("k3", "loss")]) > 0.1
    assert scope.frozen_k1_gradient == 0.0 and scope.optimiser_gradient < 1e-6
    assert abs(scope.two_token_p1[0] - scope.two_token_p1[1]) > 1e-3  # the former wording: k3 x ratio keeps Theorem 1
    monkeypatch.setattr(kl_direction, "CLAIMED_SCOPE", dict(checks.CLAIMED_SCOPE) | wrong)
    assert not checks.kl_scope().claims_hold


def test_finite_group_climbs_and_the_limit_read_at_g8_fails(monkeypatch) -> None:
    fg = checks.finite_group_climbs()
    assert fg.share_holds and fg.route_gap < 1e-12 and fg.dr_grpo_gap < 1e-12 and fg.g2_spread < 1e-12
    assert abs(fg.g2_ratio - 2 / np.sqrt(1 + 4e-5)) < 1e-12
    monkeypatch.setattr(climbs, "STATED_SHARE", {0.01: 1.0, 0.1: 1.0})  # the G -> infinity reading at G = 8
    assert not checks.finite_group_climbs().share_holds


def test_finite_group_route_check_fails_on_the_limit(monkeypatch) -> None:
    """The enumerated s_G against rho_G s_inf: with rho_G replaced by 1 (the G -> infinity limit) it fails."""
    monkeypatch.setattr(climbs, "signal_retention", lambda p, G, eps: np.ones_like(p))
    assert checks.finite_group_climbs().route_gap > 0.1


def test_regime_survey() -> None:
    survey = checks.regime_survey()
    assert survey.cycles["Dr. GRPO (mean only)"] == 0 < survey.cycles["GRPO (std)"] and survey.cycles_where_unstable


@pytest.mark.filterwarnings("ignore")
def test_trl_matches_the_book_and_not_a_wrong_aggregation(monkeypatch) -> None:
    trl = checks.trl_comparison()
    assert trl.advantage_gap < checks.TOL_TRL and max(trl.loss_gap, trl.grad_gap) < checks.TOL
    assert trl.silent_kept and 0.2 < trl.silent_share < 0.8

    def wrong_loss(name, *args, **kwargs):  # DAPO read as a per-answer mean: TRL must disagree
        return family.loss("grpo" if name == "dapo" else name, *args, **kwargs)

    monkeypatch.setattr(trl_check, "LOSS", wrong_loss)
    monkeypatch.setattr(trl_check, "ADVANTAGE", lambda name, r, **kw: family.advantage("dr_grpo", r))
    wrong = checks.trl_comparison()
    assert wrong.loss_gap > 1e-6 and wrong.advantage_gap > 0.1


def test_dynamic_sampling_would_fail_the_silent_group_check() -> None:
    """A batch with the silent groups dropped (DAPO's dynamic sampling) is told apart from TRL's."""
    out = trl_check._trl_batch(trl_check.probe_trainer(), trl_check.TRL_REWARDS, "group")
    assert trl_check._silent_groups_kept(out)[0]
    kept = np.repeat(np.ptp(trl_check.TRL_REWARDS, axis=1) > 0, trl_check.TRL_REWARDS.shape[1])
    dropped = dict(out) | {"advantages": out["advantages"][kept], "completion_mask": out["completion_mask"][kept]}
    assert not trl_check._silent_groups_kept(dropped)[0]
    assert not trl_check._silent_groups_kept(dict(out) | {"num_items_in_batch": out["completion_mask"][kept].sum()})[0]


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
        "sapo": ({"loss_type": "sapo", "sapo_temperature_pos": 1.0, "sapo_temperature_neg": 1.05}, {}),
        "vespo": ({"loss_type": "vespo", "vespo_k_pos": 2.0, "vespo_lambda_pos": 3.0, "vespo_k_neg": 3.0,
                   "vespo_lambda_neg": 2.0}, {}),
        "gdpo": ({"loss_type": "grpo"}, {}),
    }  # fmt: skip
    assert [list(k) for k, _ in checks.TRL_LOSS_CASES.values()][4] == [
        "loss_type", "importance_sampling_level", "epsilon_low", "epsilon_high"
    ]  # fmt: skip
    wider = replace(family.method("dapo"), clip_range=(0.1, 0.28))  # a changed record changes the knobs
    assert trl_check._loss_case(wider)[0] == {"loss_type": "dapo", "epsilon_low": 0.1, "epsilon_high": 0.28}


def test_the_family_table_reads_every_field_of_the_records(monkeypatch) -> None:
    t = checks.family_table()
    assert t.loss_table.rows[2] == ["DAPO", "token", r"$[1-\epsilon, 1+\epsilon_h]$", "none", "batch token mean"]
    assert t.trl_table.rows[2][:2] == ["DAPO", '`loss_type="dapo"`, `epsilon_high=0.28`, `beta=0`']
    assert "no dynamic sampling" in t.trl_table.rows[2][2]
    assert t.trl_table.rows[4][1].endswith("`epsilon=0.0003`, `epsilon_high=0.0004`")  # GSPO's own clip range
    changed = tuple(replace(m, kl="reward", kl_estimator="k1") if m.name == "dapo" else m for m in family.METHODS)
    monkeypatch.setattr(family, "METHODS", changed)
    assert table.family_table().loss_table.rows[2][3] == "reward, $k_1$"


def test_the_advantage_rows_that_share_grpos_rule_say_so_by_their_records() -> None:
    """DAPO, BNPO, GSPO, CISPO, SAPO and VESPO have GRPO's advantage because their records share its centring and
    scaling: the page states it as that identity; a record with another scaling is told apart."""
    same = [m for m in family.METHODS if (m.centring, m.scaling) == (family.Centring.GROUP, family.Scaling.GROUP_STD)]
    assert [m.name for m in same] == ["grpo", "dapo", "bnpo", "gspo", "cispo", "sapo", "vespo"]
    other = replace(family.method("gspo"), scaling="none")
    assert (other.centring, other.scaling) != (family.Centring.GROUP, family.Scaling.GROUP_STD)


def test_one_new_record_is_a_row_of_every_family_table(monkeypatch) -> None:
    """A method is one record: added to ``grpo_nb.family.METHODS`` with nothing else registered, it is a row of this
    chapter's three tables (its advantage, its loss, its TRL flags and note) and of the cheat sheet's family table."""
    from grpo_nb.chapters import cheat_sheet

    new = family.Method(
        "grpo_seq", "GRPO, sequence ratio", "zheng2025gspo", "group", "group_std", "sequence_sum", "clip_higher",
        (0.1, 0.3), "loss", "k3", "sequence", "zero advantage, kept", "GRPOTrainer",
        {"importance_sampling_level": "sequence", "epsilon": 0.1, "epsilon_high": 0.3},
        trl_note="a product of token ratios, not GSPO's geometric mean",
    )  # fmt: skip
    monkeypatch.setattr(family, "METHODS", (*family.METHODS, new))
    t = table.family_table()
    grpo = family.advantage("grpo", table.EXAMPLE_REWARDS)[0]
    assert t.table.rows[-1] == ["GRPO, sequence ratio", f"{grpo[0]:.3f} / {grpo[1]:.3f}", "group mean", "group std",
                                "zero advantage, kept"]  # fmt: skip
    assert t.loss_table.rows[-1] == ["GRPO, sequence ratio", "sequence (product)", r"$[1-\epsilon, 1+\epsilon_h]$",
                                     "loss, $k_3$", "mean over answers"]  # fmt: skip
    assert t.trl_table.rows[-1] == [
        "GRPO, sequence ratio",
        '`importance_sampling_level="sequence"`, `epsilon=0.1`, `epsilon_high=0.3`',
        "a product of token ratios, not GSPO's geometric mean",
    ]
    assert t.success["grpo_seq"] == t.success["grpo"] and len(t.trl_table.rows) == len(family.METHOD_NAMES) + 1
    row = cheat_sheet.family_rows().table.rows[-1]
    assert row == ["GRPO, sequence ratio", f"{grpo[0]:.2f} / {grpo[1]:.2f}", "group mean", "group std", "answer",
                   "$k_3$ in loss"]  # fmt: skip


def test_trl_needs_the_sapo_temperature_in_float32(monkeypatch) -> None:
    """TRL reads SAPO's temperatures in float32: the book's loss agrees with it only with them rounded so."""
    unrounded, rounded = new_rows.sapo_temperature_rounding()
    assert rounded < checks.TOL < 1e-8 < unrounded
    monkeypatch.setattr(trl_check, "as_trl_reads", lambda m: m)
    assert checks.trl_comparison().loss_gap > 1e-8


def test_a_wrong_soft_weighting_fails_against_trl(monkeypatch) -> None:
    """SAPO read with a hard clip, or VESPO with its weight not detached (its ratio in the gradient), disagree with
    TRL's code."""

    def wrong_loss(row, *args, **kwargs):
        name = row if isinstance(row, str) else row.name
        swap = {"sapo": "grpo", "vespo": "dapo"}
        return family.loss(swap.get(name, row), *args, **kwargs)

    monkeypatch.setattr(trl_check, "LOSS", wrong_loss)
    trl = checks.trl_comparison()
    assert trl.loss_gap > 1e-6 or trl.grad_gap > 1e-6


def test_gdpo_two_rewards_match_trl_and_a_swapped_aggregation_fails(monkeypatch) -> None:
    two = new_rows.trl_multi_reward()
    assert max(two.gaps.values()) < checks.TOL_TRL and two.between > 0.1
    swapped = {"normalize_then_sum": "sum_then_normalize", "sum_then_normalize": "normalize_then_sum"}
    monkeypatch.setattr(
        new_rows,
        "MULTI_REWARD",
        lambda r, aggregation: family.multi_reward_advantage(r, aggregation=swapped[aggregation]),
    )
    assert min(new_rows.trl_multi_reward().gaps.values()) > 0.1


def test_maxrl_truncation_orders_hold_and_order_g_fails_for_the_advantage(monkeypatch) -> None:
    trunc = new_rows.maxrl_truncation((2, 4, 8))
    assert all(trunc.holds.values()) and not any(trunc.next_order_zero.values()) and trunc.row_gap < checks.TOL
    monkeypatch.setitem(new_rows.TRUNCATION_ORDER, "advantage", lambda G: G)  # the order G stated for the advantage
    wrong = new_rows.maxrl_truncation((2, 4, 8))
    assert not any(v for (name, _), v in wrong.holds.items() if name == "advantage")


def test_the_maxrl_row_is_checked_against_the_formula(monkeypatch) -> None:
    monkeypatch.setattr(new_rows, "ADVANTAGE", lambda name, r, **kw: family.advantage("dr_grpo", r))
    assert new_rows.maxrl_truncation((2,)).row_gap > 0.1


def test_multi_reward_climbs_and_a_swapped_objective_fails(monkeypatch) -> None:
    mr = new_rows.multi_reward_climbs()
    assert max(mr.gradient_gap.values()) < new_rows.ANGLE_TOL
    assert abs(mr.correctness_weight["normalize_then_sum"] - 2.29) < 0.005
    assert mr.distinct == {"normalize_then_sum": 3, "sum_then_normalize": 2}
    monkeypatch.setitem(
        new_rows.MULTI_REWARD_CLIMBED, "normalize_then_sum", new_rows.MULTI_REWARD_CLIMBED["sum_then_normalize"]
    )
    assert new_rows.multi_reward_climbs().gradient_gap["normalize_then_sum"] > 0.01


def test_sapo_and_vespo_are_old_rows_on_policy_only() -> None:
    ids = new_rows.on_policy_identities()
    assert max(ids.sapo_grpo, ids.vespo_dapo, ids.gdpo_scale) < checks.TOL
    assert min(ids.sapo_off, ids.vespo_off) > 1e-4 and ids.gdpo_factor > 0


def test_token_weights_are_one_on_policy_and_grpo_clips() -> None:
    w = new_rows.token_weights(np.log([1.0, 1.5, 0.5]), 1.0)
    assert all(abs(c[0] - 1) < 1e-12 for c in w.values())
    assert w["grpo"][1] == 0 and w["cispo"][1] == 1.5 and 0 < w["sapo"][1] < 1.5
    neg = new_rows.token_weights(np.log([0.5]), -1.0)
    assert neg["grpo"][0] == 0 and neg["vespo"][0] > 0
