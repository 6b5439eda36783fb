"""Every chapter runs top to bottom opened alone on another machine, and shows the committed outputs.

Each chapter's ``.ipynb`` is copied into an empty folder and run there by nbval against a non-editable install of
``grpo_nb`` (what Colab gets: the package and its package data, not the repository), in a kernel that stands for
another machine: torch without vector kernels, one thread, and numpy's transcendental functions one unit in the
last place off (``tests/chapter_runs.py``). nbval compares every output with the committed one, so a printed
number that depends on rounding, on the CPU or on the thread count fails here, and so does a chapter that reads a
file the package does not ship. The README's run checks the same chapters under the default settings; this file
and ``tests/test_chapters_alone_torch.py`` share the chapters between two workers.
"""

from __future__ import annotations

import time

import pytest

from tests.book_layout import chapter_notebooks
from tests.chapter_runs import TORCH_CHAPTERS, install_package, other_machine_env, run_nbval

pytestmark = pytest.mark.machine  # not yet green: run with -m machine (see CONTRIBUTING)

CHAPTERS = [nb for nb in chapter_notebooks() if nb.stem not in TORCH_CHAPTERS]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    site = install_package(tmp_path_factory.mktemp("install"))
    return other_machine_env(site, tmp_path_factory.mktemp("ipython"))


def check_alone(notebook, env, folder) -> None:
    start = time.perf_counter()
    proc = run_nbval(notebook, folder, env)
    print(f"{notebook.stem}: {time.perf_counter() - start:.0f} s alone")  # reported with -s; never asserted
    assert proc.returncode == 0, f"{notebook.name} opened alone on another machine:\n{proc.stdout[-6000:]}"


def test_the_install_is_not_the_repository(env, tmp_path):
    import subprocess
    import sys

    code = "import grpo_nb, importlib.resources as r; print(grpo_nb.__file__); print(r.files('grpo_nb') / 'data')"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(env["PYTHONPATH"]), out.stdout


@pytest.mark.parametrize("notebook", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_alone_on_another_machine(notebook, env, tmp_path):
    check_alone(notebook, env, tmp_path / "empty")
