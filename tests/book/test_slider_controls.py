"""The sliders of every figure that runs in the browser stay in view while the reader watches the figure's last
panel, at a phone's width (390 px, where two panels stack) and a laptop's (1280 px): grpo_nb/browser/grpo_figures.js
keeps them stuck below the page's header bar. Without that, the same check finds the sliders of hard_prompts_chaos
off screen."""

from __future__ import annotations

import re

import pytest

from tests.book.browser_checks import offline_page, open_page
from tests.book.navigation_checks import WIDTHS
from tests.book.phone_checks import find_sliders_out_of_view
from tests.book_layout import BOOK, chapter_of_page

pytestmark = [pytest.mark.book, pytest.mark.browser]

SLIDER_CHAPTERS = sorted(p.stem for p in BOOK.glob("*.md") if "data-grpo-figure" in p.read_text())


def _out_of_view(chromium, served_book, chapter: str, width: str, unstick: bool = False) -> list[str]:
    with offline_page(chromium, served_book) as (page, _log):
        page.set_viewport_size(WIDTHS[width])
        open_page(page, f"{served_book}/book/{chapter}.html")
        if unstick:
            page.add_style_tag(content=".grpo-controls { position: static !important; }")
        return find_sliders_out_of_view(page)


def test_the_book_has_slider_figures():
    assert len(SLIDER_CHAPTERS) >= 5 and "hard_prompts_chaos" in SLIDER_CHAPTERS, SLIDER_CHAPTERS


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("chapter", SLIDER_CHAPTERS)
def test_the_sliders_stay_in_view_of_the_last_panel(chapter, width, served_book, chromium):
    assert _out_of_view(chromium, served_book, chapter, width) == []


def test_without_sticky_sliders_the_check_finds_them_off_screen(served_book, chromium):
    found = _out_of_view(chromium, served_book, "hard_prompts_chaos", "phone", unstick=True)
    assert found and all("slider out of view" in f for f in found), found


@pytest.mark.parametrize("chapter", SLIDER_CHAPTERS)
def test_slider_figures_are_numbered_with_the_chapters_figures(chapter, built_book):
    """Every figure of the page, the slider figure included (_ext/browser_figures.py), carries "Fig. C.n" with the
    chapter's number C, and n counts up by one down the page (from 1 on a chapter's first page; a sub-page goes on
    from its chapter's earlier pages)."""
    html = (built_book / "book" / f"{chapter}.html").read_text()
    numbers = re.findall(r'class="caption-number">Fig\. (\d+)\.(\d+)', html)
    assert re.search(r'class="grpo-caption"><span class="caption-number">Fig\. \d+\.\d+ ', html), chapter
    assert len({c for c, _ in numbers}) == 1, numbers
    first = int(numbers[0][1])
    assert first == 1 or chapter_of_page()[chapter] != chapter, numbers  # a first page starts at 1
    assert [int(n) for _, n in numbers] == list(range(first, first + len(numbers))), numbers
