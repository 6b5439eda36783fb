"""Section "Why TRL leaves the recursion: one knob at a time": the ablation ladder (grpo_nb.trl_adapters.ladder,
grpo_nb.chapters.trl_grpo.ladder): the rungs change one knob each, rung 0 is TRL's own loss (a wrong rung or reward
rule fails that check), the small ladder runs end to end on two CPU cores through the CLI and keeps its invariants
at every seed it uses, and the cached full ladder has the schema, versions and seeds the chapter quotes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict, fields

import numpy as np
import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.chapters.trl_grpo import ladder as lc  # noqa: E402
from grpo_nb.trl_adapters import ladder as tl  # noqa: E402
from grpo_nb.trl_adapters.trainer import prepare_trl  # noqa: E402
from tests.book_layout import ROOT  # noqa: E402
from tests.chapters.trl_grpo import CACHED_LADDER as CACHED  # noqa: E402

SEEDS = (0, 1, 2)
KNOBS = [f.name for f in fields(tl.Rung) if f.name not in ("key", "change")]


@pytest.fixture(scope="module")
def tiny_setup():
    return prepare_trl(tl.LADDER_CONFIGS["tiny"])


@pytest.fixture(scope="module")
def tiny_ladder(tmp_path_factory):
    """The small ladder through the CLI, as CI runs it: every rung at three seeds, then the same with two processes'
    halves joined by ``--merge``."""
    out = tmp_path_factory.mktemp("ladder")
    env = os.environ | {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    base = [sys.executable, "-m", "grpo_nb.trl_adapters", "--no-progress"]
    for name, extra in (("all", []), ("a", ["--seeds", "0", "1"]), ("b", ["--seeds", "2"])):
        cmd = [*base, "--ladder", "tiny", *extra, "--out", str(out / f"{name}.json")]
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
    assert not list(out.glob("*.partial.json"))  # a finished ladder leaves no checkpoint beside its summary
    cmd = [*base, "--merge", str(out / "a.json"), str(out / "b.json"), "--out", str(out / "merged.json")]
    assert subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True).returncode == 0
    return {k: json.loads((out / f"{k}.json").read_text()) for k in ("all", "merged")}


def test_each_rung_changes_exactly_one_knob_towards_the_theory():
    assert tl.LADDER[0].trl_native and not any(r.trl_native for r in tl.LADDER[1:])
    for a, b in zip(tl.LADDER, tl.LADDER[1:], strict=False):
        changed = [k for k in KNOBS if getattr(a, k) != getattr(b, k)]
        assert len(changed) == 1, (b.key, changed)
    last = tl.LADDER[-1]
    assert (last.kl, last.ratio, last.objective, last.p, last.advantage) == (
        "exact",
        "sequence",
        "exact",
        "exact",
        "paper",
    )
    assert last.reset_adam


def test_rung_zero_is_trls_loss_and_a_wrong_rung_or_reward_fails(tiny_setup, monkeypatch):
    for seed in SEEDS:
        ok = tl.loss_agreement(tiny_setup, seed=seed)
        assert ok.loss_gap < 1e-6 * max(1.0, abs(ok.trl_loss)) and ok.advantage_gap < 1e-6
    for wrong in (tl.LADDER[1], tl.LADDER[5]):  # the sequence ratio, the exact KL: not TRL's loss
        assert tl.loss_agreement(tiny_setup, wrong).loss_gap > 1e-3
    real = tl._sequence_rewards
    monkeypatch.setattr(tl, "_sequence_rewards", lambda task, q, ids: 1.0 - real(task, q, ids))
    assert tl.loss_agreement(tiny_setup).advantage_gap > 0.1


def test_the_small_ladder_keeps_its_invariants_at_every_seed(tiny_ladder):
    result = tiny_ladder["all"]
    cfg = result["trl_config"]
    assert [r["key"] for r in result["rungs"]] == [r.key for r in tl.LADDER]
    p_ref = np.asarray(result["p_ref"])
    for rung in result["rungs"]:
        seeds = list(tl.LADDER_SEEDS) if rung["objective"] == "sampled" else [tl.LADDER_SEEDS[0]]
        assert [run["seed"] for run in rung["runs"]] == seeds
        h, fin = np.asarray(rung["p_theory"]), np.asarray(rung["p_finite_group"])
        assert np.all(h >= p_ref[:, None] - 1e-12) and np.all(fin >= p_ref[:, None] - 1e-9)  # Theorem 3's side
        for run in rung["runs"]:
            p = np.asarray(run["p_measured"])
            assert p.shape == (p_ref.size, cfg["n"] + 1) and np.array_equal(p[:, 0], p_ref)
            assert len(run["inner_loss"]) == cfg["mu"] * cfg["n"] and np.all(np.isfinite(run["inner_loss"]))
            assert np.asarray(run["group_successes"]).max() <= cfg["G"]
    sampled = result["rungs"][0]["runs"]
    assert any(run["p_measured"] != sampled[0]["p_measured"] for run in sampled)


def test_the_exact_rung_is_the_same_at_every_seed_so_the_ladder_runs_it_once(tiny_setup):
    exact = tl.LADDER[-1]
    assert not exact.uses_samples and all(r.uses_samples for r in tl.LADDER[:-1])
    runs = [tl.run_rung(tiny_setup, exact, seed) for seed in SEEDS]
    assert all(run["p_measured"] == runs[0]["p_measured"] for run in runs)
    sampled = [tl.run_rung(tiny_setup, tl.LADDER[-2], seed)["p_measured"] for seed in SEEDS[:2]]
    assert sampled[0] != sampled[1]  # the rung before reads the samples, and its seeds differ


def test_the_outcome_table_is_a_distribution_and_the_digit_table_is_not(tiny_setup):
    import torch

    from grpo_nb.trl_adapters.model import build_model, enumerate_logprobs_hf, enumerate_outcomes_hf

    task = tiny_setup.task
    model = build_model(tiny_setup.cfg.base.model, task.prompt_len + task.out_len, 1)  # an untrained network
    prompts, outputs = torch.as_tensor(task.prompts), torch.as_tensor(task.outputs)
    with torch.no_grad():
        full, digits = enumerate_outcomes_hf(model, prompts, outputs), enumerate_logprobs_hf(model, prompts, outputs)
    assert torch.equal(full[:, : outputs.shape[0]], digits)
    assert torch.allclose(full.exp().sum(dim=1), torch.ones(len(prompts)), atol=1e-5)
    assert (1 - digits.exp().sum(dim=1)).min() > 0.1  # an untrained head puts mass on the non-digit tokens


def test_merge_joins_parallel_halves_into_the_single_run_and_rejects_a_mismatch(tiny_ladder):
    merged, single = tiny_ladder["merged"], tiny_ladder["all"]
    for a, b in zip(merged["rungs"], single["rungs"], strict=True):
        assert [r["p_measured"] for r in a["runs"]] == [r["p_measured"] for r in b["runs"]]
    other = json.loads(json.dumps(single))
    other["p_ref"][0] += 1e-3
    with pytest.raises(ValueError, match="p_ref differs"):
        tl.merge_ladders([single, other])
    with pytest.raises(ValueError, match="results"):
        tl.merge_ladders([])


def test_the_statistics_count_and_measure_what_they_say(tiny_ladder):
    result = json.loads(json.dumps(tiny_ladder["all"]))
    rung = result["rungs"][0]
    for run in rung["runs"]:
        run["p_measured"] = [row[:1] + [row[0] - 0.01] * (len(row) - 1) for row in run["p_measured"]]
    s = lc.rung_stats(result, rung)
    assert s.below_ref.values == (len(result["p_ref"]),) * 3 and s.below_ref.se == 0
    fin = np.asarray(rung["p_finite_group"])
    worst = np.abs(np.asarray(rung["runs"][0]["p_measured"]) - fin).max(axis=1)
    assert s.median_gap_finite.values[0] == pytest.approx(np.median(worst))
    swapped = dict(rung, p_finite_group=rung["p_theory"])  # a wrong prediction gives another gap
    assert lc.rung_stats(result, swapped).median_gap_finite.values != s.median_gap_finite.values
    e = lc.Estimate.of([1.0, 2.0, 3.0])
    assert (e.mean, e.se) == (2.0, pytest.approx(1 / np.sqrt(3)))
    d = e.minus(lc.Estimate.of([0.0, 0.0, 0.0]))
    assert (d.mean, d.se) == (2.0, pytest.approx(e.se))
    one = lc.Estimate.of([0.5], exact=True)
    assert (one.mean, one.se) == (0.5, 0.0)
    for bad, kwargs in (([0.5], {}), ([0.5, 0.6], {"exact": True})):
        with pytest.raises(ValueError, match="values"):
            lc.Estimate.of(bad, **kwargs)
    with pytest.raises(ValueError, match="not a ladder"):
        lc.load_ladder("trl_full.json")


def test_the_cached_full_ladder_has_the_schema_versions_and_seeds():
    result = json.loads(CACHED.read_text())
    assert result["trainer"] == "trl-ladder" and result["config"] == "full" and result["beta"] == tl.BETA
    assert [r["key"] for r in result["rungs"]] == [r.key for r in tl.LADDER]
    for rung, ref in zip(result["rungs"], tl.LADDER, strict=True):
        # the cached ladder predates the grid's two k3 knobs (weighting, numerics); the ladder keeps them at TRL's
        assert {k: rung.get(k, getattr(tl.LADDER[0], k)) for k in asdict(ref)} == asdict(ref)
        seeds = list(tl.LADDER_SEEDS) if ref.uses_samples else [tl.LADDER_SEEDS[0]]
        assert [run["seed"] for run in rung["runs"]] == seeds
    assert "CPU" in result["hardware"] or "GPU" in result["hardware"]
    assert {"trl", "transformers", "torch"} <= set(result["versions"])


def test_restoration_finds_the_first_clean_rung_and_a_relapse_moves_it(tiny_ladder):
    result = json.loads(json.dumps(tiny_ladder["all"]))
    p_ref = result["p_ref"]
    rungs = {r["key"]: r for r in result["rungs"]}

    def set_final(key: str, below: bool) -> None:  # every prompt ends just below (or above) its p_ref
        shift = -1e-3 if below else 1e-3
        for run in rungs[key]["runs"]:
            run["p_measured"] = [row[:-1] + [p + shift] for row, p in zip(run["p_measured"], p_ref, strict=True)]

    for rung in tl.LADDER:
        set_final(rung.key, below=rung.key not in ("kl_exact", "exact"))
    found = lc.ladder_findings(result)
    assert found.restoration.first == 5 and found.below["exact_p"] == (len(p_ref), len(p_ref))
    assert found.largest_drop[0] == 5 and found.largest_drop[1].mean == -len(p_ref)
    set_final("exact", below=True)  # a relapse on the last rung: no rung from which all stay clean
    assert lc.ladder_findings(result).restoration.first is None


def test_rung5_ends_above_p_ref_but_dips_below_it_on_the_way():
    ladder = lc.load_ladder("trl_ladder.json")
    dips = lc.dips_below_ref(ladder, "kl_exact")
    assert dips.ended == (0, 0, 0)  # "no prompt ends below p_ref" holds ...
    assert sum(dips.dipped) > 0 and dips.depth > 0.01  # ... "amplification at every step" (Theorem 3) does not
    assert lc.dips_below_ref(ladder, "exact").dipped == (0,)
    with pytest.raises(ValueError, match="key='nope'"):
        lc.dips_below_ref(ladder, "nope")
