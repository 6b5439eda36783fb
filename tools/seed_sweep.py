"""The seed sweep: every claim a chapter makes about a sampled or trained run, evaluated at 20 or more seeds.

    python tools/seed_sweep.py                                  # every sampled chapter, seeds 0..19, two at a time
    python tools/seed_sweep.py --chapters parametric_grpo_runs --seeds 0-23 --jobs 2

A chapter whose runs sample (with torch, or numpy's seeded generators) has a cell tagged ``parameters`` that sets
``SEED`` (``tests/chapters/chapter_runs.py``), and every draw it asserts on follows ``SEED``. For each seed the sweep
takes that chapter's code (from its ``.md`` source, so that a chapter can be swept before its ``.ipynb`` is rendered
with the report) at the seed (``chapter_runs.with_seed``: the cells tagged ``seeded`` where there are some,
else every cell), rewrites every ``assert`` so that it records whether it held and its margin instead of stopping the
run, and the value of every ``seed_claim(...)`` likewise (``tools/seed_sweep_runtime.py``), and runs it alone in an
empty folder against a non-editable install of ``grpo_nb`` on the simulated other machine of the chapter tests (one
thread, torch without vector kernels, the transcendental functions of numpy and torch one unit in the last place
off). The records of
all seeds become the chapter's entry of the robustness report ``grpo_nb/data/seed_sweep.json`` (package data;
chapters read it through ``grpo_nb.report.seed_claim``): per claim, at how many seeds it held and its smallest margin.
The entry also holds the chapter's *fingerprint*, a hash of the code the sweep ran: the notebook's code cells and every
``grpo_nb`` module they import, directly or not. ``tests/chapters/test_seed_sweep.py`` fails when a live ``assert`` of a
chapter did not hold at every seed of the report, or when the fingerprint no longer matches the code.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import hashlib
import json
import platform
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import jupytext
import nbformat

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.book_layout import chapter_notebooks  # noqa: E402
from tests.chapters.chapter_runs import install_package, other_machine_env, with_seed  # noqa: E402

RUNTIME = Path(__file__).with_name("seed_sweep_runtime.py")
REPORT = ROOT / "grpo_nb" / "data" / "seed_sweep.json"
PACKAGE = ROOT / "grpo_nb"
MIN_SEEDS = 20
CELL_TIMEOUT_S = 300  # far above the slowest swept cell; past it the kernel has hung, and the seed is run again
RETRIES = 2
CLAIM_CALL = "seed_claim"  # grpo_nb.report.seed_claim(chapter, name, value)


def read_chapter(path: Path) -> nbformat.NotebookNode:
    """A chapter's cells from its source: the MyST ``.md`` (whose code cells ``tests/chapters/test_notebook_pairs.py``
    holds equal to the ``.ipynb``'s), or a notebook file (``.ipynb``, a test fixture's ``.json``)."""
    path = Path(path)
    return jupytext.read(path) if path.suffix == ".md" else nbformat.read(path, as_version=4)


def sampled_chapters() -> list[str]:
    """The chapters whose sampled computations follow ``SEED``: those with a cell tagged ``parameters``."""
    return [
        nb.stem
        for nb in chapter_notebooks()
        if any("parameters" in c.metadata.get("tags", []) for c in read_chapter(nb.with_suffix(".md")).cells)
    ]


# --- which cells run, and what in them is a claim ------------------------------------------------------------------


def is_bootstrap(cell: nbformat.NotebookNode) -> bool:
    """The Colab bootstrap cell (it installs grpo_nb where it is missing and does nothing otherwise)."""
    return cell.cell_type == "code" and cell.source.lstrip().startswith("# Colab bootstrap")


def swept_cells(nb: nbformat.NotebookNode, seed: int = 0) -> list[nbformat.NotebookNode]:
    """The code cells the sweep runs at ``seed``, less the bootstrap and the cell that sets ``SEED``."""
    return _seeded_code_cells(with_seed(nb, seed))


def _is_claim_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name == CLAIM_CALL and len(node.args) == 3 and isinstance(node.args[1], ast.Constant)


def claims_in(source: str) -> list[tuple[str, str]]:
    """The claims of one cell, in order: ``("assert", <test as source>)`` and ``("stated", <name>)``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            out.append((node.lineno, node.col_offset, "assert", ast.unparse(node.test)))
        elif _is_claim_call(node):
            out.append((node.lineno, node.col_offset, "stated", node.args[1].value))
    return [(kind, key) for *_, kind, key in sorted(out)]


def claim_keys(cells: list[nbformat.NotebookNode]) -> list[tuple[str, str]]:
    """Every claim of ``cells`` as (kind, key); a key that repeats gets ``#2``, ``#3``, ... in notebook order."""
    seen: dict[str, int] = {}
    out = []
    for cell in cells:
        for kind, key in claims_in(cell.source):
            seen[key] = seen.get(key, 0) + 1
            out.append((kind, key if seen[key] == 1 else f"{key}#{seen[key]}"))
    return out


# --- instrumenting a cell ------------------------------------------------------------------------------------------


def _call(name: str, *args: ast.expr) -> ast.Call:
    func = ast.Attribute(value=ast.Name(id="__sweep__", ctx=ast.Load()), attr=name, ctx=ast.Load())
    return ast.Call(func=func, args=list(args), keywords=[])


def _thunk(expr: ast.expr) -> ast.Lambda:
    no_args = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
    return ast.Lambda(args=no_args, body=expr)


_OPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


def instrument(expr: ast.expr) -> ast.expr:
    """``expr`` rewritten to compute a ``Verdict`` (``tools/seed_sweep_runtime.py``) with its margin."""
    if isinstance(expr, ast.Compare) and all(type(op) in _OPS for op in expr.ops):
        ops = [ast.Constant(_OPS[type(op)]) for op in expr.ops]
        if len(ops) == 1:
            return _call("compare", expr.left, ops[0], expr.comparators[0])
        values = ast.List(elts=[expr.left, *expr.comparators], ctx=ast.Load())
        return _call("chain", values, ast.List(elts=ops, ctx=ast.Load()))
    if isinstance(expr, ast.BoolOp):
        name = "both" if isinstance(expr.op, ast.And) else "either"
        return _call(name, *[_thunk(instrument(v)) for v in expr.values])
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return _call("negate", instrument(expr.operand))
    if isinstance(expr, ast.Call) and not expr.keywords:
        func = expr.func
        if isinstance(func, ast.Attribute) and func.attr in ("all", "any") and not expr.args:
            inner = func.value
            if isinstance(func.value, ast.Name) and func.value.id in ("np", "numpy"):
                inner = None
            if inner is not None:
                return _call("reduce", instrument(inner), ast.Constant(func.attr))
        if (
            isinstance(func, ast.Attribute)
            and func.attr in ("all", "any")
            and isinstance(func.value, ast.Name)
            and func.value.id in ("np", "numpy")
            and len(expr.args) == 1
        ):
            return _call("reduce", instrument(expr.args[0]), ast.Constant(func.attr))
    return expr


class _Recording(ast.NodeTransformer):
    """Rewrites each claim node found in ``keys`` (node id -> key) to record under its key."""

    def __init__(self, keys: dict[int, str]) -> None:
        self.keys = keys

    def visit_Assert(self, node: ast.Assert) -> ast.stmt:
        new = ast.Expr(_call("record", ast.Constant(self.keys[id(node)]), instrument(node.test)))
        return ast.copy_location(new, node)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        key = self.keys.get(id(node))
        self.generic_visit(node)
        if key is not None:
            node.args[2] = _call("record_value", ast.Constant(key), instrument(node.args[2]))
        return node


def instrumented_source(source: str, keys: list[str]) -> str:
    """``source`` with its claims (in the order :func:`claims_in` lists them) recording under ``keys``."""
    tree = ast.parse(source)
    ordered = sorted(
        (n for n in ast.walk(tree) if isinstance(n, ast.Assert) or _is_claim_call(n)),
        key=lambda n: (n.lineno, n.col_offset),
    )
    tree = _Recording(dict(zip(map(id, ordered), keys, strict=True))).visit(tree)
    return ast.unparse(ast.fix_missing_locations(tree))


def _seeded_code_cells(seeded: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The code cells of a notebook made by ``with_seed``, less the bootstrap and the cell that sets ``SEED``."""
    index = next(i for i, c in enumerate(seeded.cells) if "parameters" in c.metadata.get("tags", []))
    return [c for i, c in enumerate(seeded.cells) if c.cell_type == "code" and i != index + 1 and not is_bootstrap(c)]


def instrumented_notebook(nb: nbformat.NotebookNode, seed: int, records: Path) -> nbformat.NotebookNode:
    """The notebook the sweep runs at ``seed``: ``with_seed``'s code cells with their claims recording, after a
    cell that loads the runtime, and a last cell that writes the records to ``records``."""
    seeded = with_seed(nb, seed)
    cells = _seeded_code_cells(seeded)
    keys = iter(key for _, key in claim_keys(cells))
    for cell in cells:
        n = len(claims_in(cell.source))
        if n:
            cell.metadata["sweep_keys"] = [next(keys) for _ in range(n)]
            cell.source = instrumented_source(cell.source, cell.metadata["sweep_keys"])
    head = nbformat.v4.new_code_cell(
        "import seed_sweep_runtime as __sweep__\n"
        "import grpo_nb.report\n"
        "# the report being made may not hold this chapter or its claims yet\n"
        "grpo_nb.report.seed_claim, grpo_nb.report.seed_sweep_summary = __sweep__.stated, __sweep__.summary"
    )
    tail = nbformat.v4.new_code_cell(f"__sweep__.dump({str(records)!r})")
    seeded.cells = [head, *[c for c in seeded.cells if c.cell_type == "code"], tail]
    return seeded


# --- the fingerprint -----------------------------------------------------------------------------------------------


def _package_modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imports(source: str, known: set[str]) -> set[str]:
    out: set[str] = set()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return out
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        for name in names:
            parts = name.split(".")
            out |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)} & known  # parents run their __init__
    return out


def import_closure(sources: list[str]) -> list[Path]:
    """Every ``grpo_nb`` module that ``sources`` import, directly or through other modules (imports anywhere in a
    body count, as they may run)."""
    modules = _package_modules()
    known = set(modules)
    todo = set().union(*(_imports(s, known) for s in sources)) if sources else set()
    done: set[str] = set()
    while todo:
        name = todo.pop()
        done.add(name)
        todo |= _imports(modules[name].read_text(), known) - done
    return sorted(modules[name] for name in done)


def fingerprint(nb: nbformat.NotebookNode) -> str:
    """A hash of the code a sweep of ``nb`` runs: its swept cells and the package modules they import."""
    sources = [c.source for c in swept_cells(nb)]
    digest = hashlib.sha256()
    for source in sources:
        digest.update(b"cell\0" + source.encode() + b"\0")
    for path in import_closure(sources):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


# --- running the sweep ---------------------------------------------------------------------------------------------


def run_seed(notebook: str, seed: int, site: str, workdir: str) -> dict:
    """Run ``notebook`` instrumented at ``seed`` alone in an empty folder; return its claim records and errors.

    A kernel that dies or never answers (two kernels started at once can pick the same port) is a failure of the
    machinery, not of a claim: the seed is run again in a fresh kernel, up to ``RETRIES`` times. A cell that runs
    past ``CELL_TIMEOUT_S`` in a live kernel is the chapter's error and is recorded as such."""
    for attempt in range(RETRIES + 1):
        try:
            return _run_seed_once(notebook, seed, site, workdir)
        except Exception as exc:  # a cell's own error is an output (allow_errors): this is the kernel's
            if attempt == RETRIES:
                raise
            print(f"{Path(notebook).stem} seed {seed}: {type(exc).__name__}, run again", flush=True)
    raise AssertionError("unreachable")


def _run_seed_once(notebook: str, seed: int, site: str, workdir: str) -> dict:
    from nbclient import NotebookClient

    folder = Path(workdir) / f"{Path(notebook).stem}-{seed}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    shutil.copy(RUNTIME, folder / RUNTIME.name)
    records = folder / "records.json"
    nb = instrumented_notebook(read_chapter(Path(notebook)), seed, records)
    env = other_machine_env(Path(site), folder / ".ipython")
    start = time.perf_counter()
    client = NotebookClient(
        nb, timeout=CELL_TIMEOUT_S, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": folder}}
    )
    client.execute(env=env)  # nbclient hands ``env`` on to the kernel manager: the kernel runs in it
    failed = [(i, o) for i, c in enumerate(nb.cells) for o in c.get("outputs", []) if o.get("output_type") == "error"]
    errors = [f"cell {i}: {o.get('ename')}: {o.get('evalue')}" for i, o in failed]
    recs = json.loads(records.read_text()) if records.exists() else []
    cells = {key: i for i, c in enumerate(nb.cells) for key in c.metadata.get("sweep_keys", [])}
    return {
        "seed": seed,
        "records": recs,
        "errors": errors,
        "first_error_cell": failed[0][0] if failed else None,
        "claim_cells": cells,
        "wall_s": time.perf_counter() - start,
    }


def aggregate(runs: list[dict], keys: list[tuple[str, str]]) -> list[dict]:
    """Per claim: the seeds where it held at every evaluation, and its smallest margins over seeds. A claim that a run
    did not reach counts as failed at that seed where a cell at or before the claim's raised an error, and as not
    reached where none did (an assert in a branch that this machine does not take, such as a GPU's)."""
    seeds = [r["seed"] for r in runs]
    out = []
    for kind, key in keys:
        held, failed, unreached, margins, relatives = [], [], [], [], []
        for run in runs:
            recs = [r for r in run["records"] if r["key"] == key]
            first_error, cell = run.get("first_error_cell"), run.get("claim_cells", {}).get(key, 0)
            if not recs and (first_error is None or first_error > cell):
                unreached.append(run["seed"])
            elif recs and all(r["held"] for r in recs):
                held.append(run["seed"])
            else:
                failed.append(run["seed"])
            m = [r["margin"] for r in recs if r["margin"] is not None]
            rel = [r["relative_margin"] for r in recs if r["relative_margin"] is not None]
            margins.append(min(m) if m else None)
            relatives.append(min(rel) if rel else None)
        numeric = [m for m in margins if m is not None]
        numeric_rel = [m for m in relatives if m is not None]
        out.append(
            {
                "kind": kind,
                "key": key,
                "held": len(held),
                "n_seeds": len(seeds) - len(unreached),
                "failed_seeds": failed,
                "not_reached_seeds": unreached,
                "smallest_margin": min(numeric) if numeric else None,
                "smallest_relative_margin": min(numeric_rel) if numeric_rel else None,
                "margin_per_seed": margins,
            }
        )
    return out


def sweep_chapter(notebook: Path, seeds: list[int], jobs: int, workdir: Path, site: Path) -> list[dict]:
    """One chapter's runs at ``seeds``, ``jobs`` at a time (:func:`run_seed`)."""
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_seed, str(notebook), s, str(site), str(workdir)) for s in seeds]
        runs = []
        for f in futures:
            run = f.result()
            runs.append(run)
            print(f"{notebook.stem} seed {run['seed']}: {run['wall_s']:.0f} s, errors {run['errors']}", flush=True)
    return runs


def entry_from_runs(nb: nbformat.NotebookNode, runs: list[dict]) -> dict:
    """The report entry of a chapter from its runs, one per seed; the runs' raw records are kept in it, so that a
    seed can be run again and the entry rebuilt (``--rerun``)."""
    runs = sorted(runs, key=lambda r: r["seed"])
    return {
        "fingerprint": fingerprint(nb),
        "seeds": [r["seed"] for r in runs],
        "claims": aggregate(runs, claim_keys(swept_cells(nb))),
        "errors": {str(r["seed"]): r["errors"] for r in runs if r["errors"]},
        "wall_s": {str(r["seed"]): None if r["wall_s"] is None else round(r["wall_s"], 1) for r in runs},
        "runs": [{k: r[k] for k in ("seed", "records", "errors", "first_error_cell", "claim_cells")} for r in runs],
    }


def machine() -> dict:
    import numpy
    import torch

    from grpo_nb.toylm.device import cpu_name

    return {
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": cpu_name(),
        "numpy": numpy.__version__,
        "torch": torch.__version__,
        "settings": "one thread, torch without vector kernels, numpy's and torch's transcendentals one ulp off",
    }


# --- reading a report against the code -----------------------------------------------------------------------------


def violations(entry: dict | None, nb: nbformat.NotebookNode, *, min_seeds: int = MIN_SEEDS) -> list[str]:
    """What is wrong between a chapter's report ``entry`` and its notebook ``nb`` as it is now: no entry, too few
    seeds, a fingerprint of other code (the report is older than the code), a claim the report does not hold, or a
    live ``assert`` that failed at some seed of the report. Empty when the chapter may assert what it asserts. (How
    close each claim came to its threshold is in the report, and the command line lists the thinnest; a count that
    meets its bound exactly, or a KL that stays 0, holds at equality by nature, so equality is not a failure.)"""
    if entry is None:
        return ["the report has no entry for this chapter"]
    problems = []
    if len(entry["seeds"]) < min_seeds:
        problems.append(f"the sweep ran {len(entry['seeds'])} seeds, fewer than {min_seeds}")
    if entry["fingerprint"] != fingerprint(nb):
        problems.append("the report is older than the code: the fingerprint of the chapter's code has changed")
    recorded = {c["key"]: c for c in entry["claims"]}
    for kind, key in claim_keys(swept_cells(nb)):
        claim = recorded.get(key)
        if claim is None:
            problems.append(f"{kind} {key!r} is not in the report")
        elif kind == "assert" and claim["failed_seeds"]:
            held = f"{claim['held']} of {claim['n_seeds']}"
            problems.append(f"assert {key!r} held at {held} seeds (failed at {claim['failed_seeds']})")
    return problems


def parse_seeds(text: str) -> list[int]:
    """``"0-19"`` or ``"0,3,5"`` as a list of seeds."""
    if "-" in text:
        a, b = text.split("-")
        return list(range(int(a), int(b) + 1))
    return [int(s) for s in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapters", nargs="+", default=None, help="chapters to sweep (default: every sampled one)")
    parser.add_argument("--notebook", type=Path, default=None, help="sweep this notebook instead (a test fixture)")
    parser.add_argument("--seeds", default=f"0-{MIN_SEEDS - 1}", help="e.g. 0-19 or 0,1,2")
    parser.add_argument("--jobs", type=int, default=2, help="seeds run at once (each kernel on one thread)")
    parser.add_argument("--out", type=Path, default=REPORT, help="the report (entries of other chapters are kept)")
    parser.add_argument("--rerun", action="store_true", help="run only --seeds again and keep the entry's other seeds")
    args = parser.parse_args(argv)
    seeds = parse_seeds(args.seeds)
    chapters = args.chapters or sampled_chapters()
    notebooks = [args.notebook] if args.notebook else [ROOT / "book" / f"{c}.md" for c in chapters]
    report = json.loads(args.out.read_text()) if args.out.exists() else {"schema": 1, "chapters": {}}
    with tempfile.TemporaryDirectory() as tmp:
        site = install_package(Path(tmp) / "install")
        for notebook in notebooks:
            nb, kept = read_chapter(notebook), []
            if args.rerun:
                old = report["chapters"][notebook.stem]
                if old["fingerprint"] != fingerprint(nb):
                    parser.error(f"--rerun: {notebook.stem}'s code has changed since its sweep; sweep every seed")
                kept = [r | {"wall_s": old["wall_s"][str(r["seed"])]} for r in old["runs"] if r["seed"] not in seeds]
            runs = sweep_chapter(notebook, seeds, args.jobs, Path(tmp) / "runs", site)
            entry = entry_from_runs(nb, kept + runs)
            entry["machine"] = machine()
            report["chapters"][notebook.stem] = entry
            args.out.write_text(json.dumps(report, indent=1) + "\n")  # after each chapter: a cut-off sweep keeps it
    for name, entry in report["chapters"].items():
        failed = [c for c in entry["claims"] if c["held"] < c["n_seeds"]]
        print(f"{name}: {len(entry['claims'])} claims, {len(failed)} not held at every seed")
        for c in failed:
            print(f"   {c['kind']} {c['key']!r}: {c['held']}/{c['n_seeds']}")
        thin = [c for c in entry["claims"] if c["held"] == c["n_seeds"] and (c["smallest_relative_margin"] or 1) < 0.01]
        for c in thin:
            print(f"   thin margin ({c['smallest_relative_margin']:.1e} relative): {c['key']!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
