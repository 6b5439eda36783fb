"""The Colab edition (``colab/<chapter>.ipynb``, ``tools/colab_edition.py``): one per chapter, current, plain
Markdown only, and the book's code cells unchanged.

- regenerating every edition gives the committed files byte for byte;
- no Markdown cell of an edition holds a MyST token (a role, a target, a comment, a block break, a colon fence or a
  directive fence), as markdown-it-py with the MyST plugins finds them; a planted ``{cite}`` is found;
- every code cell of an edition is the book's (source, metadata with its tags, outputs, id), in the same order; a
  changed code cell is seen;
- each conversion gives the form the book shows: a citation "(Author et al., year)" linked to its bibliography
  entry, a cross-reference linked to its page and anchor, an admonition as a titled box; an unknown role or
  directive stops the tool with its name;
- the README's Colab badges open the editions.
"""

from __future__ import annotations

import importlib.util
import re
import sys

import nbformat
import pytest

from tests.book_layout import ROOT

spec = importlib.util.spec_from_file_location("colab_edition", ROOT / "tools" / "colab_edition.py")
edition = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = edition  # its dataclasses look their module up there
spec.loader.exec_module(edition)

PAGES = edition.chapter_pages()


def _code_cells(nb: nbformat.NotebookNode) -> list[dict]:
    return [dict(c) for c in nb.cells if c.cell_type == "code"]


def code_cells_differ(page: str, nb: nbformat.NotebookNode) -> list[int]:
    """The positions of the code cells of ``nb`` that are not the book's notebook's, in order."""
    ours, book = _code_cells(nb), _code_cells(nbformat.read(ROOT / f"{page}.ipynb", as_version=4))
    if len(ours) != len(book):
        return [-1]
    return [i for i, (a, b) in enumerate(zip(ours, book, strict=True)) if a != b]


def _markdown_leftovers(nb: nbformat.NotebookNode) -> list[str]:
    return [found for c in nb.cells if c.cell_type == "markdown" for found in edition.myst_leftovers(c.source)]


def test_every_chapter_has_a_current_edition():
    assert len(PAGES) == len(list((ROOT / "book").glob("*.ipynb")))
    assert edition.write_all(check=True) == [], "run: python tools/colab_edition.py"
    assert sorted(p.name for p in edition.EDITION.glob("*.ipynb")) == sorted(f"{p[5:]}.ipynb" for p in PAGES)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p[5:])
def test_an_edition_is_plain_markdown_with_the_books_code(page):
    nb = nbformat.read(edition.edition_path(page), as_version=4)
    assert _markdown_leftovers(nb) == []
    assert code_cells_differ(page, nb) == []


def test_a_planted_role_and_a_changed_code_cell_are_seen():
    page = "book/policy_dynamics"
    nb = nbformat.read(edition.edition_path(page), as_version=4)
    markdown = next(c for c in nb.cells if c.cell_type == "markdown" and "Mroueh" in c.source)
    markdown.source += "\n\nAs {cite}`mroueh2025grpo` shows.\n\n(a-target)=\n\n:::{note}\nA note.\n:::"
    found = _markdown_leftovers(nb)
    assert "role: {cite}`mroueh2025grpo`" in found and "myst_target: a-target" in found
    assert any(f.startswith("colon_fence") for f in found)
    code = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and "assert" in c.source)
    nb.cells[code].source = nb.cells[code].source.replace("assert", "assert True or", 1)
    assert code_cells_differ(page, nb) != []


def test_a_citation_is_author_year_linked_to_its_entry():
    book = edition.book()
    text = edition.convert_role("cite", "mroueh2025grpo", "book/intro")
    assert text == f"([Mroueh, 2025]({book.url}bibliography.html#cite-mroueh2025grpo))"
    many = [k for k, v in book.citations.items() if " et al., " in v]
    assert many, "references.bib has an entry of three or more authors"
    assert re.fullmatch(r"\(\[[^\]]+ et al\., \d{4}\]\([^)]+\)\)", edition.convert_role("cite", many[0], "book/x"))


def test_references_are_linked_to_their_page_and_anchor():
    book = edition.book()
    ref = edition.convert_role("ref", "the map <policy-dynamics-map>", "book/intro")
    assert ref == f"[the map]({book.url}book/policy_dynamics.html#policy-dynamics-map)"
    doc = edition.convert_role("doc", "cheat_sheet", "book/intro")
    assert doc == f"[{book.chapters['book/cheat_sheet'][1]}]({book.url}book/cheat_sheet.html)"
    bare = edition.convert_role("prf:ref", "thm-variant-recursion", "book/intro")
    assert bare.startswith(f"[Theorem {book.chapters['book/variants'][0]}.2](")
    assert edition.convert_href("#policy-dynamics-map", "book/policy_dynamics").endswith(
        "book/policy_dynamics.html#policy-dynamics-map"
    )


def test_an_admonition_is_a_titled_box_and_a_dropdown_a_details_block():
    source = ":::{admonition} The bottom line\n:class: tip\nOne line, {cite}`mroueh2025grpo`.\n\n$$\nx\n$$\n:::\n"
    box = edition.convert_markdown(source, "book/intro")
    assert box.startswith('<div class="alert alert-block alert-success">\n\n**The bottom line**\n\nOne line, ([Mroueh')
    assert "\n$$\nx\n$$\n" in box and box.endswith("\n\n</div>")  # math as written, no quote markers inside
    dropdown = edition.convert_markdown(":::{dropdown} Run details\nText.\n:::", "book/intro")
    assert dropdown == "<details><summary>Run details</summary>\n\nText.\n\n</details>"
    fold = edition.convert_markdown("In view.\n\n:::{rubric} The 20-seed table\n:class: fold\n:::\n", "book/intro")
    assert fold == "In view.\n\n**The 20-seed table**"  # a fold's label; what it folds on the hosted page stays in view


def test_an_unknown_role_or_directive_stops_the_tool():
    with pytest.raises(ValueError, match="role {numref}"):
        edition.convert_markdown("See {numref}`fig-x`.", "book/intro")
    with pytest.raises(ValueError, match="directive {margin}"):
        edition.convert_markdown(":::{margin}\nText.\n:::", "book/intro")
    with pytest.raises(ValueError, match="unknown label"):
        edition.convert_markdown("See {ref}`this <no-such-label>`.", "book/intro")


def test_the_readme_badges_open_the_editions():
    readme = (ROOT / "README.md").read_text()
    badges = re.findall(r"colab\.research\.google\.com/github/[^)\s]+", readme)
    assert len(badges) == len(PAGES)
    assert all("/blob/main/colab/" in b for b in badges), [b for b in badges if "/colab/" not in b]
