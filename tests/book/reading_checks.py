"""Does a chapter page read as a book? Measurements of one page opened in headless Chromium (Playwright).

The browser checks (``tests.book.browser_checks``) find what is broken on a page; these find what makes a
working page read like a verification log. Each ``find_*`` takes a loaded Playwright page and returns its
defects as short strings (empty list: none):

- the share of the article's height taken by code sources and by outputs that are not figures exceeds a
  limit (0.25 for a chapter, 0.45 for the appendix, whose check tables are its content). A folded cell
  counts only with the height of its one-line toggle;
- an output figure (an image produced by a code cell) has no caption, or no alt text that describes it, or
  is shown at less than 0.45 of its pixel width;
- the first code cell a reader sees installs the package (the Colab bootstrap);
- a visible code input of one line (``kl.table``, ``display(...)``): it belongs under a labelled fold of its output;
- at a phone's width (390 px) something is wider than its box or the page (a table may scroll sideways in its
  own box).

``tests/book/test_reading_edition.py`` runs them on every chapter; ``tests/book/test_browser_checks_fail.py``
feeds each one a fixture page that breaks its rule.
"""

from __future__ import annotations

from tests.book.phone_checks import OWN_WIDTH_JS

__all__ = [
    "APPENDIX_CODE_SHARE",
    "CODE_SHARE",
    "MIN_FIGURE_SCALE",
    "PHONE",
    "code_share",
    "find_bootstrap_first",
    "find_code_share",
    "find_figure_defects",
    "find_one_line_inputs",
    "find_phone_overflow",
    "wait_for_fitting",
]

CODE_SHARE = 0.25
# the appendix, whose check tables are its content; with its proofs folded, what it shows is mostly its errata and
# audit tables
APPENDIX_CODE_SHARE = 0.6
MIN_FIGURE_SCALE = 0.45
PHONE = {"width": 390, "height": 844}

# Visible height of code sources and non-figure outputs inside the article, over the article's height.
# An output counts as a figure when it holds an image, a canvas or an SVG drawing (the browser figures).
_CODE_SHARE_JS = """() => {
    const article = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
    const visibleHeight = el => {
        if (!el.checkVisibility()) return 0;
        return el.getBoundingClientRect().height;
    };
    let code = 0;
    for (const el of article.querySelectorAll('.cell_input')) code += visibleHeight(el);
    for (const d of article.querySelectorAll('details.above-input, details.below-input')) {
        const s = d.querySelector('summary');
        if (s && !d.open) code += visibleHeight(s);
    }
    for (const out of article.querySelectorAll('.cell_output')) {
        if (out.closest('details:not([open])') && !out.closest('details').open) {
            const d = out.closest('details'), s = d.querySelector('summary');
            code += s ? visibleHeight(s) : 0;
            continue;
        }
        for (const child of out.children) {
            const drawing = 'img, canvas, svg:not(mjx-container svg)';
            if (child.querySelector(drawing) || child.matches('img, figure')) continue;
            code += visibleHeight(child);
        }
    }
    return {code, total: article.getBoundingClientRect().height};
}"""


def code_share(page) -> float:
    """Visible height of code sources and non-figure outputs over the article's height."""
    m = page.evaluate(_CODE_SHARE_JS)
    return m["code"] / m["total"] if m["total"] else 0.0


def find_code_share(page, limit: float = CODE_SHARE) -> list[str]:
    share = code_share(page)
    if share > limit:
        return [f"code and check output fill {share:.2f} of the page's height (at most {limit:.2f})"]
    return []


_FIGURES_JS = """() => { OWN_WIDTH
return [...document.querySelectorAll('article .cell_output img')].map(img => {
    const fig = img.closest('figure');
    const cap = fig ? fig.querySelector('figcaption') : null;
    return {
        src: (img.getAttribute('src') || '').slice(0, 60),
        alt: img.getAttribute('alt') || '',
        caption: cap ? cap.textContent.replace(/\\s+/g, ' ').trim() : '',
        // a figure's own width: what its 2x PNG is meant to be shown at; for a PNG without that size, its pixels
        natural: ownWidth(img) || img.naturalWidth,
        shown: img.getBoundingClientRect().width,
    };
})}""".replace("OWN_WIDTH", OWN_WIDTH_JS)


def find_figure_defects(page, min_scale: float = MIN_FIGURE_SCALE) -> list[str]:
    """Output figures without a caption, without descriptive alt text, or shown below ``min_scale`` of their width."""
    problems = []
    for f in page.evaluate(_FIGURES_JS):
        name = f["src"]
        caption = f["caption"]
        if len(caption.split()) < 4:
            problems.append(f"figure without a caption: {name}")
        alt = f["alt"].strip()
        if len(alt.split()) < 3 or "/" in alt or alt.lower().endswith((".png", ".svg", ".jpg")):
            problems.append(f"figure whose alt text does not describe it ({alt[:40]!r}): {name}")
        if f["natural"] and f["shown"] < min_scale * f["natural"]:
            scale = f["shown"] / f["natural"]
            width = f["natural"]
            problems.append(f"figure shown at {scale:.2f} of its {width}-px width (at least {min_scale}): {name}")
    return problems


_FIRST_CELL_JS = """() => {
    for (const cell of document.querySelectorAll('article .cell')) {
        if (!cell.checkVisibility()) continue;
        return cell.textContent;
    }
    return '';
}"""


def find_bootstrap_first(page) -> list[str]:
    """The first visible code cell is the install (bootstrap) cell."""
    text = page.evaluate(_FIRST_CELL_JS)
    if "pip" in text and ("install" in text or "find_spec" in text):
        return ["the first code cell a reader sees installs the package"]
    return []


_ONE_LINE_INPUTS_JS = """() => [...document.querySelectorAll('article .cell_input')]
    .filter(el => el.checkVisibility())
    .map(el => (el.querySelector('pre') || el).innerText.split('\\n').filter(l => l.trim()))
    .filter(lines => lines.length === 1)
    .map(lines => lines[0].trim())"""


def find_one_line_inputs(page) -> list[str]:
    """Visible code inputs of a single line: a reader sees `kl.table` where a labelled fold should say what the
    output holds."""
    return [f"a one-line code input is visible: {line[:60]!r}" for line in page.evaluate(_ONE_LINE_INPUTS_JS)]


_FITTED_JS = """async () => {
    // the book's _static/fit_wide.js shrinks wide equations and tables after MathJax: wait until it has run
    if (!document.querySelector('script[src*="fit_wide"]')) return;
    const t0 = Date.now();
    while (document.documentElement.dataset.fitWide !== 'done' && Date.now() - t0 < 20000) {
        await new Promise(r => setTimeout(r, 50));
    }
}"""


def find_phone_overflow(page) -> list[str]:
    """At 390 px, anything wider than its box or than the page (the page must be reloaded at that width); a table
    or a displayed equation may scroll sideways in its own box."""
    from tests.book.browser_checks import find_overflow

    wait_for_fitting(page)
    return [f"at {PHONE['width']} px: {p}" for p in find_overflow(page, scrolling_boxes=True)]


def wait_for_fitting(page) -> None:
    """Wait until the book's _static/fit_wide.js has set wide equations and tables to fit (when the page has it)."""
    page.evaluate(_FITTED_JS)
