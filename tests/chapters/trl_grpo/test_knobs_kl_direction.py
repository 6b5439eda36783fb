"""Section "Every knob, checked by TRL's own code", the direction of the KL whose gradient k3 gives
(``grpo_nb.chapters.trl_grpo.knobs_kl_direction``): forward without the ratio, reverse with it; the swapped statement
fails."""

from __future__ import annotations

import pytest

pytest.importorskip("trl")

from grpo_nb.chapters.trl_grpo import knobs_kl_direction  # noqa: E402


def test_k3_without_ratio_gives_the_forward_kl_gradient_and_swapping_fails(monkeypatch):
    assert max(knobs_kl_direction.kl_direction_check().values()) < 1e-12
    monkeypatch.setattr(knobs_kl_direction, "KL_GRADIENT_DIRECTION", {"loss": "reverse", "ratio_weighted": "forward"})
    gaps = knobs_kl_direction.kl_direction_check()
    assert gaps["loss"] > 1e-3 and gaps["ratio_weighted"] > 1e-3
