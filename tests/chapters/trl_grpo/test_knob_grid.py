"""Section "What breaks amplification, one knob at a time" (grpo_nb.trl_adapters.knob_grid,
grpo_nb.chapters.trl_grpo.knob_grid, grpo_nb.chapters.trl_grpo.k3_numerics): every cell changes exactly the knobs it
names against its baseline, the new knobs are TRL's own loss (a wrong weighting fails), the stable k3 is the numpy
home's and TRL's float32 one is not, the small grid runs end to end through the CLI at ten seeds, resumes from its
checkpoint and merges, the paired statistics measure what they say, the cached grid has the schema, seeds,
versions and machine the chapter quotes, the prompt the exact KL leaves below p_ref is read against the spread of its
final gains across seeds (the former check, which measured the noise with the fall itself, excuses a steady fall),
and the placebo rules out shifts beyond about one prompt and no smaller ones."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict, fields, replace

import numpy as np
import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

import torch  # noqa: E402

from grpo_nb.chapters.trl_grpo import k3_numerics as kn  # noqa: E402
from grpo_nb.chapters.trl_grpo import knob_grid as kg  # noqa: E402
from grpo_nb.kl import k3  # noqa: E402
from grpo_nb.trl_adapters import knob_grid as tg  # noqa: E402
from grpo_nb.trl_adapters import ladder as tl  # noqa: E402
from tests.book_layout import ROOT  # noqa: E402

CACHED_GRID = ROOT / "grpo_nb" / "data" / "trl_knob_grid.json"
KNOBS = [f.name for f in fields(tl.Rung) if f.name not in ("key", "change")]
ENV = os.environ | {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
BASE = [sys.executable, "-m", "grpo_nb.trl_adapters", "--no-progress"]


def _cli(*args: str) -> None:
    proc = subprocess.run([*BASE, *args], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.fixture(scope="module")
def tiny_grid(tmp_path_factory):
    """The small grid through the CLI, as CI runs it: every cell at the grid's ten seeds."""
    out = tmp_path_factory.mktemp("grid") / "grid.json"
    _cli("--grid", "tiny", "--out", str(out))
    assert not out.with_suffix(".partial.json").exists()
    return json.loads(out.read_text())


def test_each_cell_changes_exactly_the_knobs_it_names():
    by_key = {c.key: c for c in tg.GRID}
    assert by_key["trl"].rung == replace(tl.LADDER[0], key="trl", change=by_key["trl"].change)
    assert by_key["trl"].rung.trl_native and by_key["exact"].rung == replace(
        tl.LADDER[-1], key="exact", change=by_key["exact"].change
    )
    for cell in tg.GRID:
        if cell.baseline is None:
            continue
        base = by_key[cell.baseline].rung
        changed = [k for k in KNOBS if getattr(cell.rung, k) != getattr(base, k)]
        assert len(changed) == (0 if cell.book_loss else cell.key.count("+") + cell.key.count("-")), (cell.key, changed)
    assert [c.key for c in tg.GRID if c.book_loss] == ["trl+book_loss"]  # the placebo: the code path, no knob
    assert by_key["exact-objective"].rung == replace(
        tl.LADDER[5], key="exact-objective", change=by_key["exact-objective"].change
    )  # reverting the enumeration from rung 6 is the ladder's rung 5
    assert {c.side for c in tg.GRID} == {"trl", "theory"}
    assert set(kg.SHORT_LABELS) == {c.key for c in tg.GRID}  # the figure names every cell


def test_the_stable_k3_is_the_numpy_homes_and_trls_float32_k3_is_not():
    d = torch.tensor([1e-5, -3e-5, 1e-4, -2e-4, 1e-3, 0.3, -2.0], dtype=torch.float32)
    exact = k3(np.zeros(d.numel()), d.double().numpy())
    stable = tl.k3_per_token(torch.zeros_like(d), d, "float64").double().numpy()
    assert np.max(np.abs(stable - exact) / exact) < 1e-6
    naive = tl.k3_per_token(torch.zeros_like(d), d, "float32").double().numpy()
    assert np.max(np.abs(naive[:4] - exact[:4]) / exact[:4]) > 0.5  # the cancellation at |d| <= 2e-4
    assert np.allclose(naive[-2:], exact[-2:], rtol=1e-5)  # and none at |d| of order 1
    with pytest.raises(ValueError, match="numerics='float16'"):
        tl.k3_per_token(torch.zeros_like(d), d, "float16")


@pytest.mark.parametrize("weighted", [True, False])
def test_the_k3_weighting_knob_is_trls_use_bias_correction_kl(weighted):
    """Off policy (pi_old != pi_theta), TRL's loss with ``use_bias_correction_kl`` = ``weighted`` equals the ladder's
    loss with that weighting, and the other weighting does not."""
    from grpo_nb.chapters.trl_grpo.advantage_probe import make_probe

    probe = make_probe(beta=2.0, epsilon=1e3, use_bias_correction_kl=weighted, loss_type="dapo")
    inputs = probe.inputs
    gen = torch.Generator().manual_seed(0)
    old = probe.logp - 0.2 * torch.rand(probe.logp.shape, generator=gen)  # every ratio above 1
    ref = probe.logp + 0.5 * torch.rand(probe.logp.shape, generator=gen)  # every k3 above 0
    trl = probe.loss(old_per_token_logps=old, ref_per_token_logps=ref)
    mask = inputs["completion_mask"].float()
    rung = tl.LADDER[0]
    mine = {
        w: float(
            tl.ladder_loss(
                replace(rung, kl_weight=w),
                beta=2.0,
                logp=probe.logp,
                old_logp=old,
                mask=mask,
                advantages=inputs["advantages"],
                ref_logp=ref,
                out_len=probe.logp.shape[1],
            )
        )
        for w in ("ratio", "none")
    }
    right, wrong = ("ratio", "none") if weighted else ("none", "ratio")
    assert abs(trl - mine[right]) < 1e-5 * max(1.0, abs(trl)) and abs(trl - mine[wrong]) > 1e-3


def test_trls_own_loss_shows_the_k3_cancellation_and_a_correct_k3_does_not():
    from grpo_nb.chapters.trl_grpo.advantage_probe import make_probe

    probe = make_probe(beta=2.0, epsilon=1e3)
    rng = np.random.default_rng(0)
    d = 1e-4 * rng.uniform(0.5, 1.5, 64) * rng.choice([-1, 1], 64)
    trl_vals, exact = kn.trl_k3_values(probe, d)
    assert trl_vals.shape == exact.shape == (64,)
    assert kn.cancellation(1e-4, trl_vals, exact).median_rel_error > 0.5
    assert kn.cancellation(1e-4, exact, exact).median_rel_error == 0  # the measure sees no error where there is none
    big, big_exact = kn.trl_k3_values(probe, 100 * d)  # |d| ~ 1e-2: the float32 value keeps its digits
    assert kn.cancellation(1e-2, big, big_exact).median_rel_error < 0.05
    assert np.abs(big - big_exact).max() < 2.5e-7  # each token against the d TRL used: only float32 rounding is left


def test_the_small_grid_keeps_its_invariants_at_every_seed(tiny_grid):
    result, cfg = tiny_grid, tiny_grid["trl_config"]
    assert [c["key"] for c in result["cells"]] == [c.key for c in tg.GRID]
    assert result["seeds"] == list(tg.GRID_SEEDS) and len(tg.GRID_SEEDS) >= 5
    p_ref = np.asarray(result["p_ref"])
    for cell, ref in zip(result["cells"], tg.GRID, strict=True):
        assert cell["rung"] == asdict(ref.rung) and cell["baseline"] == ref.baseline
        seeds = list(tg.GRID_SEEDS) if ref.rung.uses_samples else [tg.GRID_SEEDS[0]]
        assert [run["seed"] for run in cell["runs"]] == seeds
        for run in cell["runs"]:
            p = np.asarray(run["p_measured"])
            assert p.shape == (p_ref.size, cfg["n"] + 1) and np.array_equal(p[:, 0], p_ref)
            assert np.all((p >= 0) & (p <= 1)) and np.all(np.isfinite(run["inner_loss"]))
    for key in ("exact-kl", "exact-exact_p"):  # the theory side's sampled reverts do read the samples
        runs = next(c for c in result["cells"] if c["key"] == key)["runs"]
        assert any(run["p_measured"] != runs[0]["p_measured"] for run in runs)


def test_the_grid_resumes_from_its_checkpoint_and_merges(tiny_grid, tmp_path):
    out = tmp_path / "part.json"
    done = next(c for c in tiny_grid["cells"] if c["key"] == "trl")["runs"][0] | {"wall_s": -1.0}
    out.with_suffix(".partial.json").write_text(json.dumps({"p_ref": tiny_grid["p_ref"], "runs": {"trl": [done]}}))
    _cli("--grid", "tiny", "--cells", "trl", "exact", "--seeds", "0", "1", "--out", str(out))
    part = json.loads(out.read_text())
    trl = part["cells"][0]["runs"]
    assert [r["seed"] for r in trl] == [0, 1] and trl[0]["wall_s"] == -1.0  # seed 0 was read, not run again
    assert trl[1]["p_measured"] == tiny_grid["cells"][0]["runs"][1]["p_measured"]  # seed 1 was run: the same run
    other = tmp_path / "other.json"
    _cli("--grid", "tiny", "--cells", "trl", "--seeds", "2", "--out", str(other))
    merged_path = tmp_path / "merged.json"
    _cli("--merge", str(out), str(other), "--out", str(merged_path))
    merged = json.loads(merged_path.read_text())
    assert [r["seed"] for r in merged["cells"][0]["runs"]] == [0, 1, 2] and merged["seeds"] == [0, 1, 2]
    bad = json.loads(other.read_text())
    bad["p_ref"][0] += 1e-3
    with pytest.raises(ValueError, match="p_ref differs"):
        tg.merge_grids([part, bad])


def test_the_paired_effects_count_and_measure_what_they_say(tiny_grid):
    result = json.loads(json.dumps(tiny_grid))
    cells = {c["key"]: c for c in result["cells"]}
    p_ref = result["p_ref"]
    shifts = {c.key: -1e-3 for c in tg.GRID} | {"trl+exact_p": 1e-3}  # every prompt ends below p_ref but on one cell
    for key, shift in shifts.items():
        for run in cells[key]["runs"]:
            run["p_measured"] = [row[:-1] + [p + shift] for row, p in zip(run["p_measured"], p_ref, strict=True)]
    e = kg.effects(result)["trl+exact_p"]["ended"]
    assert e.mean == -len(p_ref) and e.se == 0 and e.lower == len(tg.GRID_SEEDS) and e.higher == 0
    assert kg.restoring_cells(result) == ("trl+exact_p",) and kg.restoring_cells(result, "theory") == ()
    a = kg.CellStats("a", "", (0, 1, 2), (3, 5, 4), (3, 5, 4), (0.1, 0.2, 0.3))
    b = kg.CellStats("b", "", (0, 1, 2), (1, 2, 4), (1, 2, 4), (0.1, 0.1, 0.1))
    e = kg.effect(a, b, "ended")
    assert e.diffs == (2.0, 3.0, 0.0) and e.mean == pytest.approx(5 / 3)
    assert e.se == pytest.approx(np.std([2, 3, 0], ddof=1) / np.sqrt(3)) and (e.lower, e.higher) == (0, 2)
    one = kg.CellStats("x", "", (0,), (2,), (2,), (0.05,))  # a run that reads no sample stands for every seed
    assert kg.effect(a, one, "ended").diffs == (1.0, 3.0, 2.0)
    with pytest.raises(ValueError, match="seeds"):
        kg.effect(a, replace(b, seeds=(0, 1, 3)), "ended")
    with pytest.raises(ValueError, match="measure='final'"):
        kg.effect(a, b, "final")
    with pytest.raises(ValueError, match="not a knob-grid"):
        kg.load_grid("trl_ladder.json")


def test_the_cached_grid_has_the_schema_seeds_versions_and_machine():
    result = json.loads(CACHED_GRID.read_text())
    assert result["trainer"] == "trl-knob-grid" and result["config"] == "grid" and result["beta"] == tl.BETA
    assert result["trl_config"] == json.loads(json.dumps(asdict(tg.GRID_CONFIGS["grid"]) | {"runs": None}))
    assert [c["key"] for c in result["cells"]] == [c.key for c in tg.GRID]
    for cell, ref in zip(result["cells"], tg.GRID, strict=True):
        assert cell["rung"] == asdict(ref.rung) and cell["book_loss"] == ref.book_loss
        seeds = list(tg.GRID_SEEDS) if ref.rung.uses_samples else [tg.GRID_SEEDS[0]]
        assert [run["seed"] for run in cell["runs"]] == seeds
    assert "CPU" in result["hardware"] and {"trl", "transformers", "torch"} <= set(result["versions"])
    first = {run["seed"]: run["group_successes"] for run in result["cells"][0]["runs"]}  # rung 0's first generation
    for cell in result["cells"]:  # "a cell and its baseline at one seed draw the same first generation"
        for run in cell["runs"] if len(cell["runs"]) > 1 else ():
            assert [row[0] for row in run["group_successes"]] == [row[0] for row in first[run["seed"]]]


# --- the prompt the exact KL leaves below p_ref, and what the placebo rules out ----------------------------------


def _old_within_noise(result: dict, key: str, prompt: int) -> bool:
    """The section's former check: the predicted gain is smaller than the largest |p - p_ref| over every step and seed
    (a yardstick that grows with the very fall it is meant to excuse), and the prompt ends less than 0.01 below."""
    cell = next(c for c in result["cells"] if c["key"] == key)
    p_ref = result["p_ref"][prompt]
    runs = np.stack([np.asarray(run["p_measured"], dtype=float)[prompt] for run in cell["runs"]]) - p_ref
    predicted = cell["p_theory"][prompt][-1] - p_ref
    return 0.025 < predicted < np.abs(runs).max() < 0.05 and -runs[:, -1].min() < 0.01


def _falling(result: dict, key: str, prompt: int) -> dict:
    """The grid with ``prompt`` of cell ``key`` falling steadily at every seed: down to 0.043 below p_ref on the way,
    ending 0.007 below, with a seed-dependent wobble of 0.001."""
    out = json.loads(json.dumps(result))
    cell = next(c for c in out["cells"] if c["key"] == key)
    p_ref = out["p_ref"][prompt]
    for s, run in enumerate(cell["runs"]):
        n = len(run["p_measured"][prompt])
        path = -0.043 * np.sin(np.linspace(0, np.pi, n)) - 0.007 * np.linspace(0, 1, n) ** 2
        path[-1] += 0.001 * (-1) ** s
        run["p_measured"][prompt] = list(p_ref + path)
    return out


def test_the_easiest_prompt_is_not_amplified_under_the_exact_kl():
    grid = kg.load_grid()
    gains = kg.prompt_gains(grid, "trl+kl_exact")
    (i,) = gains.ending_below
    assert gains.p_ref[i] == max(gains.p_ref) and gains.seeds_below[i] == 5
    assert gains.verdicts[i] == "not amplified" and gains.shortfall[i] > 15 and abs(gains.mean[i]) < 2 * gains.se[i]
    final = [run["p_measured"][i][-1] - grid["p_ref"][i] for run in kg._cell(grid, "trl+kl_exact")["runs"]]
    assert gains.mean[i] == pytest.approx(np.mean(final)) and gains.se[i] == pytest.approx(
        np.std(final, ddof=1) / 10**0.5
    )
    assert sum(v == "amplified" for v in gains.verdicts) == 15


def test_the_old_check_excuses_a_steady_fall_and_the_new_one_reports_it():
    grid = kg.load_grid()
    i = int(np.argmax(grid["p_ref"]))
    assert _old_within_noise(grid, "trl+kl_exact", i)  # the old check passed on the grid ...
    fall = _falling(grid, "trl+kl_exact", i)
    assert _old_within_noise(
        fall, "trl+kl_exact", i
    )  # ... and passes just as well on a prompt that falls at every seed
    gains = kg.prompt_gains(fall, "trl+kl_exact")
    assert gains.verdicts[i] == "falls" and gains.seeds_below[i] == 10  # the new one sees the fall
    assert gains.verdicts[i] != "not amplified"  # so the page's assert fails on it


def test_the_gain_verdict_and_its_bad_input():
    assert kg.gain_verdict(0.05, 0.01) == "amplified" and kg.gain_verdict(-0.05, 0.01) == "falls"
    assert kg.gain_verdict(0.01, 0.01) == kg.gain_verdict(-0.01, 0.01) == "not amplified"
    with pytest.raises(ValueError, match="key='exact'"):
        kg.prompt_gains(kg.load_grid(), "exact")  # reads no sample: one run


def test_the_placebo_rules_out_shifts_beyond_about_one_prompt_and_no_smaller_ones():
    grid = kg.load_grid()
    reach = kg.placebo_reach(grid)
    assert reach.diffs == (2.0, 0.0, 0.0, -1.0, -3.0, 2.0, -1.0, 1.0, 0.0, 1.0)
    assert reach.spread == pytest.approx(np.std(reach.diffs, ddof=1)) and 1.0 < reach.reach < 1.1
    assert {k for k, v in reach.verdicts.items() if v == "beyond"} == {
        "trl+kl_exact", "trl+k3_unweighted", "trl+adam_reset", "trl+kl_exact+sequence_ratio"
    }  # fmt: skip
    within = {"trl+paper_advantage", "trl+exact_p", "trl+sequence_ratio", "trl+k3_float64"}
    assert {k for k, v in reach.verdicts.items() if v == "within"} == within
    old = kg.effects(grid)[kg.PLACEBO]["ended"]
    assert not old.significant()  # the old check ("the placebo moves nothing, so every effect is the knob's") passed,
    assert all(abs(kg.effects(grid)[k]["ended"].mean) < reach.reach for k in within)  # yet these are within its reach
    dips = kg.placebo_reach(grid, "dipped")
    assert dips.verdicts["trl+sequence_ratio"] == "unclear" and dips.against_placebo["trl+sequence_ratio"].significant()
    assert (
        dips.against_placebo["trl+sequence_ratio"].diffs
        == kg.effect(kg.cell_stats(grid, "trl+sequence_ratio"), kg.cell_stats(grid, kg.PLACEBO), "dipped").diffs
    )
    with pytest.raises(ValueError, match="measure='gap_h'"):
        kg.placebo_reach(grid, "gap_h")


def test_a_placebo_read_as_ruling_out_every_shift_fails(monkeypatch):
    """The old reading, "the placebo moves nothing": a reach of 0 turns the small rows into the knob's effects."""
    monkeypatch.setattr(kg, "placebo_reach_of", lambda placebo: 0.0)
    reach = kg.placebo_reach(kg.load_grid())
    assert not all(reach.verdicts[k] == "within" for k in ("trl+paper_advantage", "trl+exact_p", "trl+sequence_ratio"))
