"""Section "The same prompts under TRL" (``grpo_nb.chapters.trl_grpo.full_runs``): the CLI offline, the cached full
run's schema and pinned versions, the tables and the figure drawn from it, and the corrected claims on its data,
each shown both ways (the check passes on the page's statement and fails on the one it replaced)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.chapters.trl_grpo import beta_zero, full_runs  # noqa: E402
from tests.book_layout import ROOT  # noqa: E402
from tests.chapters.trl_grpo import CACHED  # noqa: E402


def _pins() -> dict[str, str]:
    text = (ROOT / "requirements.txt").read_text()
    return dict(re.findall(r"^([A-Za-z_]+)==([\w.]+)$", text, re.M))


def _extra_ranges() -> dict[str, str]:
    """The ``trl`` extra of pyproject.toml: each package's version range."""
    import tomllib

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["trl"]
    return dict(re.match(r"([A-Za-z_]+)(.*)", req).groups() for req in extra)


def _check_schema(result: dict, *, cached: bool) -> None:
    """The record's schema; a cached record was made at requirements.txt's pins, a fresh one within the extra's
    ranges (a user's install)."""
    assert result["trainer"] == "trl" and result["runs"]
    for run in result["runs"].values():
        n = run["trl"]["n"]
        assert len(run["outer_step_s"]) == n
        for row in run["per_prompt"]:
            assert {"prompt", "p_ref", "p_measured", "p_theory", "p_finite_group", "group_successes"} <= set(row)
            assert len(row["p_measured"]) == len(row["p_theory"]) == n + 1 and len(row["group_successes"]) == n
            assert row["p_measured"][0] == row["p_ref"] and all(0 <= p <= 1 for p in row["p_measured"])
            assert row["p_finite_group"] is None or len(row["p_finite_group"]) == n + 1
    pins, versions = _pins(), result["versions"]
    if cached:
        for name in ("trl", "transformers", "accelerate", "datasets"):
            assert versions[name] == pins[name], f"{name} {versions[name]} is not the pinned {pins[name]}"
        assert versions["torch"].split("+")[0] == pins["torch"]
        return
    from packaging.specifiers import SpecifierSet

    for name, allowed in _extra_ranges().items():
        assert versions[name] in SpecifierSet(allowed), f"{name} {versions[name]} is outside the trl extra's {allowed}"


def test_cli_trains_with_trl_offline_and_writes_the_schema(tmp_path):
    out = tmp_path / "x.json"
    env = os.environ | {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    cmd = [sys.executable, "-m", "grpo_nb.trl_adapters", "--config", "tiny", "--out", str(out)]
    proc = subprocess.run([*cmd, "--no-progress"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    _check_schema(json.loads(out.read_text()), cached=False)


def test_the_cached_full_run_matches_the_schema_and_the_pinned_versions():
    result = json.loads(CACHED.read_text())
    assert result["config"] == "full"
    _check_schema(result, cached=True)


def test_report_of_the_cached_run():
    result = full_runs.load_result(CACHED)
    keys = list(result["runs"])
    final = full_runs.per_prompt_table(result, keys)
    assert len(final.table.rows) == len(result["prompts"]) == final.p_ref.size and set(keys) <= set(final.finals)
    gaps = full_runs.prediction_gaps(result, keys[0])
    assert 0 < gaps.infinite_g < 1 and 0 < gaps.finite_g < 1
    facts = beta_zero.beta_zero_facts(result, keys[0], 32)
    n = result["runs"][keys[0]]["trl"]["n"] * len(result["prompts"])
    assert facts.mixed_steps + facts.full_steps + facts.empty_steps == n
    assert facts.rows[0] == ("steps with a mixed group", facts.mixed_steps) and len(facts.rows) == 9
    assert len(full_runs.timing_table(result).rows) == len(keys)


def test_the_trajectory_figure_draws_from_the_cached_run():
    import matplotlib

    matplotlib.use("Agg")
    from grpo_nb.plots.trl import plot_trl_trajectories

    result = full_runs.load_result(CACHED)
    fig = plot_trl_trajectories(**full_runs.trajectories(result, list(result["runs"])))
    assert len(fig.axes) == 3


def test_the_cached_runs_ship_with_the_package_and_load_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a chapter opened alone: no repository around it
    assert full_runs.load_result("trl_full.json") == json.loads(CACHED.read_text())
    with pytest.raises(ValueError, match="path='no_such_run.json'"):
        full_runs.load_result("no_such_run.json")
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"data/*.json"' in pyproject, "grpo_nb/data must be package data, or a wheel leaves it out"


def test_amplification_facts_contradict_the_old_claim_that_beta_holds_easy_prompts(result, keys):
    amp = full_runs.amplification_facts(result, keys)
    b2, b0 = keys[0], keys[2]
    assert (amp.n_easy, amp.easy_above[b0], amp.easy_above[b2], amp.below_ref[b2], amp.below_ref[b0]) == (
        16,
        14,
        7,
        11,
        2,
    )
    assert amp.easy_final[b0] == pytest.approx(0.941, abs=5e-4) and amp.easy_final[b2] == pytest.approx(0.756, abs=5e-4)
    assert amp.predictions_above_ref
    # the old statement "beta > 0 is what holds the easy prompts" is false on the page's data
    assert not (amp.easy_above[b2] >= amp.easy_above[b0])


def test_gap_bootstrap_is_seeded_and_separates_only_a_small_difference(result, keys):
    fin = full_runs.gap_difference(result, (keys[0], "theory"), (keys[0], "finite"))
    assert fin == full_runs.gap_difference(result, (keys[0], "theory"), (keys[0], "finite"))  # seeded
    assert 0 < fin.low and fin.median_a - fin.median_b < 0.25 * fin.median_b  # real, but small against the gap
    assert fin.high < 0.3 * fin.median_b
    # swapping the two predictions must give a negative interval: the check can fail
    swapped = full_runs.gap_difference(result, (keys[0], "finite"), (keys[0], "theory"))
    assert swapped.high < 0
