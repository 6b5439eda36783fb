"""The page "Controlling the entropy" (``grpo_nb.chapters.grpo_family.entropy_control``): TRL's adaptive coefficient
against the book's rule on a run's logs, with wrong rules that must fail, and the annealed iteration's limits."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.chapters.grpo_family import entropy_control as ctl  # noqa: E402
from grpo_nb.chapters.grpo_family.entropy_bonus import BONUS_REFERENCES  # noqa: E402


@pytest.fixture(scope="module")
def run():
    return ctl.controller_runs(3)["adaptive"]


def test_trl_s_logs_follow_the_book_s_rule(run) -> None:
    check = ctl.controller_check(run)
    assert check.passed and 0 < check.acting < ctl.RUN_STEPS


def test_a_bonus_at_every_step_fails(run, monkeypatch) -> None:
    monkeypatch.setitem(ctl.BOOK_CONTROLLER, "applied", lambda coef, last, target: coef)
    assert not ctl.controller_check(run).passed


def test_a_coefficient_moved_the_other_way_fails(run, monkeypatch) -> None:
    right = ctl.BOOK_CONTROLLER["next"]
    monkeypatch.setitem(ctl.BOOK_CONTROLLER, "next", lambda c, h, target, d: right(c, -h, -target, d))
    assert not ctl.controller_check(run).passed


def test_the_run_without_the_controller_logs_no_coefficient() -> None:
    runs = ctl.controller_runs(1)
    assert np.isnan(runs["no bonus"].coef).all() and np.isfinite(runs["adaptive"].coef).all()
    assert runs["no bonus"].entropy.size == ctl.RUN_STEPS and runs["no bonus"].success.size == ctl.RUN_STEPS + 1


def test_with_no_coefficient_the_annealed_orbit_is_theorem_2_s() -> None:
    from grpo_nb.constants import PAPER_EPS
    from grpo_nb.dynamics.map import iterate

    pi_ref, reward = BONUS_REFERENCES["peaked"]
    orbit = ctl.annealed_orbit(pi_ref, reward, 0.7, coefs=np.zeros(50))
    assert np.abs(orbit - iterate(np.array([0.3]), 0.7, PAPER_EPS, 50)[:, 0]).max() < 1e-12


def test_annealing_moves_only_the_spread_reference_at_beta_0_7() -> None:
    survey = ctl.annealing_survey()
    moved = {key for key in survey.none for a in survey.annealed[key] if abs(a - survey.none[key]) >= ctl.LIMIT_TOL}
    assert moved == {("spread", 0.7)}
    assert all(
        min(abs(a - p) for p in survey.stable[key]) < ctl.LIMIT_TOL for key in survey.none for a in survey.annealed[key]
    )


def test_an_unsettled_orbit_and_bad_input_raise() -> None:
    with pytest.raises(ValueError, match="n="):
        ctl.annealing_survey(5)
    with pytest.raises(ValueError, match="n"):
        ctl.annealing_survey(0)
