"""A page's prose that says how often a claim held ("at 19 of the seed sweep's 20 seeds") says what the committed
seed sweep (grpo_nb/data/seed_sweep.json) measured: some claim of that page stated as a frequency held at exactly that
many of that many seeds. A page the sweep does not run (a chapter's first page, a sub-page without draws) may repeat
a count of its chapter's sampled pages; a chapter with no sampled page (the introduction) a count of any page. A
count copied into the prose cannot go stale when the sweep is rerun."""

from __future__ import annotations

import re

import jupytext
import pytest

from grpo_nb.report import seed_sweep_report
from tests.book_layout import BOOK, chapter_of_page

COUNT = re.compile(r"\b(\d+) of the (?:seed )?sweep's (\d+) seeds")


def prose_counts(markdown: str) -> list[tuple[int, int]]:
    """The (held, seeds) pairs a text states."""
    return [(int(a), int(b)) for a, b in COUNT.findall(re.sub(r"\s+", " ", markdown))]


def swept_pages(page: str) -> list[str]:
    """The pages whose sweep ``page``'s prose may quote: its own where the sweep runs it, else its chapter's."""
    entries, chapter = seed_sweep_report()["chapters"], chapter_of_page()
    if page in entries:
        return [page]
    own = [other for other in entries if chapter.get(other) == chapter.get(page, page)]
    return own or list(entries)  # a chapter without draws (the introduction) may quote any page's count


def unmeasured(page: str, prose: str) -> list[tuple[int, int]]:
    """The counts of ``prose`` that no claim of ``page`` (:func:`swept_pages`) stated as a frequency has in the
    committed sweep."""
    entries = seed_sweep_report()["chapters"]
    claims = [c for name in swept_pages(page) for c in entries[name]["claims"]]
    measured = {(c["held"], c["n_seeds"]) for c in claims if c["kind"] == "stated"}
    return [count for count in prose_counts(prose) if count not in measured]


@pytest.mark.parametrize("md", sorted(BOOK.glob("*.md")), ids=lambda p: p.stem)
def test_every_count_in_the_prose_is_one_the_sweep_measured(md):
    nb = jupytext.read(md)
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert unmeasured(md.stem, prose) == []


def test_the_check_reads_counts_across_lines_and_catches_one_the_sweep_never_measured():
    text = "held at 19 of the seed\nsweep's 20 seeds, and at 7 of the sweep's 20 seeds"
    assert prose_counts(text) == [(19, 20), (7, 20)]
    assert unmeasured("parametric_grpo_runs", "at 21 of the sweep's 20 seeds") == [(21, 20)]
    assert unmeasured("intro", "at 21 of the sweep's 20 seeds") == [(21, 20)]  # measured on no page
    assert unmeasured("trl_grpo", "at 19 of the sweep's 20 seeds") == [(19, 20)]  # not one of its chapter's counts
