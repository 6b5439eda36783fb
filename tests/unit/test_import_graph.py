"""The package's import graph: no cycle, and no import from a lower layer to a higher one.

Every package of ``grpo_nb`` and every module at its top has a layer (:data:`LAYERS`, bottom up); a module imports
only from its own layer or one below it, and a package or top-level module without a layer fails
(:func:`unplaced`). The layers, from the bottom: the shared helpers (input checks, named values, tables) and the
browser figures' list of kinds; the formulas every other module calls (Eq. 4's weights, the group advantages, the
clipped term, the KL estimators); policies over outcomes and the success map h; the sympy derivations; the variants,
the U-statistic of group size and the GRPO family; the book's toy-LM trainer; what stands on it (TRL's trainer on the
same task, a small pretrained LM), each with its own command line; the figures; the sliders around them; the
chapters' analyses. Every import counts, including those inside functions and under ``TYPE_CHECKING``: a
function-local import hides a dependency, it does not remove it. Negative tests: synthetic upward imports (the
toy-LM package importing TRL's adapters, a derivation importing the family, a formula importing a figure), a
package without a layer and a cycle are found.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "grpo_nb"
#: The layers of grpo_nb, bottom up: each package and top-level module by its name (``grpo_nb``: the package's own
#: ``__init__``). A module may import from its own layer and the layers below it.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"grpo_nb", "validation", "constants", "report", "browser"}),
    frozenset({"weights", "advantage", "clipping", "kl"}),
    frozenset({"tabular", "dynamics"}),
    frozenset({"symbolic"}),
    frozenset({"variants", "ustat", "family"}),
    frozenset({"toylm"}),
    frozenset({"trl_adapters", "smollm"}),
    frozenset({"plots"}),
    frozenset({"widgets"}),
    frozenset({"chapters"}),
)


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


def top_level(name: str) -> str:
    """The package or top-level module of grpo_nb that module ``name`` belongs to (``grpo_nb`` for the package's
    ``__init__``)."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def layer(name: str) -> int:
    """The layer of module ``name`` (its index in :data:`LAYERS`); ValueError where its package has none."""
    for index, members in enumerate(LAYERS):
        if top_level(name) in members:
            return index
    raise ValueError(f"{name} is in {top_level(name)!r}, which has no layer in LAYERS; place it there")


def unplaced(names: Iterable[str]) -> list[str]:
    """The packages and top-level modules of ``names`` that no layer holds."""
    placed = set().union(*LAYERS)
    return sorted({top_level(name) for name in names} - placed)


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every import in ``graph`` from a module to one of a higher layer, as "a (layer) imports b (layer)"."""
    return [
        f"{a} ({top_level(a)}, layer {layer(a)}) imports {b} ({top_level(b)}, layer {layer(b)})"
        for a, deps in sorted(graph.items())
        for b in sorted(deps)
        if layer(b) > layer(a)
    ]


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


def test_every_package_and_top_level_module_has_a_layer() -> None:
    names = set(modules())
    assert unplaced(names) == []
    assert sorted(set().union(*LAYERS) - {top_level(name) for name in names}) == [], "a layer names a missing package"


def test_no_module_imports_from_a_higher_layer() -> None:
    assert upward_imports(import_graph()) == []


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("grpo_nb.toylm.__main__", "grpo_nb.trl_adapters.trainer"),  # the book's trainer reaching for TRL's
        ("grpo_nb.symbolic.errata", "grpo_nb.family.loss"),  # a derivation reaching for the family
        ("grpo_nb.dynamics.map", "grpo_nb.plots.dynamics"),  # a formula reaching for a figure
        ("grpo_nb.validation", "grpo_nb.weights"),  # a shared helper reaching for a formula
        ("grpo_nb.plots.distribution", "grpo_nb.chapters.distribution.toy_lm"),  # a figure reaching for a chapter
    ],
)
def test_a_synthetic_upward_import_is_flagged(importer: str, imported: str) -> None:
    (finding,) = upward_imports({importer: {imported}})
    assert finding.startswith(f"{importer} (") and f"imports {imported} (" in finding
    assert upward_imports({imported: {importer}}) == []  # the same edge downward is allowed


def test_imports_within_a_layer_pass_and_a_package_without_a_layer_fails() -> None:
    assert upward_imports({"grpo_nb.advantage": {"grpo_nb.weights"}, "grpo_nb.ustat.x": {"grpo_nb.family.y"}}) == []
    assert unplaced(["grpo_nb.dynamics.map", "grpo_nb.newpkg.core", "grpo_nb.loose"]) == ["loose", "newpkg"]
    with pytest.raises(ValueError, match="'newpkg', which has no layer"):
        upward_imports({"grpo_nb.newpkg.core": {"grpo_nb.dynamics.map"}})


def test_the_graph_checks_catch_a_cycle_and_see_real_imports() -> None:
    """Negative tests: a two-module cycle is found; the graph holds a real import, and the trainers' order."""
    assert find_cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    assert layer("grpo_nb.dynamics.map") < layer("grpo_nb.plots.dynamics") < layer("grpo_nb.widgets.dynamics")
    assert layer("grpo_nb.toylm.grpo") < layer("grpo_nb.trl_adapters.trainer")
    graph = import_graph()
    assert "grpo_nb.dynamics.map" in graph["grpo_nb.dynamics.fixed_points"]
    assert any(dep.startswith("grpo_nb.toylm.") for dep in graph["grpo_nb.trl_adapters.trainer"])


@pytest.mark.parametrize("name", ["grpo_nb.toylm.configs", "grpo_nb.dynamics.fixed_points"])
def test_function_local_imports_are_seen(name: str, tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(f"def f():\n    import {name}\n")
    assert imported_modules(source, set(modules())) == {name}
