"""The pages of trl_grpo alone on another machine at four more seeds (see ``tests/chapters/test_chapter_seeds.py``)."""

from __future__ import annotations

import pytest

from tests.chapters.test_chapter_seeds import SEEDS, check_at_seed


@pytest.mark.parametrize("page", ("trl_grpo_step", "trl_grpo_practice"))
@pytest.mark.parametrize("seed", SEEDS)
def test_trl_grpo_claims_hold_at_other_seeds(page, seed, other_machine, tmp_path):
    check_at_seed(page, seed, other_machine, tmp_path)
