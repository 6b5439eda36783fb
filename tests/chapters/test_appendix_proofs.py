"""The appendix chapter (``book/appendix_proofs.md``, :mod:`grpo_nb.chapters.appendix_proofs`).

Its analysis: Theorems 6 and 4 tabulated, with the divergent case as its last row; a wrong Theorem 4 check (one that
declares every orbit converged), replaced in the module, is exposed by that divergent case. Its errata: each
corrected claim passes on the statement the page makes and fails on the statement it replaced.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sp

from grpo_nb.advantage import group_advantage
from grpo_nb.chapters import appendix_proofs
from grpo_nb.constants import TRL_STD_EPS
from grpo_nb.dynamics.cycle_geometry import no_cycle_threshold
from grpo_nb.dynamics.orbits import orbit_kind
from grpo_nb.dynamics.uniform_beta import safe_betas
from grpo_nb.family import loss
from grpo_nb.kl import expected_estimator_gradient
from grpo_nb.symbolic import errata as er
from grpo_nb.symbolic.errata_rows import amplification as amplification_rows
from grpo_nb.symbolic.errata_rows import convergence as convergence_rows
from grpo_nb.symbolic.errata_rows import trl as trl_rows
from grpo_nb.symbolic.expressions import BETA, EPS, P_REF, P
from grpo_nb.symbolic.identity import Identity


def test_contraction_table_rows_and_verdicts():
    result = appendix_proofs.contraction_table([(0.3, 10.0, 1e-5), (0.2, 1.0, 1e-2)], divergent=(0.001, 5.0, 1e-5))
    assert len(result.table.rows) == len(result.contraction_checks) + 1
    assert result.contraction_checks and all(c.holds for c in result.contraction_checks)
    assert len(result.convergence_checks) == 2 and all(c.holds for c in result.convergence_checks)
    assert not result.divergent.holds and result.table.rows[-1][:4] == [0.001, 5.0, 1e-5, "none reached"]
    assert result.table.column("orbit in $I$ from step")[-1] == "-"


def test_a_check_that_always_converges_is_caught_by_the_divergent_case(monkeypatch):
    def converged(p_ref: float, beta: float, eps: float) -> Identity:
        return Identity(name="always converged", lhs=sp.Float(0), rhs=sp.Float(1e-9), holds=True, relation="<=")

    monkeypatch.setattr(appendix_proofs, "theorem4_local_convergence", converged)
    result = appendix_proofs.contraction_table([(0.3, 10.0, 1e-5)], divergent=(0.001, 5.0, 1e-5))
    assert result.divergent.holds  # the chapter's `assert not contraction.divergent.holds` now fails


@pytest.fixture(scope="module")
def entries() -> list[er.Erratum]:
    return appendix_proofs.errata()


# ------------------------------------------------------------------ errata row 1: p_c is sufficient, not necessary


def _p_c_necessary_and_sufficient(p_ref: float, beta: float, eps: float) -> bool:
    """The earlier reading: the orbit converges exactly when p_ref >= p_c(beta, eps)."""
    return p_ref >= float(no_cycle_threshold(beta, eps))


def test_p_c_is_sufficient_and_the_counterexample_converges() -> None:
    assert 0.2 < no_cycle_threshold(5.0, 1e-5) and orbit_kind(0.2, 5.0, 1e-5).kind == "fixed_point"
    assert er.threshold_reading_check().holds


def test_reading_p_c_as_necessary_fails(monkeypatch) -> None:
    monkeypatch.setattr(convergence_rows, "p_c_prediction", _p_c_necessary_and_sufficient)
    assert not er.threshold_reading_check().holds


# ------------------------------------------------------------------ errata rows moved out, and extraction marks


def test_divergent_and_condition2_are_remarks_not_errata(entries: list[er.Erratum]) -> None:
    rows = {e.location: e for e in entries}
    assert "§4, comment on Figure 5" not in rows and "Theorem 3, condition (2)" not in rows
    for location in ("Eq. (3), §2.2", "Eq. (9), proof of Theorem 2", "Proof of Theorem 3, case p_ref > 1/2"):
        assert rows[location].extraction, location
    assert er.divergent_remark().holds  # "divergent": the orbit has no limit, it settles on a 2-cycle


# ------------------------------------------------------------------ formula rows: derived, not typed twice


def test_eq3_check_derives_the_weights() -> None:
    root = sp.sqrt(P * (1 - P) + EPS)
    assert er.eq3_weights_check((1 - P) / root, -P / root, "corrected").holds
    outside = sp.sqrt(P * (1 - P)) + EPS
    assert not er.eq3_weights_check((1 - P) / outside, -P / outside, "printed").holds
    wrong = sp.sqrt(P * (1 - P) + 2 * EPS)  # a wrong correction fails too
    assert not er.eq3_weights_check((1 - P) / wrong, -P / wrong, "wrong").holds


def test_lemma2_display_check_derives_f() -> None:
    assert er.lemma2_display_check("f(p_ref)", 0).holds
    assert not er.lemma2_display_check("f(p_ref) - p_ref", 1).holds


def test_f_at_zero_check_derives_f() -> None:
    typed = 1 / (1 + (1 - P_REF) / P_REF * sp.exp(-1 / (BETA * sp.sqrt(EPS))))
    assert er.f_at_zero_check(typed, "corrected").holds
    assert not er.f_at_zero_check(sp.Integer(1), "printed").holds
    assert not er.f_at_zero_check(1 / (1 + (1 - P_REF) / P_REF * sp.exp(-1 / BETA)), "wrong").holds


def test_theorem5_check_unrolls_assumption1() -> None:
    deltas = 2 * sum(er.DELTAS)
    assert er.theorem5_unrolled_check(deltas + 2 * er.TV0, "corrected").holds
    assert not er.theorem5_unrolled_check(deltas + er.TV0, "printed").holds
    assert not er.theorem5_unrolled_check(deltas, "wrong").holds


# ------------------------------------------------------------------ new rows: Fig. 4 / Remark 2, and TRL


def test_fig4_lower_bound_reading_fails_and_the_interval_holds() -> None:
    printed, corrected = er.fig4_reading_checks()
    assert not printed.holds and corrected.holds
    ((lo, hi),) = safe_betas(1e-5).unsafe
    assert 0.0729 < lo < 0.0730 and 60.85 < hi < 60.86


def test_fig4_check_rejects_a_one_sided_interval(monkeypatch) -> None:
    monkeypatch.setattr(amplification_rows, "safe_betas", lambda eps: SimpleNamespace(unsafe=((0.07295833, 1e6),)))
    assert not er.fig4_reading_checks()[1].holds  # large beta is safe: the interval has an upper end


def test_trl_clip_is_inert_on_policy_and_acts_off_policy() -> None:
    for clip in (0.2, 1e-3):
        assert er.clip_gradient_gap(clip, off_policy=False, family_loss=loss) < 1e-12  # mu = 1: the clip never acts
        assert er.clip_gradient_gap(clip, off_policy=True, family_loss=loss) > 1e-3  # mu > 1: a later step clips
    assert er.trl_checks(loss).holds


def test_trl_check_rejects_a_trainer_without_clip() -> None:
    def no_clip(name, logp, adv, *, old_logp, clip_eps):  # the reading "TRL has no clip", at every mu
        return loss(name, logp, adv, old_logp=old_logp, clip_eps=np.inf)

    assert er.clip_gradient_gap(0.2, off_policy=True, family_loss=no_clip) == 0.0 and not er.trl_checks(no_clip).holds


def test_trl_check_rejects_swapped_kl_directions(monkeypatch) -> None:
    assert er.k3_gradient_gaps("ratio_weighted")[0] < 1e-12 and er.k3_gradient_gaps("loss")[1] < 1e-12
    assert er.k3_gradient_gaps("ratio_weighted")[1] > 1e-3 and er.k3_gradient_gaps("loss")[0] > 1e-3

    def swapped(logits, log_ref, estimator, placement):
        other = {"loss": "ratio_weighted", "ratio_weighted": "loss"}[placement]
        return expected_estimator_gradient(logits, log_ref, estimator, placement=other)

    monkeypatch.setattr(trl_rows, "expected_estimator_gradient", swapped)  # k3 with the ratio as the forward KL's
    assert not er.trl_checks(loss).holds


def test_trl_check_rejects_the_paper_advantage_as_trl_s(monkeypatch) -> None:
    def paper(rewards, kind, **kwargs):
        return group_advantage(rewards, "paper", eps=TRL_STD_EPS)

    monkeypatch.setattr(trl_rows, "group_advantage", paper)
    assert not er.trl_checks(loss).holds


def test_trl_row_is_a_statement_without_printed_check(entries: list[er.Erratum]) -> None:
    (row,) = [e for e in entries if e.location.startswith("§2.3, after (GRPO-No-Clip)")]
    assert row.kind == "statement" and row.printed_check is None and row.corrected_check.holds
    assert "0.15.2" in row.corrected and "0.16.0" in row.corrected and "1.16" in row.corrected
    assert "holds / n/a" in er.errata_table([row]).data


# ------------------------------------------------------------------ §2.1's conditional expectations, Eq. (3)'s letter


def test_section21_display_needs_the_indicator_not_the_condition() -> None:
    assert er.section21_display_check(conditional=False).holds
    assert not er.section21_display_check(conditional=True).holds  # drops p and 1 - p
    assert er.section21_numeric_gap() < 1e-12
    assert er.section21_numeric_gap(clip_eps=np.inf) < 1e-12  # and without the clip


def test_eq3_printed_readings_all_fail_and_the_check_can_pass() -> None:
    assert not er.eq3_printed_check().holds
    assert not any(s.holds for s in er.eq3_printed_check().extra["steps"])
    assert er.eq3_printed_check({"smoothing inside": sp.sqrt(P * (1 - P) + EPS)}).holds


# ------------------------------------------------------------------ the boundary p_ref = 0, and the second 2-cycle


def test_p_ref_zero_is_absorbing_and_a_small_p_ref_is_not() -> None:
    assert er.absorbing_p_ref_check(0).holds
    assert not er.absorbing_p_ref_check(sp.Rational(1, 1000)).holds


def test_beta_3_is_a_stable_two_cycle_and_the_check_can_fail(monkeypatch) -> None:
    assert er.stable_two_cycle(1e-3, 3.0, 1e-5).holds and not er.orbit_converges(1e-3, 3.0, 1e-5)
    assert not er.stable_two_cycle(1e-3, 10.0, 1e-5).holds  # a fixed point
    assert not er.stable_two_cycle(1e-4, 5.2, 1e-5).holds  # chaos
    monkeypatch.setattr(convergence_rows, "h_prime", lambda p, p_ref, beta, eps: 2.0)  # an unstable multiplier
    assert not er.stable_two_cycle(1e-3, 3.0, 1e-5).holds


def test_table_has_the_new_rows(entries: list[er.Erratum]) -> None:
    table = er.errata_table(entries).data
    assert "Fig. 4" in table and "GRPO-No-Clip" in table and "FAILS" not in table and "HOLDS" not in table


# ------------------------------------------------------------------ appendix Remark 1's example


def test_remark1_example_has_no_fixed_point_and_a_fixed_point_case_fails() -> None:
    good = appendix_proofs.remark1_example(0.5, 0.1)
    assert good.n_fixed_points == 0 and good.bound > 0 and good.min_gap >= good.bound
    bad = appendix_proofs.remark1_example(0.5, 2.0)  # here the eps = 0 map has two fixed points
    assert bad.n_fixed_points > 0 and bad.min_gap < 0 and np.isnan(bad.bound)
