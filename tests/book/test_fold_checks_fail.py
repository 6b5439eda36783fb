"""The fold and phone checks of ``tests/book/fold_checks.py`` can fail.

A fixture page that folds a section at its heading, labels a fold "Show the details", opens a section with a bare
code toggle, ends a sentence in a colon before a fold, shows its machine and its seed sweep's assert count in the
flow, writes its bottom line as one long paragraph and sets a wide equation at 8 px beside a table that scrolls with
no cue is caught on each count. A page that shows its result above a labelled fold, keeps its checking in the fold
"How this page was checked", keeps its bottom line to three short bullets and runs the book's own
``_static/fit_wide.js`` and ``_static/book.css`` passes them all."""

from __future__ import annotations

import pytest

from tests.book.browser_checks import offline_page, open_page
from tests.book.fold_checks import (
    find_colons_before_folds,
    find_long_bottom_line,
    find_sections_opening_with_fold,
    find_small_math,
    find_uncued_scrolling,
    find_vague_fold_labels,
    find_verification_lines,
)
from tests.book.reading_checks import PHONE
from tests.book.test_browser_checks_fail import fixture_site  # noqa: F401  (the fixture pages' server)

pytestmark = pytest.mark.browser


def _found(chromium, site: str, name: str) -> dict[str, list[str]]:
    with offline_page(chromium, site) as (page, _log):
        open_page(page, f"{site}/{name}")
        found = {
            "opening": find_sections_opening_with_fold(page),
            "labels": find_vague_fold_labels(page),
            "colons": find_colons_before_folds(page),
            "bottom": find_long_bottom_line(page),
            "checking": find_verification_lines(page),
        }
        page.set_viewport_size(PHONE)
        open_page(page, f"{site}/{name}")
        found["math"] = find_small_math(page)
        found["scrolling"] = find_uncued_scrolling(page)
    return found


def test_a_chapter_that_folds_like_an_index_is_caught(chromium, fixture_site):  # noqa: F811
    found = _found(chromium, fixture_site, "folds_as_an_index.html")
    assert found["opening"] == [
        "the section 'A section that shows nothing' opens with a fold",
        "the section 'A section that shows only a toggle' opens with a fold",
    ], found
    assert found["labels"] == ["a fold is labelled 'Show the details'"], found
    assert found["colons"] == ["a sentence ends in a colon before a fold: 'The proof of it is folded here:'"], found
    assert [p.split(":")[0] for p in found["checking"]] == ["a line about the checking is in view"] * 2, found
    assert "CPU: Intel" in found["checking"][0] and "40 of its 40 asserts" in found["checking"][1], found
    assert found["bottom"] == ["'The bottom line': 120 words (at most 80)", "'The bottom line': 0 bullets (3 to 5)"]
    assert len(found["math"]) == 1 and "an equation set at 8.0 px" in found["math"][0], found
    scrolling = "\n".join(found["scrolling"])
    assert "a table scrolls sideways with no cue" in scrolling, found
    assert "a table scrolls sideways without its first column in view" in scrolling, found


def test_a_chapter_that_shows_its_results_passes(chromium, fixture_site):  # noqa: F811
    assert _found(chromium, fixture_site, "folds_as_a_book.html") == {
        "opening": [],
        "labels": [],
        "colons": [],
        "bottom": [],
        "checking": [],
        "math": [],
        "scrolling": [],
    }
