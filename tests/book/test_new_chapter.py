"""A new chapter by CONTRIBUTING.md's "Add a chapter" list alone: the list names every file a chapter needs, a
throwaway chapter added by it builds as the site is built, and one that leaves out any file the build reads does not.

The book's build sources (``_config.yml``, ``_ext/``, ``_static/``, ``references.bib`` and the paths of
``html_extra_path``) are copied to a temporary folder. ``_toc.yml`` keeps its root and its first part, emptied, so that
a build takes seconds; the root page is a stub with ``book/intro.md``'s front matter (the real first page links to
every chapter, which ``-n`` would report missing). The throwaway chapter then gets, one step per file of the list that
the build reads (:data:`BUILD_STEPS`): ``book/<name>.md``, the front matter and Colab bootstrap cell copied from
``book/intro.md`` with a title and a paragraph; ``book/<name>.ipynb``, converted from it by jupytext as
``tools/render_notebook.py`` does, without executing it (the build executes nothing, ``execute_notebooks: "off"``, and
the bootstrap cell does nothing where ``grpo_nb`` is importable); its entry in ``_toc.yml``; its description in
``_ext/page_descriptions.yml``. The build is the README's, ``jupyter-book build -W -n --keep-going``. The list's other
files are checked by other tests (:data:`OUTSIDE_THE_BUILD`). Negative tests: the build of a chapter that skips any one
step fails or leaves the chapter out, and a list without the page description is told it lacks it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import jupytext
import pytest
import yaml

from tests.book_layout import ROOT, config

NAME = "throwaway"
TITLE = "A throwaway chapter"
DESCRIPTION = "A chapter added by the list of the contributing guide alone, to check that the list is complete."
CONTRIBUTING = ROOT / "CONTRIBUTING.md"
CHECKLIST_START = "**Add a chapter.**"
#: the files of the list that other tests check, and the test that fails without each
OUTSIDE_THE_BUILD = {
    "colab/<name>.ipynb": "tests/chapters/test_colab_edition.py",
    "README.md": "tests/unit/test_project_files.py",
    "grpo_nb/chapters/<name>.py": "tests/unit/test_chapter_layer.py",
    "tests/chapters/test_<name>.py": "tests/unit/test_house.py",
}
_PATH = re.compile(r"^[\w./<>-]+\.(?:md|ipynb|yml|py)$")


def _front_matter_and_bootstrap() -> tuple[str, str]:
    """The YAML front matter and the Colab bootstrap cell (the first code cell) of ``book/intro.md``."""
    intro = (ROOT / "book" / "intro.md").read_text()
    front = intro[: intro.index("\n---\n", 4) + 5]
    start = intro.index("```{code-cell}")
    end = intro.index("\n```\n", start) + 5
    return front, intro[start:end]


def _write_md(src: Path) -> None:
    front, bootstrap = _front_matter_and_bootstrap()
    text = f"{front}\n# {TITLE}\n\n{bootstrap}\nOne paragraph of prose, and no claim to check.\n"
    (src / "book" / f"{NAME}.md").write_text(text)


def _write_ipynb(src: Path) -> None:
    md = src / "book" / f"{NAME}.md"
    if md.exists():  # without its source there is nothing to render
        jupytext.write(jupytext.read(md), md.with_suffix(".ipynb"))


def _add_toc_entry(src: Path) -> None:
    toc = yaml.safe_load((src / "_toc.yml").read_text())
    toc["parts"][0]["chapters"].append({"file": f"book/{NAME}"})
    (src / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False))


def _add_description(src: Path) -> None:
    path = src / "_ext" / "page_descriptions.yml"
    descriptions = yaml.safe_load(path.read_text()) | {f"book/{NAME}": DESCRIPTION}
    path.write_text(yaml.safe_dump(descriptions, sort_keys=False, width=120))


#: the files of the list that the build reads, in the order the list adds them, and how the throwaway gets each
BUILD_STEPS: dict[str, Callable[[Path], None]] = {
    "book/<name>.md": _write_md,
    "book/<name>.ipynb": _write_ipynb,
    "_toc.yml": _add_toc_entry,
    "_ext/page_descriptions.yml": _add_description,
}


def checklist(contributing: str) -> str:
    """The paragraph of CONTRIBUTING.md that says what a new chapter needs, on one line."""
    start = contributing.index(CHECKLIST_START)
    return " ".join(contributing[start : contributing.index("\n\n", start)].split())


def named_files(paragraph: str) -> set[str]:
    """Every file path the paragraph writes in backquotes (a command's arguments included)."""
    words = (word for span in re.findall(r"`([^`]+)`", paragraph) for word in span.split())
    return {word for word in words if _PATH.match(word)}


def unnamed(paragraph: str) -> set[str]:
    """The files a chapter needs that the paragraph does not name."""
    return (set(BUILD_STEPS) | set(OUTSIDE_THE_BUILD)) - named_files(paragraph)


def copy_build_sources(dest: Path) -> Path:
    """The book's build sources under ``dest``, with ``_toc.yml`` cut to its root and an empty first part and the
    root page a stub; returns the source folder."""
    src = dest / "src"
    (src / "book").mkdir(parents=True)
    extra = config()["sphinx"]["config"]["html_extra_path"]
    for name in ("_config.yml", "_ext", "_static", "references.bib", *extra):
        source, target = ROOT / name, src / name
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if source.is_dir() else shutil.copy2)(source, target)
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    part = {**toc["parts"][0], "chapters": []}
    (src / "_toc.yml").write_text(yaml.safe_dump({**toc, "parts": [part]}, sort_keys=False))
    front, _ = _front_matter_and_bootstrap()
    root = src / f"{toc['root']}.md"
    root.write_text(f"{front}\n# GRPO, executable\n\nThe first page, a stub.\n")
    jupytext.write(jupytext.read(root), root.with_suffix(".ipynb"))
    return src


def build(src: Path, out: Path) -> tuple[bool, str]:
    """Build ``src`` as the site is built (README's command); whether it passed without a warning and rendered the
    throwaway chapter, and its log's warnings (or its last lines)."""
    exe = shutil.which("jupyter-book", path=str(Path(sys.executable).parent)) or shutil.which("jupyter-book")
    assert exe, "jupyter-book is not installed: run `pip install -r requirements.txt`"
    cmd = [exe, "build", str(src), "-W", "-n", "--keep-going", "--path-output", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    lines = (proc.stdout + proc.stderr).splitlines()
    warnings = [line for line in lines if "WARNING" in line and "IPKernelApp" not in line]
    page = out / "_build" / "html" / "book" / f"{NAME}.html"
    return proc.returncode == 0 and not warnings and page.exists(), "\n".join(warnings or lines[-30:])


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> Path:
    return copy_build_sources(tmp_path_factory.mktemp("book"))


def _add_chapter(sources: Path, tmp_path: Path, skip: str | None = None) -> Path:
    src = tmp_path / "src"
    shutil.copytree(sources, src)
    for file, step in BUILD_STEPS.items():
        if file != skip:
            step(src)
    return src


def test_the_list_names_every_file_a_chapter_needs():
    assert unnamed(checklist(CONTRIBUTING.read_text())) == set()
    for test in OUTSIDE_THE_BUILD.values():
        assert (ROOT / test).is_file(), test


def test_a_list_without_the_page_description_is_told_so():
    paragraph = checklist(CONTRIBUTING.read_text())
    shorter = paragraph.replace("a description in `_ext/page_descriptions.yml`", "a description")
    assert shorter != paragraph and unnamed(shorter) == {"_ext/page_descriptions.yml"}


def test_a_chapter_added_by_the_list_builds(sources, tmp_path):
    ok, log = build(_add_chapter(sources, tmp_path), tmp_path / "out")
    assert ok, log
    page = (tmp_path / "out" / "_build" / "html" / "book" / f"{NAME}.html").read_text(encoding="utf-8")
    assert TITLE in page and f'<meta name="description" content="{DESCRIPTION}" />' in page


@pytest.mark.parametrize("skipped", list(BUILD_STEPS))
def test_a_chapter_without_one_of_the_files_does_not_build(sources, tmp_path, skipped):
    ok, _ = build(_add_chapter(sources, tmp_path, skip=skipped), tmp_path / "out")
    assert not ok, f"the chapter built without {skipped}: the list names a file the build does not need"
