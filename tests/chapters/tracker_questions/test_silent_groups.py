"""Section "All my rewards in a group are equal: loss 0, grad_norm 0" (``grpo_nb.chapters.tracker_questions.
silent_groups``) and the numpy homes it adds (``silent_group_probability``, ``mixed_group_probability`` in
``grpo_nb.ustat.finite_group``, ``score_weight`` in ``grpo_nb.kl``): every check passes at 20 seeds, fails when the
book's statement is replaced by a wrong one, and bad input raises ValueError naming the parameter."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("trl")
os.environ["HF_HUB_OFFLINE"] = "1"

from grpo_nb import kl  # noqa: E402
from grpo_nb.chapters.tracker_questions import silent_groups as sg  # noqa: E402
from grpo_nb.ustat.finite_group import mixed_group_probability, silent_group_probability  # noqa: E402

SEEDS = range(20)
PROMPTS = np.array([0.67, 0.065, 0.9987, 0.44])  # about the probe's p_ref


def _all_wrong_only(p, G):
    """A wrong statement: a group is silent only when every answer is wrong."""
    return (1 - np.asarray(p)) ** G


# ---- the numpy homes ------------------------------------------------------------------------------------------------


def test_silent_and_mixed_probabilities_are_complements_and_mixed_is_accurate_near_0_and_1():
    p = np.linspace(0, 1, 101)
    for G in (2, 3, 8, 64):
        assert np.allclose(silent_group_probability(p, G) + mixed_group_probability(p, G), 1.0, atol=1e-15)
    for tiny in (1e-9, 1e-12, 1e-15):  # 1 - p^G - (1-p)^G = G p - C(G, 2) p^2 + ...: no cancellation
        expected = 8 * tiny - 28 * tiny**2
        assert mixed_group_probability(tiny, 8) == pytest.approx(expected, rel=1e-9)
        assert mixed_group_probability(1 - 2**-40, 8) == pytest.approx(8 * 2**-40, rel=1e-9)
    assert silent_group_probability(0.5, 2) == 0.5 and silent_group_probability(0.0, 5) == 1.0


@pytest.mark.parametrize("func", [silent_group_probability, mixed_group_probability])
@pytest.mark.parametrize(
    ("p", "G", "match"),
    [(1.5, 8, "p=1.5"), (-0.1, 8, "p=-0.1"), (float("nan"), 8, "p=nan"), ("x", 8, "p='x'"), (0.5, 1, "G=1"),
     (0.5, 2.0, "G=2.0")],
)  # fmt: skip
def test_group_probabilities_reject_bad_input(func, p, G, match):
    with pytest.raises(ValueError, match=match):
        func(p, G)


def test_score_weight_is_each_placements_derivative_and_rejects_bad_input():
    d = np.linspace(-2, 2, 9)
    zero = np.zeros_like(d)
    assert np.allclose(kl.score_weight(zero, d, "k3", placement="loss"), 1 - np.exp(d))
    assert np.allclose(kl.score_weight(zero, d, "k3", placement="ratio_weighted"), -d, atol=1e-15)
    assert np.allclose(kl.score_weight(zero, d, "k2", placement="reward"), d**2 / 2)
    with pytest.raises(ValueError, match="estimator='k9'"):
        kl.score_weight(zero, d, "k9", placement="loss")
    with pytest.raises(ValueError, match="placement='advantage'"):
        kl.score_weight(zero, d, "k3", placement="advantage")
    with pytest.raises(ValueError, match="NaN"):
        kl.score_weight(np.array([np.nan]), np.array([0.0]), "k3", placement="loss")


# ---- the probability ------------------------------------------------------------------------------------------------


def test_the_silent_probability_matches_the_enumeration_and_the_finite_group_law():
    check = sg.silent_probability_check()
    assert check.passed and check.enumeration_gap < sg.TOL and check.law_gap < sg.TOL
    assert abs(check.retention - check.mixed) > 0.05  # rho_G is another quantity than 1 - P(silent)


def test_a_wrong_silent_probability_fails(monkeypatch):
    monkeypatch.setattr(sg, "SILENT_PROBABILITY", _all_wrong_only)
    check = sg.silent_probability_check()
    assert not check.passed and check.enumeration_gap > 0.1 and check.law_gap > 0.1


def test_the_probability_check_rejects_bad_input():
    with pytest.raises(ValueError, match="n_p=0"):
        sg.silent_probability_check(n_p=0)
    with pytest.raises(ValueError, match="G=1"):
        sg.silent_probability_check(groups=(1, 2))


# ---- the share in a real TRL run ------------------------------------------------------------------------------------


def test_the_silent_share_of_trls_run_is_the_expected_one_at_20_seeds():
    runs = [sg.silent_share_run(seed) for seed in SEEDS]
    assert all(r.passed for r in runs), [(r.observed, r.expected, r.margin, r.trl_log_gap) for r in runs]
    assert all(r.trl_log_gap < sg.TOL and r.trl_logged.size == r.k.shape[0] for r in runs)
    assert len({r.k.tobytes() for r in runs}) == len(runs)  # the seed changes the run


def test_a_wrong_statement_fails_the_run_check(monkeypatch):
    monkeypatch.setattr(sg, "SILENT_PROBABILITY", _all_wrong_only)
    run = sg.silent_share_run(0)
    assert not run.passed and abs(run.observed - run.expected) > run.margin


def test_the_run_rejects_bad_input():
    with pytest.raises(ValueError, match="n=0"):
        sg.silent_share_run(0, n=0)
    with pytest.raises(ValueError, match="seed=-1"):
        sg.silent_share_run(-1)
    with pytest.raises(ValueError, match="beta=-1.0"):
        sg.silent_share_run(0, beta=-1.0)


# ---- TRL's loss and gradient on silent groups -----------------------------------------------------------------------


def test_with_beta_0_a_silent_batch_has_loss_and_gradient_exactly_0_at_20_seeds():
    for seed in SEEDS:
        batch = sg.silent_batch_beta_zero(seed)
        assert batch.max_advantage == 0 and batch.loss == 0 and batch.grad_norm == 0
        assert np.all(batch.token_gradient == 0) and batch.control_grad_norm > 0.1


@pytest.mark.parametrize("bias_correction", [True, False])
def test_with_beta_above_0_the_gradient_is_the_kl_terms_towards_pi_ref_at_20_seeds(bias_correction):
    for seed in SEEDS:
        batch = sg.silent_batch_kl_pull(0.5, bias_correction=bias_correction, seed=seed)
        assert batch.max_advantage == 0 and batch.loss > 0 and batch.grad_norm > 0.1
        assert batch.token_gap < sg.TOL and batch.towards_reference


@pytest.mark.parametrize("bias_correction", [True, False])
def test_the_other_flags_weight_fails(monkeypatch, bias_correction):
    """A wrong statement: TRL's gradient per token with the weight of the other ``use_bias_correction_kl``."""
    swapped = {True: sg.SILENT_TOKEN_WEIGHT[False], False: sg.SILENT_TOKEN_WEIGHT[True]}
    monkeypatch.setattr(sg, "SILENT_TOKEN_WEIGHT", swapped)
    batch = sg.silent_batch_kl_pull(0.5, bias_correction=bias_correction, seed=0)
    assert batch.token_gap > 100 * sg.TOL


def test_the_kl_pull_rejects_bad_input():
    for beta in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="beta="):
            sg.silent_batch_kl_pull(beta)
    with pytest.raises(ValueError, match="bias_correction=1"):
        sg.silent_batch_kl_pull(0.5, bias_correction=1)
    with pytest.raises(ValueError, match="seed=-2"):
        sg.silent_batch_beta_zero(-2)


def test_adam_moves_weights_on_a_zero_gradient():
    carry = sg.adam_zero_gradient_step()
    assert carry.move > 0.1 * carry.lr


# ---- TRL's options and DAPO's dynamic sampling ----------------------------------------------------------------------


def test_trl_has_no_option_for_silent_groups_and_the_scan_would_find_one(monkeypatch):
    assert sg.trl_silent_group_options() == ()
    monkeypatch.setattr(sg, "ABSENT_OPTION_WORDS", ("generations",))
    assert "num_generations" in sg.trl_silent_group_options()


def test_dynamic_sampling_matches_the_book_exactly_and_by_simulation_at_20_seeds():
    for seed in SEEDS:
        ds = sg.dynamic_sampling(PROMPTS, 8, seed=seed)
        assert ds.passed and ds.exact_gap < sg.TOL and ds.law_gap < sg.TOL
    assert ds.same_prompt_groups > 5 * ds.book_groups  # redrawing the same prompt costs far more here


def _per_prompt_groups(silent):
    """A wrong statement: the mean over prompts of each prompt's 1/(1 - P(silent)) (redrawing the same prompt)."""
    return float(np.mean(1.0 / (1.0 - np.asarray(silent))))


def _per_prompt_update(update, silent):
    """A wrong statement: the mean over prompts of each prompt's update given a mixed group."""
    return float(np.mean(np.asarray(update) / (1.0 - np.asarray(silent))))


@pytest.mark.parametrize(
    ("name", "wrong"),
    [("DAPO_GROUPS_PER_KEPT", _per_prompt_groups), ("DAPO_UPDATE_PER_KEPT", _per_prompt_update),
     ("DAPO_UPDATE_PER_KEPT", lambda update, silent: float(np.mean(update)))],
)  # fmt: skip
def test_a_wrong_dynamic_sampling_statement_fails(monkeypatch, name, wrong):
    monkeypatch.setattr(sg, name, wrong)
    ds = sg.dynamic_sampling(PROMPTS, 8, n_kept=4000, seed=0)
    assert not ds.passed and ds.exact_gap > 0.01 and not ds.sampled_within


def test_dynamic_sampling_rejects_bad_input():
    with pytest.raises(ValueError, match="p=1.2"):
        sg.dynamic_sampling([0.5, 1.2])
    with pytest.raises(ValueError, match="every group is silent"):
        sg.dynamic_sampling([0.0, 1.0])
    with pytest.raises(ValueError, match="G=1"):
        sg.dynamic_sampling(PROMPTS, 1)
    with pytest.raises(ValueError, match="n_kept=0"):
        sg.dynamic_sampling(PROMPTS, 8, n_kept=0)
    with pytest.raises(ValueError, match="seed=-1"):
        sg.dynamic_sampling(PROMPTS, 8, seed=-1)
