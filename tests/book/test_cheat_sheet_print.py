"""The cheat sheet prints on one A4 page (headless Chromium, offline, after MathJax), and the same count finds a long
page longer.

Chromium prints the built page to PDF (``page.pdf(format="A4")``, the print media of ``_static/print.css``); the test
counts the PDF's page objects (``/Type /Page``, not the ``/Pages`` tree nodes). The appendix, many screens long,
shows that the count can fail.
"""

from __future__ import annotations

import re

import pytest

from tests.book.browser_checks import offline_page, open_page
from tests.book_layout import toc_files

pytestmark = [pytest.mark.book, pytest.mark.browser]

SHEET = "book/cheat_sheet"
LONG_PAGE = "book/appendix_proofs"
_PAGE_OBJECT = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")


def pdf_pages(pdf: bytes) -> int:
    """The number of page objects in a PDF (``/Type /Page``; the ``/Type /Pages`` nodes of the page tree excluded)."""
    return len(_PAGE_OBJECT.findall(pdf))


def printed_pages(chromium, base_url: str, doc: str) -> int:
    """How many A4 pages Chromium prints the built page ``doc`` on."""
    with offline_page(chromium, base_url) as (page, log):
        open_page(page, f"{base_url}/{doc}.html")
        pdf = page.pdf(format="A4")
    assert not log["blocked"], f"{doc} asked for other hosts: {log['blocked']}"
    return pdf_pages(pdf)


def test_the_page_counter_counts_pages_not_the_page_tree():
    two = b"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>\n<< /Type /Page >>\n<< /Type/Page /Parent 2 0 R >>"
    assert pdf_pages(two) == 2 and pdf_pages(b"<< /Type /Pages /Count 0 >>") == 0


def test_the_cheat_sheet_prints_on_one_page(served_book, chromium):
    assert SHEET in toc_files(), f"{SHEET} is not in _toc.yml"
    assert printed_pages(chromium, served_book, SHEET) == 1


def test_a_long_page_fails_the_one_page_check(served_book, chromium):
    assert printed_pages(chromium, served_book, LONG_PAGE) > 1
