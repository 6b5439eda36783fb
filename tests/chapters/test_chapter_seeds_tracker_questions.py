"""The pages of tracker_questions alone on another machine at four more seeds (``test_chapter_seeds.py``)."""

from __future__ import annotations

import pytest

from tests.chapters.test_chapter_seeds import SEEDS, check_at_seed


@pytest.mark.parametrize("page", ("tracker_questions_advantage", "tracker_questions_kl", "tracker_questions_clipping"))
@pytest.mark.parametrize("seed", SEEDS)
def test_tracker_questions_claims_hold_at_other_seeds(page, seed, other_machine, tmp_path):
    check_at_seed(page, seed, other_machine, tmp_path)
