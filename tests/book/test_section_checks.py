"""The build extension _ext/section_checks.py moves what it should into a section's fold, and nothing else: check
cells whose only outputs are verdicts move whole, with the hidden cell after them that shows what they computed; a
verdict printed under a table moves and the table stays; prose, figures and subsections stay where they are."""

from __future__ import annotations

import importlib.util
import sys

from docutils import nodes
from docutils.utils import new_document

from tests.book_layout import ROOT

if str(ROOT / "_ext") not in sys.path:  # the build adds _ext/ to the path: the extensions import each other
    sys.path.insert(0, str(ROOT / "_ext"))

_spec = importlib.util.spec_from_file_location("section_checks", ROOT / "_ext" / "section_checks.py")
section_checks = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("section_checks", section_checks)  # dataclasses look their module up there
_spec.loader.exec_module(section_checks)


def _cell(*outputs: nodes.Node, hide_mode: str = "input", prompt: str = "Show code cell {type}") -> nodes.container:
    source = nodes.container(nb_element="cell_code_source")
    source += nodes.literal_block(text="print('...')")
    area = nodes.container(nb_element="cell_code_output")
    area.extend(outputs)
    return nodes.container("", source, area, nb_element="cell_code", hide_mode=hide_mode, prompt_show=prompt)


def _stream(text: str) -> nodes.literal_block:
    return nodes.literal_block(text=text, classes=["output", "stream"])


def _section() -> tuple[nodes.section, dict[str, nodes.Node]]:
    parts = {
        "claim": nodes.paragraph(text="✓ a sentence of prose that starts with a tick stays"),
        "check": _cell(_stream("✓ sympy: the identity holds\n  on every ε ≥ 0\n✓ and a second one")),
        "shown": _cell(nodes.container(classes=["output", "text_markdown"]), hide_mode="all"),
        "table": nodes.container(nb_element="mime_bundle"),
        "failed": _stream("✗ the third does not hold"),
        "figure": _cell(nodes.image(uri="fig.png"), hide_mode="input"),
        "labelled": _cell(_stream("table"), hide_mode="all", prompt="Show the grid"),
        "sub": nodes.section(),
    }
    with_table = _cell(parts["table"], parts["failed"])
    section = nodes.section()
    for child in (parts["claim"], parts["check"], parts["shown"], with_table, parts["figure"], parts["labelled"]):
        section += child
    section += parts["sub"]
    parts["with_table"] = with_table
    return section, parts


def test_the_fold_takes_the_checks_and_leaves_the_rest():
    section, parts = _section()
    fold = section_checks._gather(section)
    assert fold.children == [parts["check"], parts["shown"], parts["failed"]]
    assert (fold.holds, fold.total) == (2, 3)
    stays = [parts["claim"], parts["with_table"], parts["figure"], parts["labelled"], parts["sub"]]
    assert section.children == stays
    assert parts["with_table"].children[1].children == [parts["table"]]  # the table stays in its cell
    assert parts["check"]["prompt_show"] == "Show the code of this check"
    assert parts["labelled"]["prompt_show"] == "Show the grid"  # a fold the chapter labelled keeps its label


def test_the_fold_goes_before_the_first_subsection_with_its_count():
    section, parts = _section()
    document = new_document("page")
    document += section
    section_checks.GatherSectionChecks(document).run()
    fold = section.children[-2]
    assert isinstance(fold, section_checks.section_checks) and section.children[-1] is parts["sub"]
    assert section_checks.fold_label(fold["holds"], fold["total"]) == "✗ Checks for this section: 2 of 3 hold"
    assert section_checks.fold_label(4, 4) == "✓ Checks for this section: 4 of 4 hold"


def test_a_section_without_verdicts_gets_no_fold():
    section = nodes.section()
    section += nodes.paragraph(text="An argument.")
    section += _cell(_stream("0.25 0.5"))
    document = new_document("page")
    document += section
    section_checks.GatherSectionChecks(document).run()
    assert not any(isinstance(c, section_checks.section_checks) for c in section.children)
