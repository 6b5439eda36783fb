"""The KL divergence to the reference policy and Schulman's per-sample estimators of it (paper §2, Eq. 2's penalty).

GRPO's objective subtracts beta KL(pi_theta || pi_ref). Over a finite outcome set it is computed exactly,

    KL(pi || pi_ref) = sum_o pi(o) (log pi(o) - log pi_ref(o))          (:func:`categorical_kl`);

a language model estimates it from sampled answers o ~ pi instead, with d = log pi_ref(o) - log pi(o):

    k1 = -d,   k2 = d^2 / 2,   k3 = e^d - d - 1                         (:func:`k1`, :func:`k2`, :func:`k3`).

k1 and k3 are unbiased (E_pi[e^d] = 1), k3 is never negative; k2 is biased but low-variance (Schulman, "Approximating
KL divergence", 2020).

An unbiased *value* does not make an unbiased *gradient*. :func:`expected_estimator_gradient` enumerates a small
softmax policy exactly and returns E_{o~pi}[grad of the estimator's loss term] for the three places a trainer can put
an estimate: in the loss with the sample's log-probability differentiated ("loss": k3 there has the gradient of the
forward KL(pi_ref || pi), not of KL(pi || pi_ref)), multiplied by the importance ratio pi_theta / pi_old at
pi_old = pi ("ratio_weighted", TRL's ``use_bias_correction_kl``: the gradient of E_pi[estimate]), or subtracted from
the reward as a detached penalty ("reward", a score-function term); :func:`score_weight` is the weight of
grad log pi(o) at one sample in each placement. :func:`softmax_kl_gradients` gives the two KL directions' exact
gradients to compare with.

This module is the one numpy home of these formulas; the toy LM's torch versions
(``grpo_nb.toylm.grpo.k3_kl`` and its exact sequence KL) are tested against it. Kernels: arrays of log-probabilities
in, no validation (the callers check their policies).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "categorical_kl",
    "expected_estimator_gradient",
    "k1",
    "k2",
    "k3",
    "score_weight",
    "softmax_kl_gradients",
]


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


#: d(estimate)/d(log pi(o)) of each estimator, as a function of d = log pi_ref - log pi (the estimate depends on
#: log pi only through d, and dd/dlog pi = -1).
_ESTIMATOR_SLOPES = {
    "k1": lambda d: np.ones_like(d),
    "k2": lambda d: -d,
    "k3": lambda d: -np.expm1(d),
}
_ESTIMATORS = {"k1": k1, "k2": k2, "k3": k3}
_PLACEMENTS = ("loss", "ratio_weighted", "reward")


def _softmax_pair(logits: object, log_ref: object) -> tuple[np.ndarray, np.ndarray]:
    """(log softmax(logits), log_ref) as float arrays; ValueError unless both are 1-d of one shape."""
    logits = np.asarray(logits, dtype=float)
    log_ref = np.asarray(log_ref, dtype=float)
    if logits.shape != log_ref.shape or logits.ndim != 1:
        raise ValueError(f"logits and log_ref must be 1-d of one shape, got {logits.shape} and {log_ref.shape}")
    return logits - np.logaddexp.reduce(logits), log_ref


def expected_estimator_gradient(logits: object, log_ref: object, estimator: str, *, placement: str) -> np.ndarray:
    """Exact E_{o~pi}[gradient w.r.t. the logits] of a KL estimate's term, for pi = softmax(logits) (no sampling).

    With d(o) = log pi_ref(o) - log pi(o), k(o) the estimate and grad log pi(o) = e_o - pi for softmax logits:

    - ``"loss"``: the estimate is a loss term whose log pi(o) is differentiated, the sample o ~ pi held fixed:
      sum_o pi(o) k'(o) (e_o - pi), with k' = dk/dlog pi(o). For k3 this is pi - pi_ref = grad KL(pi_ref || pi).
    - ``"ratio_weighted"``: the term is (pi_theta(o) / pi_old(o)) k(o) at pi_old = pi (the ratio carries the
      score): sum_o pi(o) (k(o) + k'(o)) (e_o - pi) = grad E_pi[k]. For k1 and k3 that is grad KL(pi || pi_ref).
    - ``"reward"``: the estimate is subtracted from the reward, detached, so it reaches the gradient through the
      score only: sum_o pi(o) k(o) (e_o - pi). For k1 that is grad KL(pi || pi_ref) again.

    Returns the gradient of the term to be *minimised*, shape of ``logits``. Raises ValueError for an unknown
    estimator or placement, or for arrays of different shapes.
    """
    _check_estimator_placement(estimator, placement)
    log_pi, log_ref = _softmax_pair(logits, log_ref)
    pi = np.exp(log_pi)
    w = pi * score_weight(log_pi, log_ref, estimator, placement=placement)
    return w - pi * w.sum()


def _check_estimator_placement(estimator: str, placement: str) -> None:
    if estimator not in _ESTIMATORS:
        raise ValueError(f"estimator={estimator!r} is not one of {sorted(_ESTIMATORS)}")
    if placement not in _PLACEMENTS:
        raise ValueError(f"placement={placement!r} is not one of {list(_PLACEMENTS)}")


def score_weight(logp: object, logp_ref: object, estimator: str, *, placement: str) -> np.ndarray:
    """The weight of grad log pi(o) in the gradient of an estimator's term at a sampled answer or token o, with
    d = log pi_ref(o) - log pi(o) and k' = dk/dlog pi(o) (:func:`expected_estimator_gradient` averages it over o):
    ``"loss"``: k'(d) (k3: 1 - e^d); ``"ratio_weighted"``, the term times pi_theta/pi_old at pi_old = pi, whose
    derivative is the ratio, 1: k + k' (k3: e^d - d - 1 + 1 - e^d = -d, k1's value); ``"reward"``: k.

    The term is the one to be minimised; for a loss that adds beta k(o) per token and divides by a token count N,
    d loss / d log pi(o) = beta ``score_weight`` / N (chapter "Questions from the trackers", silent groups with
    beta > 0). Elementwise over arrays of log-probabilities that broadcast; ValueError for an unknown estimator or
    placement or a NaN."""
    _check_estimator_placement(estimator, placement)
    d = _log_ratio(logp, logp_ref)
    if np.isnan(d).any():
        raise ValueError(f"logp={logp!r}, logp_ref={logp_ref!r} contain NaN; valid values are log-probabilities")
    return {
        "loss": _ESTIMATOR_SLOPES[estimator](d),
        "ratio_weighted": _ESTIMATORS[estimator](logp, logp_ref) + _ESTIMATOR_SLOPES[estimator](d),
        "reward": _ESTIMATORS[estimator](logp, logp_ref),
    }[placement]


def softmax_kl_gradients(logits: object, log_ref: object) -> tuple[np.ndarray, np.ndarray]:
    """Exact gradients w.r.t. the logits of the two KL directions, pi = softmax(logits).

    Returns (grad KL(pi || pi_ref), grad KL(pi_ref || pi)) = (pi * (log pi - log pi_ref - KL), pi - pi_ref):
    the reverse KL that GRPO's objective (Eq. 2) penalises, and the forward KL.
    """
    log_pi, log_ref = _softmax_pair(logits, log_ref)
    pi = np.exp(log_pi)
    reverse = pi * (log_pi - log_ref - categorical_kl(log_pi, log_ref))
    return reverse, pi - np.exp(log_ref)
