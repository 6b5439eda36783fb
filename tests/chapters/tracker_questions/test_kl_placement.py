"""Section "Which KL estimator, and where: in the loss or in the reward?" (``kl_placement``): the nine estimator
placements against the gradients of the functionals the book states, their scope, and TRL's KL term measured on its
own loss; a wrong statement fails each check."""

from __future__ import annotations

import os

import numpy as np
import pytest

from grpo_nb.chapters.tracker_questions import kl_placement

os.environ["HF_HUB_OFFLINE"] = "1"


@pytest.fixture(scope="module")
def probe():
    pytest.importorskip("trl")
    from grpo_nb.chapters.trl_grpo.advantage_probe import make_probe

    return make_probe(beta=2.0, seed=0)


# --- the table: exact enumeration, one token, on-policy ---------------------------------------------------------------


def test_each_placement_is_the_gradient_of_the_stated_functional():
    table = kl_placement.placement_table()
    assert table.holds
    assert (
        max(table.closed_gap.values()) < kl_placement.TOL_FD and max(table.autograd_gap.values()) < kl_placement.TOL_FD
    )
    assert table.ratio_gap < kl_placement.TOL
    assert set(table.none_distance) == {("k2", "ratio_weighted"), ("k2", "reward"), ("k3", "reward")}
    assert min(table.none_distance.values()) > kl_placement.FAR
    assert len(table.table.rows) == 9


def test_the_labels_name_the_kl_or_none():
    label = {cell: kl_placement.kl_label(c) for cell, c in kl_placement.CLAIMED_GRADIENT.items()}
    assert label[("k1", "loss")] == "none (zero gradient)"
    assert "pi_{\\mathrm{ref}}\\,\\|\\,\\pi" in label[("k3", "loss")]  # the forward KL
    assert [c for c, lab in label.items() if lab == "none"] == [
        ("k2", "ratio_weighted"),
        ("k2", "reward"),
        ("k3", "reward"),
    ]


@pytest.mark.parametrize(
    ("cell", "wrong"),
    [
        (("k3", "loss"), {"reverse": 1.0}),  # "k3 in the loss follows Eq. 2's KL"
        (("k1", "loss"), {"reverse": 1.0}),  # "k1 in the loss is the KL's gradient"
        (("k3", "reward"), {"reverse": 1.0}),  # "any unbiased estimate in the reward gives the KL's gradient"
        (("k2", "ratio_weighted"), {"reverse": 1.0}),  # "the ratio always restores the reverse KL"
        (("k3", "ratio_weighted"), {"forward": 1.0}),
    ],
)
def test_a_wrong_functional_fails(monkeypatch, cell, wrong):
    monkeypatch.setitem(kl_placement.CLAIMED_GRADIENT, cell, wrong)
    table = kl_placement.placement_table(n_draws=3)
    assert not table.holds and table.closed_gap[cell] > 1e-3 and table.autograd_gap[cell] > 1e-3


def test_a_cell_called_no_kl_that_is_a_kl_fails(monkeypatch):
    """A combination labelled "none" whose gradient is a KL's after all (the 1e-12 forward term changes nothing)."""
    monkeypatch.setitem(kl_placement.CLAIMED_GRADIENT, ("k1", "reward"), {"reverse": 1.0, "forward": 1e-12})
    table = kl_placement.placement_table(n_draws=3)
    assert not table.holds and table.none_distance[("k1", "reward")] < kl_placement.FAR


def test_a_wrong_statement_of_the_ratio_fails(monkeypatch):
    monkeypatch.setattr(kl_placement, "book_ratio_weighted", lambda loss, reward: loss)  # "the ratio is 1: no effect"
    assert not kl_placement.placement_table(n_draws=3).holds


def test_the_functionals_by_finite_differences_are_the_closed_forms():
    from grpo_nb.kl import softmax_kl_gradients

    rng = np.random.default_rng(3)
    logits, ref = rng.normal(size=4), rng.normal(size=4)
    log_ref = ref - np.logaddexp.reduce(ref)
    reverse, forward = softmax_kl_gradients(logits, log_ref)
    assert np.abs(kl_placement.functional_gradient("reverse", logits, log_ref) - reverse).max() < 1e-10
    assert np.abs(kl_placement.functional_gradient("forward", logits, log_ref) - forward).max() < 1e-10
    assert kl_placement.functional_value("k2_mean", logits, log_ref) > 0


# --- the scope ------------------------------------------------------------------------------------------------------


def test_the_scope_holds():
    scope = kl_placement.placement_scope()
    assert scope.holds and max(scope.two_token_gap.values()) < kl_placement.TOL
    assert min(scope.two_token_other.values()) > kl_placement.FAR
    for cell, (lo, hi) in scope.off_policy.items():
        assert hi < kl_placement.TOL if cell[1] == "ratio_weighted" else lo > kl_placement.FAR


@pytest.mark.parametrize(
    ("cell", "wrong"),
    [(("k1", "reward"), "per-token"), (("k3", "ratio_weighted"), "sequence"), (("k3", "loss"), "sequence")],
)
def test_a_wrong_two_token_scope_fails(monkeypatch, cell, wrong):
    monkeypatch.setitem(kl_placement.CLAIMED_TWO_TOKEN, cell, wrong)
    assert not kl_placement.placement_scope(n_draws=3).holds


@pytest.mark.parametrize(("placement", "wrong"), [("loss", True), ("reward", True), ("ratio_weighted", False)])
def test_a_wrong_off_policy_scope_fails(monkeypatch, placement, wrong):
    monkeypatch.setitem(kl_placement.OFF_POLICY_KEEPS, placement, wrong)
    assert not kl_placement.placement_scope(n_draws=3).holds


# --- TRL's piece ----------------------------------------------------------------------------------------------------


def test_trl_follows_the_stated_placement(probe):
    trl = kl_placement.trl_placement(probe)
    assert trl.holds and trl.default is True and trl.kl_options == ("use_bias_correction_kl",)
    assert max(trl.placement_gap.values()) < kl_placement.TOL_TRL and max(trl.kl_gap.values()) < kl_placement.TOL_TRL
    assert max(trl.value_gap.values()) < kl_placement.TOL_TRL
    assert "pi\\,\\|\\,\\pi_{\\mathrm{ref}}" in trl.follows[True] and "ref}}\\,\\|\\,\\pi)" in trl.follows[False]
    assert probe.trainer.loss_type == "dapo" and probe.trainer.args.use_bias_correction_kl is True  # restored


@pytest.mark.parametrize("wrong", [{True: "loss", False: "ratio_weighted"}, {True: "reward", False: "loss"}])
def test_a_wrong_trl_placement_fails(monkeypatch, probe, wrong):
    monkeypatch.setattr(kl_placement, "TRL_KL_PLACEMENT", wrong)
    trl = kl_placement.trl_placement(probe, n_draws=2)
    assert not trl.holds and max(trl.placement_gap.values()) > 0.01


@pytest.mark.parametrize(
    ("name", "wrong"),
    [("TRL_DEFAULT_BIAS_CORRECTION", False), ("TRL_KL_OPTIONS", ("use_bias_correction_kl", "kl_estimator"))],
)
def test_a_wrong_statement_of_trls_options_fails(monkeypatch, probe, name, wrong):
    monkeypatch.setattr(kl_placement, name, wrong)
    assert not kl_placement.trl_placement(probe, n_draws=1).holds


def test_the_grid_shows_the_unweighted_k3_takes_away_falls(monkeypatch):
    found = kl_placement.grid_check()
    assert all(ok for _, ok in found.values())
    monkeypatch.setitem(kl_placement.GRID_CLAIMS, "trl+k3_unweighted", "not fewer")
    assert not all(ok for _, ok in kl_placement.grid_check().values())


# --- bad input ------------------------------------------------------------------------------------------------------


def test_bad_input_names_the_parameter(probe):
    with pytest.raises(ValueError, match="n_draws"):
        kl_placement.placement_table(n_draws=0)
    with pytest.raises(ValueError, match="n_answers"):
        kl_placement.placement_table(n_answers=1)
    with pytest.raises(ValueError, match="n_draws"):
        kl_placement.placement_scope(n_draws=-1)
    with pytest.raises(ValueError, match="name"):
        kl_placement.functional_value("jensen", [0.0, 1.0], [-0.7, -0.7])
    with pytest.raises(ValueError, match="n_answers"):
        kl_placement.trl_placement(probe, n_answers=1)
