"""Every page can be navigated at a phone's and a laptop's width, shows one search box and writes no error to the
console (``tests/book/navigation_checks.py``); without the book's fixes in ``_static/`` the same checks fail.

On the same visit, before any toggle is clicked: no section shows more than one check line, and at a phone's width
no number in a table is broken over two lines, no inline formula is cut off, and every figure is a 2x PNG whose tick
labels are shown at least 11 px tall; at a laptop's, no chapter runs longer than about 12 screens as it opens
(``tests/book/phone_checks.py``). A link to a target inside a folded section lands on it, shown.
"""

from __future__ import annotations

import pytest

from tests.book.browser_checks import offline_page, open_page
from tests.book.navigation_checks import WIDTHS, console_errors, find_dead_navigation, find_extra_search_boxes
from tests.book.phone_checks import (
    find_clipped_math,
    find_long_page,
    find_small_figures,
    find_visible_check_lines,
    find_wrapped_numbers,
)
from tests.book.reading_checks import wait_for_fitting
from tests.book_layout import toc_files

pytestmark = [pytest.mark.book, pytest.mark.browser]


def _visit(chromium, served_book, doc: str, width: str, block: str | None = None) -> tuple[list[str], list[str]]:
    """(navigation defects, console errors) of ``doc`` at ``width``, with the script ``block`` kept from loading."""
    with offline_page(chromium, served_book) as (page, _log):
        page.set_viewport_size(WIDTHS[width])
        if block:
            page.route(f"**/{block}*", lambda route: route.abort())
        errors = console_errors(page)
        open_page(page, f"{served_book}/{doc}.html")
        wait_for_fitting(page)
        defects = find_visible_check_lines(page)
        if width == "laptop" and doc.startswith("book/"):
            defects += find_long_page(page)
        if width == "phone":
            defects += find_wrapped_numbers(page) + find_clipped_math(page) + find_small_figures(page)
        return defects + find_extra_search_boxes(page) + find_dead_navigation(page, width), errors


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("doc", toc_files())
def test_every_page_can_be_navigated_reads_and_logs_no_error(doc, width, served_book, chromium):
    defects, errors = _visit(chromium, served_book, doc, width)
    assert not defects, f"{doc} at {width} width: {defects}"
    assert not errors, f"{doc} at {width} width, console errors: {errors}"


@pytest.mark.parametrize("width", list(WIDTHS))
def test_without_the_toggle_fix_the_check_finds_dead_toggles(width, served_book, chromium):
    defects, _ = _visit(chromium, served_book, "book/grpo_family", width, block="nav_toggles.js")
    assert defects, "the themes' toggles work without _static/nav_toggles.js: the check cannot tell"


def test_without_the_mode_fix_the_console_check_finds_the_theme_error(served_book, chromium):
    _, errors = _visit(chromium, served_book, "book/grpo_family", "laptop", block="default_mode.js")
    assert any("invalid theme mode" in e for e in errors), errors


def test_without_the_book_css_the_check_finds_two_search_boxes(served_book, chromium):
    defects, _ = _visit(chromium, served_book, "book/grpo_family", "laptop", block="book.css")
    assert any("search boxes" in d for d in defects), defects


@pytest.mark.parametrize("doc", toc_files())
def test_every_page_has_its_link_preview(doc, built_book):
    """One meta description and the Open Graph title, description and URL, with the description of
    _ext/page_descriptions.yml."""
    page = (built_book / f"{doc}.html").read_text()
    for tag in ('name="description"', 'property="og:title"', 'property="og:description"', 'property="og:url"'):
        assert page.count(tag) == 1, f"{doc}: {tag} appears {page.count(tag)} times"


def test_the_length_check_finds_a_chapter_too_long_for_fewer_screens(served_book, chromium):
    """The length check can fail: the shortest chapter is longer than two screens."""
    with offline_page(chromium, served_book) as (page, _log):
        page.set_viewport_size(WIDTHS["laptop"])
        open_page(page, f"{served_book}/book/effective_loss.html")
        wait_for_fitting(page)
        assert find_long_page(page, most=2), "a chapter fits in two screens: the length check cannot tell"


def _link_into_a_fold(chromium, served_book) -> tuple[str, bool]:
    """(target, whether it is visible) after following a link to a target inside a folded section of the appendix."""
    with offline_page(chromium, served_book) as (page, _log):
        page.set_viewport_size(WIDTHS["laptop"])
        open_page(page, f"{served_book}/book/appendix_proofs_a.html")
        target = page.evaluate("() => document.querySelector('details.chapter-details [id]').id")
        page.goto(f"{served_book}/book/appendix_proofs_a.html#{target}", wait_until="load")
        page.wait_for_timeout(300)
        return target, page.locator(f"[id='{target}']").first.is_visible()


def test_a_link_into_a_folded_section_opens_it(served_book, chromium):
    """Chromium opens the folds around a link's target itself; _static/open_target.js does it in a browser that
    does not, and this shows the page's folds do not stand in the way."""
    target, visible = _link_into_a_fold(chromium, served_book)
    assert visible, f"#{target} stays hidden in its fold"
