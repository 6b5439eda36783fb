"""What a reader sees: checks of one page opened in headless Chromium (Playwright), after MathJax has run.

Each ``find_*`` function takes a loaded Playwright page and returns the defects it finds, as short
strings (empty list: none). The book's browser test runs all of them on every page of ``_toc.yml``;
``tests/book/test_browser_checks_fail.py`` feeds them fixture pages with known defects to show that each
one can fail.

- raw TeX (``$$``, ``\\frac``, ``frac{``) or raw Markdown (``**``, a table rule ``|---|``) in the visible
  text outside code cells;
- a link whose text is a Python identifier such as ``sft.lr`` (linkify's ``http://sft.lr``);
- a MathJax error, or math left untypeset;
- a horizontal scrollbar on the page, or a code/table/math box whose content is cut off or scrolls
  sideways;
- a saved ipywidgets view (it needs a kernel), or a slider that moves nothing when it is moved.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

__all__ = [
    "CHECKS",
    "chromium_executable",
    "find_dead_sliders",
    "find_identifier_links",
    "find_math_errors",
    "find_overflow",
    "find_raw_markup",
    "launch_chromium",
    "offline_page",
    "open_page",
    "run_checks",
]

VIEWPORT = {"width": 1280, "height": 900}


def chromium_executable() -> str | None:
    """The system Chromium (Debian's ``chromium``, or the binary named by ``$CHROMIUM``); Playwright's own
    browser download is never used."""
    named = os.environ.get("CHROMIUM")
    return shutil.which(named) if named else shutil.which("chromium") or shutil.which("chromium-browser")


@contextmanager
def launch_chromium() -> Iterator[object]:
    """Headless system Chromium driven by Playwright (``pip install playwright``, no ``playwright install``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_executable(), args=["--no-sandbox", "--disable-gpu"])
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def offline_page(browser, base_url: str) -> Iterator[tuple[object, dict]]:
    """A page that may only reach ``base_url``: every other request is aborted and recorded.

    Yields ``(page, log)``; ``log`` collects ``blocked`` (URLs of other hosts), ``failed`` (local requests
    answered with an error status) and ``errors`` (uncaught JavaScript errors).
    """
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    log: dict[str, list[str]] = {"blocked": [], "failed": [], "errors": []}
    origin = urlsplit(base_url)

    def route(r):
        url = urlsplit(r.request.url)
        if (url.scheme, url.netloc) == (origin.scheme, origin.netloc) or url.scheme in ("data", "blob"):
            r.continue_()
        else:
            log["blocked"].append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("response", lambda resp: resp.status >= 400 and log["failed"].append(f"{resp.status} {resp.url}"))
    page.on("pageerror", lambda exc: log["errors"].append(str(exc)))
    try:
        yield page, log
    finally:
        context.close()


def open_page(page, url: str, timeout_ms: int = 60_000) -> None:
    """Load ``url`` and wait until MathJax (when the page loads it) has typeset everything and fonts are in."""
    page.goto(url, wait_until="load", timeout=timeout_ms)
    page.evaluate(
        """async () => {
            if (document.querySelector('script[src*="mathjax"]')) {
                const t0 = Date.now();
                while (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) {
                    if (Date.now() - t0 > 20000) break;
                    await new Promise(r => setTimeout(r, 50));
                }
                if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
            }
            await document.fonts.ready;
        }"""
    )


# --------------------------------------------------------------------------------------------------
# Text a reader sees


_VISIBLE_TEXT_JS = """() => {
    // Visible text grouped by block, outside code cells' sources, inline code and typeset math.
    const skip = 'pre.literal-block, .cell_input, div.highlight, code, kbd, script, style, noscript, ' +
                 'mjx-container, mjx-assistive-mml, .MathJax, textarea, svg, title';
    const blocks = 'p, li, td, th, h1, h2, h3, h4, h5, h6, dt, dd, caption, figcaption, pre, blockquote, div, ' +
                   'span.caption-text';
    const texts = new Map();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
        const node = walker.currentNode, el = node.parentElement;
        if (!el || el.closest(skip) || !node.nodeValue.trim()) continue;
        if (!el.checkVisibility({visibilityProperty: true, opacityProperty: false})) continue;
        const block = el.closest(blocks) || el;
        texts.set(block, (texts.get(block) || '') + node.nodeValue);
    }
    return [...texts.values()].map(t => t.replace(/\\s+/g, ' ').trim());
}"""

# TeX markup that a reader should never see as text: $$ or $...$ delimiters, a \command, or a command whose
# backslash a Markdown parser ate (`frac{`, `\;=\;` read as `;=;`). Plain-text math such as p_{n-1} or
# (p(1-p)+eps)^{3/2} in an identity's name is prose, not markup, and is not counted.
_RAW_TEX = [
    ("$$ delimiter", re.compile(r"\$\$")),
    ("$...$ delimiters", re.compile(r"(?<![\w$])\$(?=\S)[^$\n]{1,200}?(?<=\S)\$(?![\w$])")),
    ("TeX command", re.compile(r"\\(?:[A-Za-z]{2,}|[,;:!{}\[\]()])")),
    (
        "TeX command without its backslash",
        re.compile(r"\b(?:frac|sqrt|operatorname|mathrm|mathbb|mathcal|text|begin|end)\{|;=;"),
    ),
]
_RAW_MARKDOWN = [
    ("Markdown table rule", re.compile(r"\|\s*:?-{3,}:?\s*\|")),
    ("Markdown emphasis marker", re.compile(r"\*\*|(?<![\w*])\*(?=[A-Za-z][^*\n]{0,80}\*(?![\w*]))")),
    # a directive whose fence MyST did not recognise (e.g. a backtick in a backtick fence's title) shows as text
    ("MyST directive fence", re.compile(r"(?:`{3,}|:{3,})\{[\w:-]+\}")),
]


def _visible_texts(page) -> list[str]:
    return page.evaluate(_VISIBLE_TEXT_JS)


def _excerpt(text: str, match: re.Match, width: int = 50) -> str:
    return text[max(0, match.start() - width) : match.end() + width]


def scan_text(texts: list[str]) -> list[str]:
    """Raw TeX and raw Markdown in a list of visible text blocks (the pure part of :func:`find_raw_markup`)."""
    problems = []
    for text in texts:
        for label, pattern in _RAW_TEX + _RAW_MARKDOWN:
            m = pattern.search(text)
            if m:
                problems.append(f"{label} in visible text: …{_excerpt(text, m)}…")
    return problems


def find_raw_markup(page) -> list[str]:
    """Raw TeX or Markdown (a table rule, a stray ``**``) in the visible text outside code cells."""
    return scan_text(_visible_texts(page))


_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$")


def find_identifier_links(page) -> list[str]:
    """Links whose text is a dotted Python identifier and whose target is that text taken as a host name."""
    links = page.evaluate(
        """() => [...document.querySelectorAll('a[href]')]
            .filter(a => a.checkVisibility())
            .map(a => [a.textContent.trim(), a.href])"""
    )
    problems = []
    for text, href in links:
        host = urlsplit(href).hostname or ""
        if _IDENTIFIER.match(text) and host.lower() == text.lower():
            problems.append(f"link from the identifier {text!r} to {href}")
    return problems


# --------------------------------------------------------------------------------------------------
# Math


def find_math_errors(page) -> list[str]:
    """MathJax errors (``mjx-merror``) and math elements that MathJax did not typeset."""
    found = page.evaluate(
        """() => {
            const errors = [...document.querySelectorAll('mjx-merror, [data-mjx-error]')]
                .map(e => e.getAttribute('data-mjx-error') || e.textContent);
            const untypeset = [...document.querySelectorAll('span.math, div.math')]
                .filter(e => !e.querySelector('mjx-container'))
                .map(e => e.textContent.trim().slice(0, 80));
            // An undefined macro is not an error for MathJax's noundefined package: it is set as red text.
            for (const c of document.querySelectorAll('mjx-container')) {
                const m = (c.querySelector('mjx-assistive-mml') || c).textContent.match(/\\\\[A-Za-z]+/);
                if (m) errors.push(`undefined TeX macro ${m[0]}`);
            }
            const hasMath = document.querySelector('span.math, div.math, mjx-container') !== null;
            const loaded = !!(window.MathJax && MathJax.version && MathJax.version.startsWith('3'));
            return {errors, untypeset, hasMath, loaded};
        }"""
    )
    problems = [f"MathJax error: {e}" for e in found["errors"]]
    problems += [f"math not typeset: {t}" for t in found["untypeset"]]
    if found["hasMath"] and not found["loaded"]:
        problems.append("the page has math but MathJax 3 did not load")
    return problems


# --------------------------------------------------------------------------------------------------
# Layout


def find_overflow(page, scrolling_boxes: bool = False) -> list[str]:
    """A horizontal scrollbar on the page, or a box whose content is wider than the box (cut off or scrolled).

    With ``scrolling_boxes`` (a phone's width), a table or a displayed equation may be wider than the text column when
    its own box scrolls sideways (the theme's ``.pst-scrollable-table-container``, an equation's ``mjx-container``):
    that box is not counted (``tests/book/fold_checks.py`` checks that it says so).
    """
    found = page.evaluate(
        """(scrollingBoxes) => {
            const doc = document.scrollingElement || document.documentElement;
            const page = doc.scrollWidth > doc.clientWidth + 1 ? [doc.scrollWidth, doc.clientWidth] : null;
            const boxes = [];
            const sel = 'pre, table, .table-wrapper, .pst-scrollable-table-container, div.math, ' +
                        'mjx-container[display="true"], .cell_output .output, .admonition, .proof, img';
            for (const el of document.querySelectorAll('article ' + sel.split(', ').join(', article '))) {
                if (!el.checkVisibility()) continue;
                const scrolls = ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
                const ownBox = el.matches('.pst-scrollable-table-container, .table-wrapper, mjx-container');
                if (scrollingBoxes && scrolls && ownBox) continue;
                if (el.scrollWidth > el.clientWidth + 1) {
                    const label = (el.textContent || el.getAttribute('src') || '').replace(/\\s+/g, ' ').trim();
                    boxes.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')} ` +
                               `${el.scrollWidth}px in ${el.clientWidth}px: ${label.slice(0, 70)}`);
                }
            }
            return {page, boxes};
        }""",
        scrolling_boxes,
    )
    problems = []
    if found["page"]:
        content, window = found["page"]
        problems.append(f"horizontal scrollbar on the page: {content} px of content in {window} px")
    problems += [f"content wider than its box: {b}" for b in found["boxes"]]
    return problems


# --------------------------------------------------------------------------------------------------
# Sliders


_FIGURES_SNAPSHOT_JS = """() => [
    ...[...document.querySelectorAll('canvas')].map(c => { try { return c.toDataURL(); } catch (e) { return 'x'; } }),
    ...[...document.querySelectorAll('article svg')].map(s => s.outerHTML),
    ...[...document.querySelectorAll('article img')].map(i => i.currentSrc || i.src),
].join('\\n')"""


def find_dead_sliders(page) -> list[str]:
    """Saved ipywidgets (they need a kernel), and range inputs after which no figure on the page changes."""
    saved = page.evaluate(
        """() => ({
            scripts: document.querySelectorAll('script[type^="application/vnd.jupyter.widget"]').length,
            widgets: document.querySelectorAll('.jupyter-widgets, .widget-slider, .widget-hslider').length,
            ranges: document.querySelectorAll('input[type=range]').length,
        })"""
    )
    problems = []
    if saved["scripts"]:
        problems.append(f"{saved['scripts']} saved ipywidgets views or state (they need a kernel)")
    if saved["widgets"]:
        problems.append(f"{saved['widgets']} ipywidgets elements on the page (they need a kernel)")
    for k in range(saved["ranges"]):
        slider = page.locator("input[type=range]").nth(k)
        if not slider.is_visible():
            continue
        name = slider.get_attribute("aria-label") or slider.get_attribute("name") or slider.get_attribute("id") or k
        before = page.evaluate(_FIGURES_SNAPSHOT_JS)
        slider.evaluate(
            """el => {
                const lo = Number(el.min || 0), hi = Number(el.max || 100), v = Number(el.value);
                el.value = String(Math.abs(v - lo) > Math.abs(hi - v) ? lo : hi);
                el.dispatchEvent(new Event('input', {bubbles: true}));
                el.dispatchEvent(new Event('change', {bubbles: true}));
            }"""
        )
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        page.wait_for_timeout(200)
        if page.evaluate(_FIGURES_SNAPSHOT_JS) == before:
            problems.append(f"slider {name!r} moves nothing: no figure on the page changed")
    return problems


CHECKS: dict[str, Callable[[object], list[str]]] = {
    "raw TeX or Markdown": find_raw_markup,
    "identifier links": find_identifier_links,
    "math errors": find_math_errors,
    "overflow": find_overflow,
    "dead sliders": find_dead_sliders,
}


def run_checks(page, log: dict | None = None) -> dict[str, list[str]]:
    """Every check on a loaded page; with the request log of :func:`offline_page`, network and JS errors too."""
    found = {name: check(page) for name, check in CHECKS.items()}
    if log is not None:
        found["requests to other hosts"] = sorted(set(log["blocked"]))
        found["failed local requests"] = sorted(set(log["failed"]))
        found["JavaScript errors"] = list(log["errors"])
    return {name: problems for name, problems in found.items() if problems}
