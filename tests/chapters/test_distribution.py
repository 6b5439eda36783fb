"""Tests of grpo_nb.chapters.distribution, the distribution chapter's analyses (one module per section): each passes
on the right formulas with the values the page asserts, and fails when a wrong formula is fed in (monkeypatched into
the section module the analysis reads)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit, logit, softmax

from grpo_nb.chapters import distribution as checks
from grpo_nb.chapters.distribution import entropy_law, random_rewards, signed_parts, support
from grpo_nb.tabular.clip_bias import inner_updates
from grpo_nb.tabular.distribution import signed_logit_increment
from grpo_nb.variants.policy import solve_policy_step


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


# ------------------------------------------------------------------ support and diversity


def test_the_solved_step_keeps_the_class_conditionals_with_either_anchor():
    ratios = checks.class_ratios(_rng(), n_instances=4, n=2)
    assert ratios.worst_drift < 1e-12 and ratios.smallest_gain > 0


def test_a_step_that_also_rewards_likely_answers_fails_the_class_check(monkeypatch):
    """Negative test: a maximiser whose advantage also pays log pi_prev(o) (a rich-get-richer bonus) drifts."""

    def sharpening(pi_ref, pi_prev, reward, beta, eps, *, alpha):
        tilted = solve_policy_step(pi_ref, pi_prev, reward, beta, eps, alpha=alpha) * np.asarray(pi_prev) ** 0.5
        return tilted / tilted.sum()

    monkeypatch.setattr(support, "SOLVE", sharpening)
    assert checks.class_ratios(_rng(), n_instances=4, n=2).worst_drift > 1e-3


def test_every_iterate_lies_above_p_ref_so_pass_at_k_rises():
    one = checks.per_prompt_pass_at_k(n=10)
    assert one.smallest_logit_gain > 2e-3 and one.smallest_log_miss_drop > 0 and one.smallest_pass_gain >= 0


def test_a_recursion_with_the_wrong_sign_fails_the_pass_at_k_check(monkeypatch):
    """Negative test: logit p_n = logit p_ref - c(p_{n-1})/beta (the push reversed) loses pass@k."""

    def reversed_push(p_ref, beta, eps, *, n, alpha):
        z = support.iterate_logit(p_ref, beta, eps, n=n, alpha=alpha)
        return 2 * z[0] - z

    monkeypatch.setattr(support, "ITERATE", reversed_push)
    one = checks.per_prompt_pass_at_k(n=5)
    assert one.smallest_logit_gain < 0 and one.smallest_pass_gain < 0


def test_the_crossover_example_gains_at_k_1_and_loses_from_k_2():
    cross = checks.crossover(0.2, 1e-5, n=10)
    assert cross.change[0] == pytest.approx(1 / 6, abs=1e-3) and cross.change[-1] == pytest.approx(-1 / 3, abs=1e-3)
    assert cross.first_loss_k == 2 and cross.alone_smallest_change >= 0
    assert np.allclose(cross.p_after, [1, 1, 0], atol=1e-6)


def test_a_larger_beta_keeps_the_crossover_smaller():
    """At beta = 1 the shared policy still loses at some k, by far less than at beta = 0.2."""
    gentle = checks.crossover(1.0, 1e-5, n=10)
    assert -0.05 < gentle.change.min() < 0 < gentle.change[0]


def test_sampled_groups_move_the_correct_class_and_exact_steps_do_not():
    sharpen = checks.sampled_sharpening(n=40)
    assert sharpen.ratio[0] == pytest.approx(3.0) and sharpen.ratio[-1] > 40 and sharpen.drift[-1] > 0.2
    assert np.all(np.diff(sharpen.p) > 0)


# ------------------------------------------------------------------ entropy


def test_the_covariance_law_is_first_order_and_its_wrong_sign_is_not():
    law = checks.covariance_law_check(_rng(), n_policies=40)
    assert law.growth < 1.1 and law.wrong_sign_growth > 90


def test_a_law_without_the_mean_subtraction_fails(monkeypatch):
    """Negative test: -E_pi[log pi * delta] (the covariance without its centring) is not the first-order change."""

    def uncentred(logits, delta):
        log_pi = np.log(softmax(logits))
        return -np.sum(softmax(logits) * log_pi * delta)

    monkeypatch.setattr(entropy_law, "LAW", uncentred)
    assert checks.covariance_law_check(_rng(), n_policies=40).growth > 10


def test_entropy_paths_order_the_clip_modes_as_the_page_says():
    paths = checks.entropy_paths(n=40)
    h = paths.entropy
    assert np.all(h["low_only"][1:] > h["none"][1:]) and np.all(h["symmetric"][1:] > h["high_only"][1:])
    assert paths.high_below_none_from == 8


def test_entropy_runs_are_seeded_and_their_gaps_are_in_standard_errors():
    a, b = (checks.entropy_runs(3, n=10, n_runs=200) for _ in range(2))
    assert a.entropy_mean == b.entropy_mean
    assert a.gap("low_only", "none") == pytest.approx(-a.gap("none", "low_only"))


# ------------------------------------------------------------------ random rewards


def test_one_step_changes_vanish_at_mu_1_and_the_upper_clip_lifts_the_top_mass():
    one = checks.one_step_changes()
    assert one.mu1_logit_change < 1e-15
    assert all(one.change[mu, "high_only"] > one.change[mu, "none"] for mu in (2, 4, 8))


def test_the_grid_margin_and_the_signs_of_the_upper_clip_alone():
    grid = checks.upper_clip_margin()
    assert grid.margin > 0.005 and grid.low_to_high_effect < 1 / 3 and 0 < grid.high_only_positive < grid.n_settings


def test_rare_answers_ratios_rise_fastest():
    first = checks.first_step_ratios(_rng(), n_policies=30)
    assert first.decreasing_everywhere
    assert np.all(np.diff(np.array(first.table.column("ratio π_θ / π_old after one step"), dtype=float)) > 0)


def test_an_update_that_scales_with_the_answer_s_probability_fails_the_mechanism(monkeypatch):
    """Negative test: a step of size lr pi(o) on the drawn answer (a probability-weighted step) reverses the order."""

    def weighted(logits, answers, advantages, *, lr, mu, clip_low, clip_high):
        pi = softmax(logits)
        scale = lr * 4 * pi[answers[0]] ** 2
        return inner_updates(logits, answers, advantages, lr=scale, mu=mu, clip_low=clip_low, clip_high=clip_high)

    monkeypatch.setattr(random_rewards, "UPDATE", weighted)
    assert not checks.first_step_ratios(_rng(), n_policies=30).decreasing_everywhere


# ------------------------------------------------------------------ signed parts


def test_signed_parts_never_lose_and_split_at_one_half():
    signed = checks.signed_exact(n=10)
    assert signed.positive_wins_below_half and min(signed.smallest_gain.values()) >= 0
    assert signed.returns_to_p_ref["positive"] > 0 == signed.returns_to_p_ref["negative"]


def test_swapped_weights_fail_the_one_half_split(monkeypatch):
    """Negative test: the successes' part weighted by w- and the failures' by w+ wins above 1/2 instead."""
    swap = {"positive": "negative", "negative": "positive", "both": "both"}

    def swapped(p, beta, eps, *, part):
        return signed_logit_increment(p, beta, eps, part=swap[part])

    monkeypatch.setattr(signed_parts, "INCREMENT", swapped)
    assert not checks.signed_exact(n=5).positive_wins_below_half


def test_a_positive_only_orbit_comes_back_to_p_ref():
    """The successes' part at p_ref = 1e-3, beta = 0.1: p_1 rounds to 1, where w+ = 0, so p_2 = p_ref exactly."""
    orbit = signed_parts._signed_orbit(1e-3, 0.1, 1e-5, part="positive", n=2)
    assert orbit[1] == 1.0 and orbit[2] == pytest.approx(1e-3, rel=1e-12)


def test_signed_shared_and_sampled_match_the_page():
    shared = checks.signed_shared()
    assert shared.change["positive", 0.2][0] < -0.1 and shared.change["negative", 0.2][0] > 0.1
    sampled = checks.signed_sampled()
    assert sampled.entropy["positive"][-1] > sampled.entropy["both"][-1] > sampled.entropy["negative"][-1]
    assert sampled.matched_entropy["positive"] > sampled.matched_entropy["both"]


# ------------------------------------------------------------------ the toy LM and TRL, and the papers


def test_the_cached_toy_lm_record_gives_the_page_s_counts():
    record = checks.load_record()
    toy = checks.pass_at_k_changes(record)
    assert toy.n_seeds >= 20 and toy.rises_everywhere["exact"] == toy.n_seeds
    entropy = checks.entropy_order(record)
    assert entropy.above["high_only", "none"] == toy.n_seeds
    top = checks.random_reward_top_mass(record)
    assert top.gap("high_only", "none") > 4 and all(v < 0 for v in top.mean.values())
    trl = checks.trl_pass_at_k()
    assert all(np.all(v > 0) for v in trl.mean_change.values())


def test_pass_at_k_changes_of_a_known_table():
    """A hand-made record: one seed, two prompts from p = (0.5, 0.5) to (1, 0): pass@1 unchanged, pass@k falls."""
    record = {"per_seed": {"0": {"runs": {"exact": {"p": [[0.5, 0.5], [1.0, 0.0]]}}}}}
    change = checks.pass_at_k_changes(record, runs=("exact",)).mean_change["exact"]
    assert change[0] == pytest.approx(0.0) and change[-1] == pytest.approx(-0.5)


def test_the_side_by_side_verdicts_follow_the_results():
    record = checks.load_record()
    findings = checks.Findings(
        checks.per_prompt_pass_at_k(n=5),
        checks.crossover(0.2, 1e-5, n=10),
        checks.pass_at_k_changes(record),
        checks.covariance_law_check(_rng(), n_policies=20),
        checks.entropy_paths(n=40),
        checks.entropy_runs(0, n=40, n_runs=1000),
        checks.entropy_order(record),
        checks.one_step_changes(),
        checks.entropy_paths(n=40, random_rewards=True),
        checks.random_reward_top_mass(record),
        checks.signed_sampled(),
    )
    verdicts = checks.side_by_side(findings).column("verdict")
    assert verdicts == ["partly", "agrees", "partly", "partly", "disagrees"]


def test_expit_logit_roundtrip_is_what_the_orbit_check_avoids():
    """Why per_prompt_pass_at_k reads logits: near 1 a probability loses the gain that its logit keeps."""
    assert logit(expit(40.0)) == np.inf or abs(logit(expit(40.0)) - 40.0) > 1.0
