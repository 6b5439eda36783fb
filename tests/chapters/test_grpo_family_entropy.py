"""The page "The entropy bonus" of the chapter "The GRPO family": each check passes on the book's statement and fails
on a wrong one; the tabular step with the bonus is robust and validates its input."""

from __future__ import annotations

import numpy as np
import pytest

from grpo_nb.chapters import grpo_family as checks
from grpo_nb.chapters.grpo_family import entropy_bonus
from grpo_nb.chapters.grpo_family import tempered_step as bonus
from grpo_nb.tabular import grpo_step


def test_trls_bonus_is_a_token_mean_and_a_mean_per_answer_fails(monkeypatch) -> None:
    term = checks.trl_entropy_term()
    assert term.gap < checks.TOL and term.per_answer_gap > 1e-3
    monkeypatch.setitem(entropy_bonus.STATED_BONUS, "mean", "answers")
    assert checks.trl_entropy_term().gap > 1e-3


def test_the_tilt_is_tempered_and_the_untempered_one_fails(monkeypatch) -> None:
    assert checks.tilt_check() < checks.SOLVER_TOL
    monkeypatch.setitem(entropy_bonus.STATED_EXPONENT, "gamma", lambda beta, c: 1.0)
    assert checks.tilt_check() > 1e-3


def test_the_recursion_needs_the_tempered_p_ref(monkeypatch) -> None:
    assert checks.recursion_check() < checks.TOL
    monkeypatch.setitem(entropy_bonus.STATED_RECURSION, "params", lambda p_t, p_ref, beta, c: (p_ref, beta + c))
    assert checks.recursion_check() > 1e-3
    monkeypatch.setitem(entropy_bonus.STATED_RECURSION, "params", lambda p_t, p_ref, beta, c: (p_t, beta))
    assert checks.recursion_check() > 1e-3


def test_the_survey_falls_rises_and_loses_amplification_for_the_peaked_reference() -> None:
    s = checks.amplification_survey()
    for name in s.limit:
        assert all(np.diff(s.limit[name]) < 0) and all(np.diff(s.entropy[name]) > 0)
    assert abs(s.threshold - 1.22) < 0.005 and s.limit["peaked"][-1] < 0.3 < s.limit["peaked"][4]


def test_without_the_bonus_the_step_is_theorem_1s() -> None:
    pi_ref, reward = checks.BONUS_REFERENCES["spread"]
    for beta in (1e-3, 0.04, 1.0, 1e3):
        assert np.allclose(bonus.entropy_bonus_step(pi_ref, pi_ref, reward, beta, 1e-5, coef=0.0),
                           grpo_step(pi_ref, pi_ref, reward, beta, 1e-5), atol=1e-15)  # fmt: skip


@pytest.mark.parametrize("beta", [1e-3, 1.0, 1e3])
@pytest.mark.parametrize("coef", [0.0, 1e-3, 1e3])
def test_the_step_is_finite_for_extreme_inputs(beta, coef) -> None:
    pi_ref = np.array([1e-9, 0.5 - 1e-9, 0.5])
    reward = np.array([1.0, 0.0, 0.0])
    pi = bonus.entropy_bonus_step(pi_ref, pi_ref, reward, beta, 1e-5, coef=coef)
    assert np.isfinite(pi).all() and abs(pi.sum() - 1) < 1e-12
    assert 0 <= bonus.tempered_success(pi_ref, reward, beta, coef=coef) <= 1


@pytest.mark.parametrize("coef", [-0.1, float("nan"), float("inf"), "a"])
def test_a_bad_coefficient_raises_value_error_naming_it(coef) -> None:
    pi_ref, reward = checks.BONUS_REFERENCES["spread"]
    with pytest.raises(ValueError, match="coef="):
        bonus.entropy_bonus_step(pi_ref, pi_ref, reward, 1.0, 1e-5, coef=coef)
