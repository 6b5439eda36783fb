"""The errata table: every correction is confirmed, and printed (wrong) formulas are rejected by the same checks."""

from __future__ import annotations

import pytest
import sympy as sp

from grpo_nb.symbolic import amplification as amp
from grpo_nb.symbolic import errata as er
from grpo_nb.symbolic.policy_dynamics import theorem2_logistic_form


@pytest.fixture(scope="module")
def entries() -> list[er.Erratum]:
    return er.errata()


def test_every_erratum_confirmed(entries: list[er.Erratum]) -> None:
    assert len(entries) >= 12
    for e in entries:
        assert e.corrected_check.holds, e.location
        assert e.confirmed, e.location
        assert e.kind in {"formula", "reference", "step", "statement"}


def test_printed_formulas_fail(entries: list[er.Erratum]) -> None:
    testable = [e for e in entries if e.printed_check is not None]
    assert len(testable) >= 7
    assert not any(e.printed_check.holds for e in testable)
    # every formula slip that can be written as an expression is tested
    assert {e.location for e in testable} >= {"Eq. (3), §2.2", "Eq. (9), proof of Theorem 2", "Proof of Lemma 4"}


def test_statements_link_to_the_settling_chapter(entries: list[er.Erratum]) -> None:
    chapters = {
        "effective_loss",
        "stabilised_grpo",
        "grpo_iterations",
        "policy_dynamics",
        "amplification",
        "parametric_grpo",
    }
    for e in entries:
        if e.kind == "statement":
            assert e.chapter in chapters, e.location


def test_issue_examples_are_listed(entries: list[er.Erratum]) -> None:
    text = " ".join(e.printed for e in entries)
    for fragment in ("(1 − e^{−z})²", "¼((1−p_ref)²", "Lemma 2 (1)", "f(0) = 1", "p_{n−1}(1)", "ε outside the root"):
        assert fragment in text, fragment


def test_printed_eq9_is_rejected_by_the_theorem2_check() -> None:
    assert not theorem2_logistic_form(er.printed_eq9_ratio()).holds
    assert theorem2_logistic_form().holds


def test_printed_lemma3_expression_is_rejected_by_the_lemma3_check() -> None:
    # feed the printed sigma(1 - sigma) = e^{-z}/(1 - e^{-z})^2 in place of 1/(4 cosh^2(z/2))
    assert not amp.lemma3_part1(er.printed_lemma3_sigma_product()).holds
    assert amp.lemma3_part1(sp.exp(-amp.Z) / (1 + sp.exp(-amp.Z)) ** 2).holds


def test_table_renders_all_rows(entries: list[er.Erratum]) -> None:
    table = er.errata_table(entries).data
    lines = table.splitlines()
    assert len(lines) == len(entries) + 2
    assert "FAILS" not in table and "HOLDS" not in table
