"""TRL's GRPOTrainer on the toy task: the CLI offline, the cached full run, and every knob check of
grpo_nb.chapters.trl_grpo with a negative test (a wrong statement of the book's formula, monkeypatched into the
module-level name the check reads, must fail it)."""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.advantage import group_advantage  # noqa: E402
from grpo_nb.chapters import trl_grpo as tc  # noqa: E402
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
        n = run["trl"]["n"]
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
    code = "import sys; sys.modules['trl'] = None; import grpo_nb.toylm.__main__, grpo_nb.chapters.trl_grpo"
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0


def test_advantage_is_trls_and_a_wrong_formula_fails(probe, monkeypatch):
    for scale in ("group", "batch", "none"):
        assert tc.advantage_check(probe, scale) < TOL
    wrong = [
        ("group", functools.partial(group_advantage, form="population"), 100 * TOL),  # no Bessel correction
        ("group", functools.partial(group_advantage, form="paper"), 100 * TOL),  # smoothing inside the root
        ("group", functools.partial(group_advantage, form="trl", eps=1e-3), 10 * TOL),  # the constant is 1e-4
        ("none", functools.partial(group_advantage, form="trl"), 100 * TOL),
    ]
    for scale, formula, gap in wrong:
        with monkeypatch.context() as m:
            m.setitem(tc.BOOK_ADVANTAGES, scale, formula)
            assert tc.advantage_check(probe, scale) > gap, (scale, formula)


def test_kl_is_k3_and_a_wrong_estimator_fails(probe, monkeypatch):
    assert tc.kl_check(probe) < TOL
    assert tc.kl_check(probe, bias_correction=True) < TOL
    book_kl = tc.book_kl
    wrong = {
        "k1": lambda logp, ref, log_ratio, *, bias_correction: (logp - ref).double().numpy(),  # -d
        "k2": lambda logp, ref, log_ratio, *, bias_correction: ((ref - logp) ** 2 / 2).double().numpy(),  # d^2 / 2
    }
    for name, formula in wrong.items():
        with monkeypatch.context() as m:
            m.setattr(tc, "book_kl", formula)
            assert tc.kl_check(probe) > 100 * TOL, name
    # the ratio claimed the wrong way round
    monkeypatch.setattr(
        tc,
        "book_kl",
        lambda logp, ref, log_ratio, *, bias_correction: book_kl(
            logp, ref, log_ratio, bias_correction=not bias_correction
        ),
    )
    assert tc.kl_check(probe) > 100 * TOL  # a ratio without the flag
    assert tc.kl_check(probe, bias_correction=True) > 100 * TOL  # no ratio with the flag


def test_loss_aggregation_per_loss_type_and_a_wrong_one_fails(probe, monkeypatch):
    for lt in tc.LOSS_TYPES:
        assert tc.loss_type_check(probe, lt) < TOL
    aggregate = tc.aggregate
    for loss_type, claimed in (("grpo", "bnpo"), ("dr_grpo", "bnpo"), ("dapo", "grpo")):
        with monkeypatch.context() as m:
            m.setattr(
                tc,
                "aggregate",
                lambda x, mask, lt, *, max_len, n_generated=None, c=claimed: aggregate(
                    x, mask, c, max_len=max_len, n_generated=n_generated
                ),
            )
            assert tc.loss_type_check(probe, loss_type) > 100 * TOL, (loss_type, claimed)


def test_clip_range_and_a_wrong_upper_range_fails(probe, monkeypatch):
    assert tc.clip_check(probe, 0.2) < TOL and tc.clip_check(probe, 0.2, 0.28) < TOL
    clipped = tc.book_clipped_term
    with monkeypatch.context() as m:  # the book claims a symmetric clip where TRL's upper range is 0.28
        m.setattr(tc, "book_clipped_term", lambda x, a, low, *, clip_eps_high: clipped(x, a, low, clip_eps_high=low))
        assert tc.clip_check(probe, 0.2, 0.28) > 100 * TOL
    with monkeypatch.context() as m:  # the book claims no upper clip: the clip does act
        m.setattr(tc, "book_clipped_term", lambda x, a, low, *, clip_eps_high: clipped(x, a, low, clip_eps_high=1e3))
        assert tc.clip_check(probe, 0.2) > 100 * TOL


def test_sequence_level_ratio_and_the_wrong_level_fails(probe, monkeypatch):
    assert tc.sequence_ratio_check(probe, "sequence") < TOL and tc.sequence_ratio_check(probe, "token") < TOL
    log_ratio = tc.book_log_ratio
    other = {"sequence": "token", "token": "sequence"}
    monkeypatch.setattr(tc, "book_log_ratio", lambda lr, mask, level: log_ratio(lr, mask, other[level]))
    assert tc.sequence_ratio_check(probe, "sequence") > 100 * TOL
    assert tc.sequence_ratio_check(probe, "token") > 100 * TOL


def test_mu_one_never_clips_and_mu_three_does():
    mu1 = tc.mu_check(1)
    assert not mu1.stored and mu1.clipped == 0
    mu3 = tc.mu_check(3)
    assert mu3.stored and mu3.clipped > 0


def test_beta_default_is_zero_without_reference_or_kl():
    beta0 = tc.beta_default_check()
    assert beta0.default == 0 and not beta0.has_reference and beta0.loss < TOL


def test_trls_defaults_are_the_stated_ones_and_a_wrong_claim_is_caught(monkeypatch):
    assert tc.defaults_check() == {}
    monkeypatch.setattr(tc, "BOOK_DEFAULTS", {"beta": 0.04, "loss_type": "grpo"})
    assert tc.defaults_check() == {
        "beta": (0.0, 0.04),
        "loss_type": ("dapo", "grpo"),
    }


def test_the_knob_table_fails_the_row_of_a_wrong_statement_only(monkeypatch):
    monkeypatch.setitem(tc.BOOK_DEFAULTS, "loss_type", "grpo")
    knobs = tc.knob_table()
    assert [row.knob for row in knobs.rows if not row.passed] == ["TRL's defaults"]
    assert len(knobs.table.rows) == len(knobs.rows) == 15 and knobs.table.rows[0][-1] == "FAILS"


def test_bad_input_raises(probe):
    with pytest.raises(ValueError, match="loss_type"):
        tc.aggregate(np.zeros((2, 2)), np.ones((2, 2)), "ppo", max_len=2)
    with pytest.raises(ValueError, match="scale_rewards='global'"):
        tc.advantage_check(probe, "global")
    with pytest.raises(ValueError, match="level='answer'"):
        tc.sequence_ratio_check(probe, "answer")
    with pytest.raises(ValueError, match="loss_type='ppo'"):
        tc.loss_type_check(probe, "ppo")
    with pytest.raises(ValueError, match="G=1"):
        beta_effective(1.0, 1)
    with pytest.raises(ValueError, match="beta=-1"):
        beta_effective(-1.0, 8)
    assert beta_effective(1.0, 2) == pytest.approx(np.sqrt(2))


def test_report_of_the_cached_run():
    result = tc.load_result(CACHED)
    keys = list(result["runs"])
    final = tc.per_prompt_table(result, keys)
    assert len(final.table.rows) == len(result["prompts"]) == final.p_ref.size and set(keys) <= set(final.finals)
    gaps = tc.prediction_gaps(result, keys[0])
    assert 0 < gaps.infinite_g < 1 and 0 < gaps.finite_g < 1
    facts = tc.beta_zero_facts(result, keys[0], 32)
    n = result["runs"][keys[0]]["trl"]["n"] * len(result["prompts"])
    assert facts.mixed_steps + facts.full_steps + facts.empty_steps == n
    assert facts.rows[0] == ("steps with a mixed group", facts.mixed_steps) and len(facts.rows) == 9
    assert len(tc.timing_table(result).rows) == len(keys)


def test_the_trajectory_figure_draws_from_the_cached_run():
    import matplotlib

    matplotlib.use("Agg")
    from grpo_nb.plots.trl import plot_trl_trajectories

    result = tc.load_result(CACHED)
    fig = plot_trl_trajectories(**tc.trajectories(result, list(result["runs"])))
    assert len(fig.axes) == 3


def test_the_cached_runs_ship_with_the_package_and_load_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a chapter opened alone: no repository around it
    assert tc.load_result("trl_full.json") == json.loads(CACHED.read_text())
    with pytest.raises(ValueError, match="path='no_such_run.json'"):
        tc.load_result("no_such_run.json")
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"data/*.json"' in pyproject, "grpo_nb/data must be package data, or a wheel leaves it out"
