"""The house rules of CONTRIBUTING.md's first page, measured on the sources (no module is imported):

* the package stays readable: no module of ``grpo_nb`` (the chapter layer and every package below it) is over
  :data:`MAX_MODULE_LINES` lines and no function there is over :data:`MAX_FUNCTION_LINES` (docstring included); a
  module that outgrows the limit becomes a package with one module per section (a chapter's sections, a paper's), and
  a long function becomes named steps;
* tests are filed by module: each chapter module (or package) has its tests in ``tests/chapters/test_<chapter>.py``
  or ``tests/chapters/<chapter>/``, and no unit test imports a chapter module;
* CONTRIBUTING.md opens with a page a newcomer reads before the first change, under :data:`MAX_FIRST_PAGE` characters,
  and the whole guide stays under :data:`MAX_GUIDE`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.book_layout import ROOT

PACKAGE = ROOT / "grpo_nb"
CHAPTERS = PACKAGE / "chapters"
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60
MAX_FIRST_PAGE = 4000
MAX_GUIDE = 15000  # the whole of CONTRIBUTING.md: each rule said once, a test's rule pointed at, not restated
FIRST_PAGE_END = "\n# Reference"  # the heading that closes CONTRIBUTING.md's first page


def package_sources(package: Path = PACKAGE) -> list[Path]:
    """Every Python module of ``package``, its subpackages included."""
    return sorted(package.rglob("*.py"))


def long_functions(source: str, limit: int) -> list[tuple[str, int]]:
    """(name, lines) of every function or method in ``source`` longer than ``limit`` lines."""
    nodes = ast.walk(ast.parse(source))
    spans = (
        (n.name, n.end_lineno - n.lineno + 1) for n in nodes if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    )
    return [(name, lines) for name, lines in spans if lines > limit]


def length_findings(source: str) -> list[str]:
    """What makes ``source`` too long: its line count over :data:`MAX_MODULE_LINES`, and each function or method over
    :data:`MAX_FUNCTION_LINES` lines."""
    lines = len(source.splitlines())
    module = [f"{lines} lines: split the module by its sections"] if lines > MAX_MODULE_LINES else []
    return module + [
        f"{name}: {n} lines, break it into named steps" for name, n in long_functions(source, MAX_FUNCTION_LINES)
    ]


def imports_of(source: str) -> set[str]:
    """Every module named by an import anywhere in ``source`` (inside functions too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return names


@pytest.mark.parametrize("path", package_sources(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_and_their_functions_are_short(path):
    assert length_findings(path.read_text()) == [], f"grpo_nb/{path.relative_to(PACKAGE)}"


def test_every_package_of_grpo_nb_is_measured():
    measured = {p.relative_to(PACKAGE).parts[0] for p in package_sources() if len(p.relative_to(PACKAGE).parts) > 1}
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert measured == packages and {"chapters", "symbolic", "dynamics", "tabular", "toylm"} <= packages


def test_the_length_checks_catch_a_long_function():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    assert long_functions(f"def f():\n{body}\n", MAX_FUNCTION_LINES) == [("f", MAX_FUNCTION_LINES + 1)]
    assert long_functions("def g():\n    return 1\n", MAX_FUNCTION_LINES) == []
    method = "class C:\n    def m(self):\n" + "\n".join(f"        x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    assert length_findings(method) == [f"m: {MAX_FUNCTION_LINES + 1} lines, break it into named steps"]


def test_the_length_checks_catch_a_long_module():
    at_limit = "\n".join(f"x{i} = {i}" for i in range(MAX_MODULE_LINES))
    assert length_findings(at_limit) == []
    assert length_findings(at_limit + "\ny = 0\n") == [
        f"{MAX_MODULE_LINES + 1} lines: split the module by its sections"
    ]


def test_the_length_checks_reach_a_package_outside_the_chapter_layer(tmp_path):
    """Negative test on a synthetic package: a too-long module of a math package and a too-long function of a
    nested subpackage are found, as a chapter's would be."""
    package = tmp_path / "grpo_nb"
    (package / "symbolic" / "errata").mkdir(parents=True)
    (package / "dynamics").mkdir()
    for init in (package, package / "symbolic", package / "symbolic" / "errata", package / "dynamics"):
        (init / "__init__.py").write_text("")
    (package / "dynamics" / "orbits.py").write_text("\n".join(f"x{i} = {i}" for i in range(MAX_MODULE_LINES + 1)))
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    (package / "symbolic" / "errata" / "rows.py").write_text(f"def row():\n{body}\n")
    found = {str(p.relative_to(package)): length_findings(p.read_text()) for p in package_sources(package)}
    assert {name: f for name, f in found.items() if f} == {
        "dynamics/orbits.py": [f"{MAX_MODULE_LINES + 1} lines: split the module by its sections"],
        "symbolic/errata/rows.py": [f"row: {MAX_FUNCTION_LINES + 1} lines, break it into named steps"],
    }


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
    assert len(text) < MAX_GUIDE, f"CONTRIBUTING.md is {len(text)} characters (at most {MAX_GUIDE})"
