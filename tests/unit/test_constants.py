"""grpo_nb.constants, the one home of the values the book quotes in several places, and everything that repeats them.

The browser figures cannot import Python: the default ε of ``grpo_nb/browser/grpo_figures.js`` (``num(d.eps, …)``)
and the ``data-eps`` attribute of each browser figure in ``book/*.md`` are read as text and compared with
:data:`grpo_nb.constants.PAPER_EPS`. The weights explorer of ``book/stabilised_grpo.md`` is the one figure that opens
at another ε, the 1e-2 of the static figure above it (:data:`OTHER_EPS`, checked exactly). Negative tests feed the
parsers another value and see the comparison fail. The package's Python holds the paper's ε as a number only in
``grpo_nb/constants.py``: elsewhere a number token equal to it is a tolerance, named as one (``TOL = ...``).
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

from grpo_nb import constants, family
from grpo_nb.advantage import DEFAULT_EPS
from grpo_nb.constants import PAPER_EPS
from tests.book_layout import BOOK, ROOT

FIGURES_JS = ROOT / "grpo_nb" / "browser" / "grpo_figures.js"
PACKAGE = ROOT / "grpo_nb"
#: Browser figures that open at an ε other than the paper's, with that ε and why.
OTHER_EPS = {"weights-browser": 1e-2}  # Eq. 4's weights at the ε of the static figure above it (stabilised_grpo)

_JS_DEFAULT = re.compile(r"\beps:\s*num\(d\.eps,\s*([^)\s]+)\s*\)")
_DIV = re.compile(r"<div\b[^>]*\bdata-eps=\"[^\"]*\"[^>]*>")
_ATTR = re.compile(r"\b(id|data-eps)=\"([^\"]*)\"")
_TOLERANCE = re.compile(r"^\s*\w*(tol|TOL)\w*\s*[:=]|\btol\w*\s*=")
#: The paper's ε as written (1e-5, 1e-05, 1.0e-5, 0.00001); the same number meaning something else (10e-6 s) is not it.
_PAPER_EPS_SPELLING = re.compile(r"^(1(\.0*)?[eE]-0*5|0\.00001)$")


def js_default_eps(source: str) -> float:
    """The default ε a browser figure takes when its ``data-eps`` is missing (``eps: num(d.eps, <default>)``)."""
    found = _JS_DEFAULT.findall(source)
    if len(found) != 1:
        raise ValueError(f"expected one 'eps: num(d.eps, ...)' in grpo_figures.js, found {len(found)}")
    return float(found[0])


def data_eps(markdown: str) -> dict[str, float]:
    """The ``data-eps`` of every browser figure of a page, by the figure's ``id``."""
    out = {}
    for div in _DIV.findall(markdown):
        attrs = dict(_ATTR.findall(div))
        out[attrs.get("id", "?")] = float(attrs["data-eps"])
    return out


def eps_findings(values: dict[str, float]) -> list[str]:
    """The figures whose ε is neither the paper's nor the one :data:`OTHER_EPS` names for them."""
    return [f"{key}: data-eps={v!r}" for key, v in values.items() if v != OTHER_EPS.get(key.split(":")[-1], PAPER_EPS)]


def paper_eps_literals(source: str) -> list[tuple[int, str]]:
    """(line, text) of every number token that writes the paper's ε in Python ``source`` and is not a named
    tolerance."""
    lines = source.splitlines()
    return [
        (t.start[0], lines[t.start[0] - 1].strip())
        for t in tokenize.generate_tokens(io.StringIO(source).readline)
        if t.type == tokenize.NUMBER
        and _PAPER_EPS_SPELLING.match(t.string)
        and not _TOLERANCE.search(lines[t.start[0] - 1])
    ]


def book_data_eps() -> dict[str, float]:
    return {f"{md.stem}:{k}": v for md in sorted(BOOK.glob("*.md")) for k, v in data_eps(md.read_text()).items()}


# ---- the browser twin -----------------------------------------------------------------------------------------------


def test_the_js_default_eps_is_the_papers() -> None:
    assert js_default_eps(FIGURES_JS.read_text()) == PAPER_EPS


def test_every_browser_figure_opens_at_the_papers_eps_or_its_listed_one() -> None:
    values = book_data_eps()
    assert len(values) >= 4  # the map, orbit, bifurcation and variant figures, and the weights explorer
    assert eps_findings(values) == []
    assert {k.split(":")[-1] for k in values} >= set(OTHER_EPS)  # each listed exception still exists


def test_the_parsers_find_another_value_when_fed_one() -> None:
    """Negative tests: a JS default and a page attribute off the paper's ε are read as what they are, and flagged."""
    js = FIGURES_JS.read_text().replace("num(d.eps, 1e-5)", "num(d.eps, 1e-4)")
    assert js_default_eps(js) == 1e-4 != PAPER_EPS
    page = '<div id="fig-x" data-grpo-figure="map" data-beta="1" data-eps="2e-5">\n<div id="y" data-eps="1e-5">'
    assert data_eps(page) == {"fig-x": 2e-5, "y": 1e-5}
    assert eps_findings(data_eps(page)) == ["fig-x: data-eps=2e-05"]
    assert eps_findings({"weights-browser": PAPER_EPS}) != []  # the listed exception is checked exactly
    with pytest.raises(ValueError, match="found 0"):
        js_default_eps("const x = num(d.beta, 1);")


# ---- the package ----------------------------------------------------------------------------------------------------


def test_each_value_has_one_name() -> None:
    values = {name: getattr(constants, name) for name in constants.__all__}
    assert len(set(values.values())) == len(values), values
    assert all(isinstance(v, float) for v in values.values())


def test_defaults_read_the_constants() -> None:
    assert DEFAULT_EPS["paper"] == constants.PAPER_EPS and DEFAULT_EPS["trl"] == constants.TRL_STD_EPS
    clip = {m.name: m.clip_range for m in family.METHODS}
    assert family.DEFAULT_CLIP == clip
    assert clip["grpo"] == (constants.CLIP_EPS, constants.CLIP_EPS)
    assert clip["dapo"] == (constants.CLIP_EPS, constants.DAPO_CLIP_EPS_HIGH)
    assert clip["cispo"][1] == constants.CISPO_WEIGHT_CAP
    assert clip["gspo"] == (constants.GSPO_CLIP_EPS, constants.GSPO_CLIP_EPS_HIGH)


def test_the_papers_eps_is_a_number_only_in_constants() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "constants.py" or path.parent != PACKAGE
        for line, text in paper_eps_literals(path.read_text())
    ]
    assert found == [], "write grpo_nb.constants.PAPER_EPS:\n" + "\n".join(found)


def test_the_literal_scan_finds_a_default_and_spares_a_tolerance() -> None:
    source = "def f(eps: float = 1e-5):\n    return eps\nTOL = 1e-5\nx = g(tol=1e-05)\ny = 1.0e-5\nt = 10e-6\n"
    assert [line for line, _ in paper_eps_literals(source)] == [1, 5]
    assert Path(constants.__file__).parent == PACKAGE
