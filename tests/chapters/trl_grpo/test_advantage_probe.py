"""Section "TRL's advantage, read from a real step" (``grpo_nb.chapters.trl_grpo.advantage_probe``): TRL's
advantages for each ``scale_rewards`` are the book's, and a wrong formula fails the check."""

from __future__ import annotations

import functools
import os

import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.advantage import group_advantage  # noqa: E402
from grpo_nb.chapters.trl_grpo import advantage_probe  # noqa: E402

TOL = advantage_probe.TOL


def test_advantage_is_trls_and_a_wrong_formula_fails(probe, monkeypatch):
    for scale in ("group", "batch", "none"):
        assert advantage_probe.advantage_check(probe, scale) < TOL
    wrong = [
        ("group", functools.partial(group_advantage, form="population"), 100 * TOL),  # no Bessel correction
        ("group", functools.partial(group_advantage, form="paper"), 100 * TOL),  # smoothing inside the root
        ("group", functools.partial(group_advantage, form="trl", eps=1e-3), 10 * TOL),  # the constant is 1e-4
        ("none", functools.partial(group_advantage, form="trl"), 100 * TOL),
    ]
    for scale, formula, gap in wrong:
        with monkeypatch.context() as m:
            m.setitem(advantage_probe.BOOK_ADVANTAGES, scale, formula)
            assert advantage_probe.advantage_check(probe, scale) > gap, (scale, formula)
