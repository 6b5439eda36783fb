"""Section "Why is the KL missing (or NaN) from the logs, and where is the reference model?"
(``grpo_nb.chapters.tracker_questions.no_reference``): TRL at beta = 0 and beta > 0, Theorem 2's map as beta -> 0,
the cached beta = 0 run against that limit, and the practical-beta numbers, each against a wrong statement."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb.chapters.tracker_questions import no_reference  # noqa: E402
from grpo_nb.chapters.trl_grpo.full_runs import load_result  # noqa: E402
from grpo_nb.constants import PAPER_EPS  # noqa: E402
from grpo_nb.trl_adapters.trainer import TRL_EQUIVALENT_EPS  # noqa: E402


@pytest.fixture(scope="module")
def result():
    return load_result("trl_full.json")


def test_trl_at_beta_zero_has_no_reference_and_logs_no_kl(monkeypatch):
    chk = no_reference.trl_beta_check(seed=0)
    assert chk.mismatches == {}
    assert chk.reference_params == chk.policy_params > 0
    assert chk.kl_logged and np.isfinite(chk.kl_logged).all()
    monkeypatch.setitem(no_reference.BOOK_TRL_BETA, "kl logged at beta = 0", True)  # "it logs kl (nan)"
    monkeypatch.setitem(no_reference.BOOK_TRL_BETA, "reference model at beta = 0", True)
    wrong = no_reference.trl_beta_check(seed=0)
    assert set(wrong.mismatches) == {"kl logged at beta = 0", "reference model at beta = 0"}


@pytest.mark.parametrize("eps", [PAPER_EPS, TRL_EQUIVALENT_EPS])
def test_fixed_points_rise_to_one_as_beta_falls(eps):
    chk = no_reference.small_beta_check(eps)
    assert chk.agree and chk.direction == "rise" and chk.h_smallest_beta == 1.0
    assert chk.orbit_gap[0] == 0 and chk.orbit_gap[-1] > 0.5  # the limit at beta = 1e-3, far from it at beta = 10
    assert (np.diff(chk.lowest, axis=0) < 0).all()


@pytest.mark.parametrize(
    ("entry", "wrong"), [("extreme fixed points as beta falls", "fall"), ("limit of h(p), 0 < p < 1", 0.5)]
)
def test_wrong_small_beta_statements_fail(monkeypatch, entry, wrong):
    monkeypatch.setitem(no_reference.BOOK_SMALL_BETA, entry, wrong)
    chk = no_reference.small_beta_check()
    assert not chk.agree and set(chk.mismatches) == {entry}


def test_no_anchor_means_no_move_fails(monkeypatch, result):
    monkeypatch.setattr(
        no_reference, "book_beta_zero_orbit", lambda p_ref, n: np.broadcast_to(p_ref, (n + 1, np.size(p_ref)))
    )
    assert not no_reference.small_beta_check().agree
    assert no_reference.beta_zero_run(result).limit_gap > 0.5


def test_cached_run_is_far_from_the_limit(result):
    run = no_reference.beta_zero_run(result)
    assert no_reference.beta_zero_run() == run  # the shipped cached runs by default
    assert run.limit_gap == 0  # the cached prediction is the beta -> 0 limit
    assert run.first_step[1] < 0.99 and run.final[0] < 0.5 and run.below_ref >= 1
    assert run.facts.mean_change_mixed > 0 > run.facts.mean_change_full


def test_practical_beta_numbers(result):
    pr = no_reference.practical_beta(result)
    assert pr.beta_eff_max < min(pr.unsafe_paper[0], pr.unsafe_trl[0])
    assert 49.99 < pr.first_gain < 50
    assert pr.full_fall["beta=0 (TRL default)"] < pr.full_fall["beta=2"] < 0


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"eps": 0.0}, "eps"),
        ({"eps": -1.0}, "eps"),
        ({"betas": (1.0,)}, "betas"),
        ({"betas": (0.0, 1.0)}, "beta"),
        ({"p_refs": (0.5, 1.0)}, "p_ref"),
        ({"n": 0}, "n"),
    ],
)
def test_small_beta_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        no_reference.small_beta_check(**kwargs)


def test_other_bad_input(result):
    with pytest.raises(ValueError, match="beta"):
        no_reference.trl_beta_check(beta=0.0)
    with pytest.raises(ValueError, match="n=0"):
        no_reference.trl_beta_check(n=0)
    with pytest.raises(ValueError, match="key"):
        no_reference.beta_zero_run(result, "beta=7")
    with pytest.raises(ValueError, match="keys"):
        no_reference.practical_beta(result, ("beta=7",))
