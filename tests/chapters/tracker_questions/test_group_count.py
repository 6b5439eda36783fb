"""Section "How many generations per prompt?" (``grpo_nb.chapters.tracker_questions.group_count``): the printed group
sizes are the group-size chapter's and beat their neighbours; TRL's batch arithmetic is the book's; a wrong statement
fails; bad input raises ValueError naming the parameter."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.chapters.tracker_questions import group_count as gc  # noqa: E402


def test_the_table_prints_the_group_size_chapters_optimum_and_it_beats_its_neighbours():
    result = gc.group_count_table()
    assert result.passed and len(result.table.rows) == len(result.rows) == 8
    for row in result.rows:
        assert row.best == row.chapter_best and row.g_star == pytest.approx(row.chapter_g_star, rel=1e-12)
        assert row.neighbour_ratios and all(r < 1 for r in row.neighbour_ratios)
        assert row.silent_at_best == pytest.approx(row.p**row.best + (1 - row.p) ** row.best, rel=1e-12)
    assert gc.trl_default_group_size() == 8 == result.rows[0].default_G  # TRL 1.16's default num_generations


def _nearest_power_of_two(constants, budget, max_group):
    """A wrong statement: the power of two nearest G*."""
    return int(2 ** round(np.log2(constants.optimal_group_size)))


def _theorem7(constants):
    """A wrong statement: Theorem 7's sqrt(C3/C1) (the residual written as C3/G^2)."""
    return constants.theorem7_group_size


@pytest.mark.parametrize(
    ("name", "wrong"),
    [("BOOK_GROUP_SIZE", _nearest_power_of_two), ("BOOK_GROUP_SIZE", lambda constants, budget, max_group: 8),
     ("BOOK_REAL_OPTIMUM", _theorem7)],
)  # fmt: skip
def test_a_wrong_group_size_fails(monkeypatch, name, wrong):
    monkeypatch.setattr(gc, name, wrong)
    result = gc.group_count_table()
    assert not result.passed


def test_a_wrong_group_size_fails_its_own_row_only_where_it_differs(monkeypatch):
    monkeypatch.setattr(gc, "BOOK_GROUP_SIZE", _nearest_power_of_two)
    row = gc.group_count_advice(0.5, 96)  # G* = 3.05: the best divisor of 96 is 3, the nearest power of two 4
    assert row.best == 4 and row.chapter_best == 3 and not row.passed and max(row.neighbour_ratios) > 1
    assert gc.group_count_advice(0.5, 64).passed  # 4 is the best divisor of 64 as well


def test_trls_batch_arithmetic_is_the_books():
    check = gc.trl_batch_check()
    assert check.passed and check.n_pairs > 300 and check.prompts_gap == 0


@pytest.mark.parametrize(
    "wrong",
    [lambda budget, G: budget % G == 0,  # forgets G >= 2 (pull request 3199)
     lambda budget, G: 2 <= G <= budget],  # forgets that G divides the batch of completions (issue 3020)
)  # fmt: skip
def test_a_wrong_statement_of_trls_batch_fails(monkeypatch, wrong):
    monkeypatch.setattr(gc, "BOOK_TRL_ACCEPTS", wrong)
    check = gc.trl_batch_check(budgets=(4, 6, 12))
    assert not check.passed and check.disagreements


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"p": 0.0, "budget": 64}, "p=0.0"), ({"p": 1.0, "budget": 64}, "p=1.0"), ({"p": "x", "budget": 64}, "p='x'"),
     ({"p": 0.1, "budget": 1}, "budget=1"), ({"p": 0.1, "budget": 67}, "budget=67"),
     ({"p": 0.1, "budget": 64, "max_group": 1}, "max_group=1"),
     ({"p": 0.1, "budget": 64, "default_G": 1}, "default_G=1")],
)  # fmt: skip
def test_the_advice_rejects_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        gc.group_count_advice(**kwargs)


def test_the_batch_check_rejects_bad_input():
    with pytest.raises(ValueError, match="budget=1"):
        gc.trl_batch_check(budgets=(1,))
