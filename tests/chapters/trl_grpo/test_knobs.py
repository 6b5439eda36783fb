"""Section "Every knob, checked by TRL's own code", the knob map (``grpo_nb.chapters.trl_grpo.knobs``): a wrong
statement fails its own row and no other."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.chapters.trl_grpo import knobs, knobs_defaults  # noqa: E402


def test_the_knob_table_fails_the_row_of_a_wrong_statement_only(monkeypatch):
    monkeypatch.setitem(knobs_defaults.BOOK_DEFAULTS, "loss_type", "grpo")
    knob_map = knobs.knob_table()
    assert [row.knob for row in knob_map.rows if not row.passed] == ["TRL's defaults"]
    assert len(knob_map.table.rows) == len(knob_map.rows) == 15 and knob_map.table.rows[0][-1] == "FAILS"
