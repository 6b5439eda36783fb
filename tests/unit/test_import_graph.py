"""The package's import graph: no cycle, and no import from a lower layer to a higher one.

Layers, bottom up: the math (every module outside the packages below), ``grpo_nb.plots`` (computes and draws a
figure), ``grpo_nb.widgets`` (sliders around a figure), ``grpo_nb.chapters`` (a chapter's analyses). Every import
counts, including those inside functions and under ``TYPE_CHECKING``: a function-local import hides a cycle, it does
not break it.

Within the math layer, ``grpo_nb.trl_adapters`` (the toy LM trained by TRL, which needs the ``trl`` extra) stands on
``grpo_nb.toylm``: no ``toylm`` module imports it when it is imported, and only the command line
(``grpo_nb.toylm.__main__``) imports it at all, inside the functions of ``--trainer trl`` (``STANDS_ON``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "grpo_nb"
LAYERS = {"plots": 1, "widgets": 2, "chapters": 3}
#: upper package -> (the package it stands on, the modules of that package that may import it inside a function)
STANDS_ON = {"grpo_nb.trl_adapters": ("grpo_nb.toylm", {"grpo_nb.toylm.__main__"})}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imported_modules(path: Path, known: set[str]) -> set[str]:
    """The grpo_nb modules ``path`` imports anywhere in its body (``from pkg import sub`` counts as ``pkg.sub``)."""
    return imported_modules_in(path.read_text(), known)


def imported_modules_in(source: str, known: set[str]) -> set[str]:
    """The grpo_nb modules that Python ``source`` imports anywhere (see :func:`imported_modules`)."""
    return _imports(ast.walk(ast.parse(source)), known)


def module_level_imports_in(source: str, known: set[str]) -> set[str]:
    """The grpo_nb modules that Python ``source`` imports when it is imported: every import outside a function body
    (class bodies and ``if`` blocks run at import, so they count)."""
    nodes, stack = [], [ast.parse(source)]
    while stack:
        node = stack.pop()
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            nodes.append(node)
            stack.extend(ast.iter_child_nodes(node))
    return _imports(nodes, known)


def _imports(nodes: Iterable[ast.AST], known: set[str]) -> set[str]:
    """The grpo_nb modules the import statements among ``nodes`` name (``from pkg import sub`` counts as
    ``pkg.sub``)."""
    out: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names if alias.name in known}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module in known:
            subs = {f"{node.module}.{alias.name}" for alias in node.names} & known
            out |= subs or {node.module}
            if len(subs) < len(node.names):
                out.add(node.module)
    return out


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imported_modules(path, known) - {name} for name, path in mods.items()}


def layer(name: str) -> int:
    parts = name.split(".")
    return LAYERS.get(parts[1], 0) if len(parts) > 1 else 0


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a list of modules (first == last), or None; package ``__init__`` files that only
    re-export their submodules are left out (importing a submodule does not need its parent's re-exports)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def without_packages(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    packages = {name for name, path in modules().items() if path.name == "__init__.py"}
    return {name: deps - packages for name, deps in graph.items() if name not in packages}


def test_the_import_graph_has_no_cycle() -> None:
    assert find_cycle(without_packages(import_graph())) is None


def test_no_module_imports_from_a_higher_layer() -> None:
    upward = [(a, b) for a, deps in import_graph().items() for b in deps if layer(b) > layer(a)]
    assert upward == []


def in_package(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def standing_findings(graph: dict[str, set[str]], eager: dict[str, set[str]]) -> list[str]:
    """Imports that break ``STANDS_ON``: a module of the lower package importing the upper one when it is imported
    (``eager``: module-level imports), or from a module not allowed to import it at all (``graph``: every import)."""
    out = []
    for upper, (lower, allowed) in STANDS_ON.items():
        for name in sorted(graph):
            if not in_package(name, lower):
                continue
            if any(in_package(dep, upper) for dep in eager.get(name, ())):
                out.append(f"{name} imports {upper} at module level")
            if name not in allowed and any(in_package(dep, upper) for dep in graph[name]):
                out.append(f"{name} imports {upper}; only {sorted(allowed)} may, inside a function")
    return out


def test_the_trl_adapters_stand_on_toylm() -> None:
    mods = modules()
    known = set(mods)
    eager = {name: module_level_imports_in(path.read_text(), known) - {name} for name, path in mods.items()}
    assert standing_findings(import_graph(), eager) == []
    assert any(in_package(dep, "grpo_nb.toylm") for dep in import_graph()["grpo_nb.trl_adapters.trainer"])


def test_the_standing_rule_catches_an_eager_or_a_stray_import() -> None:
    """Negative tests: toylm's CLI importing the adapters at module level, another toylm module importing them at
    all; the CLI's import inside a function passes, and a function-local import is no module-level one."""
    known = {"grpo_nb.trl_adapters.trainer", "grpo_nb.toylm.configs"}
    lazy = "def main():\n    from grpo_nb.trl_adapters.trainer import TRL_CONFIGS\n"
    eager = "from grpo_nb.trl_adapters.trainer import TRL_CONFIGS\n"
    assert module_level_imports_in(lazy, known) == set() and imported_modules_in(lazy, known) == {
        "grpo_nb.trl_adapters.trainer"
    }
    assert module_level_imports_in(eager, known) == {"grpo_nb.trl_adapters.trainer"}
    cli, other = "grpo_nb.toylm.__main__", "grpo_nb.toylm.experiment"
    sources = {cli: lazy, other: "import numpy\n"}
    graph = {name: imported_modules_in(src, known) for name, src in sources.items()}
    eager_graph = {name: module_level_imports_in(src, known) for name, src in sources.items()}
    assert standing_findings(graph, eager_graph) == []
    assert standing_findings({cli: {"grpo_nb.trl_adapters.trainer"}}, {cli: {"grpo_nb.trl_adapters.trainer"}}) == [
        "grpo_nb.toylm.__main__ imports grpo_nb.trl_adapters at module level"
    ]
    (stray,) = standing_findings({other: {"grpo_nb.trl_adapters.trainer"}}, {other: set()})
    assert stray.startswith("grpo_nb.toylm.experiment imports grpo_nb.trl_adapters; only ['grpo_nb.toylm.__main__']")


def test_the_graph_checks_catch_a_cycle_and_an_upward_import() -> None:
    """Negative tests: a two-module cycle and a math module importing a plot are found."""
    assert find_cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    assert layer("grpo_nb.dynamics.map") < layer("grpo_nb.plots.dynamics") < layer("grpo_nb.widgets.dynamics")
    known = set(modules())
    assert "grpo_nb.dynamics.map" in imported_modules(PACKAGE / "dynamics" / "fixed_points.py", known)


@pytest.mark.parametrize("name", ["grpo_nb.toylm.configs", "grpo_nb.dynamics.fixed_points"])
def test_function_local_imports_are_seen(name: str, tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(f"def f():\n    import {name}\n")
    assert imported_modules(source, set(modules())) == {name}
