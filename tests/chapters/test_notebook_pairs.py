"""Every chapter is an .ipynb with committed outputs, paired with a MyST .md holding the same cells.

`jupytext --sync` picks its source by modification time and can silently drop an edit, so the pair is
compared here cell by cell: the build and Colab read the .ipynb, reviewers read the .md.

Every chapter opens with the Colab bootstrap of intro.ipynb, verbatim; a chapter that needs TRL (which Colab lacks)
has it with grpo_nb's `trl` extra (``tests/chapters/colab_bootstrap.py``), and no chapter pins a version of the TRL
stack itself: the extra in pyproject.toml is the one place.
"""

from __future__ import annotations

import re

import jupytext
import nbformat
import pytest

from tests.book_layout import BOOK, ROOT, chapter_notebooks, config, toc_files
from tests.chapters.colab_bootstrap import TRL_STACK, code_cells, needs_trl, with_trl_extra

NOTEBOOKS = chapter_notebooks()
BOOTSTRAP = (BOOK / "intro.ipynb").exists() and nbformat.read(BOOK / "intro.ipynb", as_version=4)


def _cells(nb):
    return [(c.cell_type, c.source.strip(), sorted(c.metadata.get("tags", []))) for c in nb.cells]


def _first_code_cell(nb):
    return next(c for c in nb.cells if c.cell_type == "code")


def test_there_are_chapters():
    assert NOTEBOOKS, "no chapter notebooks under book/"


@pytest.mark.parametrize("ipynb", NOTEBOOKS, ids=lambda p: p.stem)
def test_pair_has_same_cells(ipynb):
    md = ipynb.with_suffix(".md")
    assert md.exists(), f"{ipynb.name} has no MyST pair {md.name}"
    from_md = jupytext.read(md)
    from_ipynb = nbformat.read(ipynb, as_version=4)
    assert _cells(from_md) == _cells(from_ipynb), (
        f"{md.name} and {ipynb.name} differ; re-render with `python tools/render_notebook.py {md.relative_to(ROOT)}`"
    )


@pytest.mark.parametrize("ipynb", NOTEBOOKS, ids=lambda p: p.stem)
def test_outputs_committed_without_errors(ipynb):
    nb = nbformat.read(ipynb, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.get("execution_count") for c in code), f"{ipynb.name} has unexecuted code cells"
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, f"{ipynb.name} holds an error output: {errors[0].get('ename')}"
    assert not any("Traceback (most recent call last)" in o.get("text", "") for c in code for o in c.outputs)


@pytest.mark.parametrize("ipynb", NOTEBOOKS, ids=lambda p: p.stem)
def test_first_code_cell_is_the_colab_bootstrap(ipynb):
    nb = nbformat.read(ipynb, as_version=4)
    intro = _first_code_cell(BOOTSTRAP).source
    if needs_trl(ipynb.with_suffix(".md")):
        assert _first_code_cell(nb).source == with_trl_extra(intro), (
            f"{ipynb.name} imports TRL: its first code cell must be the Colab bootstrap of intro.ipynb with the trl "
            "extra (tests/chapters/colab_bootstrap.py), verbatim"
        )
    else:
        assert _first_code_cell(nb).source == intro, (
            f"{ipynb.name}: the first code cell must be the Colab bootstrap of intro.ipynb, verbatim"
        )


@pytest.mark.parametrize("extra", [False, True], ids=["intro", "trl-extra"])
def test_bootstrap_installs_from_this_repository_and_never_torch(extra):
    source = _first_code_cell(BOOTSTRAP).source
    source = with_trl_extra(source) if extra else source
    url = config()["repository"]["url"]
    package = r"grpo_nb\[trl\]" if extra else "grpo_nb"
    assert re.search(rf'"{package} @ git\+{re.escape(url)}(\.git)?@main"', source), "install grpo_nb from the repo"
    assert 'find_spec("grpo_nb") is None' in source, "bootstrap must do nothing when grpo_nb is importable"
    assert ('find_spec("trl") is None' in source) == extra, "only the trl extra's bootstrap looks for TRL"
    assert "torch" not in source.replace("never touches Colab's torch", "")


def test_the_chapters_that_import_trl_are_found():
    """The analysis behind the bootstrap check can tell: the TRL chapter and the family table (whose checks run TRL
    through grpo_nb.chapters.grpo_family, lazily) need TRL; the introduction does not."""
    found = {nb.stem for nb in NOTEBOOKS if needs_trl(nb.with_suffix(".md"))}
    assert {"trl_grpo_step", "grpo_family"} <= found and "intro" not in found, found


def test_the_trl_extra_pins_the_stack_and_never_torch():
    extra = re.search(r"^trl = \[(.*)\]$", (ROOT / "pyproject.toml").read_text(), re.M)
    assert extra, "pyproject.toml has no trl extra"
    assert re.search(r'"trl>=[\d.]+,<[\d.]+"', extra.group(1)) and "torch" not in extra.group(1), extra.group(0)


@pytest.mark.parametrize("ipynb", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_chapter_pins_a_version_of_the_trl_stack(ipynb):
    """The trl extra of pyproject.toml is the one place where TRL's versions are pinned."""
    pin = re.compile(rf"\b({'|'.join(TRL_STACK)})\s*(==|>=|<=|~=|!=|<|>)\s*\d")
    for source in code_cells(ipynb.with_suffix(".md")):
        assert not pin.search(source), f"{ipynb.stem} pins {pin.search(source).group(0)!r}: use grpo_nb's trl extra"


INSTALL_CELLS = [  # (chapter, the module whose absence makes the cell install, what the error names)
    ("intro", "grpo_nb", "pip could not install grpo_nb"),
    ("trl_grpo_step", "trl", "pip could not install grpo_nb"),
]


@pytest.mark.parametrize(("chapter", "module", "message"), INSTALL_CELLS)
def test_an_install_cell_stops_at_once_with_pips_message(chapter, module, message, monkeypatch):
    import importlib.util
    import subprocess
    import sys

    names = {"importlib": importlib, "subprocess": subprocess, "sys": sys}  # what the bootstrap cell imported
    nb = nbformat.read(BOOK / f"{chapter}.ipynb", as_version=4)
    source = next(c.source for c in nb.cells if c.cell_type == "code" and f'find_spec("{module}") is None' in c.source)
    assert "%pip" not in source, "IPython's %pip does not stop the notebook when pip fails"
    calls = []

    def pip(args, **kwargs):
        calls.append(args)
        return subprocess.CompletedProcess(args, 1, "", "ERROR: No matching distribution (no network)")

    monkeypatch.setattr(subprocess, "run", pip)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object())
    exec(source, dict(names))  # the module is importable: nothing to install
    assert not calls
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(RuntimeError, match=f"{message}:\nERROR: No matching distribution"):
        exec(source, dict(names))
    assert calls and calls[0][1:4] == ["-m", "pip", "install"]


def test_every_chapter_is_in_the_toc_and_every_toc_entry_exists():
    listed = set(toc_files())
    for nb in NOTEBOOKS:
        assert f"book/{nb.stem}" in listed, f"{nb.name} is not in _toc.yml"
    for entry in listed:
        assert any((ROOT / entry).with_suffix(s).exists() for s in (".ipynb", ".md")), f"_toc entry {entry} missing"


def test_build_reads_one_file_of_each_pair():
    assert "book/*.md" in config()["exclude_patterns"], "the build must exclude the .md half of each pair"
