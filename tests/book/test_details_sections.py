"""The build extension _ext/details_sections.py folds the body of a section whose heading carries a ``(folded-…)=``
target (its text, cells, checks and subsections) under one fold after its title, and leaves every other section as
it is."""

from __future__ import annotations

import importlib.util
import sys

from docutils import nodes
from docutils.utils import new_document

from tests.book_layout import ROOT

if str(ROOT / "_ext") not in sys.path:  # the build adds _ext/ to the path: the extensions import each other
    sys.path.insert(0, str(ROOT / "_ext"))

_spec = importlib.util.spec_from_file_location("details_sections", ROOT / "_ext" / "details_sections.py")
details_sections = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("details_sections", details_sections)
_spec.loader.exec_module(details_sections)


def _section(title: str, *ids: str) -> nodes.section:
    section = nodes.section(ids=list(ids))
    section += nodes.title(text=title)
    section += nodes.paragraph(text="Some text.")
    section += nodes.section()
    return section


def _run(*sections: nodes.section) -> None:
    document = new_document("page")
    for section in sections:
        document += section
    details_sections.CollapseDetailsSections(document).run()


def test_a_details_section_keeps_its_title_and_folds_the_rest():
    section = _section("Exact moments, three ways", "exact-moments-three-ways", "folded-group-size-moments")
    body = section.children[1:]
    _run(section)
    title, part = section.children
    assert isinstance(title, nodes.title) and isinstance(part, details_sections.details_part)
    assert part.children == body


def test_any_other_section_is_left_as_it_is():
    section = _section("Folding the moments", "group-size-moments")  # "folded-" starts no id
    before = list(section.children)
    _run(section)
    assert section.children == before
