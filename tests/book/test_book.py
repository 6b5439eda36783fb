"""Build the book as the site is built (warnings are errors) and check the HTML a reader gets.

- every _toc entry is rendered;
- no page holds a traceback or an error output;
- every chapter page links to Colab at an .ipynb that exists in the repository;
- MathJax is the copy vendored in the book (_vendor/mathjax), not a CDN's;
- no page saves widget state or widget views (they need a kernel).

What a reader sees in a real browser is checked in tests/book/test_browser_pages.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.book_layout import ROOT, chapter_notebooks, config, toc_files

pytestmark = pytest.mark.book


@pytest.fixture(scope="module")
def html_dir(built_book) -> Path:
    return built_book


def _page(html_dir: Path, doc: str) -> str:
    page = html_dir / f"{doc}.html"
    assert page.exists(), f"{doc} was not rendered"
    return page.read_text(encoding="utf-8")


def test_every_toc_entry_is_rendered(html_dir):
    for doc in toc_files():
        _page(html_dir, doc)


def test_no_page_shows_a_traceback_or_error(html_dir):
    for doc in toc_files():
        text = _page(html_dir, doc)
        assert "Traceback (most recent call last)" not in text, f"{doc} shows a traceback"
        assert 'class="output traceback' not in text and "ansi-red-intense" not in text, f"{doc} shows an error"


def test_every_chapter_links_to_colab_at_an_existing_notebook(html_dir):
    repo = config()["repository"]["url"].removeprefix("https://github.com/")
    pattern = re.compile(rf"https://colab\.research\.google\.com/github/{re.escape(repo)}/blob/main/([^\"'<> ]+)")
    for nb in chapter_notebooks():
        doc = f"book/{nb.stem}"
        targets = pattern.findall(_page(html_dir, doc))
        assert targets, f"{doc} has no Colab link"
        for target in set(targets):
            assert target.endswith(".ipynb") and (ROOT / target).exists(), f"{doc}: Colab link to missing {target}"


def test_every_chapter_has_binder_and_repository_buttons(html_dir):
    for nb in chapter_notebooks():
        text = _page(html_dir, f"book/{nb.stem}")
        assert "mybinder.org/v2/gh/" in text and config()["repository"]["url"] in text


def test_mathjax_is_served_by_the_book_not_a_cdn(html_dir):
    vendored = ROOT / "_vendor" / "mathjax" / "tex-chtml.js"
    assert (html_dir / "mathjax" / "tex-chtml.js").read_bytes() == vendored.read_bytes()
    assert (html_dir / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2" / "MathJax_Main-Regular.woff").exists()
    for doc in toc_files():
        scripts = re.findall(r"<script[^>]*src=\"([^\"]*mathjax[^\"]*)\"", _page(html_dir, doc))
        assert all("://" not in src and "/mathjax/tex-chtml.js" in src for src in scripts), f"{doc}: {scripts}"
    assert re.findall(r"<script[^>]*mathjax", _page(html_dir, "book/policy_dynamics")), "no MathJax on a math page"


def test_no_page_saves_widget_state_or_views(html_dir):
    for doc in toc_files():
        text = _page(html_dir, doc)
        assert "application/vnd.jupyter.widget" not in text, f"{doc} saves ipywidgets views or state"
        assert "@jupyter-widgets/html-manager" not in text, f"{doc} loads the widget manager from a CDN"
