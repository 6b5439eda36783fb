"""The reading-flow and phone checks can fail: a fixture page whose section shows two check lines, whose table
breaks a number, whose inline formula is cut off and whose figures are 1x, shrunk below legible tick labels or wider
than the column is
caught by the functions that check the book
(``tests/book/phone_checks.py``, run by ``tests/book/test_navigation.py``), and the same page with the book's fixes
(its checks in one fold, a number cell that does not wrap, a formula that scrolls in its own box, a 2x figure at
nearly its own size, a figure in two layouts whose narrow one the phone picks) passes."""

from __future__ import annotations

import pytest

from tests.book.browser_checks import offline_page, open_page
from tests.book.phone_checks import (
    find_clipped_math,
    find_small_figures,
    find_visible_check_lines,
    find_wrapped_numbers,
)
from tests.book.reading_checks import PHONE
from tests.book.test_browser_checks_fail import fixture_site  # noqa: F401  (the fixture pages' server)

pytestmark = pytest.mark.browser


def _found(chromium, site: str, name: str) -> dict[str, list[str]]:
    with offline_page(chromium, site) as (page, _log):
        page.set_viewport_size(PHONE)
        open_page(page, f"{site}/{name}")
        return {
            "checks": find_visible_check_lines(page),
            "numbers": find_wrapped_numbers(page),
            "math": find_clipped_math(page),
            "figures": find_small_figures(page),
        }


def test_each_phone_defect_is_caught(chromium, fixture_site):  # noqa: F811
    found = _found(chromium, fixture_site, "phone_defects.html")
    assert len(found["checks"]) == 1 and "#checks-in-the-flow: 2 visible check lines" in found["checks"][0], found
    assert found["numbers"] and "0.002338" in found["numbers"][0], found
    assert found["math"] and "clipped inline math" in found["math"][0], found
    assert len(found["figures"]) == 3, found
    assert "is not a 2x PNG (400 px for 400 px)" in found["figures"][0], found
    assert "tick labels shown 6.9 px tall" in found["figures"][1], found
    assert "is wider than the text column (400 px in" in found["figures"][2], found


def test_the_page_with_the_fixes_passes_the_phone_checks(chromium, fixture_site):  # noqa: F811
    assert _found(chromium, fixture_site, "phone_clean.html") == {
        "checks": [],
        "numbers": [],
        "math": [],
        "figures": [],
    }
