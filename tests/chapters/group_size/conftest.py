"""Fixtures of the group-size tests: the chapter's difficulty scan and its reward-normalisation table, which Part 1
and the section "What this means for choosing G" both read."""

from __future__ import annotations

import pytest

from grpo_nb.chapters import group_size as checks
from tests.chapters.group_size import LEVELS


@pytest.fixture(scope="module")
def scan() -> checks.DifficultyScan:
    return checks.difficulty_scan(LEVELS, n_prompts=16)


@pytest.fixture(scope="module")
def norm() -> checks.Normalisation:
    return checks.normalisation_table(checks.bandits(), (2, 4, 8, 16, 64))
