"""Build the book as the site is built (warnings are errors) and check the HTML a reader gets.

- every _toc entry is rendered;
- no page holds a traceback or an error output;
- every chapter page links to Colab at an .ipynb that exists in the repository;
- headless Chromium renders the intro and a chapter (title, a figure, the Colab link) and saves a
  screenshot under tests/artifacts/ (skipped, with the reason, where Chromium is missing).
"""

from __future__ import annotations

import functools
import http.server
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.book_layout import ROOT, chapter_notebooks, config, toc_files

pytestmark = pytest.mark.book
ARTIFACTS = ROOT / "tests" / "artifacts"


def _jupyter_book() -> str:
    exe = shutil.which("jupyter-book", path=str(Path(sys.executable).parent)) or shutil.which("jupyter-book")
    if exe is None:
        pytest.fail("jupyter-book is not installed: run `pip install -r requirements.txt`")
    return exe


@pytest.fixture(scope="module")
def html_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("book")
    cmd = [_jupyter_book(), "build", str(ROOT), "-W", "-n", "--keep-going", "--path-output", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    log = proc.stdout + proc.stderr
    warnings = [line for line in log.splitlines() if "WARNING" in line and "IPKernelApp" not in line]
    assert proc.returncode == 0 and not warnings, "book build failed:\n" + "\n".join(warnings or log.splitlines()[-40:])
    return out / "_build" / "html"


def _page(html_dir: Path, doc: str) -> str:
    page = html_dir / f"{doc}.html"
    assert page.exists(), f"{doc} was not rendered"
    return page.read_text(encoding="utf-8")


def test_every_toc_entry_is_rendered(html_dir):
    for doc in toc_files():
        _page(html_dir, doc)


def test_no_page_shows_a_traceback_or_error(html_dir):
    for doc in toc_files():
        text = _page(html_dir, doc)
        assert "Traceback (most recent call last)" not in text, f"{doc} shows a traceback"
        assert 'class="output traceback' not in text and "ansi-red-intense" not in text, f"{doc} shows an error"


def test_every_chapter_links_to_colab_at_an_existing_notebook(html_dir):
    repo = config()["repository"]["url"].removeprefix("https://github.com/")
    pattern = re.compile(rf"https://colab\.research\.google\.com/github/{re.escape(repo)}/blob/main/([^\"'<> ]+)")
    for nb in chapter_notebooks():
        doc = f"book/{nb.stem}"
        targets = pattern.findall(_page(html_dir, doc))
        assert targets, f"{doc} has no Colab link"
        for target in set(targets):
            assert target.endswith(".ipynb") and (ROOT / target).exists(), f"{doc}: Colab link to missing {target}"


def test_every_chapter_has_binder_and_repository_buttons(html_dir):
    for nb in chapter_notebooks():
        text = _page(html_dir, f"book/{nb.stem}")
        assert "mybinder.org/v2/gh/" in text and config()["repository"]["url"] in text


# --------------------------------------------------------------------------- browser


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--virtual-time-budget=8000",
]


@pytest.fixture(scope="module")
def served(html_dir):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(html_dir))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _browse(url: str, profile: Path, *args: str) -> str:
    cmd = [_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args, url]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout


@pytest.mark.browser
@pytest.mark.parametrize("doc", ["book/intro", "book/policy_dynamics"])
def test_pages_render_in_a_real_browser(served, doc, tmp_path):
    if _chromium() is None:
        pytest.skip("Chromium is not installed (Debian package `chromium`; .ci/run installs it)")
    if not (ROOT / f"{doc}.ipynb").exists():
        pytest.skip(f"{doc} is not part of the book yet")
    url = f"{served}/{doc}.html"
    dom = _browse(url, tmp_path / "profile", "--dump-dom")
    title = re.search(r"<title>(.*?)</title>", dom, re.S)
    assert title and title.group(1).strip(), f"{doc}: no title in the rendered DOM"
    assert re.search(r"<img[^>]+src=\"[^\"]+\.png\"", dom), f"{doc}: no figure in the rendered DOM"
    assert "colab.research.google.com/github/" in dom, f"{doc}: no Colab link in the rendered DOM"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / f"{Path(doc).name}.png"
    _browse(url, tmp_path / "profile2", f"--screenshot={shot}", "--window-size=1280,1600")
    assert shot.exists() and shot.stat().st_size > 10_000, f"{doc}: no screenshot was taken"
