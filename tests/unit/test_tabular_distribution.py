"""grpo_nb.tabular.distribution: pass@k from the Bernoulli statistics, the class conditionals kept by exact steps, and
the positive-only and negative-only parts of the advantage; each check also fed a wrong formula that it must reject."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit, logit
from scipy.stats import binom

from grpo_nb.dynamics.map import iterate, logit_h
from grpo_nb.tabular.closed_form import grpo_step
from grpo_nb.tabular.distribution import (
    class_conditionals,
    pass_at_k,
    pass_at_k_estimate,
    shared_grpo_step,
    shared_success_orbit,
    signed_grpo_step,
    signed_logit_increment,
    signed_success_orbit,
    within_class_drift,
)
from grpo_nb.variants.policy import policy_orbit
from grpo_nb.weights import omega_minus, omega_plus

KS = np.arange(1, 257)
P_GRID = np.concatenate([[0.0, 1e-12, 1e-9], np.linspace(0.01, 0.99, 37), [1 - 1e-9, 1.0]])


def at_least_one_success(p: np.ndarray, k: np.ndarray) -> np.ndarray:
    """P(at least one success among k Bernoulli(p) draws), from the binomial law: 1 - P(no success)."""
    return binom.sf(0, k, p)


def wrong_pass_at_k(p: np.ndarray, k: np.ndarray) -> np.ndarray:
    """A wrong formula: all k answers correct."""
    return p**k


def random_task(rng: np.random.Generator, n_answers: int) -> tuple[np.ndarray, np.ndarray]:
    """A reference policy with mass on both classes and a reward with at least one answer in each class."""
    pi_ref = rng.dirichlet(np.full(n_answers, 0.7))
    reward = np.zeros(n_answers)
    reward[rng.choice(n_answers, size=rng.integers(1, n_answers), replace=False)] = 1.0
    return pi_ref, reward


def test_pass_at_k_is_the_binomial_probability_of_a_correct_answer():
    p, k = np.meshgrid(P_GRID[1:-1], KS)
    assert np.abs(pass_at_k(p, k) - at_least_one_success(p, k)).max() < 1e-12
    assert np.abs(wrong_pass_at_k(p, k) - at_least_one_success(p, k)).max() > 0.5  # the check can fail


def test_pass_at_k_at_the_ends_and_for_tiny_p():
    assert pass_at_k(0.0, 256) == 0.0 and pass_at_k(1.0, 1) == 1.0
    assert abs(pass_at_k(1e-12, 256) / 256e-12 - 1) < 1e-9  # no cancellation: 1 - (1 - p)^k would lose it
    values = pass_at_k(0.3, KS)
    assert np.all(np.diff(values[values < 1 - 1e-12]) > 0)  # rises with k until it rounds to 1


def test_pass_at_k_rises_with_p_at_every_k():
    values = pass_at_k(P_GRID[:, None], KS[None, :])
    assert np.all(np.diff(values, axis=0) >= 0)
    assert np.all(np.diff(values[1:-1], axis=0)[:, :8] > 0)  # strictly, where 1 - (1-p)^k has not rounded to 1


@pytest.mark.parametrize("n", [1, 5, 20, 64])
def test_the_estimate_is_unbiased_over_the_binomial_count(n):
    c = np.arange(n + 1)
    for p in (0.02, 0.3, 0.9):
        weights = binom.pmf(c, n, p)
        for k in range(1, n + 1):
            mean = float(weights @ pass_at_k_estimate(n, c, k))
            assert abs(mean - pass_at_k(p, k)) < 1e-12
    plug_in = 1 - (1 - c / n) ** 2  # the plug-in estimate at k = 2 is biased by p(1 - p)/n
    if n > 1:
        assert abs(float(binom.pmf(c, n, 0.3) @ plug_in) - pass_at_k(0.3, 2)) > 1e-3


def test_the_estimate_is_one_when_fewer_than_k_answers_are_wrong():
    assert pass_at_k_estimate(10, 8, 3) == 1.0 and pass_at_k_estimate(10, 0, 3) == 0.0
    assert pass_at_k_estimate(10, 1, 1) == pytest.approx(0.1)


def test_class_conditionals_are_distributions_on_their_class():
    rng = np.random.default_rng(0)
    pi, reward = random_task(rng, 7)
    correct, wrong = class_conditionals(pi, reward)
    assert correct.sum() == pytest.approx(1) and wrong.sum() == pytest.approx(1)
    assert np.all(correct[reward == 0] == 0) and np.all(wrong[reward == 1] == 0)
    assert np.allclose(correct[reward == 1], pi[reward == 1] / pi[reward == 1].sum())


@pytest.mark.parametrize("alpha", [1.0, 0.0, 0.5])
def test_exact_steps_keep_the_ratios_inside_each_class(alpha):
    """Either anchor (alpha = 1: KL to pi_ref; 0: KL to pi_{n-1}; 0.5: both), 40 random tasks, 12 steps."""
    rng = np.random.default_rng(1)
    for _ in range(40):
        pi_ref, reward = random_task(rng, int(rng.integers(3, 12)))
        for beta in (0.3, 2.0):
            orbit = policy_orbit(pi_ref, reward, beta, 1e-3, n=12, alpha=alpha)
            masses = np.stack([orbit @ reward, orbit @ (1 - reward)])
            kept = orbit[masses.min(axis=0) > 1e-200]  # both classes still carry a representable mass
            assert len(kept) >= 3 and max(within_class_drift(pi, pi_ref, reward) for pi in kept) < 1e-10
    perturbed = pi_ref * np.exp(rng.normal(size=pi_ref.size))
    assert within_class_drift(perturbed / perturbed.sum(), pi_ref, reward) > 1e-3  # a non-tilt is caught


def test_the_whole_advantage_is_theorem_2_s_map():
    p, p_ref = np.linspace(0.01, 0.99, 99), 0.2
    for beta, eps in ((0.1, 1e-3), (2.0, 0.0), (1e-3, 1e-5), (1e3, 1.0)):
        gap = signed_logit_increment(p, beta, eps, part="both") - (logit_h(p, p_ref, beta, eps) - logit(p_ref))
        assert np.abs(gap).max() < 1e-9 * max(1.0, 1.0 / beta)
        orbit = signed_success_orbit(p_ref, beta, eps, part="both", n=30)
        assert np.abs(orbit - iterate(p_ref, beta, eps, 30)).max() < 1e-12
    wrong = signed_logit_increment(p, 0.1, 1e-3, part="positive") - (logit_h(p, p_ref, 0.1, 1e-3) - logit(p_ref))
    assert np.abs(wrong).max() > 1.0  # the successes' part alone is not the whole map


@pytest.mark.parametrize("part", ["both", "positive", "negative"])
def test_the_signed_step_is_a_tilt_whose_success_probability_follows_the_signed_orbit(part):
    rng = np.random.default_rng(2)
    for _ in range(30):
        pi_ref, reward = random_task(rng, int(rng.integers(2, 10)))
        beta, eps = float(rng.choice([0.05, 0.3, 2.0])), 1e-3
        orbit = signed_success_orbit(float(pi_ref @ reward), beta, eps, part=part, n=6)
        pi = pi_ref
        for m in range(1, 7):
            pi = signed_grpo_step(pi_ref, pi, reward, beta, eps, part=part)
            assert abs(float(pi @ reward) - orbit[m]) < 1e-10
            assert within_class_drift(pi, pi_ref, reward) < 1e-10


def test_the_signed_step_maximises_its_own_objective():
    """Against random policies on the same support: E_pi[A_part] - beta KL(pi || pi_ref) is largest at the step."""
    rng = np.random.default_rng(3)
    pi_ref, reward = random_task(rng, 6)
    beta, eps = 0.4, 1e-3
    p = float(pi_ref @ reward)
    advantages = {
        "positive": omega_plus(p, eps) * reward,
        "negative": -omega_minus(p, eps) * (1 - reward),
        "both": omega_plus(p, eps) * reward - omega_minus(p, eps) * (1 - reward),
    }
    for part, adv in advantages.items():
        star = signed_grpo_step(pi_ref, pi_ref, reward, beta, eps, part=part)

        def objective(pi, adv=adv):
            return float(pi @ adv - beta * np.sum(pi * np.log(pi / pi_ref)))

        others = rng.dirichlet(np.ones(6), size=2000)
        assert objective(star) >= max(objective(q) for q in others)
        nearby = star * np.exp(1e-3 * rng.normal(size=6))
        assert objective(star) >= objective(nearby / nearby.sum())


def test_every_part_raises_p_and_so_pass_at_k_at_every_k():
    """Exact steps with KL to pi_ref, p_ref from 1e-9 to 1 - 1e-9, beta from 1e-3 to 1e3, 40 steps."""
    for p_ref in (1e-9, 1e-4, 0.05, 0.5, 0.95, 1 - 1e-9):
        for beta in (1e-3, 0.1, 1.0, 1e3):
            for part in ("both", "positive", "negative"):
                orbit = signed_success_orbit(p_ref, beta, 1e-3, part=part, n=40)
                assert np.all(np.isfinite(orbit)) and np.all(orbit[1:] >= p_ref * (1 - 1e-12))
                gain = pass_at_k(orbit[1:, None], KS[None, :]) - pass_at_k(p_ref, KS)[None, :]
                assert gain.min() >= -1e-12  # equality where p_{n-1} rounds to 1 and the successes' part vanishes


def test_the_successes_part_moves_p_further_exactly_below_one_half():
    p = np.linspace(0.001, 0.999, 999)
    plus = signed_logit_increment(p, 1.0, 1e-3, part="positive")
    minus = signed_logit_increment(p, 1.0, 1e-3, part="negative")
    assert np.all((plus > minus) == (p < 0.5))
    assert np.all(np.isfinite(expit(logit(0.1) + plus)))


def test_one_prompt_sharing_the_policy_with_nobody_is_theorem_1_s_step():
    rng = np.random.default_rng(4)
    for _ in range(20):
        pi_ref, reward = random_task(rng, int(rng.integers(2, 9)))
        pi_prev = rng.dirichlet(np.ones(pi_ref.size))
        shared = shared_grpo_step(pi_ref, pi_prev, reward[None, :], 0.3, 1e-3)
        assert np.abs(shared - grpo_step(pi_ref, pi_prev, reward, 0.3, 1e-3)).max() < 1e-12


def test_the_shared_step_maximises_the_prompts_average_objective():
    rng = np.random.default_rng(5)
    pi_ref, beta, eps = rng.dirichlet(np.ones(5)), 0.3, 1e-3
    reward = np.array([[1, 0, 0, 1, 0], [0, 1, 0, 0, 0], [0, 0, 1, 1, 0]], dtype=float)
    p = reward @ pi_ref
    advantage = omega_plus(p[:, None], eps) * reward - omega_minus(p[:, None], eps) * (1 - reward)
    star = shared_grpo_step(pi_ref, pi_ref, reward, beta, eps)

    def objective(pi):
        return float((advantage @ pi).mean() - beta * np.sum(pi * np.log(pi / pi_ref)))

    assert objective(star) >= max(objective(q) for q in rng.dirichlet(np.ones(5), size=2000))
    summed = np.exp(np.log(pi_ref) + advantage.sum(axis=0) / beta)  # a wrong tilt: the prompts summed, not averaged
    assert objective(star) > objective(summed / summed.sum()) + 1e-3


def test_a_shared_policy_can_raise_pass_at_1_and_lower_pass_at_256():
    """Two prompts count answer 0 as correct, a third counts answer 1; one policy serves all three (pi_ref uniform,
    beta = 0.2, eps = 1e-3, 10 exact steps). The same prompts with a policy each never lose pass@k at any k."""
    reward = np.array([[1, 0], [1, 0], [0, 1]], dtype=float)
    orbit = shared_success_orbit([0.5, 0.5], reward, 0.2, 1e-3, n=10)
    gain = pass_at_k(orbit[-1][:, None], KS[None, :]).mean(axis=0) - pass_at_k(orbit[0][:, None], KS[None, :]).mean(0)
    assert gain[0] > 0.15 and gain[-1] < -0.3  # 1/6 up at k = 1, 1/3 down at k = 256
    alone = np.stack([signed_success_orbit(0.5, 0.2, 1e-3, part="both", n=10)] * 3, axis=1)
    gain_alone = pass_at_k(alone[-1][:, None], KS[None, :]).mean(0) - pass_at_k(alone[0][:, None], KS[None, :]).mean(0)
    assert gain_alone.min() >= 0


@pytest.mark.parametrize("part", ["positive", "negative"])
def test_a_shared_step_with_one_part_maximises_that_part_s_objective(part):
    rng = np.random.default_rng(6)
    pi_ref, beta, eps = rng.dirichlet(np.ones(5)), 0.4, 1e-3
    reward = np.array([[1, 0, 0, 1, 0], [0, 1, 0, 0, 0], [0, 0, 1, 1, 0]], dtype=float)
    p = (reward @ pi_ref)[:, None]
    plus, minus = omega_plus(p, eps) * reward, omega_minus(p, eps) * (1 - reward)
    advantage = plus if part == "positive" else -minus
    star = shared_grpo_step(pi_ref, pi_ref, reward, beta, eps, part=part)

    def objective(pi):
        return float((advantage @ pi).mean() - beta * np.sum(pi * np.log(pi / pi_ref)))

    assert objective(star) >= max(objective(q) for q in rng.dirichlet(np.ones(5), size=2000))
    both = shared_grpo_step(pi_ref, pi_ref, reward, beta, eps)  # negative test: the whole advantage's step
    assert objective(star) > objective(both) + 1e-4


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pass_at_k(1.5, 3), r"p=1\.5 is out of range"),
        (lambda: pass_at_k(0.5, 0), r"k=0 is out of range; valid: integers >= 1"),
        (lambda: pass_at_k(0.5, 2.5), r"k=2\.5 is out of range"),
        (lambda: pass_at_k_estimate(0, 0, 1), r"n=0 is out of range"),
        (lambda: pass_at_k_estimate(5, 6, 1), r"c=.* is out of range; valid: integers 0 <= c <= n = 5"),
        (lambda: pass_at_k_estimate(5, 2, 6), r"k=6 is out of range; valid: integers 1 <= k <= n = 5"),
        (lambda: class_conditionals([0.5, 0.5], [1, 1]), r"mass 0\.0 on the wrong answers"),
        (lambda: class_conditionals([0.5, 0.5], [1, 2]), r"reward"),
        (lambda: within_class_drift([0.5, 0.5], [0.2, 0.3, 0.5], [1, 0]), r"pi has shape \(2,\)"),
        (lambda: signed_logit_increment(0.3, 1.0, 0.0, part="half"), r"part='half'"),
        (lambda: signed_logit_increment(0.3, 0.0, 0.0, part="both"), r"beta=0\.0 is out of range"),
        (lambda: signed_success_orbit(0.0, 1.0, 0.0, part="both", n=3), r"p_ref=0\.0 is out of range"),
        (lambda: signed_success_orbit(0.3, 1.0, -1.0, part="both", n=3), r"eps=-1\.0 is out of range"),
        (lambda: signed_success_orbit(0.3, 1.0, 0.0, part="both", n=0), r"n=0 is out of range"),
        (lambda: signed_grpo_step([0.5, 0.5], [1.0, 0.0], [1, 0], 1.0, 0.0, part="both"), r"p_prev"),
        (lambda: shared_grpo_step([0.5, 0.5], [0.5, 0.5], [1, 0], 1.0, 0.0), r"reward has shape \(2,\)"),
        (lambda: shared_grpo_step([0.5, 0.5], [0.5, 0.5], [[1, 0, 0]], 1.0, 0.0), r"reward has shape \(1, 3\)"),
        (lambda: shared_grpo_step([0.5, 0.5], [0.2, 0.3, 0.5], [[1, 0]], 1.0, 0.0), r"pi_prev has shape"),
        (lambda: shared_grpo_step([0.5, 0.5], [1.0, 0.0], [[1, 0]], 1.0, 0.0), r"p_prev"),
        (lambda: shared_success_orbit([0.5, 0.5], [[1, 0]], 1.0, 0.0, n=0), r"n=0 is out of range"),
        (lambda: shared_success_orbit([0.5, 0.5], [[1, 0]], 1.0, 0.1, n=2, part="all"), r"part='all'"),
    ],
)
def test_bad_input_is_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()
