"""Claims about sampled runs are asserted only where the committed seed sweep saw them hold at every seed.

``tools/seed_sweep.py`` runs each chapter whose draws follow a ``SEED`` parameter (``seed_sweep.sampled_chapters``: the
torch chapters and those with numpy Monte Carlo runs) at 20 or more seeds, alone on the simulated other machine, with
every ``assert`` recording instead of stopping, and writes ``grpo_nb/data/seed_sweep.json``. Here, without running
anything long:

- every live ``assert`` of those chapters (in the cells the sweep runs) held at every seed of the report, and every
  claim a chapter states as a frequency (``grpo_nb.report.seed_claim``) is in the report;
- the report is not older than the code: each chapter's fingerprint (its swept code cells and every ``grpo_nb``
  module they import) matches the code as it is;
- the check itself can fail: a fixture notebook whose assert holds at some seeds only, swept here, fails it, and so
  does a report whose chapter code has changed since.

The per-seed nbval runs (``test_chapter_seeds*.py``) stay as a live sample of the sweep.
"""

from __future__ import annotations

import ast
import json
import re
import shutil

import jupytext
import nbformat
import pytest

from grpo_nb.report import seed_claim, seed_sweep_report
from tests.book_layout import BOOK, ROOT
from tests.chapters.chapter_runs import TORCH_CHAPTERS
from tools import seed_sweep, seed_sweep_runtime

FRAGILE = ROOT / "tests" / "fixtures" / "notebooks" / "seed_fragile.json"


def chapter(name: str) -> nbformat.NotebookNode:
    return seed_sweep.read_chapter(BOOK / f"{name}.md")


@pytest.mark.parametrize("name", seed_sweep.sampled_chapters())
def test_every_live_claim_held_at_every_seed_of_the_sweep(name):
    entry = seed_sweep_report()["chapters"].get(name)
    assert seed_sweep.violations(entry, chapter(name)) == []


def test_the_sweep_covers_every_sampled_chapter_at_twenty_seeds_or_more():
    report, sampled = seed_sweep_report(), seed_sweep.sampled_chapters()
    assert set(TORCH_CHAPTERS) <= set(sampled) == set(report["chapters"])  # no entry of a page that is gone
    assert all(len(report["chapters"][c]["seeds"]) >= seed_sweep.MIN_SEEDS >= 20 for c in sampled)
    assert (ROOT / "grpo_nb" / "data" / "seed_sweep.json").is_file()  # package data: Colab finds it


@pytest.fixture(scope="module")
def fragile_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "report.json"
    seed_sweep.main(["--notebook", str(FRAGILE), "--seeds", "0-5", "--out", str(out)])
    return json.loads(out.read_text())["chapters"]["seed_fragile"]


def test_a_claim_that_holds_at_some_seeds_only_fails_the_check(fragile_report):
    nb = nbformat.read(FRAGILE, as_version=4)
    (claim,) = fragile_report["claims"]
    assert 0 < claim["held"] < claim["n_seeds"] == 6
    problems = seed_sweep.violations(fragile_report, nb, min_seeds=6)
    assert len(problems) == 1 and "draws.sum() == 3" in problems[0] and "held at" in problems[0]
    assert any("fewer than 20" in p for p in seed_sweep.violations(fragile_report, nb))


def test_a_report_older_than_the_code_fails_the_check(fragile_report):
    nb = nbformat.read(FRAGILE, as_version=4)
    nb.cells[-1].source = nb.cells[-1].source.replace("size=3", "size=4")
    assert any("older than the code" in p for p in seed_sweep.violations(fragile_report, nb, min_seeds=6))


def test_a_package_module_a_chapter_imports_is_part_of_its_fingerprint(tmp_path, monkeypatch):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("from grpo_nb.dynamics.map import h", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("assert h(0.5, 0.5, 1.0, 1e-5) > 0.5"),
    ]
    shutil.copytree(ROOT / "grpo_nb", tmp_path / "grpo_nb", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(seed_sweep, "ROOT", tmp_path)
    monkeypatch.setattr(seed_sweep, "PACKAGE", tmp_path / "grpo_nb")
    before = seed_sweep.fingerprint(nb)
    closure = {p.relative_to(tmp_path).as_posix() for p in seed_sweep.import_closure([nb.cells[0].source])}
    assert {"grpo_nb/__init__.py", "grpo_nb/dynamics/__init__.py", "grpo_nb/dynamics/map.py"} <= closure
    validation = tmp_path / "grpo_nb" / "validation.py"  # imported by dynamics.map, not by the cell
    validation.write_text(validation.read_text() + "\n# changed\n")
    assert seed_sweep.fingerprint(nb) != before


def run_instrumented(source: str, namespace: dict) -> list[dict]:
    seed_sweep_runtime.RECORDS.clear()
    keys = [key for _, key in seed_sweep.claim_keys([nbformat.v4.new_code_cell(source)])]
    code = seed_sweep.instrumented_source(source, keys)
    exec(compile(code, "<cell>", "exec"), {"__sweep__": seed_sweep_runtime, **namespace})
    return list(seed_sweep_runtime.RECORDS)


def test_an_instrumented_assert_records_its_margin_and_does_not_stop():
    import numpy as np

    source = "assert x < 3 and (arr > 0.5).all()\nassert x > 2  # fails\nassert (arr > 1.5).any()\nassert x == 1"
    recs = run_instrumented(source, {"x": 1.0, "arr": np.array([1.0, 2.0]), "np": np})
    assert [r["held"] for r in recs] == [True, False, True, True]
    assert recs[0]["margin"] == pytest.approx(0.5) and recs[1]["margin"] == pytest.approx(-1.0)
    assert recs[2]["margin"] == pytest.approx(0.5) and recs[3]["margin"] is None
    assert recs[0]["relative_margin"] == pytest.approx(0.5)  # (1 - 0.5) / max(|1|, |0.5|)


def test_a_chained_comparison_and_a_loop_record_every_pass():
    recs = run_instrumented("for v in (1.0, 2.0):\n    assert 0 < v <= 1.5", {})
    assert [r["held"] for r in recs] == [True, False] and recs[1]["margin"] == pytest.approx(-0.5)


def test_a_stated_claim_is_recorded_under_its_name_and_read_from_the_report():
    source = "s = seed_claim('fixture', 'x is small', x < 0.1)"
    assert seed_sweep.claims_in(source) == [("stated", "x is small")]
    recs = run_instrumented(source, {"x": 0.2, "seed_claim": lambda chapter, name, value: value})
    assert recs == [{"key": "x is small", "held": False, "margin": pytest.approx(-0.1), "relative_margin": -0.5}]
    with pytest.raises(ValueError, match="no such claim"):
        seed_claim("parametric_grpo_runs", "a claim nobody made", True)


def test_the_instrumented_source_is_the_cell_with_its_asserts_replaced():
    source = "y = 2\nassert y > 1, 'message'\nprint(y)"
    code = seed_sweep.instrumented_source(source, ["y > 1"])
    tree = ast.parse(code)
    assert not any(isinstance(n, ast.Assert) for n in ast.walk(tree)) and "__sweep__.record('y > 1'" in code


def test_equality_holds_and_an_unreached_assert_fails_only_after_an_error():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("SEED = 0", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("x = 1.0 + 0 * SEED\nassert x <= 1.0\nassert x < 2.0"),
    ]
    keys = seed_sweep.claim_keys(seed_sweep.swept_cells(nb))
    runs = [seed_sweep_runtime_records(s, {"x <= 1.0": 0.0, "x < 2.0": 1.0}) for s in range(20)]
    runs[3]["records"].pop()  # not reached at seed 3 with no error: a branch not taken, not a failure
    entry = {
        "seeds": list(range(20)),
        "fingerprint": seed_sweep.fingerprint(nb),
        "claims": seed_sweep.aggregate(runs, keys),
    }
    assert seed_sweep.violations(entry, nb) == []  # x <= 1.0 at x = 1.0 holds: a count can meet its bound exactly
    runs[4].update(errors=["cell 1: ValueError"], first_error_cell=1, claim_cells={"x < 2.0": 1})
    runs[4]["records"].pop()  # not reached after an error in its cell: failed at seed 4
    runs[5].update(errors=["cell 2: ValueError"], first_error_cell=2, claim_cells={"x < 2.0": 1})
    runs[5]["records"].pop()  # not reached, and the error came later: a branch not taken
    entry["claims"] = seed_sweep.aggregate(runs, keys)
    assert "failed at [4]" in seed_sweep.violations(entry, nb)[-1]
    assert next(c for c in entry["claims"] if c["key"] == "x < 2.0")["not_reached_seeds"] == [3, 5]


def seed_sweep_runtime_records(seed: int, margins: dict[str, float]) -> dict:
    records = [{"key": k, "held": True, "margin": m, "relative_margin": m} for k, m in margins.items()]
    return {"seed": seed, "records": records}


def test_the_summary_sentence_counts_what_the_report_holds(monkeypatch):
    import grpo_nb.report as report

    claims = [
        {"kind": "assert", "key": "a", "held": 20, "n_seeds": 20},
        {"kind": "assert", "key": "b", "held": 20, "n_seeds": 20},
        {"kind": "stated", "key": "c", "held": 17, "n_seeds": 20},
        {"kind": "assert", "key": "gpu only", "held": 0, "n_seeds": 0},
    ]
    entry = {"seeds": list(range(20)), "machine": {"processor": "AMD EPYC"}, "claims": claims}
    monkeypatch.setattr(report, "seed_sweep_report", lambda: {"chapters": {"x": entry}})
    text = report.seed_sweep_summary("x")
    assert "at 20 seeds (0 to 19)" in text and "2 of its 2 asserts" in text and "1 claim that did not" in text
    assert "(1 more only runs on a GPU" in text
    entry["claims"] = claims[:2] + [dict(claims[2], key="d")] + claims[2:]
    assert "2 claims that did not are stated with their frequency" in report.seed_sweep_summary("x")
    assert str(report.seed_claim("x", "c", False)) == "c: at 17 of the sweep's 20 seeds"
    with pytest.raises(ValueError, match="chapter='y'"):
        report.seed_sweep_summary("y")


def test_a_seed_run_again_replaces_only_that_seed(fragile_report, tmp_path):
    out = tmp_path / "report.json"
    out.write_text(json.dumps({"schema": 1, "chapters": {"seed_fragile": fragile_report}}))
    seed_sweep.main(["--notebook", str(FRAGILE), "--seeds", "1", "--rerun", "--out", str(out)])
    entry = json.loads(out.read_text())["chapters"]["seed_fragile"]
    assert entry["seeds"] == list(range(6)) and [r["seed"] for r in entry["runs"]] == list(range(6))
    assert entry["claims"][0]["failed_seeds"] == fragile_report["claims"][0]["failed_seeds"]


def test_a_dead_kernel_is_run_again_and_a_claim_is_not(monkeypatch):
    from nbclient.exceptions import DeadKernelError

    calls = []

    def flaky(*args):
        calls.append(args)
        if len(calls) == 1:
            raise DeadKernelError("kernel died")
        return {"seed": 0, "records": []}

    monkeypatch.setattr(seed_sweep, "_run_seed_once", flaky)
    assert seed_sweep.run_seed("x.md", 0, "site", "work") == {"seed": 0, "records": []} and len(calls) == 2


NAMED_PAGE = re.compile(r"\b(?:seed_claim|seed_sweep_summary)\(\s*\"(\w+)\"")


def pages_named_elsewhere(page: str, code: str) -> list[str]:
    """The pages other than ``page`` whose sweep entry ``code``'s ``seed_claim`` or ``seed_sweep_summary`` reads."""
    return [name for name in NAMED_PAGE.findall(code) if name != page]


@pytest.mark.parametrize("md", sorted(BOOK.glob("*.md")), ids=lambda p: p.stem)
def test_a_page_reads_its_own_sweep_entry(md):
    """The sweep records a page's claims under the page's own name, so a page that reads another page's entry (one
    split off a chapter, say) states a count its own runs were never checked for."""
    code = "\n".join(c.source for c in jupytext.read(md).cells if c.cell_type == "code")
    assert pages_named_elsewhere(md.stem, code) == []


def test_a_page_reading_another_pages_entry_is_found():
    code = 'far = seed_claim(\n    "group_size", "misses", missed)\nprint(seed_sweep_summary("group_size_dynamics"))'
    assert pages_named_elsewhere("group_size_dynamics", code) == ["group_size"]
