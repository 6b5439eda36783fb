"""grpo_nb.toylm.gpu_run: the GPU run's record is validated field by field, and its absence reads as None."""

from __future__ import annotations

import copy
import json
from types import SimpleNamespace

import pytest

from grpo_nb.toylm import records
from grpo_nb.toylm.gpu_run import GPU_RUN_FILE, RUN_KEYS, SCHEMA, load_gpu_run, validate_gpu_run


def a_run(trainer: str = "book", n_prompts: int = 3) -> dict:
    """One run entry with every field of RUN_KEYS."""
    gaps = [0.01 * (i + 1) for i in range(n_prompts)]
    return {
        "trainer": trainer,
        "config": "quick",
        "wall_s": 12.5,
        "grpo_s": 2.5,
        "rollout_tokens_per_s": None if trainer == "trl" else 1e5,
        "n_prompts": n_prompts,
        "max_gap_per_prompt": gaps,
        "median_max_gap": gaps[len(gaps) // 2],
        "max_gap": max(gaps),
    }


def a_record() -> dict:
    """A record with every field of the schema: one book run and one TRL run."""
    return {
        "schema": SCHEMA,
        "device": "NVIDIA H100 80GB HBM3",
        "torch": "2.13.0",
        "cuda": "12.8",
        "date": "2026-01-01",
        "commit": "0" * 40,
        "cuda_tests": {"passed": 7, "failed": 0, "skipped": 0},
        "runs": [a_run("book"), a_run("trl")],
    }


def test_a_complete_record_passes_and_is_returned():
    record = a_record()
    assert set(RUN_KEYS) == set(record["runs"][0])
    assert validate_gpu_run(record) is record


def test_failed_steps_is_optional_and_a_list_of_lines():
    record = a_record()
    record["failed_steps"] = ["trl full [beta=2]: timed out after 470 s"]
    assert validate_gpu_run(record) is record


@pytest.mark.parametrize("field", ["schema", "device", "torch", "cuda", "date", "commit", "cuda_tests", "runs"])
def test_a_missing_top_level_field_is_named_with_what_was_expected(field):
    record = a_record()
    del record[field]
    with pytest.raises(ValueError, match=rf"missing field\(s\) \['{field}'\]; expected \[.*'{field}'"):
        validate_gpu_run(record)


@pytest.mark.parametrize("field", RUN_KEYS)
def test_a_missing_run_field_is_named_with_its_run(field):
    record = a_record()
    del record["runs"][1][field]
    with pytest.raises(ValueError, match=rf"runs\[1\] is missing \['{field}'\]; expected \["):
        validate_gpu_run(record)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.update(schema=2), r"schema=2, expected 1"),
        (lambda r: r.update(runs=[]), r"runs=\[\] holds no run; expected at least one"),
        (lambda r: r["runs"][0].update(trainer="jax"), r"runs\[0\]\.trainer='jax', expected 'book' or 'trl'"),
        (lambda r: r["runs"][1].update(n_prompts=4), r"runs\[1\] has 3 per-prompt gaps for n_prompts=4"),
        (lambda r: r.update(failed_steps="trl"), r"failed_steps='trl', expected a list of strings"),
        (lambda r: r.update(failed_steps=[1]), r"failed_steps=\[1\], expected a list of strings"),
    ],
)
def test_a_wrong_value_is_named_with_its_value_and_what_was_expected(change, message):
    record = a_record()
    change(record)
    with pytest.raises(ValueError, match=message):
        validate_gpu_run(record)


def test_load_reads_and_validates_a_file(tmp_path):
    path = tmp_path / "gpu_run.json"
    path.write_text(json.dumps(a_record()))
    assert load_gpu_run(path) == a_record()
    assert load_gpu_run(str(path)) == a_record()
    broken = copy.deepcopy(a_record())
    broken["runs"][0]["trainer"] = "jax"
    path.write_text(json.dumps(broken))
    with pytest.raises(ValueError, match="trainer"):
        load_gpu_run(path)


def test_load_without_a_packaged_file_is_none_and_with_one_is_the_record(tmp_path, monkeypatch):
    """The package's data folder stands in as tmp_path/data: empty, then holding the file."""
    (tmp_path / "data").mkdir()
    monkeypatch.setattr(records, "resources", SimpleNamespace(files=lambda package: tmp_path))
    assert load_gpu_run() is None
    (tmp_path / "data" / GPU_RUN_FILE).write_text(json.dumps(a_record()))
    assert load_gpu_run() == a_record()
