"""The package's import graph: no cycle, and no import from a lower layer to a higher one.

Layers, bottom up: the math (every module outside the packages below), ``grpo_nb.plots`` (computes and draws a
figure), ``grpo_nb.widgets`` (sliders around a figure), ``grpo_nb.chapters`` (a chapter's analyses). Every import
counts, including those inside functions and under ``TYPE_CHECKING``: a function-local import hides a cycle, it does
not break it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "grpo_nb"
LAYERS = {"plots": 1, "widgets": 2, "chapters": 3}


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
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
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
