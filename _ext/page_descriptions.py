"""A Sphinx extension of the book's build: each page's description for a shared link's preview.

The descriptions live in ``_ext/page_descriptions.yml`` (one per page of ``_toc.yml``). Without them
sphinxext-opengraph takes a page's first paragraph, whose formulas come out as raw TeX. Each page gets
``<meta name="description">`` and its ``og:description`` from the file; a page missing from it fails the build.
"""

from __future__ import annotations

import html
from pathlib import Path

import yaml
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

DESCRIPTIONS = Path(__file__).with_name("page_descriptions.yml")


def load_descriptions(path: Path = DESCRIPTIONS) -> dict[str, str]:
    """The page name -> description mapping of ``path``."""
    return {str(k): " ".join(str(v).split()) for k, v in yaml.safe_load(path.read_text()).items()}


def set_description(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object) -> None:
    """``html-page-context``, before sphinxext-opengraph's handler: the page's description as its meta description
    and as the ``og:description`` field that the Open Graph tags read."""
    if doctree is None:  # the search page, the index: generated pages without a source
        return
    descriptions = app.config.page_descriptions
    if pagename not in descriptions:
        raise ExtensionError(f"page {pagename!r} has no description in {DESCRIPTIONS.name}")
    text = descriptions[pagename]
    context["meta"] = dict(context.get("meta") or {}) | {"og:description": text}
    tag = f'<meta name="description" content="{html.escape(text, quote=True)}" />\n'
    context["metatags"] = context.get("metatags", "") + tag


def setup(app: Sphinx) -> dict:
    app.add_config_value("page_descriptions", load_descriptions(), "html")
    app.connect("html-page-context", set_description, priority=400)  # sphinxext-opengraph runs at 500
    return {"parallel_read_safe": True, "parallel_write_safe": True}
