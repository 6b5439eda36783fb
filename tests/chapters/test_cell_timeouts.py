"""No notebook run of the suite or of the tools hangs silently: every cell runs under a timeout, and a cell that runs
past it fails the run with the cell's source.

The timeouts (``chapter_runs.CELL_TIMEOUT_S`` for a chapter run alone, nbval's ``--nbval-cell-timeout`` in
``pyproject.toml`` for nbval over book/, nbclient's ``timeout`` in ``tools/render_notebook.py``) are far above the
slowest cell of the book: they stop a hung cell, they do not time the book. A fixture notebook whose cell sleeps
(``tests/fixtures/notebooks/cell_timeout.json``; not ``.ipynb``, so nbval does not collect it) runs through the
harness and through the render tool with a 2-second timeout, and must fail naming its cell.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest
import tomllib
from nbclient.exceptions import CellTimeoutError

from tests.book_layout import ROOT
from tests.chapters.chapter_runs import CELL_TIMEOUT_S, run_nbval

FIXTURE = ROOT / "tests" / "fixtures" / "notebooks" / "cell_timeout.json"
SLEEPING_CELL = "time.sleep(120)"
RUNNERS = {  # what starts a notebook's kernel, and how the same file must set a per-cell timeout
    r'"--nbval"': r"--nbval-cell-timeout",
    r"\bNotebookClient\(": r"\btimeout=",
    r"\bExecutePreprocessor\(": r"\btimeout=",
}


def test_the_fixture_sleeps_past_the_test_timeout():
    sources = [c.source for c in nbformat.read(FIXTURE, as_version=4).cells if c.cell_type == "code"]
    assert any(SLEEPING_CELL in source for source in sources)


def test_a_chapter_run_past_its_cell_timeout_fails_with_the_cells_source(tmp_path):
    env = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}  # this environment's kernel
    proc = run_nbval(FIXTURE, tmp_path / "empty", env, cell_timeout_s=2)
    assert proc.returncode != 0, "the sleeping cell outlived its timeout and the run passed"
    assert "Timeout of 2 seconds exceeded" in proc.stdout, proc.stdout[-3000:]
    assert SLEEPING_CELL in proc.stdout, proc.stdout[-3000:]


def test_a_render_past_its_cell_timeout_fails_with_the_cells_source(tmp_path):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from render_notebook import render
    finally:
        sys.path.remove(str(ROOT / "tools"))
    md = tmp_path / "sleeping.md"
    jupytext.write(nbformat.read(FIXTURE, as_version=4), md, fmt="md:myst")
    with pytest.raises(CellTimeoutError, match=re.escape(SLEEPING_CELL)):
        render(md, timeout=2)


def test_nbval_over_the_book_has_a_cell_timeout():
    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    found = re.search(r"--nbval-cell-timeout[ =](\d+)", addopts)
    assert found and int(found.group(1)) == CELL_TIMEOUT_S, addopts


def test_every_notebook_run_sets_a_cell_timeout():
    here = Path(__file__).resolve()
    files = [p for folder in ("tests", "tools") for p in (ROOT / folder).rglob("*.py") if p.resolve() != here]
    runners = 0
    for path in files:
        text = path.read_text()
        for starts, timeout in RUNNERS.items():
            if re.search(starts, text):
                runners += 1
                assert re.search(timeout, text), f"{path.relative_to(ROOT)} runs notebooks without a cell timeout"
    assert runners >= 3  # the chapter harness, nbval's strictness check, the render tool
