"""The softmax policy over K outcomes with a 0/1 reward: its expected reward and its policy gradient, in the logits.

One prompt has K answers o = 0..K-1 with verifiable rewards r(o) in {0, 1}; the policy is pi = softmax(theta)
with one free logit per answer (a tabular policy; several prompts are rows of a (..., K) array, no parameter shared
between them). Its value is V = E_pi[r] (Eq. 7 of Mroueh 2025, here ``p``), and the policy gradient theorem (Eq. 3
of the U-statistic paper) gives

    grad_theta V = E_pi[r(o) grad log pi(o)],    grad_theta log pi(o) = e_o - pi   (the softmax score),

so that grad V = pi * (r - V) componentwise (:func:`exact_gradient`). With weights w_o in place of pi(o) and
advantages A_o in place of r(o) the same score gives the on-policy (REINFORCE) estimate of Algorithm 1
(:func:`reinforce_gradient`).

Algorithm 1 on tabular policies (:mod:`grpo_nb.tabular.algorithm1`) and the softmax bandit of the group estimators
(:mod:`grpo_nb.ustat.bandit`) both read these; E_pi[r] itself is :func:`grpo_nb.tabular.policy.expected_reward`.
"""

from __future__ import annotations

import numpy as np
from scipy.special import softmax

from grpo_nb.tabular.policy import expected_reward
from grpo_nb.validation import check_binary_reward, check_logits

__all__ = [
    "bandit_expected_reward",
    "check_bandit",
    "exact_gradient",
    "logits_expected_reward",
    "reinforce_gradient",
]

#: The kernels of this module: public, vectorised, they do not validate their input (their callers do).
KERNELS = ("logits_expected_reward", "reinforce_gradient")


def check_bandit(logits: object, reward: object) -> tuple[np.ndarray, np.ndarray]:
    """Validated (logits, reward): finite logits of shape (..., K), K >= 2, and 0/1 rewards of the same shape."""
    logits = check_logits("logits", logits)
    reward = check_binary_reward("reward", reward, shape=logits.shape)
    return logits, reward


def logits_expected_reward(logits: np.ndarray, reward: np.ndarray) -> np.ndarray:
    """p(q) = sum_o softmax(logits)[q, o] r[q, o] (Eq. 7), shape (Q,). No validation (a kernel)."""
    return expected_reward(softmax(logits, axis=-1), reward)


def bandit_expected_reward(logits: object, reward: object) -> np.ndarray | float:
    """V = E_{o ~ softmax(logits)}[r(o)], per prompt (shape (...,)); a float for one prompt."""
    logits, reward = check_bandit(logits, reward)
    v = logits_expected_reward(logits, reward)
    return float(v) if np.ndim(v) == 0 else v


def exact_gradient(logits: object, reward: object) -> np.ndarray:
    """grad_logits E_{o ~ softmax(logits)}[r(o)] = pi * (r - V): the policy gradient (Eq. 3) with the softmax score.

    ``logits`` and ``reward`` have shape (K,) (one prompt; the result is (K,)) or (..., K) (batched over prompts).
    Bad input raises ValueError: non-finite logits, K < 2, rewards not in {0, 1}, shapes that differ.
    """
    logits, reward = check_bandit(logits, reward)
    pi = softmax(logits, axis=-1)
    value = expected_reward(pi, reward)[..., None]
    return pi * (reward - value)


def reinforce_gradient(logits: np.ndarray, weights: np.ndarray, advantages: np.ndarray) -> np.ndarray:
    """The on-policy (REINFORCE) gradient sum_o w_o A_o grad log pi(o) in the logits, per prompt: shape (Q, O).

    With per-outcome weights w_o = count_o / G it is (1/G) sum_i A_i grad log pi(o_i); grad log pi(o) = e_o - pi.
    No validation (a kernel).
    """
    ca = weights * advantages
    return ca - softmax(logits, axis=-1) * ca.sum(axis=1, keepdims=True)
