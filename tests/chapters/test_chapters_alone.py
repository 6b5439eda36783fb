"""Every chapter runs top to bottom opened alone on another machine, and shows the committed outputs.

Each chapter's ``.ipynb`` is copied into an empty folder and run there by nbval against a non-editable install of
``grpo_nb`` (what Colab gets: the package and its package data, not the repository), in a kernel that stands for
another machine: torch without vector kernels, one thread, and the transcendental functions of numpy and torch one
unit in the last place off (``tests/chapters/chapter_runs.py``). nbval compares every output with the committed one,
so a printed number that depends on rounding, on the CPU or on the thread count fails here, and so does a chapter
that reads a file the package does not ship. The README's run checks the same chapters under the default settings.

The chapters that sample with torch from their first cells (``chapter_runs.SEEDED_CHAPTERS``) run
alone in the same way in ``test_chapter_seeds*.py``, at four other seeds: one run there is both checks, so
they are not run again here.

The kernel runs in the virtualenv of the lowest versions grpo_nb allows (``test_floors.py``), installed from PyPI:
each run here also shows that the chapter is the same at the floors. Offline (``-m "not network"``), or where PyPI
cannot be reached outside CI, it runs in this environment.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.book_layout import chapter_notebooks
from tests.chapters.chapter_runs import SEEDED_CHAPTERS, check_alone, kernel_python

CHAPTERS = [nb for nb in chapter_notebooks() if nb.stem not in SEEDED_CHAPTERS]


def test_the_install_is_not_the_repository(other_machine, tmp_path):
    code = "import grpo_nb, importlib.resources as r; print(grpo_nb.__file__); print(r.files('grpo_nb') / 'data')"
    python = kernel_python(other_machine)
    out = subprocess.run([python, "-c", code], cwd=tmp_path, env=other_machine, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(other_machine["PYTHONPATH"]), out.stdout


def test_every_chapter_runs_alone_here_or_at_other_seeds():
    assert {nb.stem for nb in CHAPTERS} | set(SEEDED_CHAPTERS) == {nb.stem for nb in chapter_notebooks()}


@pytest.mark.parametrize("notebook", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_alone_on_another_machine(notebook, other_machine, tmp_path):
    check_alone(notebook, other_machine, tmp_path / "empty")
