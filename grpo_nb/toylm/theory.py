"""The non-parametric side of §5: Theorem 1's policy, total variation, and the gaps of Theorem 5.

Numpy only. Arrays are over prompts (P) and the enumerated outputs (K) of each prompt.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from grpo_nb.validation import check_beta
from grpo_nb.weights import omega_minus, omega_plus

__all__ = ["success_probability", "theorem1_logpolicy", "total_variation"]


def _check_logp(name: str, logp: object) -> np.ndarray:
    arr = np.asarray(logp, dtype=float)
    if arr.ndim != 2 or np.isnan(arr).any() or (arr > 1e-9).any():
        raise ValueError(f"{name} of shape {arr.shape} is not a (P, K) array of log-probabilities (<= 0, no NaN)")
    return arr


def _check_reward(reward: object, shape: tuple[int, ...]) -> np.ndarray:
    arr = np.asarray(reward, dtype=float)
    if arr.shape != shape or not np.isin(arr, (0.0, 1.0)).all():
        raise ValueError(f"reward of shape {arr.shape} is not a 0/1 array of shape {shape}")
    return arr


def success_probability(logp: object, reward: object) -> np.ndarray:
    """p(q) = sum_o pi(o|q) r(q, o) (Eq. 7), exactly, from a (P, K) table of log pi."""
    logp = _check_logp("logp", logp)
    return (np.exp(logp) * _check_reward(reward, logp.shape)).sum(axis=1)


def theorem1_logpolicy(logp_ref: object, reward: object, p_prev: object, beta: object, eps: object) -> np.ndarray:
    """Theorem 1: log pi_n(o|q) = log pi_ref(o|q) + (omega^+ r - omega^- (1 - r))/beta - log Z_{n-1}(q).

    ``p_prev`` (P,) is the success probability of pi_{n-1}; returns a (P, K) table, normalised per prompt.
    """
    logp_ref = _check_logp("logp_ref", logp_ref)
    reward = _check_reward(reward, logp_ref.shape)
    beta = check_beta(beta)
    p_prev = np.asarray(p_prev, dtype=float).reshape(-1, 1)
    w_plus, w_minus = omega_plus(p_prev, eps), omega_minus(p_prev, eps)
    tilt = logp_ref + (w_plus * reward - w_minus * (1.0 - reward)) / beta
    return tilt - logsumexp(tilt, axis=1, keepdims=True)


def total_variation(logp_a: object, logp_b: object) -> np.ndarray:
    """TV(pi_a(.|q), pi_b(.|q)) = 1/2 sum_o |pi_a - pi_b| per prompt, from two (P, K) log tables."""
    a, b = _check_logp("logp_a", logp_a), _check_logp("logp_b", logp_b)
    if a.shape != b.shape:
        raise ValueError(f"logp_a of shape {a.shape} and logp_b of shape {b.shape} differ; they must match")
    return 0.5 * np.abs(np.exp(a) - np.exp(b)).sum(axis=1)
