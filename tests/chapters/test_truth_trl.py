"""The trl_grpo chapter's corrected claims, each shown both ways: the check passes on the page's statement and fails
on the statement it replaced (a wrong formula monkeypatched into the module-level name the check reads, or the old
claim evaluated on the same data)."""

from __future__ import annotations

import pytest

pytest.importorskip("trl")

from grpo_nb.chapters import trl_grpo as tc  # noqa: E402

TOL = tc.TOL


@pytest.fixture(scope="module")
def result():
    return tc.load_result("trl_full.json")


@pytest.fixture(scope="module")
def keys(result):
    return list(result["runs"])


@pytest.fixture(scope="module")
def probe():
    return tc.make_probe(beta=0.0)


def test_amplification_facts_contradict_the_old_claim_that_beta_holds_easy_prompts(result, keys):
    amp = tc.amplification_facts(result, keys)
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


def test_the_run_meeting_the_follow_conditions_does_not_follow(result, keys):
    follow = tc.follow_check(result, keys[0])
    assert follow.meets and not follow.follows  # the old table said "yes" for these conditions
    assert follow.median_gap == pytest.approx(0.171, abs=1e-3) and follow.below_ref == 11


def test_gap_bootstrap_is_seeded_and_separates_only_a_small_difference(result, keys):
    fin = tc.gap_difference(result, (keys[0], "theory"), (keys[0], "finite"))
    assert fin == tc.gap_difference(result, (keys[0], "theory"), (keys[0], "finite"))  # seeded
    assert 0 < fin.low and fin.median_a - fin.median_b < 0.25 * fin.median_b  # real, but small against the gap
    assert fin.high < 0.3 * fin.median_b
    # swapping the two predictions must give a negative interval: the check can fail
    swapped = tc.gap_difference(result, (keys[0], "finite"), (keys[0], "theory"))
    assert swapped.high < 0


def test_old_logps_rule_is_trls_and_the_mu_only_rule_fails(monkeypatch):
    assert tc.old_logps_check().agree
    monkeypatch.setattr(tc, "book_stores_old_logps", lambda mu, spg, ga: mu > 1)
    assert not tc.old_logps_check().agree


def test_dr_grpo_divides_by_max_completion_length_and_dapo_by_the_generated_count(probe, monkeypatch):
    for lt in tc.LOSS_TYPES:
        assert tc.loss_type_check(probe, lt) < TOL
    aggregate = tc.aggregate

    def dr_grpo_by_width(x, mask, lt, *, max_len, n_generated=None):  # L_max taken as the padded width
        return aggregate(x, mask, lt, max_len=max_len - 2, n_generated=n_generated)

    def dapo_as_bnpo(x, mask, lt, *, max_len, n_generated=None):  # the old check's dapo: the mask's own count
        return aggregate(x, mask, "bnpo" if lt == "dapo" else lt, max_len=max_len, n_generated=n_generated)

    with monkeypatch.context() as m:
        m.setattr(tc, "aggregate", dr_grpo_by_width)
        assert tc.loss_type_check(probe, "dr_grpo") > 100 * TOL
    with monkeypatch.context() as m:
        m.setattr(tc, "aggregate", dapo_as_bnpo)
        assert tc.loss_type_check(probe, "dapo") > 100 * TOL
    with pytest.raises(ValueError, match="n_generated"):
        tc.aggregate(probe.logp.numpy(), probe.logp.numpy() * 0 + 1, "dapo", max_len=2)


def test_delta_caps_the_ratio_and_ignoring_it_fails(probe, monkeypatch):
    assert tc.clip_check(probe, 0.2, delta=1.5) < TOL
    monkeypatch.setattr(tc, "book_delta_ratio", lambda ratio, delta: ratio)
    assert tc.clip_check(probe, 0.2, delta=1.5) > 100 * TOL


def test_ref_sync_mixes_weights_and_a_policy_swap_fails(monkeypatch):
    sync = tc.ref_sync_check()
    assert sync.gap < TOL and sync.early < TOL
    monkeypatch.setattr(tc, "book_ref_sync", lambda theta, theta_ref, alpha: (1 - alpha) * theta + alpha * theta_ref)
    assert tc.ref_sync_check().gap > 100 * TOL


def test_new_defaults_are_trls_and_a_wrong_one_is_caught(monkeypatch):
    assert tc.defaults_check() == {}
    monkeypatch.setitem(tc.BOOK_DEFAULTS, "num_generations", 16)
    monkeypatch.setitem(tc.BOOK_DEFAULTS, tc.SPG_KEY, 1)
    assert set(tc.defaults_check()) == {"num_generations", tc.SPG_KEY}


def test_k3_without_ratio_gives_the_forward_kl_gradient_and_swapping_fails(monkeypatch):
    assert max(tc.kl_direction_check().values()) < 1e-12
    monkeypatch.setattr(tc, "KL_GRADIENT_DIRECTION", {"loss": "reverse", "ratio_weighted": "forward"})
    gaps = tc.kl_direction_check()
    assert gaps["loss"] > 1e-3 and gaps["ratio_weighted"] > 1e-3


def test_adam_moves_a_weight_with_zero_gradient():
    adam = tc.adam_zero_gradient_step()
    assert adam.move > 0.1 * adam.lr  # the old "moves only because its weights are shared" predicts 0
    assert "adamw" in adam.optim


def test_practice_numbers_are_the_quoted_ones():
    practice = tc.practice_numbers()
    assert round(practice.g_star) == 3 and abs(practice.rho2 - 0.3) < 0.005
    assert (round(100 * practice.bias_g8[0]), round(100 * practice.bias_g8[1])) == (13, 26)
