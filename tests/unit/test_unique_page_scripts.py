"""The build's _ext/unique_page_scripts.py keeps the first copy of each script of a page, whatever its priority or
the form of an inline script's empty file name, and keeps scripts that differ."""

from __future__ import annotations

import sys

from sphinx.builders.html._assets import _JavaScript

from tests.book_layout import ROOT

sys.path.insert(0, str(ROOT / "_ext"))
from unique_page_scripts import keep_first_copies  # noqa: E402


def test_a_repeated_script_is_kept_once_and_different_ones_stay() -> None:
    config = _JavaScript(None, priority=500, body='const THEBE_JS_URL = "x"')
    again = _JavaScript("", priority=400, body='const THEBE_JS_URL = "x"')
    other = _JavaScript("", priority=500, body="var y = 1")
    files = [_JavaScript("a.js"), config, _JavaScript("a.js", priority=800), again, other]
    context = {"script_files": files}
    keep_first_copies(None, "page", "page.html", context, None)
    assert context["script_files"] == [files[0], config, other]
