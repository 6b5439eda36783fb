"""Chapters stay thin and their guides stay true: short code cells, no functions in chapters, cited files exist."""

from __future__ import annotations

import ast
import json
import re

import jupytext
import pytest

from tests.book_layout import BOOK, ROOT

MAX_CELL_LINES = 15
CHAPTERS = sorted(BOOK.glob("*.md"))


def _code_cells(md):
    return [c for c in jupytext.read(md).cells if c.cell_type == "code"]


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.stem)
def test_code_cells_are_short(md):
    for cell in _code_cells(md):
        n = len(cell.source.splitlines())
        assert n <= MAX_CELL_LINES, f"{md.name}: a code cell of {n} lines (max {MAX_CELL_LINES}):\n{cell.source}"


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.stem)
def test_chapters_define_no_functions(md):
    for cell in _code_cells(md):
        tree = ast.parse(re.sub(r"^(\s*)[%!].*$", r"\1pass", cell.source, flags=re.M))  # IPython magics
        defined = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
        assert not defined, f"{md.name} defines a function; move it into grpo_nb:\n{cell.source}"


def test_the_style_check_catches_a_long_cell_and_a_function(tmp_path):
    md = tmp_path / "bad.md"
    body = "\n".join(f"x{i} = {i}" for i in range(MAX_CELL_LINES + 1))
    md.write_text(
        f"# Bad\n\n```{{code-cell}} ipython3\n{body}\n```\n\n```{{code-cell}} ipython3\nf = lambda x: x\n```\n"
    )
    with pytest.raises(AssertionError, match="code cell of 16 lines"):
        test_code_cells_are_short(md)
    with pytest.raises(AssertionError, match="defines a function"):
        test_chapters_define_no_functions(md)


def test_files_cited_in_the_guides_exist():
    for guide in ("CONTRIBUTING.md", "README.md"):
        for path in re.findall(
            r"`((?:tests|tools|grpo_nb|benchmarks|book)/[\w/.]+\.(?:py|md|ipynb))`", (ROOT / guide).read_text()
        ):
            if "<" not in path:
                assert (ROOT / path).exists(), f"{guide} cites {path}, which does not exist"


def _stderr_cells(nb: dict) -> list[int]:
    return [i for i, c in enumerate(nb["cells"]) for o in c.get("outputs", []) if o.get("name") == "stderr"]


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.stem)
def test_committed_outputs_carry_no_warnings(md):
    """A warning on stderr would show on the site as a pink block, often with a local path in it."""
    nb = json.loads(md.with_suffix(".ipynb").read_text())
    assert not _stderr_cells(nb), f"{md.stem}: cells {_stderr_cells(nb)} print to stderr"


def test_the_warning_check_finds_a_warning():
    warned = {"cells": [{"outputs": [{"output_type": "stream", "name": "stderr", "text": "UserWarning: ..."}]}]}
    assert _stderr_cells(warned) == [0] and _stderr_cells({"cells": [{"outputs": []}]}) == []


_REPR = re.compile(r"^<(?:function|bound method|ipywidgets\.|[\w.]+ object at 0x)")


def _repr_cells(nb: dict) -> list[int]:
    """Cells whose result is an object's bare repr (a widget callback that ``interact`` returns, say)."""
    return [
        i
        for i, c in enumerate(nb["cells"])
        for o in c.get("outputs", [])
        if o.get("output_type") == "execute_result" and _REPR.match("".join(o.get("data", {}).get("text/plain", "")))
    ]


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.stem)
def test_no_cell_shows_a_bare_repr(md):
    """An explorer cell ends in ';': Colab and Jupyter would show ``Out: <function ...update>`` under its sliders."""
    nb = json.loads(md.with_suffix(".ipynb").read_text())
    assert not _repr_cells(nb), f"{md.stem}: cells {_repr_cells(nb)} show a bare repr"


def test_the_repr_check_finds_a_callback():
    leak = {"output_type": "execute_result", "data": {"text/plain": "<function explorer.<locals>.update>"}}
    table = {"output_type": "execute_result", "data": {"text/plain": "| a | b |"}}
    assert _repr_cells({"cells": [{"outputs": [table]}, {"outputs": [leak]}]}) == [1]
