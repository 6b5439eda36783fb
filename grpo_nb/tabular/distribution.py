"""What exact GRPO does to the whole answer distribution: pass@k, the ratios inside each reward class, and the updates
in which only the successes or only the failures carry an advantage.

**pass@k.** k answers drawn independently from a policy whose success probability on the prompt is p contain a
correct one with probability

    pass@k(p) = 1 - (1 - p)^k,

increasing in p for every k >= 1, so on one prompt pass@k moves with p alone. Measured from n samples of which c are
correct, the unbiased estimate is 1 - C(n - c, k) / C(n, k) (Chen et al. 2021, arXiv 2107.03374):
:func:`pass_at_k_estimate`.

**Inside each reward class.** Theorem 1 of Mroueh (2025) writes the exact GRPO step as a Gibbs tilt of the anchor,
pi_n(o) ∝ pi_ref(o) exp(A(o)/beta), and the advantage A(o) depends on o only through r(o). The tilt therefore
multiplies every correct answer by one factor and every wrong answer by another: the policies conditioned on success
and on failure (:func:`class_conditionals`) are the anchor's, step after step, with KL to pi_ref (the anchor is pi_ref)
and with KL to pi_{n-1} (the anchor is the previous policy, whose conditionals are again pi_ref's).
:func:`within_class_drift` measures the departure from that, 0 for exact steps.

**Signed parts of the advantage.** With the stabilised advantage of Eq. (4), A(o) = w+(p) r(o) - w-(p)(1 - r(o)).
Keeping only the successes' part gives A+(o) = w+(p) r(o); keeping only the failures' part gives
A-(o) = -w-(p)(1 - r(o)) (positive-only and negative-only reinforcement, Zhu et al. 2025, arXiv 2506.01347). A Gibbs
tilt does not change when a constant is added to A, and A- = w-(p) r(o) - w-(p), so each part is a tilt of r alone:

    both:      logit p_n = logit p_ref + (w+(p_{n-1}) + w-(p_{n-1})) / beta      (Theorem 2's map, logit h)
    positive:  logit p_n = logit p_ref + w+(p_{n-1}) / beta
    negative:  logit p_n = logit p_ref + w-(p_{n-1}) / beta

(:func:`signed_logit_increment`, :func:`signed_success_orbit`, :func:`signed_grpo_step`, KL to pi_ref). All three
keep the class conditionals and raise p above p_ref while 0 < p_{n-1} < 1: with exact expectations the two halves of
the advantage differ only in how far each step moves p, w+ > w- exactly when p_{n-1} < 1/2.

**One policy shared by several prompts.** On each prompt alone the exact step raises p, hence pass@k at every k.
When Q prompts with reward tables r_q share one policy over the same answers (the simplest form of shared
parameters), the maximiser of the prompts' average objective (1/Q) sum_q E_pi[A_q] - beta KL(pi || pi_ref) is again a
Gibbs tilt, pi_n(o) ∝ pi_ref(o) exp(mean_q A_q(o) / beta) with A_q at p_q = E_{pi_{n-1}}[r_q]
(:func:`shared_grpo_step`, :func:`shared_success_orbit`). A prompt whose correct answers the others count as wrong can
lose success probability, and the prompt-averaged pass@k can then rise at k = 1 and fall at large k.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, gammaln, logit, logsumexp

from grpo_nb.tabular.policy import expected_reward
from grpo_nb.validation import (
    check_beta,
    check_binary_reward,
    check_choice,
    check_eps,
    check_p,
    check_p_ref,
    check_policy,
    check_positive_int,
    check_scalar,
    scalar_or_array,
)
from grpo_nb.weights import omega_minus, omega_plus

__all__ = [
    "SIGNED_PARTS",
    "class_conditionals",
    "pass_at_k",
    "pass_at_k_estimate",
    "shared_grpo_step",
    "shared_success_orbit",
    "signed_grpo_step",
    "signed_logit_increment",
    "signed_success_orbit",
    "within_class_drift",
]

#: The advantage's parts: the whole stabilised advantage, the successes' part alone, the failures' part alone.
SIGNED_PARTS = ("both", "positive", "negative")


def _check_ks(k: object) -> np.ndarray:
    """k as an integer array, every entry >= 1."""
    arr = np.asarray(k)
    if arr.size == 0 or not np.issubdtype(arr.dtype, np.integer) or (arr < 1).any():
        raise ValueError(f"k={k!r} is out of range; valid: integers >= 1")
    return arr.astype(np.int64)


def pass_at_k(p: object, k: object) -> np.ndarray | float:
    """pass@k = 1 - (1 - p)^k: the probability that k independent answers hold a correct one (broadcast over p, k).

    Computed as -expm1(k log1p(-p)), accurate for p near 0 and exact at p = 1. p in [0, 1]; k integers >= 1.
    """
    p = check_p(p, np.float64(1.0))
    ks = _check_ks(k)
    with np.errstate(divide="ignore"):
        return scalar_or_array(-np.expm1(ks * np.log1p(-p)))


def pass_at_k_estimate(n: int, c: object, k: object) -> np.ndarray | float:
    """The unbiased estimate of pass@k from n answers of which c are correct: 1 - C(n - c, k) / C(n, k).

    It is 1 where fewer than k answers are wrong (n - c < k). Computed with log-Gamma functions; c broadcasts against
    k. n >= 1; 0 <= c <= n integers; 1 <= k <= n.
    """
    n = check_positive_int("n", n)
    c = np.asarray(c)
    if c.size == 0 or not np.issubdtype(c.dtype, np.integer) or (c < 0).any() or (c > n).any():
        raise ValueError(f"c={c!r} is out of range; valid: integers 0 <= c <= n = {n}")
    ks = _check_ks(k)
    if (ks > n).any():
        raise ValueError(f"k={k!r} is out of range; valid: integers 1 <= k <= n = {n}")
    wrong = n - c
    log_ratio = (
        gammaln(wrong + 1.0) - gammaln(np.maximum(wrong - ks, 0) + 1.0) - gammaln(n + 1.0) + gammaln(n - ks + 1.0)
    )
    return scalar_or_array(np.where(wrong < ks, 1.0, -np.expm1(log_ratio)))


def class_conditionals(pi: object, reward: object) -> tuple[np.ndarray, np.ndarray]:
    """(pi(. | r = 1), pi(. | r = 0)): the policy restricted to the correct and to the wrong answers, renormalised.

    Arrays over the answers (last axis); entries outside a class are 0. Each class must be non-empty and carry mass.
    """
    pi = check_policy("pi", pi)
    reward = check_binary_reward("reward", reward, shape=pi.shape)
    parts = []
    for name, mask in (("correct", reward == 1), ("wrong", reward == 0)):
        restricted = np.where(mask, pi, 0.0)
        mass = restricted.sum(axis=-1, keepdims=True)
        if (mass <= 0).any():
            raise ValueError(f"pi puts mass {float(mass.min())!r} on the {name} answers; valid: a positive mass")
        parts.append(restricted / mass)
    return parts[0], parts[1]


def within_class_drift(pi: object, pi_ref: object, reward: object) -> np.ndarray | float:
    """max over the two reward classes of TV(pi(. | class), pi_ref(. | class)): 0 when pi is a tilt of pi_ref by r.

    TV is half the l1 distance between the conditional policies (:func:`class_conditionals`), per row.
    """
    pi, pi_ref = check_policy("pi", pi), check_policy("pi_ref", pi_ref)
    if pi.shape != pi_ref.shape:
        raise ValueError(f"pi has shape {pi.shape}; valid: the shape of pi_ref, {pi_ref.shape}")
    drift = [
        0.5 * np.abs(a - b).sum(axis=-1)
        for a, b in zip(class_conditionals(pi, reward), class_conditionals(pi_ref, reward), strict=True)
    ]
    return scalar_or_array(np.maximum(*drift))


def signed_logit_increment(p: object, beta: object, eps: object, *, part: str) -> np.ndarray | float:
    """c(p) / beta with c = w+(p) + w-(p) (``"both"``), w+(p) (``"positive"``) or w-(p) (``"negative"``), Eq. (4).

    The amount by which the exact step with KL to pi_ref puts logit p_n above logit p_ref. eps = 0 needs 0 < p < 1.
    """
    part = check_choice("part", part, SIGNED_PARTS)
    beta = check_beta(beta)
    plus = np.asarray(omega_plus(p, eps)) if part != "negative" else 0.0
    minus = np.asarray(omega_minus(p, eps)) if part != "positive" else 0.0
    return scalar_or_array((plus + minus) / beta)


def signed_success_orbit(p_ref: object, beta: object, eps: object, *, part: str, n: int) -> np.ndarray:
    """p_0 = p_ref, ..., p_n of the exact iteration with KL to pi_ref and the advantage's ``part`` (module docstring).

    logit p_m = logit p_ref + signed_logit_increment(p_{m-1}); p_ref in (0, 1) and beta, eps scalars.
    """
    p_ref = check_scalar("p_ref", check_p_ref(p_ref))
    beta, eps = check_scalar("beta", check_beta(beta)), check_scalar("eps", check_eps(eps))
    n = check_positive_int("n", n)
    orbit = np.empty(n + 1)
    orbit[0] = p_ref
    for m in range(1, n + 1):
        orbit[m] = expit(logit(p_ref) + signed_logit_increment(orbit[m - 1], beta, eps, part=part))
    return orbit


def signed_grpo_step(
    pi_ref: object, pi_prev: object, reward: object, beta: object, eps: object, *, part: str
) -> np.ndarray:
    """The maximiser of E_pi[A_part] - beta KL(pi || pi_ref) with A_part the ``part`` of the stabilised advantage
    at p = E_{pi_prev}[r]: pi(o) ∝ pi_ref(o) exp(A_part(o) / beta) (Theorem 1's argument with A_part), in log space."""
    pi_ref, pi_prev = check_policy("pi_ref", pi_ref), check_policy("pi_prev", pi_prev)
    if pi_prev.shape != pi_ref.shape:
        raise ValueError(f"pi_prev has shape {pi_prev.shape}; valid: the shape of pi_ref, {pi_ref.shape}")
    reward = check_binary_reward("reward", reward, shape=pi_ref.shape)
    part = check_choice("part", part, SIGNED_PARTS)
    beta, eps = check_scalar("beta", check_beta(beta)), check_scalar("eps", check_eps(eps))
    p = expected_reward(pi_prev, reward)[..., None]
    check_p(p, np.float64(eps), name="p_prev (success probability of pi_prev)")
    plus = np.asarray(omega_plus(p, eps)) * reward if part != "negative" else 0.0
    minus = np.asarray(omega_minus(p, eps)) * (1.0 - reward) if part != "positive" else 0.0
    with np.errstate(divide="ignore"):
        tilt = np.log(pi_ref) + (plus - minus) / beta
    return np.exp(tilt - logsumexp(tilt, axis=-1, keepdims=True))


def _check_shared(pi_ref: object, reward: object) -> tuple[np.ndarray, np.ndarray]:
    """pi_ref over K answers (shape (K,)) and a 0/1 reward table of shape (Q, K), one row per prompt."""
    pi_ref = check_policy("pi_ref", pi_ref)
    reward = np.asarray(reward, dtype=float)
    if pi_ref.ndim != 1 or reward.ndim != 2 or reward.shape[1] != pi_ref.size:
        raise ValueError(
            f"reward has shape {reward.shape}; valid: (Q, K) with K = {pi_ref.size} answers of a 1-D pi_ref"
        )
    return pi_ref, check_binary_reward("reward", reward, shape=reward.shape)


def shared_grpo_step(
    pi_ref: object, pi_prev: object, reward: object, beta: object, eps: object, *, part: str = "both"
) -> np.ndarray:
    """The maximiser over one policy shared by the Q prompts of (1/Q) sum_q E_pi[A_q] - beta KL(pi || pi_ref):
    pi(o) ∝ pi_ref(o) exp(mean_q A_q(o) / beta), A_q the stabilised advantage (Eq. 4) at p_q = E_{pi_prev}[r_q],
    or its successes' or failures' ``part`` alone (as in :func:`signed_grpo_step`).

    pi_ref, pi_prev: shape (K,); reward: shape (Q, K). With Q = 1 it is Theorem 1's step.
    """
    pi_ref, reward = _check_shared(pi_ref, reward)
    pi_prev = check_policy("pi_prev", pi_prev)
    if pi_prev.shape != pi_ref.shape:
        raise ValueError(f"pi_prev has shape {pi_prev.shape}; valid: the shape of pi_ref, {pi_ref.shape}")
    beta, eps = check_scalar("beta", check_beta(beta)), check_scalar("eps", check_eps(eps))
    part = check_choice("part", part, SIGNED_PARTS)
    p = np.clip(reward @ pi_prev, 0.0, 1.0)[:, None]  # clip: a sum of probabilities may round above 1
    check_p(p, np.float64(eps), name="p_prev (success probability of pi_prev on a prompt)")
    plus = np.asarray(omega_plus(p, eps)) * reward if part != "negative" else 0.0
    minus = np.asarray(omega_minus(p, eps)) * (1.0 - reward) if part != "positive" else 0.0
    advantage = np.broadcast_to(plus - minus, reward.shape)
    with np.errstate(divide="ignore"):
        tilt = np.log(pi_ref) + advantage.mean(axis=0) / beta
    return np.exp(tilt - logsumexp(tilt))


def shared_success_orbit(
    pi_ref: object, reward: object, beta: object, eps: object, *, n: int, part: str = "both"
) -> np.ndarray:
    """The prompts' success probabilities p_q,m = E_{pi_m}[r_q], m = 0..n, of n shared steps
    (:func:`shared_grpo_step` with the advantage's ``part``, pi_0 = pi_ref): shape (n + 1, Q)."""
    pi_ref, reward = _check_shared(pi_ref, reward)
    n = check_positive_int("n", n)
    pi, out = pi_ref, [reward @ pi_ref]
    for _ in range(n):
        pi = shared_grpo_step(pi_ref, pi, reward, beta, eps, part=part)
        out.append(reward @ pi)
    return np.clip(np.stack(out), 0.0, 1.0)
