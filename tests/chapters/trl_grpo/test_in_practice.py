"""Section "In practice: what this book suggests for TRL users" (``grpo_nb.chapters.trl_grpo.in_practice``): the
numbers it quotes from other chapters are the recomputed ones."""

from __future__ import annotations

import pytest

pytest.importorskip("trl")

from grpo_nb.chapters.trl_grpo import in_practice  # noqa: E402


def test_practice_numbers_are_the_quoted_ones():
    practice = in_practice.practice_numbers()
    assert round(practice.g_star) == 3 and abs(practice.rho2 - 0.3) < 0.005
    assert (round(100 * practice.bias_g8[0]), round(100 * practice.bias_g8[1])) == (13, 26)
