"""The kinds of browser figure: :data:`grpo_nb.browser.kinds.FIGURE_KINDS` is the one list, and everything that names
the kinds names exactly these.

Read as text (no browser, no node): the ``KINDS`` object of ``grpo_nb/browser/grpo_figures.js`` (one entry per kind,
with the record's sliders and check box), the list in that file's header comment, the list in CONTRIBUTING.md, and
the ``data-grpo-figure`` divs of ``book/*.md`` (each kind shown once, on the record's page under the record's id).
Each record's Python twins are objects of ``grpo_nb``. Negative tests feed each parser a text with a kind too many or
too few and see the comparison fail, and the record refuse a bad field.
"""

from __future__ import annotations

import importlib
import re

import pytest

from grpo_nb.browser.kinds import FIGURE_KINDS, KIND_NAMES, FigureKind, figure_kind
from tests.book_layout import BOOK, ROOT

FIGURES_JS = ROOT / "grpo_nb" / "browser" / "grpo_figures.js"
CONTRIBUTING = ROOT / "CONTRIBUTING.md"

_KINDS_BLOCK = re.compile(r"\n  const KINDS = \{\n(.*?)\n  \};", re.DOTALL)
_ENTRY = re.compile(r"^    (\w+): \{", re.MULTILINE)
_SLIDERS = re.compile(r"\bsliders: \[([^\]]*)\]")
_TOGGLE = re.compile(r"\btoggle: \[\"(\w+)\"")
_LISTED = re.compile(r"data-grpo-figure=\"([\w|]+\|[\w|]+)\"")
_DIV = re.compile(r"<div\b[^>]*\bdata-grpo-figure=\"[^\"]*\"[^>]*>")
_ATTR = re.compile(r"\b(id|data-grpo-figure)=\"([^\"]*)\"")


def js_kinds(source: str) -> dict[str, tuple[tuple[str, ...], str | None]]:
    """The ``KINDS`` object of grpo_figures.js: per kind, in order, its sliders and its check box's state key."""
    block = _KINDS_BLOCK.search(source)
    if block is None:
        raise ValueError("no 'const KINDS = {' ... '};' in grpo_figures.js")
    entries = list(_ENTRY.finditer(block.group(1)))
    out = {}
    for k, entry in enumerate(entries):
        end = entries[k + 1].start() if k + 1 < len(entries) else len(block.group(1))
        body = block.group(1)[entry.end() : end]
        sliders = _SLIDERS.search(body)
        toggle = _TOGGLE.search(body)
        keys = tuple(s.strip().strip('"') for s in sliders.group(1).split(",")) if sliders else ()
        out[entry.group(1)] = (keys, toggle.group(1) if toggle else None)
    return out


def listed_kinds(text: str) -> list[tuple[str, ...]]:
    """Every list of kinds written as ``data-grpo-figure="a|b|..."`` in ``text``."""
    return [tuple(found.split("|")) for found in _LISTED.findall(text)]


def page_figures(pages: dict[str, str]) -> list[tuple[str, str, str]]:
    """(chapter, figure id, kind) of every ``data-grpo-figure`` div of the pages (chapter -> Markdown)."""
    out = []
    for chapter, text in sorted(pages.items()):
        for div in _DIV.findall(text):
            attrs = dict(_ATTR.findall(div))
            if "|" not in attrs["data-grpo-figure"]:  # a list of kinds in prose is no figure
                out.append((chapter, attrs.get("id", "?"), attrs["data-grpo-figure"]))
    return out


def registry_figures() -> list[tuple[str, str, str]]:
    return sorted((kind.chapter, kind.figure_id, kind.name) for kind in FIGURE_KINDS)


def test_grpo_figures_js_defines_exactly_the_registered_kinds():
    kinds = js_kinds(FIGURES_JS.read_text(encoding="utf-8"))
    assert tuple(kinds) == KIND_NAMES
    for kind in FIGURE_KINDS:
        assert kinds[kind.name] == (kind.sliders, kind.toggle), kind.name


def test_the_lists_of_kinds_in_grpo_figures_js_and_contributing_are_the_registry():
    assert listed_kinds(FIGURES_JS.read_text(encoding="utf-8")) == [KIND_NAMES]
    assert listed_kinds(CONTRIBUTING.read_text(encoding="utf-8")) == [KIND_NAMES]


def test_each_kind_is_shown_once_on_its_page():
    pages = {p.stem: p.read_text(encoding="utf-8") for p in sorted(BOOK.glob("*.md"))}
    assert sorted(page_figures(pages)) == registry_figures()


@pytest.mark.parametrize("kind", FIGURE_KINDS, ids=lambda k: k.name)
def test_the_python_twins_are_objects_of_grpo_nb(kind):
    for twin in kind.twins:
        module, _, name = twin.rpartition(".")
        assert module.startswith("grpo_nb.") and hasattr(importlib.import_module(module), name), twin


JS = """
  const KINDS = {
    map: { sliders: ["beta", "p_ref", "eps"], panels: 1, draw: drawMap },
    orbit: {
      sliders: ["beta", "p_ref", "eps", "n"],
      panels: 2,
      toggle: ["logitAxes", "logit axes"],
    },
  };
"""


def test_the_parsers_see_a_kind_too_many_or_too_few():
    assert js_kinds(JS) == {
        "map": (("beta", "p_ref", "eps"), None),
        "orbit": (("beta", "p_ref", "eps", "n"), "logitAxes"),
    }
    assert tuple(js_kinds(JS)) != KIND_NAMES
    with pytest.raises(ValueError, match="no 'const KINDS"):
        js_kinds("const FIGURES = {};")
    short = '<div id=x data-grpo-figure="map|orbit|weights|bifurcation|variant">'
    assert listed_kinds(short) == [("map", "orbit", "weights", "bifurcation", "variant")] != [KIND_NAMES]
    pages = {"policy_dynamics": '<div id="fig2-browser" data-grpo-figure="map" data-beta="1">', "x": "no figure"}
    assert page_figures(pages) == [("policy_dynamics", "fig2-browser", "map")] != registry_figures()
    extra = {**pages, "x": '<div id="other" data-grpo-figure="cobweb">'}
    assert ("x", "other", "cobweb") in page_figures(extra)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"name": "Map"}, "name='Map'"),
        ({"sliders": ("beta", "gamma")}, "sliders="),
        ({"sliders": ()}, "sliders="),
        ({"sliders": ("eps", "eps")}, "sliders="),
        ({"chapter": "book/x.md"}, "chapter='book/x.md'"),
        ({"figure_id": "Fig 2"}, "figure_id='Fig 2'"),
        ({"twins": ()}, "twins="),
    ],
)
def test_a_record_with_a_bad_field_is_refused(change, message):
    fields = {
        "name": "cobweb",
        "draws": "a cobweb",
        "sliders": ("beta",),
        "toggle": None,
        "chapter": "amplification",
        "figure_id": "cobweb-browser",
        "twins": ("grpo_nb.dynamics.map.logit_map",),
    }
    FigureKind(**fields)
    with pytest.raises(ValueError, match=re.escape(message)):
        FigureKind(**(fields | change))


def test_an_unknown_kind_is_refused_naming_the_valid_ones():
    assert figure_kind("map").page == "book/policy_dynamics"
    with pytest.raises(ValueError, match="kind='cobweb' is not a browser figure; valid kinds are map, orbit"):
        figure_kind("cobweb")
