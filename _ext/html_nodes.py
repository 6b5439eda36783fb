"""What the book's build extensions share: a fold's HTML, and the other builders' handlers of a node that only HTML
draws.

A fold (``_ext/section_checks.py``, ``_ext/details_sections.py``) is HTML's: LaTeX, text, man and texinfo show what it
holds in place (``CHILDREN``). A browser figure (``_ext/browser_figures.py``) needs a browser: they leave it out
(``NOTHING``).
"""

from __future__ import annotations

from html import escape

from docutils import nodes


def open_fold(body: list[str], css_class: str, label: str) -> None:
    """Start a closed fold (``<details>``) whose one-line label is ``label``, styled like the cells' own folds."""
    body.append(f'<details class="admonition {css_class}">\n')
    body.append(f'<summary><p class="admonition-title">{escape(label)}</p></summary>\n')


def close_fold(self, node: nodes.Node) -> None:
    """A fold's end (an HTML translator's ``depart_*``)."""
    self.body.append("</details>\n")


def _children(self, node: nodes.Node) -> None:
    """Neither a start nor an end: the node's children are written in its place."""


def _nothing(self, node: nodes.Node) -> None:
    raise nodes.SkipNode


CHILDREN = {builder: (_children, _children) for builder in ("latex", "text", "man", "texinfo")}
NOTHING = {builder: (_nothing, None) for builder in ("latex", "text", "man", "texinfo")}
