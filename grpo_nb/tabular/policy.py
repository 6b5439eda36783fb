"""Policies over a finite outcome set with a 0/1 reward: the numpy home of E_pi[r], total variation and Theorem 1.

Arrays are batched over leading axes; the outcomes are the last axis.

- ``expected_reward``: p = E_{o ~ pi}[r(o)] = sum_o pi(o) r(o) (Eq. 7), clipped to [0, 1] against rounding.
- ``total_variation``: TV(a, b) = (1/2) sum_o |a(o) - b(o)| (Theorem 5's distance).
- ``gibbs_log_policy``: Theorem 1's maximiser in log space,
  log pi_n(o) = log pi_ref(o) + A(o)/beta - log Z, with A(o) = omega^+_eps(p) if r(o) = 1 and -omega^-_eps(p) if
  r(o) = 0 (:func:`grpo_nb.weights.stabilised_advantage`), p the success probability of pi_{n-1}.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from grpo_nb.clipping import clipped_term
from grpo_nb.validation import check_beta, check_eps, check_normalization
from grpo_nb.weights import mean_only_advantage, omega_minus, omega_plus, stabilised_advantage

__all__ = ["contrastive_decomposition_gap", "expected_reward", "gibbs_log_policy", "total_variation"]


#: The kernels of this module: public, vectorised and fast, they do not validate their input (their callers do).
KERNELS = ("expected_reward",)


def expected_reward(pi: np.ndarray, reward: np.ndarray) -> np.ndarray:
    """p = sum_o pi(o) r(o) over the last axis (Eq. 7), clipped to [0, 1]. No validation (internal, batched)."""
    return np.clip(np.sum(np.asarray(pi) * np.asarray(reward), axis=-1), 0.0, 1.0)


def total_variation(a: object, b: object) -> np.ndarray:
    """TV(a, b) = (1/2) sum_o |a(o) - b(o)| over the last axis; a and b are (batched) probability vectors."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"a.shape={a.shape!r} and b.shape={b.shape!r} differ; valid input is two equal shapes")
    for name, arr in (("a", a), ("b", b)):
        if not np.all(np.isfinite(arr)) or np.any(arr < 0):
            raise ValueError(f"{name}={arr!r} is not a probability vector; valid entries are finite and >= 0")
    return 0.5 * np.sum(np.abs(a - b), axis=-1)


def gibbs_log_policy(
    log_pi_ref: object, reward: object, p_prev: object, beta: object, eps: object, *, normalization: str = "mean_var"
) -> np.ndarray:
    """Theorem 1: log pi_n(o) = log pi_ref(o) + A(o)/beta - log Z_{n-1}, normalised over the last axis.

    ``log_pi_ref`` and ``reward`` have shape (..., O); ``p_prev`` has shape (...) (one success probability of
    pi_{n-1} per row). Outcomes with log pi_ref = -inf keep probability 0. Computed with logsumexp, so no overflow
    for small beta. ValueError for bad beta, eps, p_prev or rewards (eps = 0 needs 0 < p_prev < 1, Remark 1).
    ``normalization``: "mean_var" (Eq. 4's stabilised advantage) or "mean" (mean-only, A = r - p, eps unused). The
    anchor ``log_pi_ref`` need not be normalised (the variants of :mod:`grpo_nb.variants` pass
    alpha log pi_ref + (1 - alpha) log pi_{n-1}).
    """
    beta = check_beta(beta)
    log_ref = np.asarray(log_pi_ref, dtype=float)
    p = np.asarray(p_prev, dtype=float)[..., None]
    if check_normalization(normalization) == "mean":
        check_eps(eps)
        advantage = mean_only_advantage(reward, p)
    else:
        advantage = stabilised_advantage(reward, p, eps)
    with np.errstate(divide="ignore"):
        tilt = log_ref + np.asarray(advantage) / beta
    return tilt - logsumexp(tilt, axis=-1, keepdims=True)


def contrastive_decomposition_gap(
    pi_old: np.ndarray, pi_new: np.ndarray, reward: np.ndarray, *, eps: float, clip_eps_values: tuple[float, ...]
) -> float:
    """§2.2: the stabilised clipped objective E_{pi_old} f(x, A) against its contrastive form, worst relative gap.

    Per prompt (rows of the (Q, O) arrays), with x = pi_new/pi_old and A the stabilised advantage at p = E_{pi_old} r,
    the left side is sum_o pi_old f_c(x, A) and the right side
    omega^+ sum_{r=1} pi_old min(x, 1 + c) - omega^- sum_{r=0} pi_old max(x, 1 - c), for each clip range c in
    ``clip_eps_values``.
    Returns max |lhs - rhs| / (1 + |lhs|) over prompts and clip ranges.
    """
    p = expected_reward(pi_old, reward)[:, None]
    wp, wm = omega_plus(p, eps), omega_minus(p, eps)
    x = pi_new / pi_old
    worst = 0.0
    for clip in clip_eps_values:
        lhs = (pi_old * clipped_term(x, np.where(reward == 1, wp, -wm), clip)).sum(axis=1)
        pull = (pi_old * np.minimum(x, 1 + clip) * reward).sum(axis=1)
        push = (pi_old * np.maximum(x, 1 - clip) * (1 - reward)).sum(axis=1)
        rhs = wp[:, 0] * pull - wm[:, 0] * push
        worst = max(worst, float(np.max(np.abs(lhs - rhs) / (1 + np.abs(lhs)))))
    return worst
