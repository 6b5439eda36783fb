"""Section "What does scale_rewards do?" (``scale_rewards``): the prompt weights read off TRL's advantages against
the book's statement; a wrong statement fails the check."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.chapters.tracker_questions import scale_rewards  # noqa: E402


@pytest.fixture(scope="module")
def probe():
    from grpo_nb.chapters.trl_grpo.advantage_probe import make_probe

    return make_probe(beta=0.0, seed=0)


def test_trls_prompt_weights_are_the_stated_ones(probe):
    wc = scale_rewards.weight_check(probe)
    assert wc.holds and np.allclose(wc.weights["none"], 1.0)
    assert np.ptp(wc.weights["batch"]) <= 1e-5 * wc.weights["batch"].max()  # one weight for the whole batch
    assert np.ptp(wc.weights["group"]) > 0.1  # the probe's mixed groups have different spreads


@pytest.mark.parametrize(("scaling", "wrong"), [("batch", "group"), ("group", "batch"), ("none", "batch")])
def test_a_wrong_statement_fails(probe, monkeypatch, scaling, wrong):
    monkeypatch.setitem(scale_rewards.BOOK_PROMPT_WEIGHT, scaling, scale_rewards.BOOK_PROMPT_WEIGHT[wrong])
    wc = scale_rewards.weight_check(probe)
    assert not wc.holds and wc.gap[scaling] > 1e-2


def test_the_slope_table_falls_toward_the_limit_for_rare_successes():
    table = scale_rewards.slope_table(np.array([0.01, 0.5]), G=8)
    group, limit, none = (table.column(h) for h in ("group, G = 8", "group, G → ∞", "none, G = 8"))
    assert group[0] < limit[0] and abs(limit[1] - 2.0) < 1e-12 and abs(none[0] - 7 / 8) < 1e-12


def test_bad_input_is_refused(probe):
    with pytest.raises(ValueError, match="scale_rewards='batchy'"):
        scale_rewards.prompt_weights(probe, "batchy")
    with pytest.raises(ValueError, match="G=1"):
        scale_rewards.slope_table(np.array([0.5]), G=1)
