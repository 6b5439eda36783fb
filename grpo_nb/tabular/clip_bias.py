"""The clipping bias of GRPO under random rewards (Shao et al. 2025, arXiv 2506.10947, "spurious rewards"), exactly.

One prompt, K answers, the softmax policy pi_theta = softmax(theta). An outer iteration samples a group of G answers
o_1..o_G iid from pi_old = pi_theta, draws rewards r_i iid Bernoulli(q) *independent of the answers* (q = 1/2: a
spurious reward), forms the group advantages A_i of :func:`grpo_nb.advantage.group_advantage` (form ``"paper"``,
Eq. 4) and takes mu gradient-ascent steps of size lr on the clipped surrogate (GRPO-Clip, Mroueh 2025 §2) with two
clip ranges,

    J(theta) = (1/G) sum_i f(x_i, A_i),   x_i = pi_theta(o_i) / pi_old(o_i),
    f(x, A)  = min(x A, clip(x, 1 - clip_low, 1 + clip_high) A),

pi_old fixed during the mu steps. For A >= 0 only the upper bound can bind and for A < 0 only the lower one, so
f(x, A) = f_{clip_high}(x, A) for A >= 0 and f_{clip_low}(x, A) for A < 0 with f_eps the symmetric term of
:func:`grpo_nb.clipping.clipped_term` (:func:`asymmetric_clipped_term`). Its gradient in the logits is

    grad J = (1/G) sum_i f'(x_i, A_i) x_i (e_{o_i} - pi_theta)        (dx/dtheta = x (e_o - pi_theta)),

the REINFORCE form of :func:`grpo_nb.tabular.softmax_policy.reinforce_gradient` with the effective per-answer
advantage sum_{i: o_i = o} f'(x_i, A_i) x_i (:func:`surrogate_gradient`).

Four clip modes (:func:`clip_bounds`): ``"none"`` (clip_low = clip_high = inf), ``"symmetric"`` (eps, eps),
``"high_only"`` (inf, eps: only the upper clip) and ``"low_only"`` (eps, inf).

Why it is a question: given the answers, the rewards are exchangeable and the advantages sum to 0, so E[A_i | o] = 0.
With mu = 1 the step is taken at x = 1, where no clip binds, and is linear in A: its expectation in the logits is
exactly 0 and the expected change of the top answer's probability is O(lr^2). With mu > 1 the ratios leave 1, the
clip freezes some samples' terms, and the expected change of the initially most likely answer's probability can take
a sign.
:func:`expected_top_mass_change` computes it *exactly*: a group is a multiset of G (answer, reward) pairs drawn iid
from the 2K types with probabilities pi(o) q^r (1 - q)^(1-r), so the expectation is a finite sum over the
comb(G + 2K - 1, G) multisets weighted by their multinomial probabilities (the multinomial coefficient counts the
answer tuples and reward patterns that give the same update). :func:`random_reward_runs` is the seeded Monte Carlo
counterpart over many outer iterations. The expected updates also take Zhu et al.'s raw +-1 rewards
(:func:`raw_advantage`) in place of Eq. 4's group advantage, whole or one signed part (:func:`advantage_part`).
"""

from __future__ import annotations

import math
from itertools import combinations_with_replacement
from typing import NamedTuple

import numpy as np
from scipy.special import gammaln, log_softmax, softmax

from grpo_nb.advantage import group_advantage
from grpo_nb.clipping import clipped_term, clipped_term_slope
from grpo_nb.tabular.algorithm1 import sample_outcomes
from grpo_nb.tabular.distribution import SIGNED_PARTS
from grpo_nb.tabular.entropy import policy_entropy
from grpo_nb.tabular.softmax_policy import reinforce_gradient
from grpo_nb.validation import (
    check_binary_reward,
    check_choice,
    check_clip_eps,
    check_logits,
    check_open_interval,
    check_positive_int,
    check_ratio_advantage,
    check_scalar,
    scalar_or_array,
)

__all__ = [
    "CLIP_MODES",
    "MAX_TERMS",
    "PolicyTrace",
    "REWARD_ADVANTAGES",
    "RandomRewardRun",
    "advantage_part",
    "asymmetric_clipped_term",
    "asymmetric_clipped_term_slope",
    "clip_bounds",
    "clipped_grpo_runs",
    "expected_logit_change",
    "expected_top_mass_change",
    "expected_update_orbit",
    "inner_updates",
    "random_reward_run",
    "random_reward_runs",
    "raw_advantage",
    "surrogate_gradient",
    "surrogate_objective",
]

#: The clip modes of :func:`clip_bounds`.
CLIP_MODES: tuple[str, ...] = ("none", "symmetric", "high_only", "low_only")
#: How a group's 0/1 rewards become advantages (:func:`advantage_part`): Eq. 4's group advantage ("paper"), or the raw
#: reward mapped to +-1 with no baseline and no scale ("raw", the rewards of Zhu et al. 2025, arXiv 2506.01347).
REWARD_ADVANTAGES: tuple[str, ...] = ("paper", "raw")
#: The largest number of (answer, reward) multisets comb(G + 2K - 1, G) the exact expectation enumerates.
MAX_TERMS = 1_000_000


class RandomRewardRun(NamedTuple):
    """Per outer iteration 0..n: the probability of the initially most likely answer and the policy's entropy."""

    top_mass: np.ndarray
    entropy: np.ndarray


class PolicyTrace(NamedTuple):
    """Per iteration 0..n: the logits (n + 1, K), the mass of the initially most likely answer and the entropy."""

    logits: np.ndarray
    top_mass: np.ndarray
    entropy: np.ndarray


def raw_advantage(rewards: object) -> np.ndarray:
    """A_i = 2 r_i - 1 of 0/1 ``rewards`` (..., G): +1 for a success, -1 for a failure, with no group baseline and no
    scale (the raw rewards of Zhu et al. 2025, arXiv 2506.01347)."""
    return 2.0 * check_binary_reward("rewards", rewards, min_last=1) - 1.0


def advantage_part(rewards: object, *, part: str = "both", advantage: str = "paper") -> np.ndarray:
    """The advantages A_i of 0/1 ``rewards`` (..., G), Eq. 4's group advantage (``advantage="paper"``) or the raw
    A_i = 2 r_i - 1 (``"raw"``, :func:`raw_advantage`), or their successes' part max(A_i, 0) (``part="positive"``)
    or failures' part min(A_i, 0) (``"negative"``), as in Zhu et al. 2025 (arXiv 2506.01347)."""
    part = check_choice("part", part, SIGNED_PARTS)
    advantage = check_choice("advantage", advantage, REWARD_ADVANTAGES)
    advantages = group_advantage(rewards, form="paper") if advantage == "paper" else raw_advantage(rewards)
    if part == "positive":
        return np.maximum(advantages, 0.0)
    return np.minimum(advantages, 0.0) if part == "negative" else advantages


def clip_bounds(mode: str, *, clip_eps: float) -> tuple[float, float]:
    """(clip_low, clip_high) of a clip mode: "none" (inf, inf), "symmetric" (eps, eps), "high_only" (inf, eps),
    "low_only" (eps, inf), with eps = ``clip_eps`` in [0, inf]."""
    check_choice("mode", mode, CLIP_MODES)
    eps_value = check_scalar("clip_eps", check_clip_eps(clip_eps))
    low = eps_value if mode in ("symmetric", "low_only") else math.inf
    high = eps_value if mode in ("symmetric", "high_only") else math.inf
    return low, high


def _clip_bound(name: str, value: object) -> float:
    """A scalar clip range in [0, inf], errors naming ``name``."""
    try:
        return check_scalar(name, check_clip_eps(value))
    except ValueError as err:
        raise ValueError(str(err).replace("clip_eps", name)) from err


def asymmetric_clipped_term(
    ratio: object, advantage: object, *, clip_low: float, clip_high: float
) -> np.ndarray | float:
    """f(x, A) = min(x A, clip(x, 1 - clip_low, 1 + clip_high) A): f_{clip_high}(x, A) of
    :func:`grpo_nb.clipping.clipped_term` where A >= 0 and f_{clip_low}(x, A) where A < 0. Numpy-vectorised."""
    low, high = _clip_bound("clip_low", clip_low), _clip_bound("clip_high", clip_high)
    x, a = check_ratio_advantage(ratio, advantage)
    return scalar_or_array(np.where(a >= 0, clipped_term(x, a, high), clipped_term(x, a, low)))


def asymmetric_clipped_term_slope(
    ratio: object, advantage: object, *, clip_low: float, clip_high: float
) -> np.ndarray | float:
    """d f / d x of :func:`asymmetric_clipped_term`: A, or 0 where A > 0 and x > 1 + clip_high or A < 0 and
    x < 1 - clip_low (:func:`grpo_nb.clipping.clipped_term_slope` with the range of A's sign)."""
    low, high = _clip_bound("clip_low", clip_low), _clip_bound("clip_high", clip_high)
    x, a = check_ratio_advantage(ratio, advantage)
    return scalar_or_array(np.where(a >= 0, clipped_term_slope(x, a, high), clipped_term_slope(x, a, low)))


# ---- the surrogate of one group, batched over groups (B, K) -------------------------------------------------------


def _group(logits_old: object, answers: object, advantages: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validated (logits_old (B, K), answers (B, G) ints in [0, K), advantages (B, G) finite), B = 1 for 1-D input."""
    old = check_logits("logits_old", logits_old)
    if old.ndim > 2:
        raise ValueError(f"logits_old has shape {old.shape}; valid shape is (K,) or (B, K)")
    n_answers = old.shape[-1]
    idx = np.asarray(answers)
    if idx.shape[:-1] != old.shape[:-1] or idx.ndim == 0 or idx.shape[-1] < 1:
        raise ValueError(f"answers has shape {idx.shape}; valid shape is {old.shape[:-1] + ('G',)} with G >= 1")
    if not np.issubdtype(idx.dtype, np.integer) or ((idx < 0) | (idx >= n_answers)).any():
        raise ValueError(f"answers={idx!r} is out of range; valid range is integers 0 <= answers < K = {n_answers}")
    adv = np.asarray(advantages, dtype=float)
    if adv.shape != idx.shape or not np.isfinite(adv).all():
        raise ValueError(f"advantages={adv!r} is not valid; valid: finite reals of the shape {idx.shape} of answers")
    return np.atleast_2d(old), np.atleast_2d(idx), np.atleast_2d(adv)


def _ratios(theta: np.ndarray, log_old: np.ndarray, answers: np.ndarray) -> np.ndarray:
    """x_i = pi_theta(o_i) / pi_old(o_i), from log-probabilities; shape (B, G)."""
    return np.exp(np.take_along_axis(log_softmax(theta, axis=-1), answers, axis=-1) - log_old)


def _gradient(theta, log_old, answers, advantages, low, high) -> np.ndarray:
    """grad J = (1/G) sum_i f'(x_i, A_i) x_i (e_{o_i} - pi_theta), shape (B, K), as REINFORCE with weights 1/G and
    the effective per-answer advantage sum_{i: o_i = o} f'(x_i, A_i) x_i."""
    x = _ratios(theta, log_old, answers)
    coef = asymmetric_clipped_term_slope(x, advantages, clip_low=low, clip_high=high) * x
    per_answer = np.zeros_like(theta)
    np.add.at(per_answer, (np.arange(theta.shape[0])[:, None], answers), coef)
    return reinforce_gradient(theta, np.full_like(theta, 1.0 / answers.shape[-1]), per_answer)


def _ascent(old, answers, advantages, lr, mu, low, high) -> np.ndarray:
    """mu gradient-ascent steps of size lr on J from theta = logits_old, pi_old fixed; shape (B, K)."""
    log_old = np.take_along_axis(log_softmax(old, axis=-1), answers, axis=-1)
    theta = old.copy()
    for _ in range(mu):
        theta = theta + lr * _gradient(theta, log_old, answers, advantages, low, high)
    return theta


def _same_shape(logits: object, old: np.ndarray) -> np.ndarray:
    theta = check_logits("logits", logits)
    if theta.shape != old.shape:
        raise ValueError(f"logits has shape {theta.shape}; valid: the shape {old.shape} of logits_old")
    return np.atleast_2d(theta)


def _squeeze(result: np.ndarray, like: np.ndarray) -> np.ndarray:
    return result.reshape(np.shape(like))


def surrogate_objective(
    logits: object, logits_old: object, answers: object, *, advantages: object, clip_low: float, clip_high: float
) -> np.ndarray | float:
    """J(theta) = (1/G) sum_i f(pi_theta(o_i)/pi_old(o_i), A_i) with f of :func:`asymmetric_clipped_term`.

    ``logits``, ``logits_old`` of shape (K,) with ``answers`` (ints in [0, K)) and ``advantages`` of shape (G,), or
    (B, K) and (B, G) for B groups (then one value per group).
    """
    old, idx, adv = _group(logits_old, answers, advantages)
    theta = _same_shape(logits, np.asarray(logits_old, dtype=float))
    log_old = np.take_along_axis(log_softmax(old, axis=-1), idx, axis=-1)
    x = _ratios(theta, log_old, idx)
    value = np.mean(asymmetric_clipped_term(x, adv, clip_low=clip_low, clip_high=clip_high), axis=-1)
    return scalar_or_array(value if np.ndim(logits_old) == 2 else value[0])


def surrogate_gradient(
    logits: object, logits_old: object, answers: object, *, advantages: object, clip_low: float, clip_high: float
) -> np.ndarray:
    """grad_theta J = (1/G) sum_i f'(x_i, A_i) x_i (e_{o_i} - pi_theta), x_i = pi_theta(o_i)/pi_old(o_i), the
    gradient in the logits of :func:`surrogate_objective` (same shapes); at a kink the inside slope A is used."""
    old, idx, adv = _group(logits_old, answers, advantages)
    theta = _same_shape(logits, np.asarray(logits_old, dtype=float))
    low, high = _clip_bound("clip_low", clip_low), _clip_bound("clip_high", clip_high)
    log_old = np.take_along_axis(log_softmax(old, axis=-1), idx, axis=-1)
    return _squeeze(_gradient(theta, log_old, idx, adv, low, high), logits_old)


def _check_step(lr: object, mu: object) -> tuple[float, int]:
    return check_open_interval("lr", lr, lo=0.0, hi=math.inf), check_positive_int("mu", mu)


def _check_vector(name: str, logits: object) -> np.ndarray:
    """The logits of one policy, shape (K,) (:func:`grpo_nb.validation.check_logits`), errors naming ``name``."""
    theta = check_logits(name, logits)
    if theta.ndim != 1:
        raise ValueError(f"{name} has shape {theta.shape}; valid shape is (K,)")
    return theta


def inner_updates(
    logits_old: object,
    answers: object,
    advantages: object,
    *,
    lr: float,
    mu: int,
    clip_low: float,
    clip_high: float,
) -> np.ndarray:
    """theta_mu after mu steps theta_{t+1} = theta_t + lr grad J(theta_t) from theta_0 = ``logits_old``, pi_old
    fixed (:func:`surrogate_gradient`); shapes as there, the result has the shape of ``logits_old``."""
    old, idx, adv = _group(logits_old, answers, advantages)
    lr_value, mu = _check_step(lr, mu)
    low, high = _clip_bound("clip_low", clip_low), _clip_bound("clip_high", clip_high)
    return _squeeze(_ascent(old, idx, adv, lr_value, mu, low, high), logits_old)


# ---- the exact expectation over groups and rewards ----------------------------------------------------------------


def _log_multiplicity(type_counts: np.ndarray, group_size: int) -> np.ndarray:
    """log of G! / prod_t m_t!: the ordered groups that give one multiset of (answer, reward) types."""
    return gammaln(group_size + 1.0) - gammaln(type_counts + 1.0).sum(axis=-1)


def _check_terms(group_size: int, n_answers: int, n_types: int) -> None:
    """ValueError when the multisets of G draws of ``n_types`` (answer, reward) types exceed :data:`MAX_TERMS`."""
    n_terms = math.comb(group_size + n_types - 1, group_size)
    if n_terms > MAX_TERMS:
        raise ValueError(
            f"group_size={group_size} with K={n_answers} answers needs comb(G + {n_types} - 1, G) = {n_terms} "
            f"terms; valid: at most {MAX_TERMS} (a smaller group_size or K)"
        )


def _groups(logits: np.ndarray, group_size: int, reward_prob: float, reward: np.ndarray | None, rule: dict):
    """Every multiset of G (answer, reward) types with positive probability: (answers (T, G), advantages (T, G) of
    :func:`advantage_part` with ``rule`` (its part and advantage), probabilities (T,)). Random rewards (``reward``
    None): type 2 o + r, probability pi(o) q^r (1 - q)^(1-r). Verifiable rewards: type o, reward ``reward[o]``,
    probability pi(o)."""
    n_types = logits.size * (2 if reward is None else 1)
    _check_terms(group_size, logits.size, n_types)
    types = np.array(list(combinations_with_replacement(range(n_types), group_size)), dtype=np.intp)
    type_counts = (types[..., None] == np.arange(n_types)).sum(axis=1)
    if reward is None:
        log_type = np.stack(
            [np.log1p(-reward_prob) + log_softmax(logits), np.log(reward_prob) + log_softmax(logits)], 1
        )
    else:
        log_type = log_softmax(logits)[:, None]
    log_prob = _log_multiplicity(type_counts, group_size) + log_type.ravel()[types].sum(axis=-1)
    keep = log_prob > -745.0  # exp underflows to 0 below: groups that are never drawn
    answers, rewards = (
        (types[keep] // 2, (types[keep] % 2).astype(float)) if reward is None else (types[keep], reward[types[keep]])
    )
    return answers, advantage_part(rewards, **rule), np.exp(log_prob[keep])


def _check_reward(reward: object, n_answers: int) -> np.ndarray | None:
    """None (random rewards) or a verifiable 0/1 reward over the K answers, shape (K,)."""
    return None if reward is None else check_binary_reward("reward", reward, shape=(n_answers,))


def _expected_setup(logits, group_size, lr, mu, mode, clip_eps, reward_prob, reward, rule) -> tuple[np.ndarray, ...]:
    """(logits (K,), the new logits of every group (T, K), their probabilities (T,)); ``rule``: the part and
    advantage of :func:`advantage_part`."""
    theta = _check_vector("logits", logits)
    group_size = check_positive_int("group_size", group_size, minimum=2)
    lr_value, mu = _check_step(lr, mu)
    low, high = clip_bounds(mode, clip_eps=clip_eps)
    q = check_open_interval("reward_prob", reward_prob, lo=0.0, hi=1.0)
    answers, advantages, prob = _groups(theta, group_size, q, _check_reward(reward, theta.size), rule)
    old = np.broadcast_to(theta, (answers.shape[0], theta.size))
    return theta, _ascent(old, answers, advantages, lr_value, mu, low, high), prob


def expected_logit_change(
    logits: object,
    *,
    group_size: int,
    lr: float,
    mu: int,
    mode: str,
    clip_eps: float,
    reward_prob: float = 0.5,
    reward: object = None,
    part: str = "both",
    advantage: str = "paper",
) -> np.ndarray:
    """E[theta_mu - theta] over the group's answers (iid softmax(logits)) and rewards, exactly: the sum over the
    (answer, reward) multisets of their multinomial probability times the update of :func:`inner_updates` with the
    advantages of :func:`advantage_part` (its ``part`` and ``advantage``: Eq. 4's or the raw +-1). Rewards are iid
    Bernoulli(reward_prob) apart from the answers where ``reward`` is None, else the verifiable 0/1 ``reward[o]`` of
    each answer (shape (K,)). Shape (K,). ValueError when the multisets (module docstring) exceed :data:`MAX_TERMS`."""
    rule = {"part": part, "advantage": advantage}
    theta, new, prob = _expected_setup(logits, group_size, lr, mu, mode, clip_eps, reward_prob, reward, rule)
    return prob @ (new - theta)


def expected_top_mass_change(
    logits: object,
    *,
    group_size: int,
    lr: float,
    mu: int,
    mode: str,
    clip_eps: float,
    reward_prob: float = 0.5,
    reward: object = None,
    part: str = "both",
) -> float:
    """E[softmax(theta_mu)[top] - softmax(theta)[top]], top = argmax(logits), exactly, over the
    same groups as :func:`expected_logit_change`: the expected change of the most likely answer's probability after
    one outer iteration."""
    rule = {"part": part, "advantage": "paper"}
    theta, new, prob = _expected_setup(logits, group_size, lr, mu, mode, clip_eps, reward_prob, reward, rule)
    top = int(np.argmax(theta))
    return float(prob @ (softmax(new, axis=-1)[:, top] - softmax(theta)[top]))


def expected_update_orbit(
    logits0: object,
    *,
    group_size: int,
    lr: float,
    mu: int,
    n: int,
    mode: str,
    clip_eps: float,
    reward_prob: float = 0.5,
    reward: object = None,
    part: str = "both",
    advantage: str = "paper",
) -> PolicyTrace:
    """The expected-update iteration theta_{m+1} = theta_m + E[theta_mu - theta_m] (:func:`expected_logit_change`
    at theta_m), m = 0..n-1, from theta_0 = ``logits0``: a deterministic path that each sampled run of
    :func:`clipped_grpo_runs` follows in the mean over one step (not over many: the mean of a nonlinear update is
    not the update of the mean). Its logits, top mass (top = argmax(logits0)) and entropy per iteration; ``part`` and
    ``advantage`` as in :func:`advantage_part`."""
    theta = _check_vector("logits0", logits0)
    n = check_positive_int("n", n, minimum=0)
    history = [theta]
    for _ in range(n):
        options = dict(group_size=group_size, lr=lr, mu=mu, mode=mode, clip_eps=clip_eps, reward_prob=reward_prob)
        step = expected_logit_change(history[-1], reward=reward, part=part, advantage=advantage, **options)
        history.append(history[-1] + step)
    logits = np.stack(history)
    top = int(np.argmax(theta))
    return PolicyTrace(logits, softmax(logits, axis=-1)[:, top], np.asarray(policy_entropy(logits)))


# ---- Monte Carlo ---------------------------------------------------------------------------------------------------


def clipped_grpo_runs(
    logits0: object,
    *,
    group_size: int,
    lr: float,
    mu: int,
    n: int,
    mode: str,
    clip_eps: float,
    n_runs: int,
    seed: int,
    reward_prob: float = 0.5,
    reward: object = None,
    part: str = "both",
) -> RandomRewardRun:
    """``n_runs`` independent runs of n outer iterations from theta_0 = ``logits0`` (K,): each samples G answers from
    softmax(theta), rewards (iid Bernoulli(reward_prob) apart from the answers where ``reward`` is None, else the
    verifiable ``reward[o]``), and sets theta to :func:`inner_updates` with the group advantage ("paper", its
    ``part``). One ``numpy.random.default_rng(seed)`` stream. Returns top_mass and entropy -sum_o pi(o) log pi(o)
    of shape (n_runs, n + 1), top = argmax(logits0)."""
    theta = _check_vector("logits0", logits0)
    group_size = check_positive_int("group_size", group_size, minimum=2)
    lr_value, mu = _check_step(lr, mu)
    n, n_runs = check_positive_int("n", n, minimum=0), check_positive_int("n_runs", n_runs)
    low, high = clip_bounds(mode, clip_eps=clip_eps)
    q = check_open_interval("reward_prob", reward_prob, lo=0.0, hi=1.0)
    table = _check_reward(reward, theta.size)
    check_choice("part", part, SIGNED_PARTS)
    rng = np.random.default_rng(seed)
    top = int(np.argmax(theta))
    thetas = np.broadcast_to(theta, (n_runs, theta.size)).copy()
    history = [thetas]
    for _ in range(n):
        answers = sample_outcomes(thetas, group_size, rng)
        rewards = (rng.random(answers.shape) < q).astype(float) if table is None else table[answers]
        thetas = _ascent(thetas, answers, advantage_part(rewards, part=part), lr_value, mu, low, high)
        history.append(thetas)
    logits = np.stack(history, axis=1)
    return RandomRewardRun(top_mass=softmax(logits, axis=-1)[..., top], entropy=np.asarray(policy_entropy(logits)))


def random_reward_runs(
    logits0: object,
    *,
    group_size: int,
    lr: float,
    mu: int,
    n: int,
    mode: str,
    clip_eps: float,
    n_runs: int,
    seed: int,
    reward_prob: float = 0.5,
) -> RandomRewardRun:
    """:func:`clipped_grpo_runs` with rewards iid Bernoulli(reward_prob) drawn apart from the answers (a spurious
    reward): top_mass and entropy of shape (n_runs, n + 1)."""
    options = dict(group_size=group_size, lr=lr, mu=mu, n=n, mode=mode, clip_eps=clip_eps)
    return clipped_grpo_runs(logits0, n_runs=n_runs, seed=seed, reward_prob=reward_prob, **options)


def random_reward_run(
    logits0: object,
    *,
    group_size: int,
    lr: float,
    mu: int,
    n: int,
    mode: str,
    clip_eps: float,
    seed: int,
    reward_prob: float = 0.5,
) -> RandomRewardRun:
    """One seeded run of :func:`random_reward_runs` (``n_runs=1``): top_mass and entropy of shape (n + 1,)."""
    options = dict(group_size=group_size, lr=lr, mu=mu, n=n, mode=mode, clip_eps=clip_eps)
    runs = random_reward_runs(logits0, n_runs=1, seed=seed, reward_prob=reward_prob, **options)
    return RandomRewardRun(top_mass=runs.top_mass[0], entropy=runs.entropy[0])
