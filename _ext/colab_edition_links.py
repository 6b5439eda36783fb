"""A Sphinx extension of the book's build: each page's Colab button opens the chapter's Colab edition.

sphinx-book-theme points the button at the page's own notebook (``book/<name>.ipynb``), whose Markdown is MyST:
Colab would show its admonitions, roles and targets as text. The Colab edition (``colab/<name>.ipynb``, written by
``tools/colab_edition.py``) has the same code cells and plain Markdown; this moves the button's link there.
"""

from __future__ import annotations

from sphinx.application import Sphinx

BOOK_FOLDER, EDITION_FOLDER = "/book/", "/colab/"


def colab_edition_url(url: str) -> str:
    """A Colab launch URL of a book notebook, moved to its Colab edition; any other URL as it is."""
    if "colab.research.google.com" not in url or BOOK_FOLDER not in url:
        return url
    head, _, name = url.rpartition(BOOK_FOLDER)
    return f"{head}{EDITION_FOLDER}{name}"


def _buttons(buttons: list) -> None:
    for button in buttons:
        if button.get("type") == "group":
            _buttons(button.get("buttons", []))
        elif "url" in button:
            button["url"] = colab_edition_url(button["url"])


def point_colab_at_the_edition(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object) -> None:
    """``html-page-context``: the Colab launch button of the page opens ``colab/<name>.ipynb``."""
    _buttons(context.get("header_buttons", []))


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", point_colab_at_the_edition, priority=900)  # after the theme's launch buttons
    return {"parallel_read_safe": True, "parallel_write_safe": True}
