"""What a reader sees of the checks and of numbers and formulas on a narrow screen: checks of one built page in
headless Chromium (Playwright), after MathJax has typeset it.

- ``find_visible_check_lines``: more than one visible line that starts with ✓ or ✗ in a section's own text (its
  subsections count apart). ``_ext/section_checks.py`` gathers a section's verdicts under one fold whose label is
  that one line.
- ``find_wrapped_numbers``: a number in an output table broken over two lines (``0`` / ``.`` / ``2``).
- ``find_clipped_math``: inline math cut off at the edge of the text column or of its box, so that part of a
  formula cannot be seen or scrolled to.
- ``find_small_figures``: a figure printed by a code cell that is not a 2x PNG, that is wider than the text column
  (cut off, or scrolling sideways in a box), or whose tick labels are shown smaller than 11 px (their size in
  ``grpo_nb/plots/book.mplstyle``, scaled as the figure is shown).
- ``find_sliders_out_of_view``: a slider figure whose sliders are off screen (or under the page's sticky header
  bar) while the reader looks at what they redraw: the last panel, legend and read-out, at the bottom of the screen.
- ``screens``, ``find_long_page``: the height of a page as it opens (its checks and the sections it folds as details
  closed), in screens; a chapter of more than ``MAX_SCREENS`` at 1280 x 800.

``tests/book/test_reading_flow.py`` runs them on every page; ``tests/book/test_phone_checks_fail.py`` shows that
each can fail.
"""

from __future__ import annotations

from tests.book_layout import ROOT

MIN_TICK_PX = 11
# "at most about 15 screens" of 1280 x 800 for a chapter page, its results in view and its folds closed
MAX_SCREENS = 15

__all__ = [
    "MAX_SCREENS",
    "find_clipped_math",
    "find_long_page",
    "find_sliders_out_of_view",
    "find_small_figures",
    "find_visible_check_lines",
    "find_wrapped_numbers",
    "screens",
]

_CHECK_LINES_JS = """() => {
    const perSection = new Map();
    for (const el of document.querySelectorAll('article pre, article p')) {
        if (el.closest('.cell_input, div.highlight, td, th') || el.querySelector('p')) continue;
        if (!el.checkVisibility({visibilityProperty: true})) continue;
        const lines = el.innerText.split('\\n').filter(l => /^\\s*[✓✗]/.test(l));
        if (!lines.length) continue;
        const section = el.closest('section');
        const key = section ? (section.id || '(untitled)') : '(page)';
        perSection.set(key, (perSection.get(key) || []).concat(lines));
    }
    return [...perSection.entries()];
}"""


def find_visible_check_lines(page, most: int = 1) -> list[str]:
    """Sections whose own visible text shows more than ``most`` verdict lines (✓ or ✗ at a line's start)."""
    return [
        f"section #{key}: {len(lines)} visible check lines, {[line[:60] for line in lines]}"
        for key, lines in page.evaluate(_CHECK_LINES_JS)
        if len(lines) > most
    ]


_WRAPPED_NUMBERS_JS = """() => {
    // A table cell whose text is a number (sign, digits, point, exponent, %, or a power of ten) laid out on more
    // than one line: the line boxes of its text start at different heights.
    const number = /^[-+−–]?[0-9][0-9.,]*(e[-+−]?[0-9]+)?\\s*%?$|^[-+−]?[0-9.]+\\s*[×x]\\s*10/;
    const found = [];
    for (const cell of document.querySelectorAll('article td, article th')) {
        const text = cell.innerText.trim();
        if (!text || !number.test(text) || !cell.checkVisibility()) continue;
        const tops = new Set();
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        while (walker.nextNode()) {
            const range = document.createRange();
            range.selectNodeContents(walker.currentNode);
            for (const r of range.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top));
        }
        if (tops.size > 1) found.push(text);
    }
    return found;
}"""


def find_wrapped_numbers(page) -> list[str]:
    """Numbers in tables that are broken over more than one line."""
    found = page.evaluate(_WRAPPED_NUMBERS_JS)
    return [f"{len(found)} numbers wrap inside their table cell, e.g. {found[:5]}"] if found else []


_CLIPPED_MATH_JS = """() => {
    // Inline math part of which a reader can neither see nor scroll to: cut off by a box that clips it (overflow
    // hidden or clip), or past the article's right edge, with no box between that scrolls sideways.
    const article = document.querySelector('article.bd-article') || document.querySelector('article') ||
                    document.body;
    const right = article.getBoundingClientRect().right;
    const found = [];
    for (const m of document.querySelectorAll('article mjx-container:not([display="true"])')) {
        if (!m.checkVisibility()) continue;
        const r = m.getBoundingClientRect();
        let clipped = null;
        for (let el = m.parentElement; el && el !== article && clipped === null; el = el.parentElement) {
            const ox = getComputedStyle(el).overflowX;
            if (ox === 'auto' || ox === 'scroll') { clipped = false; break; }  // the reader can scroll to it
            const cuts = ox === 'hidden' || ox === 'clip';
            if (cuts && r.right > el.getBoundingClientRect().right + 1) clipped = true;
        }
        if (clipped === null) clipped = r.right > right + 1;
        if (clipped) found.push(m.textContent.slice(0, 60));
    }
    return found;
}"""


def find_clipped_math(page) -> list[str]:
    """Inline formulas cut off at the edge of the text column or of a box that clips them."""
    return [f"clipped inline math: {t!r}" for t in page.evaluate(_CLIPPED_MATH_JS)]


def tick_label_px() -> float:
    """The tick labels' height in CSS px at a figure's own size: ``xtick.labelsize`` points of the book's style at
    its ``figure.dpi`` (a 2x PNG is shown at the size of a 1x one)."""
    style = dict(
        line.split("#")[0].split(":", 1)
        for line in (ROOT / "grpo_nb" / "plots" / "book.mplstyle").read_text().splitlines()
        if ":" in line.split("#")[0]
    )
    return float(style["xtick.labelsize"]) * float(style["figure.dpi"]) / 72


# A figure's own width: the size its 2x PNG is meant to be shown at. For a figure in two layouts (a ``<picture>``,
# ``grpo_nb/plots/narrow_screens.py``) it is the ``width`` of the source the screen picked, or of its ``<img>``;
# for a plain image, what _static/fit_wide.js or its style gives it.
OWN_WIDTH_JS = """function ownWidth(img) {
    const picture = img.closest('picture');
    if (picture) {
        const source = [...picture.querySelectorAll('source')].find(s => !s.media || matchMedia(s.media).matches);
        const width = Number((source || img).getAttribute('width'));
        if (width) return width;
    }
    return Number(img.dataset.ownWidth) || parseFloat(img.style.width) || 0;
}"""

_FIGURE_SIZES_JS = """async () => {
    OWN_WIDTH
    const found = [];
    for (const img of document.querySelectorAll('article .cell_output img')) {
        if (!img.checkVisibility()) continue;
        await img.decode().catch(() => null);
        const r = img.getBoundingClientRect();
        // the text column: the article's content box; a box between that scrolls sideways hides part of the figure
        const article = img.closest('article');
        const style = getComputedStyle(article);
        const box = article.getBoundingClientRect();
        const left = box.left + parseFloat(style.paddingLeft), right = box.right - parseFloat(style.paddingRight);
        let scrolls = false;
        for (let el = img.parentElement; el && el !== article; el = el.parentElement) {
            if (['auto', 'scroll'].includes(getComputedStyle(el).overflowX) && el.scrollWidth > el.clientWidth + 1) {
                scrolls = true;
            }
        }
        found.push({src: (img.currentSrc || img.getAttribute('src') || '').slice(-20), own: ownWidth(img),
                    natural: img.naturalWidth, shown: r.width, column: right - left,
                    wide: scrolls || r.left < left - 1 || r.right > right + 1});
    }
    return found;
}""".replace("OWN_WIDTH", OWN_WIDTH_JS)


def find_small_figures(page, min_tick_px: float = MIN_TICK_PX) -> list[str]:
    """Output figures that are not 2x PNGs (twice the pixels of the size they are shown at), that are wider than the
    text column (cut off, or in a box that scrolls sideways), or whose tick labels are shown smaller than
    ``min_tick_px``."""
    problems, tick = [], tick_label_px()
    for f in page.evaluate(_FIGURE_SIZES_JS):
        if not f["own"] or f["natural"] < 1.9 * f["own"]:
            problems.append(f"figure {f['src']} is not a 2x PNG ({f['natural']} px for {f['own']} px)")
        elif f["wide"]:
            problems.append(
                f"figure {f['src']} is wider than the text column ({f['shown']:.0f} px in {f['column']:.0f})"
            )
        elif tick * f["shown"] / f["own"] < min_tick_px:
            shown = tick * f["shown"] / f["own"]
            problems.append(f"figure {f['src']}: tick labels shown {shown:.1f} px tall (at least {min_tick_px})")
    return problems


_SLIDERS_IN_VIEW_JS = """async () => {
    const found = [];
    const bar = document.querySelector('.bd-header-article');
    for (const fig of document.querySelectorAll('.grpo-fig')) {
        const end = fig.querySelector('.grpo-readout') || [...fig.querySelectorAll('.grpo-panel')].pop();
        if (!end || !fig.querySelector('input[type=range]')) continue;
        // the figure's last panel, legend and read-out (what a slider redraws) end at the bottom of the screen
        window.scrollTo(0, window.scrollY + end.getBoundingClientRect().bottom - window.innerHeight);
        await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
        const top = bar && ['sticky', 'fixed'].includes(getComputedStyle(bar).position)
            ? bar.getBoundingClientRect().bottom : 0;
        for (const input of fig.querySelectorAll('input[type=range]')) {
            const r = input.getBoundingClientRect();
            if (r.top < top - 1 || r.bottom > window.innerHeight + 1) {
                found.push(`${fig.id}: slider '${input.getAttribute('aria-label')}' at ${Math.round(r.top)} px`);
            }
        }
    }
    return found;
}"""


def find_sliders_out_of_view(page) -> list[str]:
    """Slider figures whose sliders cannot be seen (off screen, or under the sticky header bar) while the figure's
    last panel, legend and read-out end at the bottom of the screen: a reader could not watch them while moving
    a slider."""
    return [f"slider out of view: {item}" for item in page.evaluate(_SLIDERS_IN_VIEW_JS)]


_SCREENS_JS = """(viewportHeight) => {
    const article = document.querySelector('article.bd-article') || document.querySelector('article');
    return article.getBoundingClientRect().height / viewportHeight;
}"""


def screens(page) -> float:
    """The height of the page as it opens, in screens of the current viewport: its argument, with its checks and
    the sections it folds as details closed (``_ext/section_checks.py``, ``_ext/details_sections.py``)."""
    return page.evaluate(_SCREENS_JS, page.viewport_size["height"])


def find_long_page(page, most: float = MAX_SCREENS) -> list[str]:
    """A page whose main argument runs longer than ``most`` screens of the current viewport."""
    n = screens(page)
    return [f"the page runs {n:.1f} screens as it opens (at most {most})"] if n > most else []
