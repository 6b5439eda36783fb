"""A Sphinx extension of the book's build: a section marked as a detail is collapsed on the page, where it stands.

A chapter keeps its main argument in view and folds its long reproductions (the decimals of a remark, a ladder's
set-up, the same moments computed three ways): a section whose heading carries a target ``(folded-…)=`` shows its
numbered title and one fold, "Show the details", that holds the rest of it, its subsections and checks included.
The section stays where it is, so the notebook is unchanged: its cells run in the same order (the chapters' random
draws and the seed sweep's fingerprints do not move), and in Colab the section reads as any other. A link to a
target inside a folded section opens the fold (``_static/open_target.js``).

It runs after ``_ext/section_checks.py`` has gathered the section's checks (post-transform priority 197), so the
checks' fold ends up inside the details.
"""

from __future__ import annotations

from docutils import nodes
from html_nodes import CHILDREN, close_fold, open_fold
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

PREFIX = "folded-"
SUMMARY = "Show the details"


class details_part(nodes.General, nodes.Element):  # noqa: N801 (docutils names nodes in lower case)
    """The collapsed body of a section marked as a detail."""


def is_details_section(section: nodes.section) -> bool:
    """A section with a target ``(folded-…)=`` on its heading."""
    return any(str(i).startswith(PREFIX) for i in section.get("ids", []))


class CollapseDetailsSections(SphinxPostTransform):
    """Wrap everything after the title of each section marked as a detail into one :class:`details_part`."""

    default_priority = 198  # after _ext/section_checks.py (197), before myst_nb's HideInputCells (199)
    formats = ("html",)

    def run(self, **kwargs: object) -> None:
        for section in list(self.document.findall(nodes.section)):
            if not is_details_section(section):
                continue
            body = [c for c in section.children if not isinstance(c, nodes.title)]
            if not body:
                continue
            part = details_part()
            for child in body:
                section.remove(child)
                part.append(child)
            section.append(part)


def visit_details_part(self, node: details_part) -> None:
    open_fold(self.body, "chapter-details", SUMMARY)


def setup(app: Sphinx) -> dict:
    app.add_node(
        details_part,
        html=(visit_details_part, close_fold),
        **CHILDREN,
    )
    app.add_post_transform(CollapseDetailsSections)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
