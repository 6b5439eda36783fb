"""The seeded runs of grpo_family_entropy_control alone on another machine at four more seeds
(``test_chapter_seeds.py``)."""

from __future__ import annotations

import pytest

from tests.chapters.test_chapter_seeds import SEEDS, check_at_seed


@pytest.mark.parametrize("seed", SEEDS)
def test_grpo_family_entropy_control_claims_hold_at_other_seeds(seed, other_machine, tmp_path):
    check_at_seed("grpo_family_entropy_control", seed, other_machine, tmp_path)
