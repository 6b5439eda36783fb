"""Does each section show its result, and does a phone show whole formulas and say what scrolls? Checks of one built
page in headless Chromium (Playwright), after MathJax and ``_static/fit_wide.js`` have run.

- ``find_sections_opening_with_fold``: a headed section whose first shown element is a fold (a section fold of
  ``_ext/details_sections.py``, a checks fold, or a code cell that shows only its closed toggle): the reader sees a
  heading and a bar, not a result.
- ``find_colons_before_folds``: a paragraph in view that ends in a colon right before a fold (or a code cell that shows
  only its toggle): it introduces something the reader cannot see.
- ``find_vague_fold_labels``: a fold labelled with words that say nothing of what it holds ("Show the details",
  "More"; the list is ``_ext/details_sections.py``'s ``VAGUE_LABELS``).
- ``find_verification_lines``: a line in view that reports how the page was checked (the machine, the thread count,
  the seed sweep's assert counts) rather than what it found: those belong in the page's one fold labelled
  ``CHECKED_LABEL``, and a page has at most one such fold.
- ``find_long_bottom_line``: a chapter's bottom-line box that is not 3 to 5 bullets of at most
  ``MAX_BOTTOM_LINE_WORDS`` words (a formula counts as one word).
- ``find_small_math``: at a phone's width, a displayed equation set below ``MIN_MATH_PX``.
- ``find_uncued_scrolling``: at a phone's width, a box that scrolls sideways (an equation, a table, a figure) with
  no cue above it, or a table that scrolls without its first column kept in view.

``tests/book/test_reading_edition.py`` runs them on every chapter; ``tests/book/test_fold_checks_fail.py`` feeds
each a fixture page that breaks its rule, and one that keeps them all.
"""

from __future__ import annotations

import importlib.util
import sys

from tests.book.reading_checks import wait_for_fitting
from tests.book_layout import ROOT

__all__ = [
    "BOTTOM_LINE_TITLES",
    "find_colons_before_folds",
    "MAX_BOTTOM_LINE_WORDS",
    "MIN_MATH_PX",
    "CHECKED_LABEL",
    "find_long_bottom_line",
    "find_sections_opening_with_fold",
    "find_small_math",
    "find_uncued_scrolling",
    "find_vague_fold_labels",
    "find_verification_lines",
]

MAX_BOTTOM_LINE_WORDS = 80
BOTTOM_LINE_BULLETS = (3, 5)
BOTTOM_LINE_TITLES = ("The bottom line", "What this book shows")
MIN_MATH_PX = 12
CHECKED_LABEL = "How this page was checked"
# what a line that reports the checking says: the machine and its threads, or the seed sweep's tally
VERIFICATION_PATTERN = r"\bCPU:|torch threads?\b|\bAVX|asserts? held at (?:every|each) seed|seed sweep ran this page"


def load_details_sections():
    """The build extension ``_ext/details_sections.py`` as a module (the build puts ``_ext/`` on the path, so that
    the extensions can import each other): one loader for its tests and for the browser checks."""
    if str(ROOT / "_ext") not in sys.path:
        sys.path.insert(0, str(ROOT / "_ext"))
    spec = importlib.util.spec_from_file_location("details_sections", ROOT / "_ext" / "details_sections.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("details_sections", module)
    spec.loader.exec_module(module)
    return module


def _vague_labels() -> frozenset[str]:
    """The labels ``_ext/details_sections.py`` refuses at build time: one list for the build and the browser."""
    return load_details_sections().VAGUE_LABELS


_OPENING_FOLDS_JS = """() => {
    const found = [];
    const shown = el => el.checkVisibility() && el.getBoundingClientRect().height > 0;
    const onlyAFold = el => {
        // a code cell whose input is folded and which shows no output: all a reader sees is its toggle
        if (!el.matches('div.cell')) return false;
        const outputs = [...el.querySelectorAll('.cell_output')].filter(shown);
        return outputs.length === 0 && el.querySelector('details') !== null;
    };
    for (const section of document.querySelectorAll('article section')) {
        const heading = section.querySelector(':scope > h1, :scope > h2, :scope > h3, :scope > h4, :scope > h5');
        if (!heading) continue;
        let el = heading.nextElementSibling;
        while (el && !shown(el)) el = el.nextElementSibling;
        if (!el || el.tagName === 'SECTION') continue;
        if (el.tagName === 'DETAILS' || onlyAFold(el)) {
            found.push(heading.textContent.replace(/[#¶]/g, '').replace(/\\s+/g, ' ').trim());
        }
    }
    return found;
}"""


def find_sections_opening_with_fold(page) -> list[str]:
    """Headed sections whose first shown element is a fold."""
    return [f"the section {t!r} opens with a fold" for t in page.evaluate(_OPENING_FOLDS_JS)]


_COLONS_JS = """() => {
    const found = [];
    const shown = el => el.checkVisibility() && el.getBoundingClientRect().height > 0;
    const hides = el => el.tagName === 'DETAILS' || (el.matches('div.cell') && el.querySelector('details') !== null
        && ![...el.querySelectorAll('.cell_output')].some(shown));
    for (const p of document.querySelectorAll('article p')) {
        if (!shown(p) || p.closest('details:not([open]), li, td, summary, .admonition-title')) continue;
        if (!/:\\s*$/.test(p.innerText)) continue;
        let next = p.nextElementSibling;
        while (next && !shown(next)) next = next.nextElementSibling;
        if (next && hides(next)) found.push(p.innerText.replace(/\\s+/g, ' ').trim().slice(-70));
    }
    return found;
}"""


def find_colons_before_folds(page) -> list[str]:
    """Paragraphs in view that end in a colon right before something folded."""
    return [f"a sentence ends in a colon before a fold: {t!r}" for t in page.evaluate(_COLONS_JS)]


_FOLD_LABELS_JS = """() => [...document.querySelectorAll('article details > summary')]
    .map(s => s.textContent.replace(/\\s+/g, ' ').trim())"""


def find_vague_fold_labels(page) -> list[str]:
    """Folds whose label says nothing of what they hold."""
    vague = _vague_labels()
    labels = page.evaluate(_FOLD_LABELS_JS)
    return [f"a fold is labelled {t!r}" for t in labels if t.rstrip(".").lower() in vague]


_VERIFICATION_JS = """([pattern, label]) => {
    const re = new RegExp(pattern, 'i');
    const found = [];
    for (const el of document.querySelectorAll('article p, article li, article pre, article td')) {
        if (!el.checkVisibility() || el.closest('details:not([open])')) continue;
        if (el.querySelector('p, li, pre')) continue;
        for (const line of el.innerText.split('\\n')) {
            if (re.test(line)) found.push(line.replace(/\\s+/g, ' ').trim().slice(0, 90));
        }
    }
    const folds = [...document.querySelectorAll('article details > summary')]
        .filter(s => s.textContent.trim() === label).length;
    return {found, folds};
}"""


def find_verification_lines(page) -> list[str]:
    """Lines in view that report how the page was checked, and more than one fold labelled ``CHECKED_LABEL``."""
    m = page.evaluate(_VERIFICATION_JS, [VERIFICATION_PATTERN, CHECKED_LABEL])
    problems = [f"a line about the checking is in view: {line!r}" for line in m["found"]]
    if m["folds"] > 1:
        problems.append(f"{m['folds']} folds labelled {CHECKED_LABEL!r} (at most one)")
    return problems


_BOTTOM_LINE_JS = """(titles) => {
    const found = [];
    for (const box of document.querySelectorAll('article div.admonition')) {
        const title = box.querySelector(':scope > .admonition-title');
        if (!title || !titles.includes(title.textContent.trim())) continue;
        const copy = box.cloneNode(true);
        copy.querySelector('.admonition-title').remove();
        copy.querySelectorAll('mjx-container').forEach(m => m.replaceWith(' x '));
        const words = copy.textContent.split(/\\s+/).filter(w => /[\\p{L}\\p{N}]/u.test(w)).length;
        const bullets = box.querySelectorAll(':scope > ul > li, :scope > ol > li').length;
        found.push({title: title.textContent.trim(), words, bullets});
    }
    return found;
}"""


def find_long_bottom_line(page, most: int = MAX_BOTTOM_LINE_WORDS) -> list[str]:
    """A bottom-line box of more than ``most`` words, or not of 3 to 5 bullets."""
    low, high = BOTTOM_LINE_BULLETS
    problems = []
    for box in page.evaluate(_BOTTOM_LINE_JS, list(BOTTOM_LINE_TITLES)):
        if box["words"] > most:
            problems.append(f"{box['title']!r}: {box['words']} words (at most {most})")
        if not low <= box["bullets"] <= high:
            problems.append(f"{box['title']!r}: {box['bullets']} bullets ({low} to {high})")
    return problems


_SMALL_MATH_JS = """(least) => [...document.querySelectorAll('article mjx-container[display="true"]')]
    .filter(m => m.checkVisibility() && parseFloat(getComputedStyle(m).fontSize) < least)
    .map(m => ({px: parseFloat(getComputedStyle(m).fontSize),
                tex: (m.getAttribute('aria-label') || m.textContent).slice(0, 50)}))"""


def find_small_math(page, least: float = MIN_MATH_PX) -> list[str]:
    """Displayed equations set below ``least`` px (the page must be open at a phone's width)."""
    wait_for_fitting(page)
    return [f"an equation set at {m['px']:.1f} px (at least {least}): {m['tex']!r}" for m in
            page.evaluate(_SMALL_MATH_JS, least)]  # fmt: skip


_UNCUED_JS = """() => {
    const found = [];
    const boxes = new Set();
    for (const el of document.querySelectorAll('article mjx-container[display="true"], article table, article img')) {
        for (let box = el; box && box.tagName !== 'ARTICLE'; box = box.parentElement) {
            if (['auto', 'scroll'].includes(getComputedStyle(box).overflowX)) { boxes.add(box); break; }
        }
    }
    for (const box of boxes) {
        if (!box.checkVisibility() || box.scrollWidth <= box.clientWidth + 1) continue;
        const what = box.querySelector('table') ? 'table' : box.querySelector('img') ? 'figure' : 'equation';
        const text = box.textContent.replace(/\\s+/g, ' ').trim().slice(0, 40);
        const cue = box.previousElementSibling;
        if (!cue || !cue.classList.contains('scroll-cue') || !cue.checkVisibility()) {
            found.push(`a ${what} scrolls sideways with no cue: ${JSON.stringify(text)}`);
        }
        const first = box.querySelector('table tr > :first-child');
        if (first && getComputedStyle(first).position !== 'sticky') {
            found.push(`a table scrolls sideways without its first column in view: ${JSON.stringify(text)}`);
        }
    }
    return found;
}"""


def find_uncued_scrolling(page) -> list[str]:
    """Boxes that scroll sideways without a cue, and scrolling tables that lose their first column (the page must be
    open at a phone's width)."""
    wait_for_fitting(page)
    return page.evaluate(_UNCUED_JS)
