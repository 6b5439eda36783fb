"""The house rules of CONTRIBUTING.md's first page, measured on the sources (no module is imported):

* the chapter layer stays readable: no module of ``grpo_nb/chapters/`` is over :data:`MAX_MODULE_LINES` lines and no
  function there is over :data:`MAX_FUNCTION_LINES` (docstring included); a chapter that outgrows one module becomes a
  package with one module per section;
* tests are filed by module: each chapter module (or package) has its tests in ``tests/chapters/test_<chapter>.py``
  or ``tests/chapters/<chapter>/``, and no unit test imports a chapter module;
* CONTRIBUTING.md opens with a page a newcomer reads before the first change, under :data:`MAX_FIRST_PAGE` characters.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.book_layout import ROOT

CHAPTERS = ROOT / "grpo_nb" / "chapters"
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60
MAX_FIRST_PAGE = 4000
FIRST_PAGE_END = "\n# Reference"  # the heading that closes CONTRIBUTING.md's first page


def chapter_sources() -> list[Path]:
    return sorted(CHAPTERS.rglob("*.py"))


def long_functions(source: str, limit: int) -> list[tuple[str, int]]:
    """(name, lines) of every function or method in ``source`` longer than ``limit`` lines."""
    nodes = ast.walk(ast.parse(source))
    spans = (
        (n.name, n.end_lineno - n.lineno + 1) for n in nodes if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    )
    return [(name, lines) for name, lines in spans if lines > limit]


def imports_of(source: str) -> set[str]:
    """Every module named by an import anywhere in ``source`` (inside functions too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return names


@pytest.mark.parametrize("path", chapter_sources(), ids=lambda p: str(p.relative_to(CHAPTERS)))
def test_chapter_modules_and_their_functions_are_short(path):
    source = path.read_text()
    assert len(source.splitlines()) <= MAX_MODULE_LINES, f"{path.name}: split it by the chapter's sections"
    assert not long_functions(source, MAX_FUNCTION_LINES), "break these into named helpers"


def test_the_length_checks_catch_a_long_function():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    assert long_functions(f"def f():\n{body}\n", MAX_FUNCTION_LINES) == [("f", MAX_FUNCTION_LINES + 1)]
    assert long_functions("def g():\n    return 1\n", MAX_FUNCTION_LINES) == []


def chapter_names() -> list[str]:
    modules = [p.stem for p in CHAPTERS.glob("*.py") if p.stem != "__init__"]
    return sorted(modules + [p.name for p in CHAPTERS.iterdir() if (p / "__init__.py").exists()])


@pytest.mark.parametrize("chapter", chapter_names())
def test_each_chapter_module_has_its_own_tests(chapter):
    tests = ROOT / "tests" / "chapters"
    assert (tests / f"test_{chapter}.py").exists() or (tests / chapter).is_dir(), (
        f"the tests of grpo_nb/chapters/{chapter} go in tests/chapters/test_{chapter}.py or in a folder of that name"
    )


def test_tests_are_filed_by_module_not_by_history():
    stray = sorted(p.name for p in (ROOT / "tests").rglob("test_truth_*.py"))
    assert not stray, f"merge these into their chapter's test file: {stray}"


@pytest.mark.parametrize("path", sorted((ROOT / "tests" / "unit").glob("*.py")), ids=lambda p: p.name)
def test_unit_tests_import_no_chapter_module(path):
    chapter_imports = {name for name in imports_of(path.read_text()) if name.startswith("grpo_nb.chapters")}
    assert not chapter_imports, f"a chapter's analysis is tested under tests/chapters/: {sorted(chapter_imports)}"


def test_the_import_check_sees_an_import_inside_a_function():
    assert "grpo_nb.chapters.x" in imports_of("def f():\n    from grpo_nb.chapters import x\n")


def test_contributing_opens_with_a_short_first_page():
    text = (ROOT / "CONTRIBUTING.md").read_text()
    assert FIRST_PAGE_END in text, f"CONTRIBUTING.md's first page ends at the heading {FIRST_PAGE_END.strip()!r}"
    first_page = text.split(FIRST_PAGE_END)[0]
    assert len(first_page) < MAX_FIRST_PAGE, f"the first page is {len(first_page)} characters"
