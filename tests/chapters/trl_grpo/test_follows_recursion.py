"""Section "When TRL follows the recursion, and when it cannot" (``grpo_nb.chapters.trl_grpo.follows_recursion``):
the run that meets the old table's conditions for "follows" does not follow."""

from __future__ import annotations

import pytest

pytest.importorskip("trl")

from grpo_nb.chapters.trl_grpo import follows_recursion  # noqa: E402


def test_the_run_meeting_the_follow_conditions_does_not_follow(result, keys):
    follow = follows_recursion.follow_check(result, keys[0])
    assert follow.meets and not follow.follows  # the old table said "yes" for these conditions
    assert follow.median_gap == pytest.approx(0.171, abs=1e-3) and follow.below_ref == 11
