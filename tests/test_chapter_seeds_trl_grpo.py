"""trl_grpo's asserts at four more seeds (see ``tests/test_chapter_seeds.py``; a file of its own, so that the
chapters' seed runs spread over the test workers)."""

from __future__ import annotations

import pytest

from tests.test_chapter_seeds import SEEDS, check_at_seed

pytestmark = pytest.mark.machine  # not yet green: run with -m machine (see CONTRIBUTING)


@pytest.mark.parametrize("seed", SEEDS)
def test_trl_grpo_asserts_hold_at_other_seeds(seed, tmp_path):
    check_at_seed("trl_grpo", seed, tmp_path)
