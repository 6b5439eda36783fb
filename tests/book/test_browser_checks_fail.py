"""The browser checks can fail: fixture pages with known defects are caught by the same functions that check
the book (tests/book/test_browser_pages.py), and a clean fixture page passes them all.

The fixture pages (tests/fixtures/browser/) load the book's vendored MathJax 3 with the book's setup, from
a local server that also serves _vendor/mathjax, with every other host blocked, exactly as for the book.
"""

from __future__ import annotations

import shutil

import pytest

from tests.book.browser_checks import offline_page, open_page, run_checks, scan_text
from tests.book_layout import ROOT
from tests.conftest import serve_folder

pytestmark = pytest.mark.browser
FIXTURES = ROOT / "tests" / "fixtures" / "browser"


@pytest.fixture(scope="module")
def fixture_site(tmp_path_factory):
    site = tmp_path_factory.mktemp("fixture_site")
    for page in FIXTURES.glob("*.html"):
        shutil.copy(page, site / page.name)
    shutil.copytree(ROOT / "_vendor" / "mathjax", site / "mathjax")
    shutil.copytree(ROOT / "_static", site / "_static")  # the book's own stylesheet and scripts, for the fixed pages
    with serve_folder(site) as url:
        yield url


def _problems(chromium, fixture_site, name: str) -> dict[str, list[str]]:
    with offline_page(chromium, fixture_site) as (page, log):
        open_page(page, f"{fixture_site}/{name}")
        return run_checks(page, log)


def test_a_raw_formula_and_a_broken_table_are_caught(chromium, fixture_site):
    found = _problems(chromium, fixture_site, "raw_formula_and_broken_table.html")
    assert set(found) == {"raw TeX or Markdown"}, found  # the typeset formula and the real table pass
    text = "\n".join(found["raw TeX or Markdown"])
    assert "$$ delimiter" in text and "TeX command" in text and ";=;" in text, text
    assert "Markdown table rule" in text, text


@pytest.mark.parametrize(
    ("page", "kind", "expected"),
    [
        ("identifier_link.html", "identifier links", "'sft.lr'"),
        ("math_error.html", "math errors", "MathJax error"),
        ("math_error.html", "math errors", "undefined TeX macro \\footnotesize"),
        ("too_wide.html", "overflow", "horizontal scrollbar on the page"),
        ("too_wide.html", "overflow", "content wider than its box: pre"),
        ("dead_slider.html", "dead sliders", "slider 'dead' moves nothing"),
        ("saved_widget.html", "dead sliders", "saved ipywidgets views"),
        ("saved_widget.html", "requests to other hosts", "cdn.jsdelivr.net"),
    ],
)
def test_each_defect_is_caught(chromium, fixture_site, page, kind, expected):
    found = _problems(chromium, fixture_site, page)
    assert any(expected in item for item in found.get(kind, [])), found


def test_the_live_slider_is_not_reported(chromium, fixture_site):
    found = _problems(chromium, fixture_site, "dead_slider.html")
    assert found == {"dead sliders": ["slider 'dead' moves nothing: no figure on the page changed"]}, found


def test_a_clean_page_passes_every_check(chromium, fixture_site):
    assert _problems(chromium, fixture_site, "clean.html") == {}


@pytest.mark.parametrize(
    "text",
    [
        "A_eps(r=1) = omega^+ (holds): $$p ;=; p$$",
        r"(holds): \frac{1 - p}{\sqrt{p}} ;=; \omega",
        "Theorem 1 box: $\\omega^+_\\varepsilon(p_{n-1})$ - beta KL",
        "frac{1 - p}{sqrt{p}}",
        "| p_ref | max |closed − numeric| | |---|---|---|",
        "Lemma 1: h'(p*) = p*(1-p*)** (holds)",
        "```{prf:lemma} The GRPO gradient is a U-statistic :label: lem-group-size-ustat",
    ],
)
def test_text_scan_flags_raw_markup(text):
    assert scan_text([text])


@pytest.mark.parametrize(
    "text",
    [
        "eps = 0: lim_{p->0+} h(p) = 1 (holds)",
        "xi'(p) = (2p-1) sinh(b(p)/beta) / (4 beta (p(1-p)+eps)^{3/2})",
        "max |closed − numeric| < 1e-12",
        "p* = h(p*) with slope -1.061; it costs $5 and $10",
        "Fixed points are where a curve crosses the diagonal: filled dots are stable.",
    ],
)
def test_text_scan_leaves_prose_alone(text):
    assert scan_text([text]) == []
