"""The Colab edition as a reader meets it (``colab/<chapter>.ipynb``, ``tools/colab_edition.py``).

- Rendered as Jupyter renders it (nbconvert's lab template) and opened in headless Chromium, an edition with a slider
  figure and one with many cross-references show no MyST in their visible text (no ``:::``, no role, no
  ``(label)=`` target), and their links go to the hosted book.
- Every link of every edition into the hosted book names a page the build writes and an anchor on that page; every
  page's Colab button opens the chapter's edition.
- One edition runs alone, top to bottom, in an empty folder (``jupyter nbconvert --execute``): the edition itself is
  known to run. It is the intro's, the quickest (about 6 s): an edition's code cells are the book's
  (``tests/chapters/test_colab_edition.py``), and every book notebook runs alone in an empty folder
  (``tests/chapters/test_chapters_alone.py``), so running a slower edition here would repeat that run.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys

import nbformat
import pytest

from tests.book.browser_checks import offline_page, open_page
from tests.book_layout import ROOT

spec = importlib.util.spec_from_file_location("colab_edition", ROOT / "tools" / "colab_edition.py")
edition = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = edition
spec.loader.exec_module(edition)

EDITION_RUN = "book/intro"  # the quickest edition to run
RENDERED = ("book/policy_dynamics", "book/tracker_questions")  # a slider figure; the most cross-references
MYST_IN_TEXT = [
    ("colon fence", re.compile(r":::")),
    ("role", re.compile(r"(?<![\w\\])\{(?:cite|ref|doc|prf:ref|numref|eq|math)\}")),  # not TeX's \text{ref}
    ("target", re.compile(r"^\([\w-]+\)=$", flags=re.MULTILINE)),
    ("directive fence", re.compile(r"```\{")),
]
LINK = re.compile(r"\]\((https?://[^)\s]+)\)")


def _hosted_links(nb: nbformat.NotebookNode) -> list[str]:
    url = edition.book().url
    return [u for c in nb.cells if c.cell_type == "markdown" for u in LINK.findall(c.source) if u.startswith(url)]


def test_every_link_into_the_book_has_its_page_and_anchor(built_book):
    url, missing = edition.book().url, []
    for page in edition.chapter_pages():
        for link in _hosted_links(nbformat.read(edition.edition_path(page), as_version=4)):
            path, _, anchor = link[len(url) :].partition("#")
            html = built_book / path
            if not html.is_file() or anchor and f'id="{anchor}"' not in html.read_text():
                missing.append(f"{page}: {link}")
    assert missing == []


def test_every_colab_button_opens_the_edition(built_book):
    for page in edition.chapter_pages():
        html = (built_book / f"{page}.html").read_text()
        buttons = re.findall(r'href="(https://colab\.research\.google\.com/[^"]+)"', html)
        assert buttons and all(b.endswith(f"/colab/{page[5:]}.ipynb") for b in buttons), (page, buttons)


def _shown(nb: nbformat.NotebookNode, chromium, folder) -> tuple[str, list[str]]:
    """The visible text of ``nb``'s Markdown cells and their links' targets, rendered with nbconvert's lab template
    and opened in Chromium."""
    from nbconvert import HTMLExporter

    from tests.conftest import serve_folder

    html, _ = HTMLExporter(template_name="lab").from_notebook_node(nb)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "edition.html").write_text(html)
    with serve_folder(folder) as base, offline_page(chromium, base) as (view, _log):
        open_page(view, f"{base}/edition.html")
        text = view.evaluate("() => [...document.querySelectorAll('.jp-MarkdownCell')].map(c => c.innerText)")
        links = view.evaluate(
            "() => [...document.querySelectorAll('.jp-MarkdownCell a[href]')].map(a => a.getAttribute('href'))"
        )
    return "\n".join(text), links


def _myst_shown(text: str) -> list[str]:
    return [name for name, pattern in MYST_IN_TEXT if pattern.search(text)]


@pytest.mark.browser
@pytest.mark.parametrize("page", RENDERED, ids=lambda p: p[5:])
def test_a_rendered_edition_shows_no_myst(page, chromium, tmp_path):
    nb = nbformat.read(edition.edition_path(page), as_version=4)
    shown, links = _shown(nb, chromium, tmp_path / "edition")
    assert "Run the first code cell" in shown and _myst_shown(shown) == []
    outside = [h for h in links if not h.startswith(("https://", "http://", "#"))]
    assert outside == [] and any(h.startswith(edition.book().url) for h in links)
    nb.cells[1].source += "\n\nAs {cite}`mroueh2025grpo` shows.\n\n(a-target)=\n\n:::{note}\nA note.\n:::"
    planted, _ = _shown(nb, chromium, tmp_path / "planted")  # the same check sees MyST where there is some
    assert _myst_shown(planted) == ["colon fence", "role", "target"]


def test_an_edition_runs_alone_in_an_empty_folder(tmp_path):
    shutil.copy(edition.edition_path(EDITION_RUN), tmp_path / "edition.ipynb")
    run = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "edition.ipynb"]
    run += ["--output", "ran.ipynb", "--ExecutePreprocessor.timeout=600"]  # a process of its own: no event loop here
    proc = subprocess.run(run, cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    nb = nbformat.read(tmp_path / "ran.ipynb", as_version=4)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == [] and sum(c.cell_type == "code" and c.execution_count for c in nb.cells) > 5
