"""The entropy of a softmax policy and its first-order change under a logit step: the covariance law.

A prompt's answers a = 0..K-1 have the softmax policy pi = softmax(theta), one free logit per answer (rows of a
(..., K) array are independent prompts). Its entropy and the gradient of it in the logits are

    H(theta) = -sum_a pi(a) log pi(a),        dH/dtheta_b = -pi(b) (log pi(b) + H),

so a logit step theta -> theta + eta delta changes the entropy, to first order in eta, by

    H(theta + eta delta) - H(theta) = eta grad H . delta + O(eta^2) = -eta Cov_{a~pi}(log pi(a), delta(a)) + O(eta^2),

the covariance law of Cui et al. (2025, arXiv:2505.22617, the entropy-dynamics lemma and its two corollaries). A
constant added to delta leaves pi, and the law, unchanged. The remainder is bounded: along theta + t u,

    d^2 H / dt^2 = -E_pi[(u - E_pi u)^2 (1 + H + log pi)],   so   |d^2 H / dt^2| <= span(u)^2 (1 + 2 H)

(pi |log pi| summed is H), and the O(eta^2) term is at most eta^2 span(delta)^2 (1 + 2 log K) / 2.

Two logit steps, for advantages A(a) held fixed (:func:`logit_step`):

- plain policy gradient: delta = grad_theta E_pi[A] = pi * (A - E_pi[A]), which is pi * A for a centred advantage
  (E_pi[A] = 0, as A = r - V with V = E_pi[r]; then it is :func:`grpo_nb.tabular.softmax_policy.exact_gradient`),
  and the law reads dH = -eta Cov(log pi, pi * A);
- natural policy gradient: the Fisher matrix of the softmax in the logits is F = diag(pi) - pi pi^T, and F A =
  pi * (A - E_pi[A]) is the plain step, so delta = A (up to a constant, which F does not see) and dH = -eta Cov(log
  pi, A).

All quantities are computed from log_softmax, so that logits of magnitude ~700 (probabilities below 1e-300) give no
NaN and no overflow.
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_softmax, softmax

from grpo_nb.tabular.softmax_policy import reinforce_gradient
from grpo_nb.validation import check_choice, check_logits, check_open_interval, scalar_or_array

__all__ = [
    "GRADIENTS",
    "covariance_law",
    "entropy_change",
    "entropy_gradient",
    "logit_step",
    "policy_entropy",
]

#: The logit steps of :func:`logit_step`: the plain (softmax) policy gradient and the natural policy gradient.
GRADIENTS = ("plain", "natural")


def _check_like_logits(name: str, value: object, logits: np.ndarray) -> np.ndarray:
    """``value`` (an advantage or a logit step) validated: finite, of the shape of ``logits``."""
    arr = check_logits(name, value, min_outcomes=1)
    if arr.shape != logits.shape:
        raise ValueError(f"{name} has shape {arr.shape}; valid: the shape of logits, {logits.shape}")
    return arr


def _entropy(log_pi: np.ndarray) -> np.ndarray:
    """H = -sum_a pi(a) log pi(a) from log pi (exp(log pi) underflows to 0 and 0 * log pi = 0: no NaN)."""
    return -np.sum(np.exp(log_pi) * log_pi, axis=-1)


def policy_entropy(logits: object) -> np.ndarray | float:
    """H(theta) = -sum_a pi(a) log pi(a) with pi = softmax(theta), per row: shape (...,); a float for one row.

    Computed in log-space (log pi = log_softmax(theta)): 0 <= H <= log K, H = log K for equal logits and H -> 0 as
    one logit dominates, with no NaN for logits of magnitude ~700. Bad input (non-finite logits, K < 2) raises
    ValueError naming ``logits``.
    """
    logits = check_logits("logits", logits)
    return scalar_or_array(_entropy(log_softmax(logits, axis=-1)))


def entropy_gradient(logits: object) -> np.ndarray:
    """dH/dtheta_b = -pi(b) (log pi(b) + H), the gradient of :func:`policy_entropy` in the logits (shape of logits).

    Its components sum to 0 (adding a constant to the logits leaves H unchanged). Bad input (non-finite logits,
    K < 2) raises ValueError naming ``logits``.
    """
    logits = check_logits("logits", logits)
    log_pi = log_softmax(logits, axis=-1)
    return -np.exp(log_pi) * (log_pi + _entropy(log_pi)[..., None])


def logit_step(logits: object, advantage: object, *, gradient: str) -> np.ndarray:
    """The logit step delta per unit step size, for advantages A(a) held fixed, shape of logits.

    ``gradient="plain"``: delta = grad_theta E_pi[A] = sum_a pi(a) A(a) (e_a - pi) = pi * (A - E_pi[A]), the
    expected policy gradient with the softmax score (:func:`grpo_nb.tabular.softmax_policy.reinforce_gradient` with
    weights pi); it is pi * A when E_pi[A] = 0, e.g. for A = r - V. ``gradient="natural"``: delta = A, the natural
    gradient F^+ grad E_pi[A] up to a constant (F = diag(pi) - pi pi^T, and F A = pi * (A - E_pi[A])).

    Bad input raises ValueError naming the parameter: non-finite logits or K < 2 (``logits``), a non-finite
    advantage or one of another shape (``advantage``), a name not in :data:`GRADIENTS` (``gradient``).
    """
    logits = check_logits("logits", logits)
    advantage = _check_like_logits("advantage", advantage, logits)
    gradient = check_choice("gradient", gradient, GRADIENTS)
    if gradient == "natural":
        return advantage.copy()
    k = logits.shape[-1]
    rows_logits, rows_advantage = logits.reshape(-1, k), advantage.reshape(-1, k)
    pi = softmax(rows_logits, axis=-1)
    return reinforce_gradient(rows_logits, pi, rows_advantage).reshape(logits.shape)


def covariance_law(logits: object, delta: object) -> np.ndarray | float:
    """-Cov_{a~pi}(log pi(a), delta(a)) per row: the first-order entropy change per unit step, grad H . delta.

    Shape (...,); a float for one row. Computed as -E_pi[(log pi - E_pi log pi)(delta - E_pi delta)], so that it is
    unchanged by a constant added to delta. Bad input raises ValueError naming the parameter: non-finite logits or
    K < 2 (``logits``), a non-finite delta or one of another shape (``delta``).
    """
    logits = check_logits("logits", logits)
    delta = _check_like_logits("delta", delta, logits)
    log_pi = log_softmax(logits, axis=-1)
    pi = np.exp(log_pi)
    centred_log_pi = log_pi - np.sum(pi * log_pi, axis=-1, keepdims=True)
    centred_delta = delta - np.sum(pi * delta, axis=-1, keepdims=True)
    return scalar_or_array(-np.sum(pi * centred_log_pi * centred_delta, axis=-1))


def entropy_change(logits: object, delta: object, *, step: float) -> np.ndarray | float:
    """H(theta + step delta) - H(theta) per row, exactly (no expansion): shape (...,); a float for one row.

    To first order it is step * :func:`covariance_law`, with a remainder of at most
    step^2 span(delta)^2 (1 + 2 log K) / 2 (module docstring). Bad input raises ValueError naming the parameter:
    non-finite logits or K < 2 (``logits``), a non-finite delta or one of another shape (``delta``), a non-finite
    ``step``.
    """
    logits = check_logits("logits", logits)
    delta = _check_like_logits("delta", delta, logits)
    step = check_open_interval("step", step, lo=-np.inf, hi=np.inf)
    before = _entropy(log_softmax(logits, axis=-1))
    after = _entropy(log_softmax(logits + step * delta, axis=-1))
    return scalar_or_array(after - before)
