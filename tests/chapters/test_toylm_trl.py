"""TRL's GRPOTrainer on the toy task: the CLI offline, the cached full run, and every knob check with a negative
test (a wrong formula handed to the check must fail it)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.toylm import trl_checks as tc  # noqa: E402
from grpo_nb.toylm import trl_report  # noqa: E402
from grpo_nb.toylm.trl_trainer import beta_effective  # noqa: E402
from tests.book_layout import ROOT  # noqa: E402

TOL = tc.TOL
CACHED = ROOT / "grpo_nb" / "data" / "trl_full.json"


def _pins() -> dict[str, str]:
    text = (ROOT / "requirements.txt").read_text()
    return dict(re.findall(r"^([A-Za-z_]+)==([\w.]+)$", text, re.M))


def _check_schema(result: dict) -> None:
    assert result["trainer"] == "trl" and result["runs"]
    for run in result["runs"].values():
        n = run["trl"]["n_outer"]
        assert len(run["outer_step_s"]) == n
        for row in run["per_prompt"]:
            assert {"prompt", "p_ref", "p_measured", "p_theory", "p_finite_group", "group_successes"} <= set(row)
            assert len(row["p_measured"]) == len(row["p_theory"]) == n + 1 and len(row["group_successes"]) == n
            assert row["p_measured"][0] == row["p_ref"] and all(0 <= p <= 1 for p in row["p_measured"])
            assert row["p_finite_group"] is None or len(row["p_finite_group"]) == n + 1
    pins = _pins()
    versions = result["versions"]
    for name in ("trl", "transformers", "accelerate", "datasets"):
        assert versions[name] == pins[name], f"{name} {versions[name]} is not the pinned {pins[name]}"
    assert versions["torch"].split("+")[0] == pins["torch"]


@pytest.fixture(scope="module")
def probe():
    return tc.make_probe(beta=0.5)


def test_cli_trains_with_trl_offline_and_writes_the_schema(tmp_path):
    out = tmp_path / "x.json"
    env = os.environ | {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    cmd = [sys.executable, "-m", "grpo_nb.toylm", "--trainer", "trl", "--config", "tiny", "--out", str(out)]
    proc = subprocess.run([*cmd, "--no-progress"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    _check_schema(json.loads(out.read_text()))


def test_the_cached_full_run_matches_the_schema_and_the_pinned_versions():
    result = json.loads(CACHED.read_text())
    assert result["config"] == "full"
    _check_schema(result)


def test_grpo_nb_imports_without_trl():
    code = "import sys; sys.modules['trl'] = None; import grpo_nb.toylm.__main__, grpo_nb.toylm.trl_checks"
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0


def test_advantage_is_trls_and_a_wrong_formula_fails(probe):
    for scale in ("group", "batch", "none"):
        assert tc.advantage_check(probe, scale) < TOL
    assert tc.advantage_check(probe, "group", form="population") > 100 * TOL  # no Bessel correction
    assert tc.advantage_check(probe, "group", form="paper") > 100 * TOL  # smoothing inside the root
    assert tc.advantage_check(probe, "group", eps=1e-3) > 10 * TOL  # the constant is 1e-4
    assert tc.advantage_check(probe, "none", form="trl") > 100 * TOL


def test_kl_is_k3_and_a_wrong_estimator_fails(probe):
    assert tc.kl_check(probe) < TOL
    assert tc.kl_check(probe, "k1") > 100 * TOL and tc.kl_check(probe, "k2") > 100 * TOL
    assert tc.kl_check(probe, bias_correction=True) < TOL
    assert tc.kl_check(probe, bias_correction=True, claim_ratio=False) > 100 * TOL
    assert tc.kl_check(probe, bias_correction=False, claim_ratio=True) > 100 * TOL  # no ratio without the flag


def test_loss_aggregation_per_loss_type_and_a_wrong_one_fails(probe):
    for lt in tc.LOSS_TYPES:
        assert tc.loss_type_check(probe, lt) < TOL
    assert tc.loss_type_check(probe, "grpo", "bnpo") > 100 * TOL
    assert tc.loss_type_check(probe, "dr_grpo", "bnpo") > 100 * TOL
    assert tc.loss_type_check(probe, "dapo", "grpo") > 100 * TOL


def test_clip_range_and_a_wrong_upper_range_fails(probe):
    assert tc.clip_check(probe, 0.2) < TOL and tc.clip_check(probe, 0.2, 0.28) < TOL
    assert tc.clip_check(probe, 0.2, 0.28, claim_high=0.2) > 100 * TOL
    assert tc.clip_check(probe, 0.2, claim_high=1e3) > 100 * TOL  # the clip does act


def test_sequence_level_ratio_and_the_wrong_level_fails(probe):
    assert tc.sequence_ratio_check(probe, "sequence") < TOL and tc.sequence_ratio_check(probe, "token") < TOL
    assert tc.sequence_ratio_check(probe, "sequence", "token") > 100 * TOL
    assert tc.sequence_ratio_check(probe, "token", "sequence") > 100 * TOL


def test_mu_one_never_clips_and_mu_three_does():
    stored, clipped = tc.mu_check(1)
    assert not stored and clipped == 0
    stored, clipped = tc.mu_check(3)
    assert stored and clipped > 0


def test_beta_default_is_zero_without_reference_or_kl():
    default, has_ref, loss = tc.beta_default_check()
    assert default == 0 and not has_ref and loss < TOL


def test_trls_defaults_are_the_stated_ones_and_a_wrong_claim_is_caught():
    assert tc.defaults_check() == {}
    assert tc.defaults_check({"beta": 0.04, "loss_type": "grpo"}) == {
        "beta": (0.0, 0.04),
        "loss_type": ("dapo", "grpo"),
    }


def test_bad_input_raises():
    with pytest.raises(ValueError, match="loss_type"):
        tc.aggregate(np.zeros((2, 2)), np.ones((2, 2)), "ppo", 2)
    with pytest.raises(ValueError, match="G=1"):
        beta_effective(1.0, 1)
    with pytest.raises(ValueError, match="beta=-1"):
        beta_effective(-1.0, 8)
    assert beta_effective(1.0, 2) == pytest.approx(np.sqrt(2))


def test_report_of_the_cached_run():
    from grpo_nb.toylm import trl_report

    result = trl_report.load_result(CACHED)
    keys = list(result["runs"])
    table, finals = trl_report.per_prompt_table(result, keys)
    assert len(table.rows) == len(result["prompts"]) and set(keys) <= set(finals)
    assert set(trl_report.prediction_gaps(result, keys[0])) == {"infinite G", "finite G"}
    facts = trl_report.beta_zero_facts(result, keys[0], 32)
    n = result["runs"][keys[0]]["trl"]["n_outer"] * len(result["prompts"])
    counts = ("steps with a mixed group", "steps with an all-success group", "steps with no success")
    assert sum(facts[c] for c in counts) == n


def test_the_trajectory_figure_draws_from_the_cached_run():
    import matplotlib

    matplotlib.use("Agg")
    from grpo_nb.plots.trl import plot_trl_trajectories
    from grpo_nb.toylm import trl_report

    result = trl_report.load_result(CACHED)
    fig = plot_trl_trajectories(**trl_report.trajectories(result, list(result["runs"])))
    assert len(fig.axes) == 3


def test_the_cached_runs_ship_with_the_package_and_load_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a chapter opened alone: no repository around it
    assert trl_report.load_result("trl_full.json") == json.loads(CACHED.read_text())
    with pytest.raises(ValueError, match="path='no_such_run.json'"):
        trl_report.load_result("no_such_run.json")
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"data/*.json"' in pyproject, "grpo_nb/data must be package data, or a wheel leaves it out"
