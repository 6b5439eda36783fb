"""A Sphinx extension of the book's build: each section's checks go under one fold at the section's end.

In a chapter's notebook every claim is followed by the cell that checks it, and that stays so (nbval runs each
check where the notebook has it, and a reader in Colab sees claim and check together). On the built page, the
printed verdicts of a section, the lines that start with ✓ (or ✗), are gathered into one fold at the end of the
section's own text, before its subsections, labelled "✓ Checks for this section: 4 of 4 hold". What moves:

- a verdict: a printed stream, or a displayed Markdown output, whose every line is a verdict or the indented
  continuation of one;
- a check cell: a code cell with a hidden or removed input whose every output is a verdict moves whole, so that
  its source can still be opened next to its verdict; a cell that also shows a table or a figure keeps them in
  place and only its verdicts move;
- what a check computed: a hidden cell with MyST-NB's default fold label ("Show code cell content") right after
  a check cell that moved, which shows the identities sympy verified, typeset, or the check's table.

Inside the fold, a moved cell with the default label is relabelled "Show the code of this check" or "Show what
this check computed".

It runs before MyST-NB wraps hidden inputs into folds (post-transform priority 199), so the cells that move keep
their own folds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from docutils import nodes
from html_nodes import CHILDREN, close_fold, open_fold
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

_VERDICT = re.compile(r"^[✓✗]")
_DEFAULT_PROMPT = "Show code cell"
# The labels of the folds inside the section's fold, where a cell had MyST-NB's default ("Show code cell source")
_CHECK_LABEL = ("Show the code of this check", "Hide the code")
_COMPANION_LABEL = ("Show what this check computed", "Hide it")


class section_checks(nodes.General, nodes.Element):  # noqa: N801 (docutils names nodes in lower case)
    """The fold that holds a section's checks; ``holds`` and ``total`` count its verdict lines."""


def _is_verdict(node: nodes.Node) -> bool:
    """Text whose first line is a verdict and whose other lines are verdicts or indented continuations."""
    lines = [line for line in node.astext().splitlines() if line.strip()]
    if not lines or not _VERDICT.match(lines[0]):
        return False
    return all(_VERDICT.match(line) or line[:1].isspace() for line in lines)


def _verdict_count(node: nodes.Node) -> tuple[int, int]:
    """(lines that start with ✓, lines that start with ✓ or ✗)."""
    lines = node.astext().splitlines()
    return sum(line.startswith("✓") for line in lines), sum(bool(_VERDICT.match(line)) for line in lines)


def _output_area(cell: nodes.Element) -> nodes.Element | None:
    return next((c for c in cell.children if c.get("nb_element") == "cell_code_output"), None)


def _outputs(area: nodes.Element) -> list[nodes.Element]:
    """The outputs of a cell: a printed stream is a literal block, a rich output a container (its mime bundle)."""
    return [c for c in area.children if isinstance(c, nodes.Element)]


def _input_hidden(cell: nodes.Element) -> bool:
    has_input = any(c.get("nb_element") == "cell_code_source" for c in cell.children)
    return not has_input or cell.get("hide_mode") in ("all", "input", "input+output")


@dataclass
class _Fold:
    """What one section's fold will hold, in page order."""

    children: list[nodes.Node] = field(default_factory=list)
    holds: int = 0
    total: int = 0

    def take(self, node: nodes.Node, counted: nodes.Node | None = None, label: tuple[str, str] | None = None) -> None:
        node.parent.remove(node)
        if label and str(node.get("prompt_show", "")).startswith(_DEFAULT_PROMPT):
            node["prompt_show"], node["prompt_hide"] = label
        self.children.append(node)
        holds, total = _verdict_count(counted if counted is not None else node)
        self.holds, self.total = self.holds + holds, self.total + total


def _is_companion(cell: nodes.Node) -> bool:
    return (
        isinstance(cell, nodes.container)
        and cell.get("nb_element") == "cell_code"
        and cell.get("hide_mode") == "all"
        and str(cell.get("prompt_show", "")).startswith(_DEFAULT_PROMPT)
    )


def _gather(section: nodes.section) -> _Fold:
    """Take the verdicts, check cells and their companions out of ``section``'s own children."""
    fold, previous_moved = _Fold(), False
    for child in list(section.children):
        if previous_moved and _is_companion(child):
            fold.take(child, counted=nodes.Text(""), label=_COMPANION_LABEL)
            continue
        previous_moved = False
        if not (isinstance(child, nodes.container) and child.get("nb_element") == "cell_code"):
            continue
        area = _output_area(child)
        verdicts = [o for o in _outputs(area) if _is_verdict(o)] if area is not None else []
        if not verdicts:
            continue
        if len(verdicts) == len(_outputs(area)) and _input_hidden(child):
            fold.take(child, counted=area, label=_CHECK_LABEL)
            previous_moved = True
        else:
            for verdict in verdicts:
                fold.take(verdict)
    return fold


class GatherSectionChecks(SphinxPostTransform):
    """Move each section's checks into one :class:`section_checks` fold at the end of its own text."""

    default_priority = 197  # before _ext/details_sections.py (198) and myst_nb's HideInputCells (199)
    formats = ("html",)

    def run(self, **kwargs: object) -> None:
        for section in list(self.document.findall(nodes.section)):
            fold = _gather(section)
            if not fold.children:
                continue
            node = section_checks(holds=fold.holds, total=fold.total)
            node.extend(fold.children)
            first_subsection = next((c for c in section.children if isinstance(c, nodes.section)), None)
            if first_subsection is None:
                section.append(node)
            else:
                section.insert(section.index(first_subsection), node)


def fold_label(holds: int, total: int) -> str:
    """The fold's label: "✓ Checks for this section: 4 of 4 hold" (✗ when one does not)."""
    mark = "✓" if holds == total else "✗"
    return f"{mark} Checks for this section: {holds} of {total} hold"


def visit_section_checks(self, node: section_checks) -> None:
    open_fold(self.body, "section-checks", fold_label(node["holds"], node["total"]))


def setup(app: Sphinx) -> dict:
    app.add_node(
        section_checks,
        html=(visit_section_checks, close_fold),
        **CHILDREN,
    )
    app.add_post_transform(GatherSectionChecks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
