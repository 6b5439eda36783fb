"""The notebook check must be able to fail: a stale number in a committed output is caught by nbval."""

from __future__ import annotations

import re
import subprocess
import sys

import nbformat

from tests.book_layout import BOOK, ROOT
from tests.chapters.chapter_runs import CELL_TIMEOUT_S


def _run_nbval(path) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "--nbval"]  # no workers
    cmd += ["--nbval-sanitize-with", str(ROOT / "tests" / "nbval_sanitize.cfg"), str(path)]
    cmd += ["--nbval-cell-timeout", str(CELL_TIMEOUT_S)]  # a copy outside the repository reads no pyproject.toml
    return subprocess.run(cmd, capture_output=True, text=True, cwd=path.parent, timeout=300)


def test_changing_one_committed_number_fails_nbval(tmp_path):
    nb = nbformat.read(BOOK / "intro.ipynb", as_version=4)
    mutated = False
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            text = out.get("text")
            if out.get("output_type") == "stream" and text and re.search(r"\d", text):
                out["text"] = re.sub(r"\d+", lambda m: str(int(m.group()) + 1), text, count=1)
                mutated = True
                break
        if mutated:
            break
    assert mutated, "intro.ipynb has no printed number to mutate"
    stale = tmp_path / "intro.ipynb"
    nbformat.write(nb, stale)
    assert _run_nbval(BOOK / "intro.ipynb").returncode == 0, "the committed intro must pass nbval"
    result = _run_nbval(stale)
    assert result.returncode != 0, "nbval accepted a notebook whose committed output was changed"
