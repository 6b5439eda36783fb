"""The run checks of every nbval cell (``tests/nbval_run_checks.py``) can fail: a figure cell whose run shows no PNG,
and a cell that writes to stderr, each fail a chapter's run alone and name their cell."""

from __future__ import annotations

import os

import nbformat

from tests.chapters.chapter_runs import run_nbval
from tests.nbval_run_checks import run_problems

FIGURE = {"mystnb": {"figure": {"caption": "A figure the page needs.", "name": "fig-check"}}}


def _png(text: str = "<Figure size 100x100 with 1 Axes>") -> dict:
    return {"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo=", "text/plain": text}}


def _picture(html: str) -> dict:
    return {"output_type": "display_data", "data": {"text/html": html, "text/plain": "<Figure size 100x100>"}}


def test_a_figure_cell_needs_a_png_and_no_cell_may_write_to_stderr():
    figure = nbformat.v4.new_code_cell("plt.show()", metadata=FIGURE)
    text_only = {"output_type": "display_data", "data": {"text/plain": "<Figure size 100x100 with 1 Axes>"}}
    stderr = {"output_type": "stream", "name": "stderr", "text": "UserWarning: something\n"}
    assert run_problems(figure, [_png()]) == []
    assert "shows no PNG" in run_problems(figure, [text_only])[0]
    png = "data:image/png;base64,iVBORw0KGgo="
    two = f'<picture class="grpo-figure"><source srcset="{png}"><img src="{png}"></picture>'
    one = two.replace(f'<source srcset="{png}">', "<source>")
    assert run_problems(figure, [_picture(two)]) == []  # a figure in two layouts shows its PNGs in its HTML
    assert "shows no PNG" in run_problems(figure, [_picture(one)])[0]
    assert "writes to stderr" in run_problems(nbformat.v4.new_code_cell("x"), [stderr])[0]
    assert run_problems(nbformat.v4.new_code_cell("print(1)"), [{"output_type": "stream", "name": "stdout"}]) == []


def test_a_run_alone_fails_on_each_and_names_the_cell(tmp_path):
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}})
    nb.cells = [
        nbformat.v4.new_code_cell("print('a figure that is only text')", metadata=FIGURE),
        nbformat.v4.new_code_cell("import sys\n\nprint('a warning', file=sys.stderr)"),
        nbformat.v4.new_code_cell("print('a clean cell')"),
    ]
    path = tmp_path / "checks.json"
    nbformat.write(nb, path)
    env = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}  # this environment's kernel
    proc = run_nbval(path, tmp_path / "empty", env)
    assert proc.returncode != 0
    assert "2 failed, 1 passed" in proc.stdout, proc.stdout[-3000:]
    assert "print('a figure that is only text')" in proc.stdout and "shows no PNG" in proc.stdout
    assert "print('a warning', file=sys.stderr)" in proc.stdout and "writes to stderr" in proc.stdout
