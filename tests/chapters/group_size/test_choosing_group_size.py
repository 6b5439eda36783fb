"""Tests of grpo_nb.chapters.group_size.choosing_group_size, the section "What this means for choosing G" of the
group-size chapter: the guide reads the chapter's own analyses, and a finite group that kept the whole step
(monkeypatched into the module the guide reads) fails the section's check."""

from __future__ import annotations

from grpo_nb.chapters import group_size as checks
from grpo_nb.chapters.group_size import choosing_group_size
from grpo_nb.ustat.scaling import fit_scaling_constants
from tests.chapters.group_size import chapter_prompts


def _guide_holds(guide: checks.GroupSizeGuide) -> bool:
    """The asserts of the chapter's cell under "What this means for choosing G"."""
    return (
        guide.g_star[0] < 3.5
        and 20 < guide.g_star[1] < 28
        and 0.3 < guide.budget_excess[8] < 0.4
        and guide.budget_excess[64] > 3
        and guide.bias[2][0] > 0.6
        and guide.bias[8][0] > 0.1
        and guide.bias[64][1] < 0.03
        and guide.retention[0.1, 2] < 1 / 3
        and guide.retention[0.01, 2] < 0.11
        and guide.retention[0.1, 64] > 0.95
        and guide.retention[0.01, 64] < 0.7
        and guide.no_signal[0.01, 8] > 0.9
    )


def test_the_group_size_guide_reads_the_chapters_analyses(monkeypatch, scan, norm) -> None:
    budget = fit_scaling_constants(chapter_prompts(), N=256, groups=(2, 4), n_batches=20, seed=0)
    guide = checks.group_size_guide(budget, scan, norm)
    assert _guide_holds(guide)
    assert guide.g_star == (scan.optimal_group_size[0], scan.optimal_group_size[-1])
    assert len(guide.table.rows) == 6 and guide.table.rows[1][3] == "13–26%"
    # a finite group that kept the whole step (rho = 1) fails the section's check
    monkeypatch.setattr(choosing_group_size, "signal_retention", lambda p, G, eps: 1.0)
    assert not _guide_holds(checks.group_size_guide(budget, scan, norm))
