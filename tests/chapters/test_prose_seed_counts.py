"""A sampled chapter's prose that says how often a claim held ("at 19 of the seed sweep's 20 seeds") says what the
committed seed sweep (grpo_nb/data/seed_sweep.json) measured: some claim of that chapter stated as a frequency held
at exactly that many of that many seeds. A count copied into the prose cannot go stale when the sweep is rerun."""

from __future__ import annotations

import re

import jupytext
import pytest

from grpo_nb.report import seed_sweep_report
from tests.book_layout import BOOK

COUNT = re.compile(r"\b(\d+) of the (?:seed )?sweep's (\d+) seeds")


def prose_counts(markdown: str) -> list[tuple[int, int]]:
    """The (held, seeds) pairs a text states."""
    return [(int(a), int(b)) for a, b in COUNT.findall(re.sub(r"\s+", " ", markdown))]


def unmeasured(chapter: str, prose: str) -> list[tuple[int, int]]:
    """The counts of ``prose`` that no claim of ``chapter`` stated as a frequency has in the committed sweep."""
    claims = seed_sweep_report()["chapters"][chapter]["claims"]
    measured = {(c["held"], c["n_seeds"]) for c in claims if c["kind"] == "stated"}
    return [count for count in prose_counts(prose) if count not in measured]


SAMPLED = sorted(seed_sweep_report()["chapters"])


@pytest.mark.parametrize("name", SAMPLED)
def test_every_count_in_the_prose_is_one_the_sweep_measured(name):
    nb = jupytext.read(BOOK / f"{name}.md")
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert unmeasured(name, prose) == []


def test_the_check_reads_counts_across_lines_and_catches_one_the_sweep_never_measured():
    text = "held at 19 of the seed\nsweep's 20 seeds, and at 7 of the sweep's 20 seeds"
    assert prose_counts(text) == [(19, 20), (7, 20)]
    assert unmeasured("parametric_grpo", "at 21 of the sweep's 20 seeds") == [(21, 20)]
