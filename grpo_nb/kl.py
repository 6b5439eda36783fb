"""The KL divergence to the reference policy and Schulman's per-sample estimators of it (paper §2, Eq. 2's penalty).

GRPO's objective subtracts beta KL(pi_theta || pi_ref). Over a finite outcome set it is computed exactly,

    KL(pi || pi_ref) = sum_o pi(o) (log pi(o) - log pi_ref(o))          (:func:`categorical_kl`);

a language model estimates it from sampled answers o ~ pi instead, with d = log pi_ref(o) - log pi(o):

    k1 = -d,   k2 = d^2 / 2,   k3 = e^d - d - 1                         (:func:`k1`, :func:`k2`, :func:`k3`).

k1 and k3 are unbiased (E_pi[e^d] = 1), k3 is never negative; k2 is biased but low-variance (Schulman, "Approximating
KL divergence", 2020). This module is the one numpy home of these formulas; the toy LM's torch versions
(``grpo_nb.toylm.grpo.k3_kl`` and its exact sequence KL) are tested against it. Kernels: arrays of log-probabilities
in, no validation (the callers check their policies).
"""

from __future__ import annotations

import numpy as np

__all__ = ["categorical_kl", "k1", "k2", "k3"]


#: The kernels of this module: public, vectorised and fast, they do not validate their input (their callers do).
KERNELS = (
    "categorical_kl",
    "k1",
    "k2",
    "k3",
)


def _log_ratio(logp: object, logp_ref: object) -> np.ndarray:
    """d = log pi_ref - log pi, the log of the ratio every estimator is a function of."""
    return np.asarray(logp_ref, dtype=float) - np.asarray(logp, dtype=float)


def k1(logp: object, logp_ref: object) -> np.ndarray:
    """Schulman's k1 estimate of KL(pi || pi_ref) at a sampled answer: -d = log pi - log pi_ref (unbiased)."""
    return -_log_ratio(logp, logp_ref)


def k2(logp: object, logp_ref: object) -> np.ndarray:
    """Schulman's k2 estimate of KL(pi || pi_ref) at a sampled answer: d^2 / 2 (biased, never negative)."""
    return _log_ratio(logp, logp_ref) ** 2 / 2


def k3(logp: object, logp_ref: object) -> np.ndarray:
    """Schulman's k3 estimate of KL(pi || pi_ref) at a sampled answer: e^d - d - 1 with d = log pi_ref - log pi.

    Computed as expm1(d) - d, exact near d = 0 (unbiased, never negative).
    """
    d = _log_ratio(logp, logp_ref)
    return np.expm1(d) - d


def categorical_kl(log_pi: np.ndarray, log_ref: np.ndarray) -> np.ndarray:
    """KL(pi || pi_ref) = sum_o pi(o) (log pi(o) - log pi_ref(o)) over the last axis, from log-probabilities."""
    return np.sum(np.exp(log_pi) * (log_pi - log_ref), axis=-1)
