"""parametric_grpo's pages alone on another machine at seeds 1 and 2 (see ``tests/chapters/test_chapter_seeds.py``)."""

from __future__ import annotations

import pytest

from tests.chapters.test_chapter_seeds import check_at_seed


@pytest.mark.parametrize("page", ("parametric_grpo_runs", "parametric_grpo_unstable"))
@pytest.mark.parametrize("seed", (1, 2))
def test_parametric_grpo_claims_hold_at_other_seeds(page, seed, other_machine, tmp_path):
    check_at_seed(page, seed, other_machine, tmp_path)
