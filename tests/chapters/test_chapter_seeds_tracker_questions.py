"""tracker_questions alone on another machine at four more seeds (see ``tests/chapters/test_chapter_seeds.py``)."""

from __future__ import annotations

import pytest

from tests.chapters.test_chapter_seeds import SEEDS, check_at_seed


@pytest.mark.parametrize("seed", SEEDS)
def test_tracker_questions_claims_hold_at_other_seeds(seed, other_machine, tmp_path):
    check_at_seed("tracker_questions", seed, other_machine, tmp_path)
