"""Tests of grpo_nb.chapters.group_size.finite_groups_no_signal, the sections "Groups without signal, and dynamic
sampling" and "Hard prompts: do finite groups blur the cycles and chaos?" of the group-size chapter: the rules for
groups without signal, DAPO's dynamic sampling as the "drop" rule (the old attribution monkeypatched into the module
fails the page's check), and the finite-group chain of a hard prompt."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from grpo_nb.chapters import group_size as checks
from grpo_nb.chapters.group_size import finite_groups_no_signal

# ------------------------------------------------------------------ groups without signal, and dynamic sampling


def test_zero_variance_study_orders_the_rules() -> None:
    zv = checks.zero_variance_study(0.01, 1.0, 1e-5, G=8, mu=20, lr=0.5, n=6, n_seeds=400, seed=0)
    final = {rule: law.mean[-1] for rule, law in zv.law.items()}
    assert final["resample"] > final["drop"] > final["keep"]
    assert all(np.abs(z).max() < 4.5 for z in zv.z.values())
    assert set(zv.solved) == set(zv.runs) == {"keep", "drop", "resample"}


def test_dynamic_sampling_is_the_drop_rule_and_keeps_only_part_of_the_step(monkeypatch) -> None:
    zv = checks.zero_variance_study(0.01, 1.0, 1e-5, G=8, mu=20, lr=0.5, n=10, n_seeds=20, seed=0)
    final = {rule: law.mean[-1] for rule, law in zv.law.items()}
    assert zv.dynamic_sampling is zv.law["drop"]
    assert zv.dynamic_sampling.mean[-1] < 0.6 * zv.recursion[-1]  # the page's check
    assert 1.8 < final["drop"] / final["keep"] < 2.6
    assert abs(zv.law["resample"].mean[1] - zv.recursion[1]) < 0.01  # resampling the same prompt: h's jump
    assert any("DAPO" in row[0] and row[0].startswith("drop") for row in zv.table.rows)
    # the old attribution (DAPO = resample the prompt) fails the page's check: it would restore the whole step
    monkeypatch.setattr(finite_groups_no_signal, "DAPO_RULE", "resample")
    assert not zv.dynamic_sampling.mean[-1] < 0.6 * zv.recursion[-1]


def _quoted_laws_verdict(zv: checks.ZeroVarianceStudy) -> None:
    """The asserts under the table of the rules for groups without signal: the laws the text quotes after ten
    iterations, kept and dropped, with Algorithm 1's inner loop and then with every inner problem solved, and the
    ratio of the last two."""
    final = {rule: law.mean[-1] for rule, law in zv.law.items()}
    quoted = (final["keep"], final["drop"], zv.solved["keep"].mean[-1], zv.solved["drop"].mean[-1])
    assert [f"{x:.2f}" for x in quoted] == ["0.25", "0.56", "0.08", "0.56"]
    assert round(quoted[3] / quoted[2]) == 7


def test_a_quarter_kept_is_the_inner_loops_and_not_the_solved_problems() -> None:
    zv = checks.zero_variance_study(0.01, 1.0, 1e-5, G=8, mu=20, lr=0.5, n=10, n_seeds=20, seed=0)
    _quoted_laws_verdict(zv)
    with pytest.raises(AssertionError):  # the unscoped reading: the same quarter with every inner problem solved
        _quoted_laws_verdict(replace(zv, law=zv.solved))


# ------------------------------------------------------------------ hard prompts: finite groups and the cycles


def test_bursts_of_a_hard_prompt_with_groups_of_16() -> None:
    bursts = checks.burst_statistics(1e-3, 5.0, 1e-5, groups=(16,), n=100, n_chains=100, seed=0)
    assert bursts.at_ref[16] > 0.95 and bursts.alternating[16] < 0.05
    assert bursts.path[16].shape == (80,) and len(bursts.table.rows) == 2
