"""A Sphinx extension of the book's build: the figures whose sliders run in the browser are numbered by chapter.

A chapter writes such a figure as raw HTML (a ``<div data-grpo-figure=…>`` that ``grpo_nb/browser/grpo_figures.js``
draws, with its caption in a ``<p class="grpo-caption">``) inside a ``browser-figure`` directive that names it::

    :::{browser-figure}
    :name: fig-hard-prompts-bifurcation-browser

    <div id="bifurcation-browser" data-grpo-figure="bifurcation" …> … <p class="grpo-caption">…</p></div>
    :::

The directive makes the figure an enumerable node of the same kind as the book's other figures, so it takes its
place in the chapter's sequence ("Fig. 10.4"), and the number is written at the start of its caption.
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import directives
from html_nodes import NOTHING
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

CAPTION = '<p class="grpo-caption">'


class browser_figure(nodes.General, nodes.Element):  # noqa: N801 (docutils names nodes in lower case)
    """A figure drawn in the browser: raw HTML with a ``grpo-caption`` paragraph."""


def caption_text(node: browser_figure) -> str:
    """The figure's caption as plain text (its title for cross-references)."""
    return next((n.astext() for n in node.findall(nodes.raw) if CAPTION in n.astext()), "")


class BrowserFigure(SphinxDirective):
    """``browser-figure``: wrap a browser figure's HTML so that it is numbered with the chapter's figures."""

    has_content = True
    option_spec = {"name": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        node = browser_figure()
        self.state.nested_parse(self.content, self.content_offset, node)
        if not any(CAPTION in raw.astext() for raw in node.findall(nodes.raw)):
            raise self.error(f"browser-figure needs a {CAPTION} in its HTML")
        self.add_name(node)
        return [node]


class NumberBrowserFigures(SphinxPostTransform):
    """Write "Fig. 10.4 " at the start of each browser figure's caption, from the numbers Sphinx assigned."""

    default_priority = 200
    formats = ("html",)

    def run(self, **kwargs: object) -> None:
        numbers = self.env.toc_fignumbers.get(self.env.docname, {}).get("figure", {})
        form = self.config.numfig_format.get("figure", "Fig. %s")
        for node in self.document.findall(browser_figure):
            number = numbers.get(node["ids"][0]) if node["ids"] else None
            if not number:
                continue
            label = form % ".".join(map(str, number))
            for raw in node.findall(nodes.raw):
                text = raw.astext()
                if CAPTION in text:
                    numbered = text.replace(CAPTION, f'{CAPTION}<span class="caption-number">{label} </span>', 1)
                    raw.replace_self(nodes.raw("", numbered, format="html"))
                    break


def visit_browser_figure(self, node: browser_figure) -> None:
    self.body.append(self.starttag(node, "div", CLASS="browser-figure"))


def depart_browser_figure(self, node: browser_figure) -> None:
    self.body.append("</div>\n")


def setup(app: Sphinx) -> dict:
    app.add_enumerable_node(
        browser_figure,
        "figure",
        caption_text,
        html=(visit_browser_figure, depart_browser_figure),
        **NOTHING,
    )
    app.add_directive("browser-figure", BrowserFigure)
    app.add_post_transform(NumberBrowserFigures)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
