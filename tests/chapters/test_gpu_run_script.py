"""tools/gpu_run.sh: its dry run on the CPU makes every step at its smallest and writes a record that
grpo_nb.toylm.gpu_run accepts, elsewhere than the package's file; a corrupted record is refused, naming the field.

The dry run is one process tree of about half a minute of CPU (the CUDA tests, skipped here, the book's trainer and
TRL's at ``--config tiny``); nothing here is timed.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest
import torch

from grpo_nb.toylm.gpu_run import RUN_KEYS, validate_gpu_run
from tests.book_layout import ROOT

SCRIPT = ROOT / "tools" / "gpu_run.sh"
PACKAGE_FILE = ROOT / "grpo_nb" / "data" / "gpu_run.json"


def run_script(*args: str) -> subprocess.CompletedProcess:
    """tools/gpu_run.sh with ``args``, under this interpreter."""
    env = os.environ | {"PYTHON": sys.executable}
    return subprocess.run([str(SCRIPT), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def dry_run(tmp_path_factory):
    """The dry run's process (``proc``), its record and its work folder; the package's file is the same before and
    after."""
    before = PACKAGE_FILE.read_bytes() if PACKAGE_FILE.exists() else None
    folder = tmp_path_factory.mktemp("gpu_run")
    out = folder / "record.json"
    proc = run_script("--device", "cpu", "--dry-run", "--out", str(out), "--work", str(folder / "work"))
    after = PACKAGE_FILE.read_bytes() if PACKAGE_FILE.exists() else None
    assert after == before, "a dry run wrote grpo_nb/data/gpu_run.json"
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return SimpleNamespace(proc=proc, record=json.loads(out.read_text()), work=folder / "work")


@pytest.fixture(scope="module")
def script():
    """tools/gpu_run.py as a module, for its helpers."""
    spec = importlib.util.spec_from_file_location("gpu_run_script", ROOT / "tools" / "gpu_run.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


def test_the_dry_run_writes_a_valid_record_of_every_step(dry_run):
    proc, record = dry_run.proc, dry_run.record
    assert validate_gpu_run(record) is record
    assert [(r["trainer"], r["config"]) for r in record["runs"]] == [
        ("book", "tiny"),
        ("book", "tiny"),
        ("trl", "tiny"),
    ]
    book, _, trl = record["runs"]
    assert book["rollout_tokens_per_s"] > 0 and trl["rollout_tokens_per_s"] is None
    for run in record["runs"]:
        assert run["wall_s"] >= run["grpo_s"] > 0
        assert max(run["max_gap_per_prompt"]) == run["max_gap"] >= run["median_max_gap"] >= 0
    assert record["torch"] == torch.__version__ and record["commit"] and record["failed_steps"] == []
    tests = record["cuda_tests"]
    if not torch.cuda.is_available():
        assert tests["passed"] == tests["failed"] == 0 and tests["skipped"] > 0
    for step in ("cuda tests", "book quick", "book full", "trl tiny [beta=2]"):
        assert f"{step}: done" in proc.stdout


@pytest.mark.parametrize("field", ["device", "cuda_tests", "runs"])
def test_a_record_missing_a_field_is_refused_naming_it(dry_run, field):
    record = copy.deepcopy(dry_run.record)
    del record[field]
    with pytest.raises(ValueError, match=f"'{field}'"):
        validate_gpu_run(record)


@pytest.mark.parametrize("field", RUN_KEYS)
def test_a_run_missing_a_field_is_refused_naming_it(dry_run, field):
    record = copy.deepcopy(dry_run.record)
    del record["runs"][2][field]
    with pytest.raises(ValueError, match=rf"runs\[2\] is missing \['{field}'\]"):
        validate_gpu_run(record)


def test_a_record_with_a_wrong_trainer_is_refused_naming_it(dry_run):
    record = copy.deepcopy(dry_run.record)
    record["runs"][0]["trainer"] = "tinygrad"
    with pytest.raises(ValueError, match=r"runs\[0\]\.trainer='tinygrad'"):
        validate_gpu_run(record)


@pytest.mark.parametrize(
    "args",
    [
        ["--device", "cpu", "--dry-run"],  # no --out: the default is the package's file
        ["--device", "cpu", "--dry-run", "--out", str(PACKAGE_FILE)],
        ["--device", "cpu"],  # the GPU run itself refuses the CPU
    ],
)
def test_the_script_refuses_to_write_the_package_file_from_a_dry_run_or_to_run_on_the_cpu(args):
    before = PACKAGE_FILE.exists()
    proc = run_script(*args)
    assert proc.returncode == 2 and "--" in proc.stderr
    assert PACKAGE_FILE.exists() == before


def test_the_cuda_tests_are_counted_from_pytest_s_verbose_log(script):
    log = "tests/unit/test_toylm_cuda.py::test_a PASSED [ 10%]\ntests/unit/test_toylm_cuda.py::test_b[sampled] SKIPPED"
    assert script.count_cuda_tests(log) == {"passed": 1, "failed": 0, "skipped": 1}


def test_the_cuda_tests_run_without_the_notebook_stack(script):
    """A CUDA image has torch and pytest but not nbval or nbformat: the step's pytest options must need neither (the
    first GPU run failed at the root conftest's ``import nbformat``)."""
    code = (
        "import sys; sys.modules['nbformat'] = None; import pytest; "
        f"sys.exit(pytest.main([*{list(script.CUDA_TESTS)!r}, *{list(script.PYTEST_ALONE)!r}, '-p', 'no:nbval', '-q']))"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def test_trl_processes_with_different_sfts_are_not_one_configuration(dry_run, script):
    summary = json.loads((dry_run.work / "trl_0.json").read_text())
    other = copy.deepcopy(summary)
    other["prompts"][0]["p_ref"] += 1e-3
    with pytest.raises(ValueError, match="p_ref"):
        script.trl_record([summary, other], list(summary["runs"]), gpu=False)
    partial = script.trl_record([summary], [*summary["runs"], "beta=0 (TRL default)"], gpu=True)
    assert partial["config"] == "tiny (runs: beta=2; on the CPU)"


@pytest.mark.parametrize(
    ("trainer", "argv", "message"),
    [
        ("trl", ["--config", "tiny", "--runs", "beta=3"], "--runs 'beta=3' is not one of"),
        ("book", ["--config", "tiny", "--runs", "beta=2"], "unrecognized arguments: --runs beta=2"),
    ],
)
def test_the_cli_refuses_a_run_it_does_not_have(script, trainer, argv, message, capsys):
    main = importlib.import_module(f"{script.TRAINER_CLI[trainer]}.__main__").main
    with pytest.raises(SystemExit):
        main(argv)
    assert message in capsys.readouterr().err
