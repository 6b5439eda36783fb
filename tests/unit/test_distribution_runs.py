"""grpo_nb.toylm.distribution_runs and tools/distribution_runs.py: the plan of runs, the summary of a run's tables
against direct computations, one seed of the tiny configuration end to end, and the record's validation."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from scipy.special import log_softmax

from grpo_nb.tabular.clip_bias import CLIP_MODES
from grpo_nb.toylm.configs import TINY
from grpo_nb.toylm.distribution_runs import (
    CLIP_EPS,
    load_distribution_runs,
    measure_seed,
    run_plan,
    summarize,
    trainer_clip,
    validate_distribution_runs,
)
from tests.book_layout import ROOT


def test_the_plan_has_the_exact_run_and_four_clip_modes_with_each_reward():
    plan = run_plan(TINY.grpo)
    assert list(plan) == ["exact", *(f"{s}/{m}" for s in ("sampled", "random") for m in CLIP_MODES)]
    assert plan["exact"].estimator == "exact"
    assert (plan["sampled/high_only"].clip_eps, plan["sampled/high_only"].clip_eps_high) == (math.inf, CLIP_EPS)
    assert (plan["random/low_only"].clip_eps, plan["random/low_only"].clip_eps_high) == (CLIP_EPS, math.inf)
    assert plan["random/none"].reward_signal == "random" and plan["sampled/none"].reward_signal == "verifiable"
    assert plan["sampled/none"].clip_eps is None


def test_the_trainer_clips_each_mode_of_the_tabular_home_as_its_bounds_say():
    """Each clip mode of grpo_nb.tabular.clip_bias (the one list of modes) as the book trainer's settings, and a mode
    it does not have refused naming the valid ones."""
    assert {mode: trainer_clip(mode, 0.3) for mode in CLIP_MODES} == {
        "none": (None, None),
        "symmetric": (0.3, None),
        "high_only": (math.inf, 0.3),
        "low_only": (0.3, math.inf),
    }
    with pytest.raises(ValueError, match="mode='both'"):
        trainer_clip("both")


def test_the_summary_is_that_of_the_tables():
    rng = np.random.default_rng(0)
    logp = log_softmax(rng.normal(0, 2, size=(4, 3, 6)), axis=-1)
    reward = (rng.random((3, 6)) < 0.4).astype(float)
    summary = summarize(logp, reward)
    pi = np.exp(logp)
    assert np.allclose(summary["p"], (pi * reward).sum(-1), rtol=1e-6)
    entropy = -(pi * logp).sum(-1)
    assert np.allclose(summary["entropy_mean"], entropy.mean(1), rtol=1e-6)
    assert np.allclose(summary["entropy_final"], entropy[-1], rtol=1e-6)
    top = pi[0].argmax(-1)
    assert np.allclose(summary["top_mass_final"], pi[-1, np.arange(3), top], rtol=1e-6)
    assert not np.allclose(summary["top_mass_final"], pi[-1].max(-1))  # the top answer is pi_0's, not pi_M's
    with pytest.raises(ValueError, match=r"logp has shape \(3, 6\)"):
        summarize(logp[0], reward)


@pytest.fixture(scope="module")
def tiny_seed():
    return measure_seed(TINY, 1)


def test_one_tiny_seed_runs_every_plan_entry(tiny_seed):
    assert sorted(tiny_seed["runs"]) == sorted(run_plan(TINY.grpo))
    n_prompts = TINY.task.n_prompts
    for summary in tiny_seed["runs"].values():
        p = np.array(summary["p"])
        assert p.shape == (TINY.grpo.n + 1, n_prompts) and np.all((p >= 0) & (p <= 1 + 1e-6))
        assert np.allclose(p[0], tiny_seed["p_ref"], atol=1e-6)  # every run starts at pi_ref
        assert len(summary["entropy_mean"]) == TINY.grpo.n + 1 and len(summary["top_mass_final"]) == n_prompts


def a_record(entry: dict) -> dict:
    return {
        "schema": 1,
        "config": "tiny",
        "clip_eps": CLIP_EPS,
        "seeds": [1],
        "runs": list(run_plan(TINY.grpo)),
        "machine": {},
        "versions": {},
        "date": "2026-01-01",
        "commit": "0" * 40,
        "per_seed": {"1": entry},
    }


def test_validation_names_what_is_wrong(tiny_seed, tmp_path):
    record = a_record(tiny_seed)
    assert validate_distribution_runs(record) is record
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert load_distribution_runs(path)["seeds"] == [1]
    for change, message in (
        (lambda r: r.pop("machine"), r"missing field\(s\) \['machine'\]"),
        (lambda r: r.update(schema=2), "schema=2"),
        (lambda r: r.update(seeds=[1, 2]), "per_seed holds"),
        (lambda r: r["per_seed"]["1"]["runs"].pop("exact"), "seed 1 has runs"),
        (lambda r: r["per_seed"]["1"]["runs"]["exact"].pop("p"), r"run exact is missing \['p'\]"),
    ):
        broken = json.loads(json.dumps(record))
        change(broken)
        with pytest.raises(ValueError, match=message):
            validate_distribution_runs(broken)


def test_the_tool_writes_a_valid_record_and_refuses_the_package_file_for_tiny(tmp_path):
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    tool = [sys.executable, str(ROOT / "tools" / "distribution_runs.py")]
    out = tmp_path / "record.json"
    proc = subprocess.run([*tool, "--config", "tiny", "--seeds", "0", "--jobs", "1", "--out", str(out)], env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    record = load_distribution_runs(out)
    assert record["seeds"] == [0] and record["config"] == "tiny" and record["versions"]["torch"]
    refused = subprocess.run([*tool, "--config", "tiny", "--seeds", "0"], env=env, capture_output=True, text=True)
    assert refused.returncode != 0 and "must name --out" in refused.stderr
