"""A Sphinx extension of the book's build: each page lists every script once.

sphinx-thebe registers its configuration script each time Sphinx reads documents (``env-before-read-docs``), and
a Jupyter Book 1.x build reads twice, so every page carried two copies; the second throws on its ``const``
(``Identifier 'THEBE_JS_URL' has already been declared``). This keeps the first copy of each script.
"""

from __future__ import annotations

from sphinx.application import Sphinx


def _script_key(script: object) -> tuple[str, str]:
    """A script's identity: its file name or URL and its attributes (an inline script's body is one), not its
    priority or its empty file name, which differ between the two registrations."""
    name = str(getattr(script, "filename", script) or "")  # an inline script has None or "" as its file name
    attributes = getattr(script, "attributes", {}) or {}
    return name, repr(sorted(attributes.items()))


def keep_first_copies(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object) -> None:
    """``html-page-context``: drop repeated entries from the page's ``script_files``."""
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        key = _script_key(script)
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", keep_first_copies, priority=1000)  # after the themes have added theirs
    return {"parallel_read_safe": True, "parallel_write_safe": True}
