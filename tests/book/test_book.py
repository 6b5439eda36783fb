"""Build the book as the site is built (warnings are errors) and check the HTML a reader gets.

- every _toc entry is rendered;
- no page holds a traceback or an error output;
- every chapter page links to Colab at an .ipynb that exists in the repository;
- MathJax is the copy vendored in the book (_vendor/mathjax), not a CDN's;
- no page saves widget state or widget views (they need a kernel);
- every figure is served as two image files, wide and phone, with its cell's alt text (``_ext/figure_pictures.py``).

What a reader sees in a real browser is checked in tests/book/test_browser_pages.py.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat
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


PICTURE = re.compile(r'<picture class="grpo-figure">(.*?)</picture>', re.S)


def _cell_alts(doc: str) -> list[str]:
    """The alt text of each figure cell a chapter's page shows (its ``mystnb.image.alt``), in order."""
    nb = nbformat.read(ROOT / f"{doc}.ipynb", as_version=4)
    return [
        c.metadata["mystnb"]["image"]["alt"]
        for c in nb.cells
        if c.cell_type == "code"
        and "figure" in c.metadata.get("mystnb", {})
        and "remove-cell" not in c.metadata.get("tags", [])
    ]


def test_every_figure_is_served_as_two_files_with_its_cells_alt_text(html_dir):
    """_ext/figure_pictures.py: no figure is inlined in its page; each links to its two layouts in _images/, and the
    picture's text for screen readers is the cell's alt text, not the notebook's title-based stand-in."""
    for doc in toc_files():
        pictures = PICTURE.findall(_page(html_dir, doc))
        assert all("data:image" not in p for p in pictures), f"{doc} inlines a figure"
        for picture in pictures:
            files = re.findall(r'(?:srcset|src)="\.\./(_images/[0-9a-f]{64}\.png)"', picture)
            assert len(files) == 2 and all((html_dir / f).is_file() for f in files), (doc, picture[:200])
        alts = [html.unescape(re.search(r'alt="([^"]*)"', p).group(1)) for p in pictures]
        if doc.startswith("book/"):
            assert alts == _cell_alts(doc), doc
