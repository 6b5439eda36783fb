"""Tests of grpo_nb.chapters.distribution, the distribution chapter's analyses (one module per section): each passes
on the right formulas with the values the page asserts, and fails when a wrong formula is fed in (monkeypatched into
the section module the analysis reads)."""

from __future__ import annotations

import ast
import dataclasses

import numpy as np
import pytest
from scipy.special import expit, logit, softmax

from grpo_nb.chapters import distribution as checks
from grpo_nb.chapters.distribution import entropy_law, papers, random_rewards, signed_parts, support
from grpo_nb.tabular import clip_bias
from grpo_nb.tabular.clip_bias import PolicyTrace, expected_update_orbit, inner_updates
from grpo_nb.tabular.distribution import signed_logit_increment
from grpo_nb.tabular.examples import BANDIT_PI0, BANDIT_REWARD
from grpo_nb.variants.policy import solve_policy_step
from tests.book_layout import BOOK, chapter_of_page
from tests.chapters.colab_bootstrap import code_cells


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


def test_a_path_that_rescales_each_class_as_a_whole_fails_the_drift_check(monkeypatch):
    """Negative test: a path with the sampled path's p but pi_0's ratios inside each class (a tilt by the reward, as
    an exact step) does not drift, so the page's check (drift > 0.2) fails."""

    def tilt_with_the_same_p(logits0, **options):
        path = expected_update_orbit(logits0, **options)
        reward = np.asarray(BANDIT_REWARD, dtype=float)
        p = softmax(path.logits, axis=-1) @ reward
        p0 = np.asarray(BANDIT_PI0) @ reward
        shift = logit(p) - logit(p0)  # the tilt that gives the class of successes the mass p
        tilted = np.asarray(logits0)[None, :] + shift[:, None] * reward[None, :]
        return PolicyTrace(tilted, path.top_mass, path.entropy)

    monkeypatch.setattr(support, "ORBIT", tilt_with_the_same_p)
    sharpen = checks.sampled_sharpening(n=40)
    assert sharpen.drift[-1] < 1e-12 and sharpen.p[-1] > 0.9


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
    m, se = a.top_mean["none"], a.top_se["none"]
    assert a.distance("none", m - 2 * se, of="top") == pytest.approx(2.0) and a.distance("none", m, of="top") == 0


@pytest.fixture(scope="module")
def verifiable_runs():
    return checks.entropy_runs(0, n=40, n_runs=1000)


def test_the_upper_clip_alone_s_effect_on_the_path_is_below_what_the_runs_resolve(verifiable_runs):
    """The page's check: |H_high_only - H_none| on the path at iteration 40 is below 4 standard errors of the runs'
    difference. It can fail: the lower clip's effect on the path is far above that resolution."""
    h = checks.entropy_paths(n=40).entropy
    se = {m: verifiable_runs.difference_se(m, "none") for m in ("high_only", "low_only")}
    assert abs(h["high_only"][-1] - h["none"][-1]) < 4 * se["high_only"]
    assert not abs(h["low_only"][-1] - h["none"][-1]) < 4 * se["low_only"]  # negative: an effect the runs resolve


def test_the_old_within_noise_check_passes_even_where_the_runs_show_the_path_s_effect(verifiable_runs):
    """Negative test of the old check (|gap| < 4 s.e., read as "no effect"): runs whose upper-clip mean is moved to
    show exactly the path's effect still pass it, so it could not tell the effect from its absence."""
    h = checks.entropy_paths(n=40).entropy
    mean = dict(verifiable_runs.entropy_mean)
    mean["high_only"] = mean["none"] + (h["high_only"][-1] - h["none"][-1])
    showing_the_effect = dataclasses.replace(verifiable_runs, entropy_mean=mean)
    assert abs(showing_the_effect.gap("high_only", "none")) < 4


# ------------------------------------------------------------------ random rewards: the sampled runs against the path


@pytest.fixture(scope="module")
def random_runs():
    return checks.entropy_runs(0, n=40, n_runs=1000, random_rewards=True)


@pytest.fixture(scope="module")
def random_paths():
    return checks.entropy_paths(n=40, random_rewards=True)


def test_random_reward_runs_keep_the_order_of_the_path_not_its_size(random_runs, random_paths):
    """The page's asserts on the sampled runs: the upper clip alone keeps more top mass than no clip, yet ends more
    than 10 standard errors below the path's end; it lowers the entropy, the lower clip alone raises it."""
    path_top = random_paths.top_mass["high_only"][-1]
    assert random_runs.gap("high_only", "none", of="top") > 4
    assert random_runs.distance("high_only", path_top, of="top") < -10
    assert random_runs.gap("high_only", "none") < -4 and random_runs.gap("low_only", "none") > 4
    assert random_paths.entropy["high_only"][-1] < random_paths.entropy["none"][-1]


def test_the_old_wording_that_sampled_runs_reach_the_path_fails(random_runs, random_paths):
    """Negative test: the takeaway's old claim, a wrong answer taken from 0.4 to 0.9 read as a claim about sampled
    runs, fails: their mean lies far from the path's end, not within 4 standard errors of it."""
    path_top = random_paths.top_mass["high_only"][-1]
    assert path_top > 0.85 and not abs(random_runs.distance("high_only", path_top, of="top")) < 4


def test_swapped_clip_bounds_fail_the_random_reward_entropy_checks(monkeypatch):
    """Negative test: modes whose two bounds are swapped (the upper clip clipping below) reverse the entropy split."""
    original = clip_bias.clip_bounds

    def swapped(mode, *, clip_eps):
        low, high = original(mode, clip_eps=clip_eps)
        return high, low

    monkeypatch.setattr(clip_bias, "clip_bounds", swapped)
    runs = checks.entropy_runs(0, n=40, n_runs=1000, random_rewards=True)
    assert runs.gap("high_only", "none") > 4 and runs.gap("low_only", "none") < -4


# ------------------------------------------------------------------ random rewards


def test_one_step_changes_vanish_at_mu_1_and_the_upper_clip_lifts_the_top_mass():
    one = checks.one_step_changes()
    assert one.mu1_logit_change < 1e-15
    assert all(one.change[mu, "high_only"] > one.change[mu, "none"] for mu in (2, 4, 8))


def test_the_grid_margin_and_the_signs_of_the_upper_clip_alone():
    grid = checks.upper_clip_margin()
    assert grid.margin > 0.005 and grid.low_to_high_effect < 1 / 3 and 0 < grid.high_only_positive < grid.n_settings


def test_the_old_bottom_line_that_the_upper_clip_pushes_mass_to_the_likely_answer_fails():
    """Negative test: "the upper clip pushes mass to the likely answer" as a sign would need the upper clip alone to
    raise the top mass everywhere; it lowers it at mu = 8 on the clip bandit and in most of the grid's settings."""
    grid, one = checks.upper_clip_margin(), checks.one_step_changes()
    assert not grid.high_only_positive == grid.n_settings and not one.change[8, "high_only"] > 0
    assert grid.n_settings - grid.high_only_positive > grid.n_settings / 2


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


def test_raw_rewards_keep_the_successes_part_s_entropy_higher():
    """Zhu et al.'s raw +-1 rewards on the clip bandit's expected-update path: the page's asserts, at both step
    sizes, at the end and where each part first reaches p >= 0.95."""
    raw = checks.raw_reward_parts(n=40)
    assert raw.lrs == (1.0, 0.25)
    for lr in raw.lrs:
        assert raw.final_entropy["positive", lr] > raw.final_entropy["negative", lr]
        assert raw.matched_entropy["positive", lr] > raw.matched_entropy["negative", lr]


def test_raw_rewards_without_the_minus_one_fail_the_raw_reward_check(monkeypatch):
    """Negative test: raw rewards of 0 and 1 (a failure not pushed down) leave the failures' part nothing to do, so
    its entropy stays at pi_0's, above the successes' part, and the page's check fails."""
    monkeypatch.setattr(clip_bias, "raw_advantage", lambda rewards: np.asarray(rewards, dtype=float))
    raw = checks.raw_reward_parts(n=40)
    assert not all(raw.final_entropy["positive", lr] > raw.final_entropy["negative", lr] for lr in raw.lrs)


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
    assert min(top.gap(u, o) for u in ("symmetric", "high_only") for o in ("none", "low_only")) > 4
    trl = checks.trl_pass_at_k()
    assert all(np.all(v > 0) for v in trl.mean_change.values())


def test_the_toy_lm_s_entropy_with_random_rewards_rises_with_an_upper_clip():
    record = checks.load_record()
    rh = checks.entropy_order(record, prefix="random")
    assert rh.above["high_only", "none"] == rh.above["symmetric", "none"] == rh.n_seeds >= 20
    assert rh.final_mean != checks.entropy_order(record).final_mean  # the random-reward runs, not the verifiable ones


def test_entropy_order_counts_the_seeds_where_a_mode_ends_above():
    """A hand-made record, two seeds: the upper clip alone ends above no clip at one, below at the other. The page's
    check (above at every seed) fails on it, as it should."""
    paths = {"none": [[2.0, 1.0], [2.0, 1.5]], "high_only": [[2.0, 1.2], [2.0, 1.1]]}
    paths |= {"symmetric": paths["high_only"], "low_only": paths["none"]}
    record = {"per_seed": {str(i): {"runs": {}} for i in range(2)}}
    for mode, per_seed in paths.items():
        for i, path in enumerate(per_seed):
            record["per_seed"][str(i)]["runs"][f"random/{mode}"] = {"entropy_mean": path}
    rh = checks.entropy_order(record, prefix="random")
    assert rh.above["high_only", "none"] == 1 and rh.above["none", "high_only"] == 1
    assert not rh.above["high_only", "none"] == rh.n_seeds


def test_top_mass_modes_swapped_fail_the_upper_clip_check():
    """Negative test: with the upper clip alone's and the lower clip alone's changes swapped, the page's check (every
    mode with an upper clip loses less than every mode without, by > 4 s.e.) fails."""
    top = checks.random_reward_top_mass(checks.load_record())
    swap = {"high_only": "low_only", "low_only": "high_only"}
    mean, se = ({swap.get(m, m): v[m] for m in v} for v in (top.mean, top.se))
    swapped = dataclasses.replace(top, mean=mean, se=se)
    assert not min(swapped.gap(u, o) for u in ("symmetric", "high_only") for o in ("none", "low_only")) > 4


def _entropy_record(final: dict, prefix: str = "sampled") -> dict:
    """A hand-made record: per mode, the final prompt-averaged entropy at each seed (from 3.0 at step 0)."""
    n = len(next(iter(final.values())))
    record = {"per_seed": {str(i): {"runs": {}} for i in range(n)}}
    for mode, values in final.items():
        for i, value in enumerate(values):
            record["per_seed"][str(i)]["runs"][f"{prefix}/{mode}"] = {"entropy_mean": [3.0, value]}
    return record


def test_the_paired_gap_is_the_mean_difference_over_its_standard_error():
    d, base = np.array([0.1, 0.3, 0.2, 0.4]), np.array([2.0, 2.5, 1.5, 3.0])  # pi_ref's spread cancels in the pairs
    final = {"none": base, "symmetric": base, "high_only": base, "low_only": base + d}
    order = checks.entropy_order(_entropy_record(final))
    assert order.paired_gap("low_only", "none") == pytest.approx(d.mean() / (d.std(ddof=1) / 2))


def test_the_old_no_order_check_passes_a_clear_difference_and_the_paired_gap_does_not():
    """Negative test: the lower clip alone below no clip by 0.1 at 18 of 20 seeds (above at 2): the old check
    (0 < seeds above < 20, read as "no difference") passes it; the page's check (paired gap within 2 s.e.) fails."""
    rng = np.random.default_rng(0)
    none = 2.5 + rng.normal(0.0, 0.2, 20)
    shift = np.where(np.arange(20) < 2, 0.01, -0.1)
    final = {"none": none, "symmetric": none + 0.3, "high_only": none + 0.2, "low_only": none + shift}
    order = checks.entropy_order(_entropy_record(final))
    assert 0 < order.above["low_only", "none"] < order.n_seeds  # the old check passes
    assert not abs(order.paired_gap("low_only", "none")) < 2  # the page's check fails


def test_pass_at_k_changes_of_a_known_table():
    """A hand-made record: one seed, two prompts from p = (0.5, 0.5) to (1, 0): pass@1 unchanged, pass@k falls."""
    record = {"per_seed": {"0": {"runs": {"exact": {"p": [[0.5, 0.5], [1.0, 0.0]]}}}}}
    change = checks.pass_at_k_changes(record, runs=("exact",)).mean_change["exact"]
    assert change[0] == pytest.approx(0.0) and change[-1] == pytest.approx(-0.5)


@pytest.fixture(scope="module")
def findings(random_runs, random_paths):
    record = checks.load_record()
    return checks.Findings(
        checks.per_prompt_pass_at_k(n=5),
        checks.crossover(0.2, 1e-5, n=10),
        checks.pass_at_k_changes(record),
        checks.covariance_law_check(_rng(), n_policies=20),
        checks.entropy_paths(n=40),
        checks.entropy_order(record),
        checks.upper_clip_margin(),
        random_paths,
        random_runs,
        checks.random_reward_top_mass(record),
        checks.entropy_order(record, prefix="random"),
        checks.signed_sampled(),
        checks.raw_reward_parts(n=40),
    )


def test_the_side_by_side_quotes_the_measured_numbers_beside_the_book_s_readings(findings):
    table = checks.side_by_side(findings)
    assert table.headers == ["claim (paper)", "measured here", "the book's reading"]
    assert table.column("the book's reading") == [papers.READINGS[key] for key, _, _ in papers.CLAIMS]
    measured = table.column("measured here")
    assert f"{findings.crossover.change[-1]:+.3f}" in measured[0]
    assert f"{findings.toy_random_entropy.final_mean['high_only']:.2f}" in measured[2]
    assert f"{findings.random_runs.entropy_mean['high_only']:.2f}" in measured[2]
    assert f"{findings.grid.margin:.4f}" in measured[3]
    assert all(f"{findings.raw.final_entropy['positive', lr]:.3f}" in measured[4] for lr in findings.raw.lrs)


def test_the_side_by_side_numbers_follow_the_findings_and_the_readings_do_not_claim_to(findings):
    """Negative test: other findings change the measured column, never the readings, and no verdict column is left
    that would present a written judgement as computed."""
    moved = dataclasses.replace(findings.raw, final_entropy={k: v + 0.5 for k, v in findings.raw.final_entropy.items()})
    before, after = (checks.side_by_side(f) for f in (findings, dataclasses.replace(findings, raw=moved)))
    assert before.column("measured here")[4] != after.column("measured here")[4]
    assert before.column("the book's reading") == after.column("the book's reading")
    assert "verdict" not in before.headers


def test_expit_logit_roundtrip_is_what_the_orbit_check_avoids():
    """Why per_prompt_pass_at_k reads logits: near 1 a probability loses the gain that its logit keeps."""
    assert logit(expit(40.0)) == np.inf or abs(logit(expit(40.0)) - 40.0) > 1.0


# ---- The papers page: the results it recomputes are those of the chapter's other pages ---------------------------


def _analysis_calls(source: str) -> set[str]:
    """Every call of the chapter's analyses (``checks.<name>(...)``) in a code text, written in one normal form."""
    return {
        ast.unparse(node)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "checks"
    }


def test_the_papers_page_recomputes_what_the_other_pages_compute():
    """The comparison on the papers page quotes results it computes again (so that it runs alone): each of those calls
    is made, with the same arguments, on another page of the chapter, so a setting changed there cannot leave the
    comparison quoting another run. Negative test: one argument changed is not found."""
    pages = [page for page, chapter in chapter_of_page().items() if chapter == "distribution"]
    sources = [source for page in pages if page != "distribution_papers" for source in code_cells(BOOK / f"{page}.md")]
    others = _analysis_calls("\n".join(sources))
    cell = next(source for source in code_cells(BOOK / "distribution_papers.md") if "random_runs =" in source)
    recomputed = _analysis_calls(cell) - {"checks.load_record()"}
    assert len(recomputed) >= 10 and recomputed <= others, sorted(recomputed - others)
    changed = {call.replace("n=40", "n=41") for call in recomputed}
    assert not changed <= others
