"""The build's _ext/page_descriptions.py: every page of _toc.yml has a plain-text description, and a page without one
fails the build."""

from __future__ import annotations

import re
import sys
from types import SimpleNamespace

import pytest
from sphinx.errors import ExtensionError

from tests.book_layout import ROOT, toc_files

sys.path.insert(0, str(ROOT / "_ext"))
from page_descriptions import load_descriptions, set_description  # noqa: E402


def test_every_page_has_a_plain_description_of_a_preview_s_length() -> None:
    descriptions = load_descriptions()
    assert set(descriptions) == set(toc_files())
    for page, text in descriptions.items():
        assert 20 <= len(text) <= 220, (page, len(text))
        assert not re.search(r"[$\\{}]", text), (page, text)  # no TeX


def test_the_description_is_set_and_a_missing_page_fails() -> None:
    app = SimpleNamespace(config=SimpleNamespace(page_descriptions={"book/intro": 'A "book"'}))
    context = {"meta": None, "metatags": ""}
    set_description(app, "book/intro", "page.html", context, object())
    assert context["meta"]["og:description"] == 'A "book"'
    assert context["metatags"] == '<meta name="description" content="A &quot;book&quot;" />\n'
    with pytest.raises(ExtensionError, match="book/other"):
        set_description(app, "book/other", "page.html", {"meta": {}, "metatags": ""}, object())
