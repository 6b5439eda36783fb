"""A Sphinx extension of the book's build: a section shows its result in view and folds what supports it.

A chapter keeps its argument in view (each section's lead: what it found, with its numbers and main figure) and
folds what supports it (a derivation, a reproduction's code, a long table, the checks). The fold starts at a *fold
rubric*, written in the chapter's Markdown::

    :::{rubric} The 20-seed table
    :class: fold
    :::

Everything after the rubric in its section (text, cells and their outputs, subsections, the section's checks) goes
into one closed fold whose label is the rubric's text; a second fold rubric in the same section ends the first fold
and opens another. The section stays where it is, so the notebook is unchanged: its cells run in the same order (the
chapters' random draws and the seed sweep's fingerprints do not move), and in Colab (``tools/colab_edition.py``) the
rubric is a bold line above what it labels. A link to a target inside a fold opens it (``_static/open_target.js``).

Two rules hold the book to reading as a book, each a build warning (an error under ``-W``):

- a fold never opens a section: something must be in view between a heading and its first fold;
- a label says what the fold holds: never "Show the details", "Details", "More" or another word that names nothing.

It runs after ``_ext/section_checks.py`` has gathered a section's checks (post-transform priority 197), so the
checks' fold at a section's end lands inside the section's last fold.
"""

from __future__ import annotations

from docutils import nodes
from html_nodes import CHILDREN, close_fold, open_fold
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

logger = logging.getLogger(__name__)

FOLD_CLASS = "fold"
# labels that say nothing of what a fold holds (compared in lower case, without a final full stop)
VAGUE_LABELS = frozenset(
    {"show the details", "the details", "details", "show details", "more", "show more", "show", "code", "show code",
     "click to show", "click to expand", "expand", "hidden", "see more", "read more", "supporting material"}
)  # fmt: skip


class details_part(nodes.General, nodes.Element):  # noqa: N801 (docutils names nodes in lower case)
    """A fold of a section: what follows a fold rubric, under the rubric's text."""


def is_fold_rubric(node: nodes.Node) -> bool:
    """A ``rubric`` directive with the class ``fold``."""
    return isinstance(node, nodes.rubric) and FOLD_CLASS in node.get("classes", [])


def vague_label(label: str) -> bool:
    """Whether a fold's label names nothing of what it holds."""
    return label.strip().rstrip(".").lower() in VAGUE_LABELS or len(label.split()) < 2


def fold_sections(section: nodes.Element) -> list[str]:
    """Wrap what follows each fold rubric among ``section``'s children into one :class:`details_part` labelled with
    the rubric's text, in place; return the problems found (a fold that opens the section, a vague label, a fold
    with nothing in it)."""
    problems: list[str] = []
    children = list(section.children)
    starts = [k for k, child in enumerate(children) if is_fold_rubric(child)]
    if not starts:
        return problems
    title = section.next_node(nodes.title)
    name = title.astext() if title is not None and title.parent is section else "(page)"
    before = [c for c in children[: starts[0]] if not isinstance(c, (nodes.title, nodes.target))]
    if isinstance(section, nodes.section) and not before:
        problems.append(f"the section {name!r} opens with a fold: put its result in view above it")
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(children)
        rubric, body = children[start], children[start + 1 : end]
        label = rubric.astext()
        if vague_label(label):
            problems.append(f"a fold in {name!r} is labelled {label!r}: say what it holds")
        if not body:
            problems.append(f"the fold {label!r} in {name!r} holds nothing")
        part = details_part(label=label, ids=list(rubric.get("ids", [])))
        at = section.index(rubric)
        section.remove(rubric)
        for child in body:
            section.remove(child)
            part.append(child)
        section.insert(at, part)
    return problems


class FoldAfterRubrics(SphinxPostTransform):
    """Fold what follows each fold rubric of each section (module docstring); warn where a rule is broken."""

    default_priority = 198  # after _ext/section_checks.py (197), before myst_nb's HideInputCells (199)
    formats = ("html",)

    def run(self, **kwargs: object) -> None:
        for section in [self.document, *self.document.findall(nodes.section)]:
            for problem in fold_sections(section):
                logger.warning(problem, location=section)


def visit_details_part(self, node: details_part) -> None:
    open_fold(self.body, "chapter-details", node["label"])
    for target in node["ids"]:
        self.body.append(f'<span id="{target}"></span>\n')


def setup(app: Sphinx) -> dict:
    app.add_node(
        details_part,
        html=(visit_details_part, close_fold),
        **CHILDREN,
    )
    app.add_post_transform(FoldAfterRubrics)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
