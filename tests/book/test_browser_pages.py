"""Every page of the book as a reader sees it: headless Chromium, offline, MathJax 3 from the book itself.

Each page of _toc.yml is opened from a local HTTP server with every request to another host blocked, so
the page must work offline; after MathJax has typeset it, the checks of ``tests.book.browser_checks`` must find
nothing: no raw TeX or Markdown, no identifier turned into a link, no MathJax error, nothing wider than its
box or the page, no saved or dead slider, no failed request, no JavaScript error. A full-page screenshot
of each page is kept under tests/artifacts/ (CI uploads them).
"""

from __future__ import annotations

import pytest

from tests.book.browser_checks import offline_page, open_page, run_checks
from tests.book_layout import toc_files

pytestmark = [pytest.mark.book, pytest.mark.browser]


@pytest.mark.parametrize("doc", toc_files())
def test_page_reads_as_a_finished_book_page(doc, served_book, chromium, artifacts):
    with offline_page(chromium, served_book) as (page, log):
        open_page(page, f"{served_book}/{doc}.html")
        page.screenshot(path=artifacts / f"{doc.replace('/', '__')}.png", full_page=True)
        problems = run_checks(page, log)
        assert page.title().strip(), f"{doc}: no title"
    report = "\n".join(f"- {kind}: {item}" for kind, items in problems.items() for item in items[:15])
    assert not problems, f"{doc} as a reader sees it:\n{report}"
