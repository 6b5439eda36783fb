"""The reading-edition checks can fail: a fixture page that reads like a log breaks every rule of
``tests.book.reading_checks``, and a fixture page that reads as a book passes them all."""

from __future__ import annotations

import pytest

from tests.book.browser_checks import offline_page, open_page
from tests.book.reading_checks import (
    PHONE,
    code_share,
    find_bootstrap_first,
    find_code_share,
    find_figure_defects,
    find_one_line_inputs,
    find_phone_overflow,
)
from tests.book.test_browser_checks_fail import fixture_site  # noqa: F401  (the fixture pages' server)

pytestmark = pytest.mark.browser


def _measure(chromium, site: str, name: str) -> dict[str, list[str]]:
    with offline_page(chromium, site) as (page, _log):
        open_page(page, f"{site}/{name}")
        found = {
            "share": find_code_share(page),
            "figures": find_figure_defects(page),
            "bootstrap": find_bootstrap_first(page),
            "one_line": find_one_line_inputs(page),
            "value": [f"{code_share(page):.3f}"],
        }
        page.set_viewport_size(PHONE)
        open_page(page, f"{site}/{name}")
        found["phone"] = find_phone_overflow(page)
    return found


def test_a_page_that_reads_like_a_log_breaks_every_rule(chromium, fixture_site):  # noqa: F811
    found = _measure(chromium, fixture_site, "reads_like_a_log.html")
    assert found["share"] and "of the page's height" in found["share"][0], found
    figures = "\n".join(found["figures"])
    assert "figure without a caption" in figures, figures
    assert "alt text does not describe it" in figures, figures
    assert "of its 2000-px width" in figures, figures
    assert found["bootstrap"] == ["the first code cell a reader sees installs the package"], found
    assert found["one_line"] == ["a one-line code input is visible: 'kl.table'"], found
    assert any("at 390 px" in p for p in found["phone"]), found


def test_a_page_that_reads_as_a_book_passes(chromium, fixture_site):  # noqa: F811
    found = _measure(chromium, fixture_site, "reads_as_a_book.html")
    assert not (found["share"] or found["figures"] or found["bootstrap"] or found["phone"] or found["one_line"]), found
    assert 0 < float(found["value"][0]) < 0.25, found  # the folded cell's toggle counts, its source does not
