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

# A defect of the pinned Jupyter Book 1.x stack, not of the book: sphinx-thebe's configuration script is
# emitted twice, and the second copy throws on its `const`. Thebe is not enabled (launch_buttons has no
# thebe), so the page is unaffected.
UPSTREAM_JS_ERRORS = ("Identifier 'THEBE_JS_URL' has already been declared",)


@pytest.mark.parametrize("doc", toc_files())
def test_page_reads_as_a_finished_book_page(doc, served_book, chromium, artifacts):
    with offline_page(chromium, served_book) as (page, log):
        open_page(page, f"{served_book}/{doc}.html")
        page.screenshot(path=artifacts / f"{doc.replace('/', '__')}.png", full_page=True)
        log["errors"] = [e for e in log["errors"] if not any(known in e for known in UPSTREAM_JS_ERRORS)]
        problems = run_checks(page, log)
        assert page.title().strip(), f"{doc}: no title"
    report = "\n".join(f"- {kind}: {item}" for kind, items in problems.items() for item in items[:15])
    assert not problems, f"{doc} as a reader sees it:\n{report}"
