"""Every chapter page reads as a book, not as a verification log (headless Chromium, offline, after MathJax).

At the desktop width (1280 px): code sources and outputs that are not figures take at most a quarter of the
page's height (the appendix, whose check tables are its content and whose proofs are folded: 0.6); every output
figure has a caption and alt text that describe it and is shown at no less than 0.45 of its own width; the first
code cell a reader sees is not the install cell; no one-line code input is visible. At a phone's width (390 px):
nothing is wider than its box or the page.
``tests/book/test_reading_checks_fail.py`` shows that each rule can fail.
"""

from __future__ import annotations

import pytest

from tests.book.browser_checks import offline_page, open_page
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
        page.set_viewport_size(PHONE)
        open_page(page, f"{served_book}/{doc}.html")
        problems += find_phone_overflow(page)
        page.screenshot(path=artifacts / f"{doc.replace('/', '__')}__phone.png")
    assert not problems, f"{doc} as a reader sees it:\n" + "\n".join(f"- {p}" for p in problems[:25])
