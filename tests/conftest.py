"""Test-wide settings and the shared fixtures of the book and browser tests.

- hypothesis runs derandomised, so CI and a local run see the same examples
  (`HYPOTHESIS_PROFILE=default pytest tests` explores fresh random examples instead: a bug hunt);
- ``built_book``: the book built once per test session (per xdist worker) as the site is built, warnings
  as errors; returns the HTML folder;
- ``served_book``: that folder served over HTTP on 127.0.0.1; returns the base URL;
- ``chromium``: the system Chromium driven by Playwright, for the whole session (skipped, with the reason,
  where Chromium or Playwright is missing; under CI=true a missing browser fails instead);
- ``floors``: the virtualenv of the lowest versions grpo_nb allows (``tests/chapters/floors_venv.py``), built once
  and shared by the workers, unless ``-m "not network"`` (``conftest.FLOORS_BUILD``); then, or where pip fails
  outside CI, none, with the reason (under CI=true a failed install fails instead);
- ``other_machine``: the environment of a kernel on a simulated other machine, in that virtualenv when there is one.

`--dist loadfile` keeps each test file on one worker, so the book is built at most once per worker.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from tests.book_layout import ROOT

settings.register_profile("book", derandomize=True, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "book"))

ARTIFACTS = ROOT / "tests" / "artifacts"


def _jupyter_book() -> str:
    exe = shutil.which("jupyter-book", path=str(Path(sys.executable).parent)) or shutil.which("jupyter-book")
    if exe is None:
        pytest.fail("jupyter-book is not installed: run `pip install -r requirements.txt`")
    return exe


def build_book(out: Path) -> Path:
    """Build the book as the site is built (README's command) into ``out``; fail on any warning."""
    cmd = [_jupyter_book(), "build", str(ROOT), "-W", "-n", "--keep-going", "--path-output", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    log = proc.stdout + proc.stderr
    warnings = [line for line in log.splitlines() if "WARNING" in line and "IPKernelApp" not in line]
    assert proc.returncode == 0 and not warnings, "book build failed:\n" + "\n".join(warnings or log.splitlines()[-40:])
    return out / "_build" / "html"


@pytest.fixture(scope="session")
def built_book(tmp_path_factory) -> Path:
    """The HTML folder of the book, built once per session."""
    return build_book(tmp_path_factory.mktemp("book"))


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@contextmanager
def serve_folder(folder: Path) -> Iterator[str]:
    """Serve ``folder`` over HTTP on a free port of 127.0.0.1; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def served_book(built_book) -> Iterator[str]:
    """Base URL of the built book, served locally (the browser tests may reach nothing else)."""
    with serve_folder(built_book) as url:
        yield url


@pytest.fixture(scope="session")
def chromium():
    """The system Chromium under Playwright, shared by every browser test of the session."""
    from tests.book.browser_checks import chromium_executable, launch_chromium

    missing = None
    if chromium_executable() is None:
        missing = "Chromium is not installed (Debian package `chromium`; .ci/run installs it)"
    else:
        try:
            import playwright  # noqa: F401
        except ImportError:
            missing = "playwright is not installed: run `pip install -r requirements.txt`"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the browser tests: {missing}")
        pytest.skip(missing)
    with launch_chromium() as browser:
        yield browser


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where browser tests keep their screenshots (git-ignored; CI uploads it)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@dataclass(frozen=True)
class Floors:
    """The virtualenv of the floors (``None`` where there is none) and, then, why there is none."""

    venv: Path | None
    reason: str = ""


@pytest.fixture(scope="session")
def floors(pytestconfig) -> Floors:
    """The virtualenv of the lowest versions grpo_nb allows, where this session may install from PyPI."""
    from conftest import FLOORS_BUILD
    from tests.chapters.floors_venv import FloorsInstallError

    build = pytestconfig.stash.get(FLOORS_BUILD, None)
    if build is None:
        return Floors(None, "this run may not install from PyPI (-m 'not network')")
    try:
        return Floors(build.result())
    except FloorsInstallError as error:
        if os.environ.get("CI"):
            pytest.fail(f"CI must test the floors: {error}")
        return Floors(None, f"cannot install the floors from PyPI: {error}")


@pytest.fixture(scope="session")
def other_machine(floors, tmp_path_factory) -> dict[str, str]:
    """The environment of a kernel on a simulated other machine, importing a non-editable install of ``grpo_nb``
    (``tests/chapters/chapter_runs.py``), in the virtualenv of the floors when there is one (``floors``); one install
    of grpo_nb per test session (per xdist worker)."""
    from tests.chapters.chapter_runs import install_package, other_machine_env

    site = install_package(tmp_path_factory.mktemp("install"))
    return other_machine_env(site, tmp_path_factory.mktemp("ipython"), floors.venv)
