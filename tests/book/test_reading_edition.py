"""Every chapter page reads as a book, not as a verification log (headless Chromium, offline, after MathJax).

At the desktop width (1280 px): code sources and outputs that are not figures take at most a quarter of the page's
height (the appendix, whose check tables are its content and whose proofs are folded: 0.6); every output figure has a
caption and alt text that describe it and is shown at no less than 0.45 of its own width; the first code cell a
reader sees is not the install cell; no one-line code input is visible; no headed section opens with a fold, every
fold's label says what it holds, and no sentence ends in a colon before a fold; no line in view reports the machine
or the seed sweep's tally (they sit in one fold, "How this page was checked"); the bottom line is 3 to 5 bullets of
at most 80 words. At a phone's width (390 px): nothing is wider than its box or the page, no displayed equation is
set below 12 px, and whatever scrolls sideways says so (a table keeping its first column in view).
``tests/book/test_reading_checks_fail.py`` and ``tests/book/test_fold_checks_fail.py`` show that each rule can fail."""

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
from tests.book.reading_checks import (
    APPENDIX_CODE_SHARE,
    CODE_SHARE,
    PHONE,
    find_bootstrap_first,
    find_code_share,
    find_figure_defects,
    find_one_line_inputs,
    find_phone_overflow,
)
from tests.book_layout import toc_files

pytestmark = [pytest.mark.book, pytest.mark.browser]

CHAPTERS = [doc for doc in toc_files() if doc.startswith("book/")]


def _limit(doc: str) -> float:
    return APPENDIX_CODE_SHARE if doc.startswith("book/appendix") else CODE_SHARE


@pytest.mark.parametrize("doc", CHAPTERS)
def test_chapter_reads_as_a_book(doc, served_book, chromium, artifacts):
    with offline_page(chromium, served_book) as (page, _log):
        open_page(page, f"{served_book}/{doc}.html")
        page.screenshot(path=artifacts / f"{doc.replace('/', '__')}__first_screen.png")
        problems = find_code_share(page, _limit(doc)) + find_figure_defects(page) + find_bootstrap_first(page)
        problems += find_one_line_inputs(page)
        problems += find_sections_opening_with_fold(page) + find_vague_fold_labels(page) + find_long_bottom_line(page)
        problems += find_verification_lines(page) + find_colons_before_folds(page)
        page.set_viewport_size(PHONE)
        open_page(page, f"{served_book}/{doc}.html")
        problems += find_phone_overflow(page) + find_small_math(page) + find_uncued_scrolling(page)
        page.screenshot(path=artifacts / f"{doc.replace('/', '__')}__phone.png")
    assert not problems, f"{doc} as a reader sees it:\n" + "\n".join(f"- {p}" for p in problems[:25])
