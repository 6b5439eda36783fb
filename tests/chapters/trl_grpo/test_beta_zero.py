"""Subsection "TRL's default, β = 0" (``grpo_nb.chapters.trl_grpo.beta_zero``): AdamW moves a weight whose gradient
is 0, against the old claim that such a weight moves only because it is shared."""

from __future__ import annotations

import pytest

pytest.importorskip("trl")

from grpo_nb.chapters.trl_grpo import beta_zero  # noqa: E402


def test_adam_moves_a_weight_with_zero_gradient():
    adam = beta_zero.adam_zero_gradient_step()
    assert adam.move > 0.1 * adam.lr  # the old "moves only because its weights are shared" predicts 0
    assert "adamw" in adam.optim
