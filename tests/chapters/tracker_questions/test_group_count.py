"""Section "How many generations per prompt?" (``grpo_nb.chapters.tracker_questions.group_count``): the table reads the
group-size chapter's own scan, and its printed group sizes are those a search over G finds; the former per-level
draws miss that chapter's stated values; TRL's batch arithmetic is the book's; a wrong statement fails; bad input
raises ValueError naming the parameter."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.chapters.group_size.u_statistic import BUDGET_GRID_STEP, difficulty_scan  # noqa: E402
from grpo_nb.chapters.tracker_questions import group_count as gc  # noqa: E402
from grpo_nb.ustat.scaling import ScalingConstants  # noqa: E402
from tests.book_layout import ROOT  # noqa: E402


@pytest.fixture(scope="module")
def table():
    return gc.group_count_table()


def test_the_table_is_the_group_size_chapters_scan_and_its_sizes_are_the_searched_ones(table):
    assert table.passed and len(table.table.rows) == len(table.rows) == 2 * len(gc.GROUP_SIZE_LEVELS)
    scan = difficulty_scan(gc.GROUP_SIZE_LEVELS, n_prompts=16).optimal_group_size  # the group-size chapter's call
    for row in table.rows:
        assert row.g_star == pytest.approx(scan[gc.GROUP_SIZE_LEVELS.index(row.p)], rel=1e-12)
        assert row.best == row.searched_best and abs(row.g_star - row.searched_g_star) <= BUDGET_GRID_STEP
        divisors = [g for g in range(2, 65) if row.budget % g == 0]
        assert all(
            row.constants.budget_mse(row.budget, row.best) <= row.constants.budget_mse(row.budget, g) for g in divisors
        )
        assert row.silent_at_best == pytest.approx(row.p**row.best + (1 - row.p) ** row.best, rel=1e-12)
    assert table.stated_levels[0.5] == 3 and table.stated_levels[0.001] == 24
    assert gc.trl_default_group_size() == 8 == table.rows[0].default_G  # TRL 1.16's default num_generations


def test_the_levels_and_the_stated_values_are_the_group_size_chapters():
    source = (ROOT / "book" / "group_size_ustatistic.md").read_text()
    call = re.search(r"levels = \(([^)]*)\)\nscan = checks\.difficulty_scan\(levels, n_prompts=16\)", source)
    assert call and tuple(float(x) for x in call.group(1).split(",")) == gc.GROUP_SIZE_LEVELS
    assert "about 3 for prompt sets solved half the time and about 24 for sets" in " ".join(source.split())
    assert set(gc.GROUP_SIZE_STATED) == {gc.GROUP_SIZE_LEVELS[0], gc.GROUP_SIZE_LEVELS[-1]}


def _per_level_scans(levels):
    """The former table's draw: one difficulty scan per level, each drawing its sixteen prompts afresh (at p = 0.001
    another set than the group-size chapter's, with G* = 25.7 against its 23.7)."""
    out = []
    for p in levels:
        table = difficulty_scan((p,)).table
        out.append(ScalingConstants(*(float(table.column(f"$C_{i}$")[0]) for i in (1, 2, 3))))
    return out


def test_the_former_per_level_draws_fail_the_group_size_chapters_values(monkeypatch):
    monkeypatch.setattr(gc, "_scan_constants", _per_level_scans)
    result = gc.group_count_table()
    assert result.verdicts["searched optima"]  # each row is still its own set's optimum ...
    assert not result.verdicts["the group-size chapter's values"] and not result.passed  # ... but not that chapter's
    assert result.stated_levels[0.001] == 26


def _nearest_power_of_two(constants, budget, max_group):
    """A wrong statement: the power of two nearest G*."""
    return int(2 ** round(np.log2(constants.optimal_group_size)))


def _nearest_divisor(constants, budget, max_group):
    """A wrong statement: the divisor of the budget nearest G* (at G* = 23.7 and N = 64: 16, not 32)."""
    divisors = [g for g in range(2, max_group + 1) if budget % g == 0]
    return min(divisors, key=lambda g: abs(g - constants.optimal_group_size))


def _theorem7(constants):
    """A wrong statement: Theorem 7's sqrt(C3/C1) (the residual written as C3/G^2)."""
    return constants.theorem7_group_size


@pytest.mark.parametrize(
    ("name", "wrong"),
    [("BOOK_GROUP_SIZE", _nearest_power_of_two), ("BOOK_GROUP_SIZE", _nearest_divisor),
     ("BOOK_GROUP_SIZE", lambda constants, budget, max_group: 8), ("BOOK_REAL_OPTIMUM", _theorem7)],
)  # fmt: skip
def test_a_wrong_group_size_fails(monkeypatch, name, wrong):
    monkeypatch.setattr(gc, name, wrong)
    result = gc.group_count_table()
    assert not result.verdicts["searched optima"] and not result.passed


def test_a_wrong_group_size_fails_its_own_row_only_where_it_differs(monkeypatch, table):
    monkeypatch.setattr(gc, "BOOK_GROUP_SIZE", _nearest_power_of_two)
    c = next(r.constants for r in table.rows if r.p == 0.5)
    row = gc.group_count_advice(0.5, 96, c)  # G* = 3.05: the best divisor of 96 is 3, the nearest power of two 4
    assert row.best == 4 and row.searched_best == 3 and not row.passed
    assert gc.group_count_advice(0.5, 64, c).passed  # 4 is the best divisor of 64 as well


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
     ({"p": 0.1, "budget": 64, "default_G": 1}, "default_G=1"),
     ({"p": 0.1, "budget": 64, "constants": (1.0, 1.0, 1.0)}, "constants=")],
)  # fmt: skip
def test_the_advice_rejects_bad_input(kwargs, match):
    kwargs = {"constants": ScalingConstants(1.0, 1.0, 1.0)} | kwargs
    with pytest.raises(ValueError, match=match):
        gc.group_count_advice(**kwargs)


def test_the_batch_check_rejects_bad_input():
    with pytest.raises(ValueError, match="budget=1"):
        gc.trl_batch_check(budgets=(1,))
