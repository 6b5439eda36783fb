"""grpo_nb.tabular.clip_bias: the asymmetric clipped term, the surrogate's gradient and mu inner steps, the exact
expected change of the top answer's mass under random rewards (against a brute-force sum and Monte Carlo), the signs
measured per clip mode, and bad input."""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
from scipy.special import softmax

from grpo_nb.advantage import group_advantage
from grpo_nb.clipping import clipped_term
from grpo_nb.tabular import clip_bias as cb
from grpo_nb.tabular.entropy import policy_entropy

INF = math.inf
SKEWED = np.array([2.0, 0.0, -1.0])


def reference_term(x, a, low, high):
    """An independent evaluation of min(x A, clip(x, 1 - low, 1 + high) A)."""
    return np.minimum(x * a, np.clip(x, 1.0 - low, 1.0 + high) * a)


# ---- the clip modes and the asymmetric term -----------------------------------------------------------------------


def test_clip_bounds_of_the_four_modes() -> None:
    assert cb.clip_bounds("none", clip_eps=0.2) == (INF, INF)
    assert cb.clip_bounds("symmetric", clip_eps=0.2) == (0.2, 0.2)
    assert cb.clip_bounds("high_only", clip_eps=0.2) == (INF, 0.2)
    assert cb.clip_bounds("low_only", clip_eps=0.2) == (0.2, INF)
    assert cb.clip_bounds("symmetric", clip_eps=INF) == (INF, INF)


def test_asymmetric_term_is_the_symmetric_term_the_unclipped_term_and_the_two_sided_clip() -> None:
    x, a = np.meshgrid(np.linspace(0.0, 3.0, 301), np.linspace(-2.0, 2.0, 41))
    for eps_value in (0.0, 0.2, 0.5):
        both = cb.asymmetric_clipped_term(x, a, clip_low=eps_value, clip_high=eps_value)
        assert np.array_equal(both, clipped_term(x, a, eps_value))
    assert np.array_equal(cb.asymmetric_clipped_term(x, a, clip_low=INF, clip_high=INF), x * a)
    value = cb.asymmetric_clipped_term(x, a, clip_low=0.1, clip_high=0.3)
    assert np.allclose(value, reference_term(x, a, 0.1, 0.3), rtol=1e-15, atol=0)
    for low, high in ((INF, 0.2), (0.2, INF)):
        assert np.allclose(
            cb.asymmetric_clipped_term(x, a, clip_low=low, clip_high=high), reference_term(x, a, low, high)
        )
    assert isinstance(cb.asymmetric_clipped_term(1.5, 1.0, clip_low=0.1, clip_high=0.3), float)


def test_swapped_bounds_fail_the_two_sided_check() -> None:
    """Negative test: the term with clip_low and clip_high exchanged is not min(xA, clip(x, 1 - low, 1 + high) A)."""
    x, a = np.meshgrid(np.linspace(0.0, 3.0, 301), np.linspace(-2.0, 2.0, 41))
    swapped = cb.asymmetric_clipped_term(x, a, clip_low=0.3, clip_high=0.1)
    assert np.max(np.abs(swapped - reference_term(x, a, 0.1, 0.3))) > 0.1


def term_differences(x: np.ndarray, a: float, low: float, high: float, h: float = 1e-7) -> np.ndarray:
    """Central differences in x of the asymmetric clipped term."""
    kw = {"clip_low": low, "clip_high": high}
    return (cb.asymmetric_clipped_term(x + h, a, **kw) - cb.asymmetric_clipped_term(x - h, a, **kw)) / (2 * h)


def test_slope_matches_finite_differences_of_the_term() -> None:
    x = np.linspace(0.05, 2.5, 500)
    for a, (low, high) in itertools.product((-1.3, 0.8), ((0.1, 0.3), (INF, 0.2), (0.2, INF))):
        away = np.min(np.abs(x[:, None] - np.array([1 - low, 1 + high])), axis=1) > 1e-3
        slope = cb.asymmetric_clipped_term_slope(x, a, clip_low=low, clip_high=high)
        assert np.allclose(slope[away], term_differences(x, a, low, high)[away], atol=1e-6)
    # negative test: the slope with the bounds swapped misses the finite differences
    wrong = cb.asymmetric_clipped_term_slope(x, 0.8, clip_low=0.3, clip_high=0.1)
    assert np.max(np.abs(wrong - term_differences(x, 0.8, 0.1, 0.3))) > 0.5


# ---- the surrogate of one group -----------------------------------------------------------------------------------


def random_group(seed: int, n_answers: int = 4, group_size: int = 6):
    rng = np.random.default_rng(seed)
    old = rng.normal(size=n_answers)
    answers = rng.integers(0, n_answers, size=group_size)
    return old, old + 0.4 * rng.normal(size=n_answers), answers, rng.normal(size=group_size)


def objective(theta: np.ndarray, *, group: tuple, bounds: dict) -> float:
    old, answers, advantages = group
    return cb.surrogate_objective(theta, old, answers, advantages=advantages, **bounds)


def central_differences(fn, theta: np.ndarray, h: float = 1e-6) -> np.ndarray:
    eye = np.eye(theta.size)
    return np.array([(fn(theta + h * e) - fn(theta - h * e)) / (2 * h) for e in eye])


@pytest.mark.parametrize("mode", cb.CLIP_MODES)
def test_surrogate_gradient_matches_finite_differences(mode: str) -> None:
    low, high = cb.clip_bounds(mode, clip_eps=0.2)
    checked = 0
    for seed in range(40):
        old, theta, answers, adv = random_group(seed)
        x = softmax(theta)[answers] / softmax(old)[answers]
        if np.min(np.abs(x[:, None] - np.array([0.8, 1.2]))) < 1e-3:
            continue  # a ratio at a kink, where the term has no derivative
        bounds = {"clip_low": low, "clip_high": high}
        grad = cb.surrogate_gradient(theta, old, answers, advantages=adv, **bounds)
        fd = central_differences(functools.partial(objective, group=(old, answers, adv), bounds=bounds), theta)
        assert np.allclose(grad, fd, atol=1e-7, rtol=1e-6)
        # negative test: the gradient without the ratio factor x_i, (1/G) sum_i f'_i (e_{o_i} - pi), misses it
        slope = cb.asymmetric_clipped_term_slope(x, adv, **bounds)
        no_ratio = (np.bincount(answers, slope, minlength=theta.size) - softmax(theta) * slope.sum()) / answers.size
        assert np.max(np.abs(no_ratio - fd)) > 1e-3
        checked += 1
    assert checked >= 30


def test_surrogate_gradient_takes_the_inside_slope_at_a_kink() -> None:
    """clip_eps = 0 puts both kinks at x = 1, where theta = logits_old starts: the gradient there is the unclipped one,
    (1/G) sum_i A_i (e_{o_i} - pi)."""
    old, _, answers, adv = random_group(5)
    at_kink = cb.surrogate_gradient(old, old, answers, advantages=adv, clip_low=0.0, clip_high=0.0)
    unclipped = (np.bincount(answers, adv, minlength=old.size) - softmax(old) * adv.sum()) / answers.size
    assert np.allclose(at_kink, unclipped, rtol=1e-12, atol=1e-15)
    assert np.allclose(cb.surrogate_gradient(old, old, answers, advantages=adv, clip_low=INF, clip_high=INF), unclipped)
    # negative test: a frozen (zero) slope at the kink would give no gradient at all
    assert np.max(np.abs(unclipped)) > 1e-2


def test_surrogate_is_batched_over_groups() -> None:
    groups = [random_group(seed) for seed in range(5)]
    old, theta, answers, adv = (np.stack(parts) for parts in zip(*groups, strict=True))
    kw = {"clip_low": 0.2, "clip_high": 0.28}
    batched = cb.surrogate_gradient(theta, old, answers, advantages=adv, **kw)
    one_by_one = [cb.surrogate_gradient(t, o, i, advantages=a, **kw) for o, t, i, a in groups]
    assert np.allclose(batched, one_by_one, rtol=1e-14, atol=1e-16)
    values = cb.surrogate_objective(theta, old, answers, advantages=adv, **kw)
    assert np.allclose(values, [cb.surrogate_objective(t, o, i, advantages=a, **kw) for o, t, i, a in groups])


def test_inner_updates_are_mu_ascent_steps_with_pi_old_fixed() -> None:
    old, _, answers, adv = random_group(7)
    kw = {"clip_low": 0.2, "clip_high": 0.2}
    theta = old.copy()
    for _ in range(5):
        theta = theta + 0.8 * cb.surrogate_gradient(theta, old, answers, advantages=adv, **kw)
    result = cb.inner_updates(old, answers, adv, lr=0.8, mu=5, **kw)
    assert np.allclose(result, theta, rtol=1e-14, atol=1e-15)
    # negative test: refreshing pi_old at every inner step (mu on-policy steps) is another update
    refreshed = old.copy()
    for _ in range(5):
        refreshed = refreshed + 0.8 * cb.surrogate_gradient(refreshed, refreshed, answers, advantages=adv, **kw)
    assert np.max(np.abs(refreshed - result)) > 1e-2


# ---- the exact expectation ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", cb.CLIP_MODES)
@pytest.mark.parametrize("reward_prob", [0.5, 0.3])
def test_one_step_has_zero_expected_logit_change(mode: str, reward_prob: float) -> None:
    """mu = 1: the step is taken at x = 1, where no clip binds, and E[A_i | answers] = 0, so E[theta_1 - theta] = 0."""
    kw = {"group_size": 4, "lr": 1.0, "mode": mode, "clip_eps": 0.2, "reward_prob": reward_prob}
    assert np.max(np.abs(cb.expected_logit_change(SKEWED, mu=1, **kw))) < 1e-12
    # negative test: with a second inner step the ratios leave 1 and the expectation does not vanish
    assert np.max(np.abs(cb.expected_logit_change(SKEWED, mu=2, **kw))) > 1e-4


def test_one_step_top_mass_change_is_second_order_in_lr() -> None:
    """mu = 1, no clip: the logit change has mean 0, so E[delta pi_top] = O(lr^2): halving lr divides it by ~4."""
    kw = {"group_size": 4, "mu": 1, "mode": "none", "clip_eps": 0.2}
    changes = [cb.expected_top_mass_change(SKEWED, lr=lr, **kw) for lr in (0.1, 0.05, 0.025)]
    assert all(abs(c) > 1e-7 for c in changes)
    for big, small in itertools.pairwise(changes):
        assert 3.7 < big / small < 4.3
    # negative test: four inner steps are first order in lr, halving lr does not divide the change by 4
    four = [cb.expected_top_mass_change(SKEWED, lr=lr, **(kw | {"mu": 4, "mode": "high_only"})) for lr in (0.1, 0.05)]
    assert not 3.7 < four[0] / four[1] < 4.3


def brute_force_top_mass_change(logits, *, group_size, lr, mu, mode, clip_eps, reward_prob=0.5) -> float:
    """The same expectation summed over all K^G answer tuples and 2^G reward patterns, each with its probability."""
    pi = softmax(logits)
    answers = np.array(list(itertools.product(range(len(logits)), repeat=group_size)))
    rewards = np.array(list(itertools.product((0.0, 1.0), repeat=group_size)))
    idx = np.array(list(itertools.product(range(len(answers)), range(len(rewards)))))
    group_answers, group_rewards = answers[idx[:, 0]], rewards[idx[:, 1]]
    prob = pi[group_answers].prod(axis=1) * np.where(group_rewards == 1, reward_prob, 1 - reward_prob).prod(axis=1)
    low, high = cb.clip_bounds(mode, clip_eps=clip_eps)
    old = np.broadcast_to(logits, (len(idx), len(logits)))
    adv = group_advantage(group_rewards, form="paper")
    new = cb.inner_updates(old, group_answers, adv, lr=lr, mu=mu, clip_low=low, clip_high=high)
    top = int(np.argmax(logits))
    return float(prob @ (softmax(new, axis=-1)[:, top] - pi[top]))


@pytest.mark.parametrize("mode", cb.CLIP_MODES)
def test_exact_expectation_equals_the_brute_force_sum(mode: str) -> None:
    kw = {"group_size": 3, "lr": 1.5, "mu": 5, "mode": mode, "clip_eps": 0.2, "reward_prob": 0.4}
    exact = cb.expected_top_mass_change(SKEWED, **kw)
    assert exact == pytest.approx(brute_force_top_mass_change(SKEWED, **kw), rel=1e-10, abs=1e-15)


def test_forgetting_the_multiplicities_fails_the_brute_force_and_zero_checks(monkeypatch) -> None:
    """Negative test: weighting each (answer, reward) multiset by its probability alone, without the multinomial
    coefficient, disagrees with the brute-force sum, and with reward_prob != 1/2 even the one-step mean is not 0."""
    kw = {"group_size": 3, "lr": 1.5, "mu": 5, "mode": "none", "clip_eps": 0.2}
    truth = brute_force_top_mass_change(SKEWED, **kw)
    monkeypatch.setattr(cb, "_log_multiplicity", lambda counts, group_size: np.zeros(counts.shape[0]))
    assert abs(cb.expected_top_mass_change(SKEWED, **kw) - truth) > 1e-2
    one_step = cb.expected_logit_change(SKEWED, group_size=4, lr=1.0, mu=1, mode="none", clip_eps=0.2, reward_prob=0.3)
    assert np.max(np.abs(one_step)) > 1e-4


def one_iteration_draws(mode: str, n_runs: int = 400) -> np.ndarray:
    runs = cb.random_reward_runs(
        SKEWED, group_size=4, lr=1.0, mu=4, n=1, mode=mode, clip_eps=0.2, n_runs=n_runs, seed=11
    )
    return runs.top_mass[:, 1] - runs.top_mass[:, 0]


@pytest.mark.parametrize("mode", cb.CLIP_MODES)
def test_exact_expectation_agrees_with_monte_carlo(mode: str) -> None:
    """K = 3, G = 4, lr = 1, mu = 4, clip_eps = 0.2: the exact value lies within 4 standard errors of 400 draws."""
    draws = one_iteration_draws(mode)
    stderr = draws.std(ddof=1) / math.sqrt(draws.size)
    exact = cb.expected_top_mass_change(SKEWED, group_size=4, lr=1.0, mu=4, mode=mode, clip_eps=0.2)
    assert abs(draws.mean() - exact) < 4 * stderr


def test_monte_carlo_check_rejects_an_expectation_without_multiplicities(monkeypatch) -> None:
    """Negative test: the expectation that forgets the multinomial coefficients lies far outside 4 standard errors."""
    draws = one_iteration_draws("none")
    stderr = draws.std(ddof=1) / math.sqrt(draws.size)
    monkeypatch.setattr(cb, "_log_multiplicity", lambda counts, group_size: np.zeros(counts.shape[0]))
    wrong = cb.expected_top_mass_change(SKEWED, group_size=4, lr=1.0, mu=4, mode="none", clip_eps=0.2)
    assert abs(draws.mean() - wrong) > 4 * stderr


# ---- the measured signs per clip mode -----------------------------------------------------------------------------

SETTINGS = [
    (logits, group_size, lr, mu)
    for logits in ((2.0, 0.0, -1.0), (1.0, 0.0, 0.0, -1.0))
    for group_size in (4, 6)
    for lr in (0.5, 1.0, 2.0)
    for mu in (4, 8)
]


def expected_changes(logits, group_size, lr, mu) -> dict[str, float]:
    kw = {"group_size": group_size, "lr": lr, "mu": mu, "clip_eps": 0.2}
    return {mode: cb.expected_top_mass_change(np.array(logits), mode=mode, **kw) for mode in cb.CLIP_MODES}


def test_random_rewards_move_mass_off_the_top_answer_except_sometimes_with_the_upper_clip_alone() -> None:
    """The exact E[delta pi_top] of one outer iteration, rewards Bernoulli(1/2), clip_eps = 0.2, on the 24 settings
    logits (2, 0, -1) (pi_top = 0.84) and (1, 0, 0, -1) (pi_top = 0.53), G in {4, 6}, lr in {0.5, 1, 2},
    mu in {4, 8}. Measured ranges:

    ===========  =====================  =======================================================
    mode         E[delta pi_top]        sign
    ===========  =====================  =======================================================
    none         -0.227 .. -0.023       negative in all 24
    low_only     -0.227 .. -0.028       negative in all 24
    symmetric    -0.020 .. -0.00095     negative in all 24
    high_only    -0.064 .. +0.0061      positive in 9 (lr = 0.5, and lr = 1 with mu = 4, G = 6),
                                        negative in the other 15: no sign asserted
    ===========  =====================  =======================================================

    Asserted (:func:`sign_findings`): none, low_only < -0.01 and symmetric < -5e-4 in every setting, and the modes
    with an upper clip (symmetric, high_only) lose less than those without (none, low_only), by at least 0.01
    (measured: 0.0187). The full order of the four is not the same in every setting (none vs low_only and symmetric
    vs high_only swap), so it is not asserted.
    """
    for setting in SETTINGS:
        assert sign_findings(expected_changes(*setting)) == [], setting
    signs = {np.sign(expected_changes(*setting)["high_only"]) for setting in SETTINGS}
    assert signs == {-1.0, 1.0}  # the upper clip alone has no sign over these settings


def sign_findings(change: dict[str, float]) -> list[str]:
    """The sign and partial-order checks above that ``change`` (mode -> E[delta pi_top]) fails."""
    out = [f"{m} >= -0.01" for m in ("none", "low_only") if not change[m] < -0.01]
    out += [] if change["symmetric"] < -5e-4 else ["symmetric >= -5e-4"]
    upper, no_upper = min(change["symmetric"], change["high_only"]), max(change["none"], change["low_only"])
    return out + ([] if upper > no_upper + 0.01 else ["upper-clip modes not above the others"])


def test_modes_with_swapped_bounds_fail_the_sign_checks(monkeypatch) -> None:
    """Negative test: clip modes that swap the two bounds (high_only clipping below, low_only above) fail them."""

    def swapped(mode: str, *, clip_eps: float) -> tuple[float, float]:
        low, high = ORIGINAL_CLIP_BOUNDS(mode, clip_eps=clip_eps)
        return high, low

    monkeypatch.setattr(cb, "clip_bounds", swapped)
    assert any(sign_findings(expected_changes(*setting)) for setting in SETTINGS)


ORIGINAL_CLIP_BOUNDS = cb.clip_bounds


# ---- Monte Carlo runs ---------------------------------------------------------------------------------------------


def test_random_reward_run_is_seeded_and_reports_top_mass_and_entropy() -> None:
    kw = {"group_size": 4, "lr": 1.0, "mu": 4, "n": 6, "mode": "symmetric", "clip_eps": 0.2}
    run = cb.random_reward_run(SKEWED, seed=3, **kw)
    assert run.top_mass.shape == run.entropy.shape == (7,)
    pi0 = softmax(SKEWED)
    assert run.top_mass[0] == pytest.approx(pi0[0]) and run.entropy[0] == pytest.approx(-(pi0 * np.log(pi0)).sum())
    again = cb.random_reward_run(SKEWED, seed=3, **kw)
    assert np.array_equal(run.top_mass, again.top_mass) and np.array_equal(run.entropy, again.entropy)
    many = cb.random_reward_runs(SKEWED, seed=3, n_runs=1, **kw)
    assert np.array_equal(many.top_mass[0], run.top_mass)
    other = cb.random_reward_run(SKEWED, seed=4, **kw)
    assert not np.array_equal(other.top_mass, run.top_mass)
    assert np.all((run.entropy >= 0) & (run.entropy <= math.log(3) + 1e-12))


def test_entropy_is_that_of_the_policy_the_runs_reach() -> None:
    """The entropy is -sum p log p of a policy whose top mass is reported: for K = 2, p_top determines it."""
    kw = {"group_size": 4, "lr": 1.0, "mu": 4, "n": 3, "mode": "none", "clip_eps": 0.2}
    runs = cb.random_reward_runs([1.0, 0.0], n_runs=20, seed=0, **kw)
    p = runs.top_mass
    assert np.allclose(runs.entropy, -(p * np.log(p) + (1 - p) * np.log1p(-p)), atol=1e-12)
    # negative test: the entropy in bits is another number
    assert not np.allclose(runs.entropy, -(p * np.log2(p) + (1 - p) * np.log2(1 - p)), atol=1e-3)


def test_large_logits_stay_finite() -> None:
    for logits in ([700.0, 0.0, -700.0], [700.0, 699.0, -700.0]):
        for mode in cb.CLIP_MODES:
            kw = {"group_size": 4, "lr": 2.0, "mu": 8, "mode": mode, "clip_eps": 0.2}
            assert np.isfinite(cb.expected_top_mass_change(logits, **kw))
            assert np.all(np.isfinite(cb.expected_logit_change(logits, **kw)))
            run = cb.random_reward_run(logits, n=4, seed=0, **kw)
            assert np.all(np.isfinite(run.top_mass)) and np.all(np.isfinite(run.entropy))


# ---- verifiable rewards, the advantage's parts, the expected-update path ------------------------------------------

VERIFIABLE = np.array([0.0, 1.0, 1.0])


def independent_raw_advantage(rewards: np.ndarray, part: str) -> np.ndarray:
    """+1 on a success and -1 on a failure, written out per part: the successes' part keeps the +1s, the failures'
    part the -1s."""
    plus, minus = np.where(rewards == 1, 1.0, 0.0), np.where(rewards == 1, 0.0, -1.0)
    return {"both": plus + minus, "positive": plus, "negative": minus}[part]


def brute_force_verifiable_change(
    logits, reward, *, group_size, lr, mu, mode, clip_eps, part="both", raw=False
) -> np.ndarray:
    """E[theta_mu - theta] summed over all K^G answer tuples with rewards reward[o], each with its probability; with
    ``raw`` the advantages are :func:`independent_raw_advantage`'s, else Eq. 4's (its ``part``)."""
    pi = softmax(logits)
    answers = np.array(list(itertools.product(range(len(logits)), repeat=group_size)))
    prob = pi[answers].prod(axis=1)
    low, high = cb.clip_bounds(mode, clip_eps=clip_eps)
    old = np.broadcast_to(logits, (len(answers), len(logits)))
    rewards = reward[answers]
    adv = independent_raw_advantage(rewards, part) if raw else cb.advantage_part(rewards, part=part)
    new = cb.inner_updates(old, answers, adv, lr=lr, mu=mu, clip_low=low, clip_high=high)
    return prob @ (new - old)


@pytest.mark.parametrize("part", ["both", "positive", "negative"])
@pytest.mark.parametrize("mode", cb.CLIP_MODES)
def test_verifiable_expectation_equals_the_brute_force_sum(mode: str, part: str) -> None:
    kw = {"group_size": 4, "lr": 1.5, "mu": 3, "mode": mode, "clip_eps": 0.2, "part": part}
    exact = cb.expected_logit_change(SKEWED, reward=VERIFIABLE, **kw)
    assert np.allclose(exact, brute_force_verifiable_change(SKEWED, VERIFIABLE, **kw), rtol=1e-10, atol=1e-14)


def test_a_verifiable_expectation_with_random_rewards_fails_the_brute_force_sum() -> None:
    """Negative test: the random-reward expectation is not the verifiable one."""
    kw = {"group_size": 4, "lr": 1.5, "mu": 3, "mode": "none", "clip_eps": 0.2}
    truth = brute_force_verifiable_change(SKEWED, VERIFIABLE, **kw)
    assert np.max(np.abs(cb.expected_logit_change(SKEWED, **kw) - truth)) > 1e-2


@pytest.mark.parametrize("part", ["both", "positive", "negative"])
@pytest.mark.parametrize("mode", ["none", "symmetric"])
def test_raw_reward_expectation_equals_the_brute_force_sum(mode: str, part: str) -> None:
    """Zhu et al.'s raw +-1 rewards: the exact expectation against the sum over every answer tuple."""
    kw = {"group_size": 4, "lr": 1.5, "mu": 3, "mode": mode, "clip_eps": 0.2, "part": part}
    exact = cb.expected_logit_change(SKEWED, reward=VERIFIABLE, advantage="raw", **kw)
    truth = brute_force_verifiable_change(SKEWED, VERIFIABLE, raw=True, **kw)
    assert np.allclose(exact, truth, rtol=1e-10, atol=1e-14)


def test_raw_rewards_of_0_and_1_fail_the_brute_force_sum(monkeypatch) -> None:
    """Negative test: a raw advantage that keeps the 0/1 reward (no -1 on a failure) is not the +-1 one."""
    monkeypatch.setattr(cb, "raw_advantage", lambda rewards: np.asarray(rewards, dtype=float))
    kw = {"group_size": 4, "lr": 1.5, "mu": 3, "mode": "none", "clip_eps": 0.2}
    for part in ("both", "negative"):
        truth = brute_force_verifiable_change(SKEWED, VERIFIABLE, raw=True, part=part, **kw)
        wrong = cb.expected_logit_change(SKEWED, reward=VERIFIABLE, advantage="raw", part=part, **kw)
        assert np.max(np.abs(wrong - truth)) > 1e-2


def test_raw_advantage_is_plus_one_on_a_success_and_minus_one_on_a_failure() -> None:
    rewards = np.array([[1.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]])
    assert np.array_equal(cb.raw_advantage(rewards), [[1, -1, -1, 1], [1, 1, 1, 1]])
    plus, minus = (cb.advantage_part(rewards, part=part, advantage="raw") for part in ("positive", "negative"))
    assert np.array_equal(plus, rewards) and np.array_equal(minus, rewards - 1)
    # unlike Eq. 4's advantage, an all-correct group still pushes: no group baseline
    assert np.all(cb.advantage_part(rewards[1], advantage="paper") == 0) and np.all(plus[1] == 1)


def test_advantage_parts_split_the_advantage_by_sign() -> None:
    rewards = np.array([[1.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]])
    both = group_advantage(rewards, form="paper")
    plus, minus = (cb.advantage_part(rewards, part=part) for part in ("positive", "negative"))
    assert np.array_equal(plus + minus, both) and np.all(plus >= 0) and np.all(minus <= 0)
    assert np.array_equal(plus > 0, (rewards == 1) & (both != 0))


def test_expected_update_orbit_adds_the_expected_change_at_every_iteration() -> None:
    kw = {"group_size": 4, "lr": 1.0, "mu": 4, "mode": "symmetric", "clip_eps": 0.2, "reward": VERIFIABLE}
    trace = cb.expected_update_orbit(SKEWED, n=3, **kw)
    for m in range(3):
        step = cb.expected_logit_change(trace.logits[m], **kw)
        assert np.allclose(trace.logits[m + 1], trace.logits[m] + step, rtol=0, atol=1e-13)
    assert np.allclose(trace.top_mass, softmax(trace.logits, axis=-1)[:, 0])
    assert np.allclose(trace.entropy, policy_entropy(trace.logits))
    # verifiable rewards raise the success probability along the path
    p = softmax(trace.logits, axis=-1) @ VERIFIABLE
    assert np.all(np.diff(p) > 0)


def test_clipped_runs_with_verifiable_rewards_agree_with_the_exact_step() -> None:
    """One outer iteration, 2000 runs: the mean top-mass change lies within 4 standard errors of the exact one."""
    kw = {"group_size": 4, "lr": 1.0, "mu": 4, "mode": "high_only", "clip_eps": 0.2, "reward": VERIFIABLE}
    runs = cb.clipped_grpo_runs(SKEWED, n=1, n_runs=2000, seed=3, **kw)
    draws = runs.top_mass[:, 1] - runs.top_mass[:, 0]
    stderr = draws.std(ddof=1) / math.sqrt(draws.size)
    exact = cb.expected_top_mass_change(SKEWED, **kw)
    assert abs(draws.mean() - exact) < 4 * stderr
    wrong = cb.expected_top_mass_change(SKEWED, **(kw | {"reward": None}))  # negative: the random-reward value
    assert abs(draws.mean() - wrong) > 4 * stderr


# ---- bad input ----------------------------------------------------------------------------------------------------

EXPECTED = {"group_size": 4, "lr": 1.0, "mu": 4, "mode": "symmetric", "clip_eps": 0.2}
GROUP = (SKEWED, np.array([0, 1, 0, 2]), np.array([1.0, -1.0, 1.0, -1.0]))
BOUNDS = {"clip_low": 0.2, "clip_high": 0.2}


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: cb.clip_bounds("both", clip_eps=0.2), r"mode='both' is not valid; valid values are 'none'"),
        (lambda: cb.clip_bounds("symmetric", clip_eps=-0.1), r"clip_eps=-0.1 is out of range; valid range is 0 <="),
        (lambda: cb.clip_bounds("symmetric", clip_eps=[0.1, 0.2]), r"clip_eps has shape \(2,\)"),
        (lambda: cb.expected_top_mass_change(SKEWED, **(EXPECTED | {"mode": "upper"})), r"mode='upper'"),
        (lambda: cb.expected_top_mass_change(SKEWED, **(EXPECTED | {"clip_eps": -1.0})), r"clip_eps=-1.0"),
        (lambda: cb.expected_top_mass_change(SKEWED, **(EXPECTED | {"group_size": 1})), r"group_size=1 .* >= 2"),
        (lambda: cb.expected_top_mass_change(SKEWED, **(EXPECTED | {"mu": 0})), r"mu=0 is out of range"),
        (lambda: cb.expected_top_mass_change(SKEWED, **(EXPECTED | {"lr": math.inf})), r"lr=inf .* 0.0 < lr < inf"),
        (lambda: cb.expected_top_mass_change(SKEWED, **(EXPECTED | {"lr": math.nan})), r"lr=nan"),
        (lambda: cb.expected_top_mass_change(SKEWED, **(EXPECTED | {"lr": 0.0})), r"lr=0.0 is out of range"),
        (lambda: cb.expected_top_mass_change(SKEWED, **EXPECTED, reward_prob=1.0), r"reward_prob=1.0"),
        (lambda: cb.expected_top_mass_change([0.0, np.inf], **EXPECTED), r"logits contains inf"),
        (lambda: cb.expected_top_mass_change(np.zeros((2, 3)), **EXPECTED), r"logits has shape \(2, 3\)"),
        (
            lambda: cb.expected_top_mass_change(np.zeros(10), **(EXPECTED | {"group_size": 12})),
            r"group_size=12 with K=10 answers needs .* 141120525 terms; valid: at most 1000000",
        ),
        (lambda: cb.expected_logit_change(SKEWED, **(EXPECTED | {"mu": 2.5})), r"mu=2.5"),
        (lambda: cb.inner_updates(*GROUP, lr=1.0, mu=0, **BOUNDS), r"mu=0"),
        (lambda: cb.inner_updates(*GROUP, lr=-1.0, mu=2, **BOUNDS), r"lr=-1.0"),
        (lambda: cb.inner_updates(SKEWED, [0, 3, 1, 1], GROUP[2], lr=1.0, mu=2, **BOUNDS), r"answers=.* K = 3"),
        (lambda: cb.inner_updates(SKEWED, [0, -1, 1, 1], GROUP[2], lr=1.0, mu=2, **BOUNDS), r"answers=.* 0 <= answers"),
        (lambda: cb.inner_updates(SKEWED, [0.0, 1.0, 1.0, 1.0], GROUP[2], lr=1.0, mu=2, **BOUNDS), r"answers=.*integ"),
        (lambda: cb.inner_updates(SKEWED, [0, 1], GROUP[2], lr=1.0, mu=2, **BOUNDS), r"advantages=.* shape \(2,\)"),
        (lambda: cb.inner_updates(SKEWED, GROUP[1], [1.0, np.nan, 0, 0], lr=1.0, mu=2, **BOUNDS), r"advantages="),
        (
            lambda: cb.surrogate_gradient(SKEWED[:2], *GROUP[:2], advantages=GROUP[2], **BOUNDS),
            r"logits has shape \(2,\); valid: the shape",
        ),
        (
            lambda: cb.surrogate_gradient(SKEWED, *GROUP[:2], advantages=GROUP[2], clip_low=-0.1, clip_high=0.2),
            r"clip_low=-0.1 is out of",
        ),
        (
            lambda: cb.surrogate_objective(SKEWED, *GROUP[:2], advantages=GROUP[2], clip_low=0.2, clip_high=np.nan),
            r"clip_high=nan",
        ),
        (lambda: cb.asymmetric_clipped_term(1.0, 1.0, clip_low=-1, clip_high=0.2), r"clip_low=-1.0"),
        (lambda: cb.asymmetric_clipped_term_slope(-1.0, 1.0, clip_low=0.2, clip_high=0.2), r"ratio=-1.0"),
        (lambda: cb.random_reward_run(SKEWED, n=-1, seed=0, **EXPECTED), r"n=-1 is out of range"),
        (lambda: cb.random_reward_runs(SKEWED, n=2, n_runs=0, seed=0, **EXPECTED), r"n_runs=0"),
        (lambda: cb.random_reward_run(SKEWED, n=2, seed=0, **(EXPECTED | {"mode": "x"})), r"mode='x'"),
        (lambda: cb.random_reward_run([[0.0, 1.0]], n=2, seed=0, **EXPECTED), r"logits0 has shape \(1, 2\)"),
        (lambda: cb.expected_logit_change(SKEWED, reward=[0, 1], **EXPECTED), r"reward has shape"),
        (lambda: cb.expected_logit_change(SKEWED, reward=[0, 0.5, 1], **EXPECTED), r"reward"),
        (lambda: cb.expected_logit_change(SKEWED, part="neither", **EXPECTED), r"part='neither'"),
        (lambda: cb.advantage_part([1.0, 0.0], part="both sides"), r"part='both sides'"),
        (lambda: cb.advantage_part([1.0, 0.0], advantage="centred"), r"advantage='centred'"),
        (lambda: cb.raw_advantage([1.0, 0.5]), r"rewards"),
        (lambda: cb.expected_update_orbit(SKEWED, n=2, advantage="signed", **EXPECTED), r"advantage='signed'"),
        (lambda: cb.clipped_grpo_runs(SKEWED, n=2, n_runs=2, seed=0, part="x", **EXPECTED), r"part='x'"),
        (lambda: cb.clipped_grpo_runs(SKEWED, n=2, n_runs=2, seed=0, reward=[2, 0, 1], **EXPECTED), r"reward"),
        (lambda: cb.expected_update_orbit(SKEWED, n=-2, **EXPECTED), r"n=-2 is out of range"),
        (lambda: cb.expected_update_orbit([[0.0, 1.0]], n=2, **EXPECTED), r"logits0 has shape \(1, 2\)"),
    ],
)
def test_bad_input_raises_value_error_naming_the_parameter(call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call()
