"""The chapter layer holds the chapters' analyses, and nothing below it is one chapter's analysis (CONTRIBUTING.md,
"Three layers").

Two rules, checked mechanically on the sources (no module is imported):

(a) Tables are built in the chapter layer. Outside ``grpo_nb/chapters/`` (and ``grpo_nb/report.py``, which defines
    :class:`grpo_nb.report.Table`) no public function, and no public method of a public class, is annotated to return a
    ``Table`` or anything holding one (``tuple[Table, dict]``), and no module imports ``Table`` at all: a table and the
    values a chapter asserts on are one frozen dataclass of the chapter's own module.

(b) A module that only one chapter uses is that chapter's analysis. For each module of ``grpo_nb`` below the chapter
    layer (not under ``chapters/``, ``plots/``, ``widgets/`` or ``browser/``; not a package ``__init__``; not the
    shared helpers ``report.py`` and ``validation.py``), its importers are the chapters whose code cells import it
    (``book/<chapter>.md``) and the ``grpo_nb`` modules that import it anywhere (in a function too); tests do not
    count. The chapter's own module ``grpo_nb.chapters.<chapter>`` (or a module of the package of that name) counts
    as the chapter. A module whose importers all belong to one chapter, so that no other ``grpo_nb`` module builds on
    it (no math, figure, widget, command line, nor its package's public ``__init__``) and no other chapter reads it,
    exists for that chapter alone: it belongs in ``grpo_nb/chapters/<chapter>.py``. Math that one chapter needs is
    not caught as long as anything else in the package builds on it, or its package exports it.

    The one exception is by design: ``grpo_nb/symbolic/`` holds the sympy derivations behind the chapters' proofs,
    one module per chapter (or part of the appendix). They are derivations, not analyses, and stay in the symbolic
    layer; :data:`SYMBOLIC_DERIVATIONS` lists those that one chapter alone uses, with that chapter, and must stay
    exact (an entry that no longer applies fails too).

(c) Each chapter reads its analyses from its own module: a chapter imports no other chapter's
    ``grpo_nb.chapters`` module, and every module there is named after a chapter that imports it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from pathlib import Path

import jupytext
import pytest

from tests.book_layout import BOOK, chapter_of_page
from tests.unit.test_import_graph import PACKAGE, import_graph, imported_modules_in, modules

PAGE_CHAPTER = chapter_of_page()

#: The symbolic derivation modules that one chapter alone uses, with that chapter (see the module docstring, (b)).
SYMBOLIC_DERIVATIONS = {
    "grpo_nb.symbolic.convergence": "appendix_proofs",  # Appendix B: Theorems 4 and 6 checked on explicit cases
    "grpo_nb.symbolic.errata": "appendix_proofs",  # the errata of the paper's v1 text
    "grpo_nb.symbolic.hard_prompts": "hard_prompts",  # the period-doubling and flip derivations
    "grpo_nb.symbolic.ustat": "group_size",  # Lemma 1 and the U-statistic moments
    "grpo_nb.symbolic.variants": "variants",  # the variants' recursions
}

#: Folders of grpo_nb at or above the chapter layer, and the shared helpers every layer uses.
CHAPTER_LAYER = ("chapters", "plots", "widgets", "browser")
SHARED_HELPERS = ("grpo_nb.report", "grpo_nb.validation")


# ---- (a) tables ----------------------------------------------------------------------------------------------------


def _mentions_table(annotation: ast.expr | None) -> bool:
    """Whether a return annotation names ``Table`` anywhere (``Table``, ``report.Table``, ``tuple[Table, dict]``,
    or the same as a string)."""
    if annotation is None:
        return False
    for node in ast.walk(annotation):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _mentions_table(ast.parse(node.value, mode="eval").body):
                return True
        elif (isinstance(node, ast.Name) and node.id == "Table") or (
            isinstance(node, ast.Attribute) and node.attr == "Table"
        ):
            return True
    return False


def table_returns(source: str) -> list[str]:
    """The public functions and public methods of public classes in ``source`` annotated to return a Table."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            found += [node.name] if _mentions_table(node.returns) else []
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            found += [
                f"{node.name}.{item.name}"
                for item in node.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                and not item.name.startswith("_")
                and _mentions_table(item.returns)
            ]
    return found


def imports_table(source: str) -> bool:
    """Whether ``source`` imports ``Table`` from :mod:`grpo_nb.report`."""
    return any(
        isinstance(node, ast.ImportFrom) and node.module == "grpo_nb.report" and "Table" in {a.name for a in node.names}
        for node in ast.walk(ast.parse(source))
    )


def below_the_chapter_layer() -> list[Path]:
    """Every source file of grpo_nb outside grpo_nb/chapters/, less report.py."""
    return [
        p for p in sorted(PACKAGE.rglob("*.py")) if "chapters" not in p.relative_to(PACKAGE).parts[:1]
        and p != PACKAGE / "report.py"
    ]  # fmt: skip


@pytest.mark.parametrize("path", below_the_chapter_layer(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_table_is_built_below_the_chapter_layer(path: Path) -> None:
    source = path.read_text()
    assert table_returns(source) == [], f"{path.name} returns a Table: a chapter table belongs in grpo_nb/chapters/"
    assert not imports_table(source), f"{path.name} imports Table: a chapter table belongs in grpo_nb/chapters/"


def test_the_table_rule_catches_a_table_returned_below_the_chapter_layer() -> None:
    """Negative test: a module that returns (Table, dict), a method that returns "Table" and a private helper."""
    source = (
        "from grpo_nb.report import Table\n"
        "def survey(x) -> tuple[Table, dict]: ...\n"
        "def _rows(x) -> Table: ...\n"
        "class Fit:\n"
        "    def table(self) -> 'Table': ...\n"
        "    def values(self) -> list[float]: ...\n"
        "def plain(x) -> float: ...\n"
    )
    assert table_returns(source) == ["survey", "Fit.table"] and imports_table(source)
    assert table_returns("def f() -> float: ...\n") == [] and not imports_table("from grpo_nb.report import bound\n")


# ---- (b) modules used by one chapter only --------------------------------------------------------------------------


def chapter_of(importer: str) -> str | None:
    """The chapter an importer belongs to: ``book/<page>.md``'s chapter (a sub-page belongs to the chapter that lists
    it in _toc.yml), or its module ``grpo_nb.chapters.<chapter>``
    (a module of the package ``grpo_nb.chapters.<chapter>`` included); None for any other grpo_nb module."""
    if match := re.fullmatch(r"book/(\w+)\.md", importer):
        return PAGE_CHAPTER.get(match.group(1), match.group(1))
    parts = importer.split(".")
    return parts[2] if parts[:2] == ["grpo_nb", "chapters"] and len(parts) > 2 else None


def chapter_only_modules(importers: Mapping[str, set[str]]) -> dict[str, str]:
    """Rule (b): every module whose importers all belong to one chapter, with that chapter."""
    out = {}
    for module, users in importers.items():
        chapters = {chapter_of(user) for user in users}
        if users and len(chapters) == 1 and None not in chapters:
            out[module] = chapters.pop()
    return out


def chapter_imports(md: Path, known: set[str]) -> set[str]:
    """The grpo_nb modules that the code cells of chapter ``md`` import."""
    out: set[str] = set()
    for cell in jupytext.read(md).cells:
        if cell.cell_type == "code":
            out |= imported_modules_in(re.sub(r"^(\s*)[%!].*$", r"\1pass", cell.source, flags=re.M), known)
    return out


def importers_below_the_chapter_layer() -> dict[str, set[str]]:
    """Rule (b)'s modules, each with its importers: chapters as ``book/<chapter>.md``, grpo_nb modules by name."""
    paths = modules()
    graph = import_graph()
    checked = {
        name
        for name, path in paths.items()
        if path.name != "__init__.py" and name.split(".")[1] not in CHAPTER_LAYER and name not in SHARED_HELPERS
    }
    importers: dict[str, set[str]] = {name: set() for name in checked}
    for name, deps in graph.items():
        for dep in deps & checked:
            importers[dep].add(name)
    for md in sorted(BOOK.glob("*.md")):
        for dep in chapter_imports(md, set(paths)) & checked:
            importers[dep].add(f"book/{md.name}")
    return importers


def test_no_module_below_the_chapter_layer_serves_one_chapter_alone() -> None:
    found = chapter_only_modules(importers_below_the_chapter_layer())
    analyses = {m: c for m, c in found.items() if m not in SYMBOLIC_DERIVATIONS}
    assert analyses == {}, f"used by one chapter only, so chapter analyses (move to grpo_nb/chapters/): {analyses}"
    stale = {m: c for m, c in SYMBOLIC_DERIVATIONS.items() if found.get(m) != c}
    assert stale == {}, f"SYMBOLIC_DERIVATIONS lists modules that are not used by that one chapter only: {stale}"


def test_the_derivation_allow_list_holds_symbolic_modules_only() -> None:
    assert all(m.startswith("grpo_nb.symbolic.") and m in modules() for m in SYMBOLIC_DERIVATIONS)


def test_the_one_chapter_rule_catches_a_chapter_analysis_below_the_chapter_layer() -> None:
    """Negative tests: on a synthetic graph, and on the real one with a module that only one chapter imports."""
    synthetic = {
        "grpo_nb.dynamics.survey": {"book/amplification.md", "grpo_nb.chapters.amplification"},
        "grpo_nb.ustat.part": {"grpo_nb.chapters.group_size.finite_groups_law", "book/group_size.md"},
        "grpo_nb.dynamics.shared": {"book/amplification.md", "grpo_nb.dynamics.map"},  # other math builds on it
        "grpo_nb.dynamics.two": {"book/amplification.md", "grpo_nb.chapters.variants"},  # two chapters
        "grpo_nb.dynamics.figure": {"grpo_nb.chapters.amplification", "grpo_nb.plots.dynamics"},  # a figure's
        "grpo_nb.dynamics.unused": set(),
    }
    want = {"grpo_nb.dynamics.survey": "amplification", "grpo_nb.ustat.part": "group_size"}
    assert chapter_only_modules(synthetic) == want
    real = importers_below_the_chapter_layer()
    assert "grpo_nb.dynamics.map" in real and "grpo_nb.chapters.amplification" not in real
    real["grpo_nb.dynamics.survey"] = {"book/amplification.md"}
    assert chapter_only_modules(real).get("grpo_nb.dynamics.survey") == "amplification"


# ---- (c) each chapter its own analyses -----------------------------------------------------------------------------


def test_each_chapter_imports_its_own_analyses_only() -> None:
    known = set(modules())
    own: dict[str, set[str]] = {}
    for md in sorted(BOOK.glob("*.md")):
        chapter = PAGE_CHAPTER.get(md.stem, md.stem)
        own[chapter] = own.get(chapter, set()) | {chapter_of(m) for m in chapter_imports(md, known)} - {None}
    assert {c: used for c, used in own.items() if used - {c}} == {}, "a chapter imports another chapter's analyses"
    analysed = {chapter_of(m) for m in known} - {None}
    assert {c for c in analysed if c not in own.get(c, set())} == set(), "a chapters module its chapter does not use"


def test_chapter_imports_are_read_from_the_code_cells(tmp_path: Path) -> None:
    md = tmp_path / "chapter.md"
    md.write_text(
        "# A chapter\n\n```{code-cell} ipython3\n%matplotlib inline\nfrom grpo_nb.dynamics import regimes as r\n```\n\n"
        "Prose that says `from grpo_nb.kl import k3`.\n\n```{code-cell} ipython3\nimport grpo_nb.weights\n```\n"
    )
    assert chapter_imports(md, set(modules())) == {"grpo_nb.dynamics.regimes", "grpo_nb.weights"}
