"""The site's search, used as a reader would (search.html?q=…, headless Chromium, offline): "cheat sheet" finds the
cheat sheet, and the excerpts under the results show formulas as plain text, not raw TeX (the book's
``_static/search_plain_math.js``); with that script kept from loading, the same check finds raw TeX."""

from __future__ import annotations

import pytest

from tests.book.browser_checks import offline_page, scan_text

pytestmark = [pytest.mark.book, pytest.mark.browser]


def _search(chromium, served_book, query: str, block: str | None = None) -> tuple[list[str], list[str]]:
    """(result links, result excerpts) of a search for ``query``."""
    with offline_page(chromium, served_book) as (page, _log):
        if block:
            page.route(f"**/{block}*", lambda route: route.abort())
        page.goto(f"{served_book}/search.html?q={query}", wait_until="load")
        page.wait_for_function(
            """() => { const s = document.querySelector('#search-results .search-summary');
                       return s && /found/i.test(s.textContent); }""",
            timeout=60_000,
        )
        page.wait_for_function(
            """() => [...document.querySelectorAll('ul.search li')].every(li => li.querySelector('p.context'))""",
            timeout=60_000,
        )
        links = page.eval_on_selector_all("ul.search li > a", "els => els.map(a => a.getAttribute('href'))")
        excerpts = page.eval_on_selector_all("ul.search li p.context", "els => els.map(p => p.textContent)")
        return links, excerpts


def test_cheat_sheet_is_found_by_that_name(chromium, served_book):
    links, _ = _search(chromium, served_book, "cheat+sheet")
    assert any("cheat_sheet" in link for link in links[:3]), links


def test_search_excerpts_show_formulas_as_plain_text(chromium, served_book):
    links, excerpts = _search(chromium, served_book, "smoothing")
    assert len(excerpts) >= 3, links
    assert scan_text(excerpts) == []


def test_without_the_script_the_excerpts_show_raw_tex(chromium, served_book):
    _, excerpts = _search(chromium, served_book, "smoothing", block="search_plain_math.js")
    assert any("TeX command" in p for p in scan_text(excerpts)), excerpts
