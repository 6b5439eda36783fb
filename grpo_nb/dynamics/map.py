"""The success-probability map of Theorem 2 and its derivative (Proposition 1).

Theorem 2 (Mroueh 2025, Eq. 8): along exact GRPO iterations the probability of success obeys
``p_n = h(p_{n-1})`` with ``p_0 = p_ref`` and

    h(p) = 1 / (1 + (1 - p_ref)/p_ref * exp(-1 / (beta * sqrt(p(1-p) + eps)))).

In logit (log-odds) coordinates z = log(p / (1 - p)) the map is a shift of the reference logit:

    logit h(p) = logit p_ref + 1 / (beta * sqrt(p(1-p) + eps)),

which stays exact where p is within 1e-300 of 0 or 1 and float64 would round p itself.
Every function here works in those coordinates internally. This module is the one numpy home of the logit map
g(z) = logit h(sigmoid z), of its derivative g'(z) (Proposition 1 in logit coordinates; at a fixed point it is
Lemma 1's slope h'(p*)) and of its iteration; every other module calls these.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, logit

from grpo_nb.validation import check_map_params, check_p, check_positive_int, scalar_or_array

__all__ = [
    "bernoulli_variance_of_logit",
    "h",
    "h_prime",
    "iterate",
    "iterate_logit",
    "log_abs_logit_map_slope",
    "logit_h",
    "logit_map",
    "logit_map_cap",
    "logit_map_margin",
    "logit_map_power",
    "logit_map_slope",
]


#: The kernels of this module: public, vectorised and fast, they do not validate their input (their callers do).
KERNELS = (
    "bernoulli_variance_of_logit",
    "log_abs_logit_map_slope",
    "logit_map",
    "logit_map_cap",
    "logit_map_margin",
    "logit_map_power",
    "logit_map_slope",
)


def bernoulli_variance_of_logit(z: np.ndarray) -> np.ndarray:
    """p(1-p) for p = sigmoid(z), computed as s(1-s) with s = sigmoid(-|z|) = e^{-|z|}/(1+e^{-|z|}), no cancellation.

    The sigmoid is scipy's ``expit``, which calls the C library's exp one number at a time. numpy's own ``exp`` has
    CPU-specific vector versions (AVX-512) whose last bit differs from the C library's, and in a chaotic regime one
    last bit sends the orbit elsewhere within a few dozen steps. Every orbit of the book goes through this function
    (the logit map's only transcendental step when eps > 0), so the orbits, and every count and exponent computed
    from them, repeat bit for bit on any x86-64 machine, whatever vector extensions its CPU has."""
    s = expit(-np.abs(np.asarray(z, dtype=float)))
    return s * (1.0 - s)


def logit_map(z: np.ndarray, a: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """The map of Theorem 2 in logit coordinates: g(z) = a + 1/(beta sqrt(sigmoid(z)sigmoid(-z) + eps)).

    ``a = logit p_ref``. No validation (internal, vectorised); with eps = 0 the inverse square root is
    2 cosh(z/2), which may overflow to +inf for |z| > ~1420 (the orbit then leaves to p = 1).
    """
    z = np.asarray(z, dtype=float)
    with np.errstate(over="ignore", divide="ignore"):
        inv_sd = np.where(
            eps > 0,
            1.0 / np.sqrt(bernoulli_variance_of_logit(z) + eps),
            2.0 * np.cosh(0.5 * z),
        )
    return a + inv_sd / beta


def logit_map_cap(a: object, beta: object, eps: object) -> np.ndarray:
    """The cap of Theorem 2's map, sup_z g(z) = a + 1/(beta sqrt(eps)) = logit h(1) (+inf for eps = 0).

    g(z) - a = 1/(beta sqrt(v(z) + eps)) grows to 1/(beta sqrt(eps)) as |z| -> inf (v -> 0), so every orbit and every
    fixed point lies below the cap. Kernel: no validation, vectorised.
    """
    with np.errstate(divide="ignore"):
        return a + 1.0 / (beta * np.sqrt(eps))


def logit_map_margin(beta: object, eps: object) -> np.ndarray:
    """Theorem 3's margin 1/(beta sqrt(1/4 + eps)) = g(0) - a, the smallest step min_z g(z) - a (at p = 1/2).

    Every iterate and every fixed point sits at least this far above logit p_ref. Kernel: no validation, vectorised.
    """
    return 1.0 / (beta * np.sqrt(0.25 + eps))


def logit_map_power(z: object, a: object, beta: object, eps: object, *, n: int) -> np.ndarray:
    """g^n(z): n applications of :func:`logit_map` (no validation, vectorised; n = 0 returns z)."""
    z = np.asarray(z, dtype=float)
    for _ in range(n):
        z = logit_map(z, a, beta, eps)
    return z


def log_abs_logit_map_slope(z: object, beta: object, eps: object) -> np.ndarray:
    """log|g'(z)|, g'(z) = v tanh(z/2) / (2 beta (v + eps)^{3/2}), v = sigmoid(z) sigmoid(-z). No validation.

    Computed in log form (log v = -|z| - 2 log(1+e^{-|z|})), so it stays finite for |z| up to ~1e308.
    With eps = 0, g'(z) = sinh(z/2)/beta and log|g'| = |z|/2 + log(1+e^{-|z|}) + log|tanh(z/2)| - log(2 beta).
    """
    z = np.asarray(z, dtype=float)
    az = np.abs(z)
    eps = np.asarray(eps, dtype=float)
    beta = np.asarray(beta, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log1p_e = np.log1p(np.exp(-az))
        log_v = -az - 2.0 * log1p_e
        log_tanh = np.log(np.abs(np.tanh(0.5 * z)))
        v = bernoulli_variance_of_logit(z)
        # eps > 0: log v - 1.5 log(v+eps); eps = 0: -0.5 log v = |z|/2 + log1p(e^{-|z|})
        log_ratio = np.where(eps > 0, log_v - 1.5 * np.log(v + eps), 0.5 * az + log1p_e)
        return log_ratio + log_tanh - np.log(2.0 * beta)


def logit_map_slope(z: object, beta: object, eps: object) -> np.ndarray:
    """g'(z) = v tanh(z/2) / (2 beta (v+eps)^{3/2}) (eps > 0) or sinh(z/2)/beta (eps = 0). No validation.

    The sign of tanh(z/2) times exp(:func:`log_abs_logit_map_slope`). Equal to h'(p) at p = sigmoid(z) only at
    fixed points (conjugacy), where it is Lemma 1's slope.
    """
    z = np.asarray(z, dtype=float)
    with np.errstate(over="ignore"):
        return np.sign(z) * np.exp(log_abs_logit_map_slope(z, beta, eps))


def logit_h(p: object, p_ref: object, beta: object, eps: object) -> np.ndarray | float:
    """logit h(p) = logit p_ref + 1/(beta sqrt(p(1-p)+eps)) (Thm 2 in log-odds). Numpy-vectorised."""
    p_ref, beta, eps = check_map_params(p_ref, beta, eps)
    p = check_p(p, eps)
    with np.errstate(divide="ignore"):
        val = logit(p_ref) + 1.0 / (beta * np.sqrt(p * (1.0 - p) + eps))
    return scalar_or_array(val)


def h(p: object, p_ref: object, beta: object, eps: object) -> np.ndarray | float:
    """Theorem 2's map h_{eps, p_ref}(p), numpy-vectorised over all arguments.

    Computed as sigmoid(logit h(p)); eps = 0 is allowed only for 0 < p < 1 (Remark 1).
    """
    return scalar_or_array(expit(np.asarray(logit_h(p, p_ref, beta, eps))))


def h_prime(p: object, p_ref: object, beta: object, eps: object) -> np.ndarray | float:
    """Proposition 1: h'(p) = -h(p)(1 - h(p)) (1 - 2p) / (2 beta (p(1-p) + eps)^{3/2}).

    Evaluated in log space: h(1-h) = sigmoid(z)sigmoid(-z) comes from the logit z = logit h(p) as
    -|z| - 2 log(1 + e^{-|z|}), so neither it nor (p(1-p) + eps)^{3/2} underflows to 0 where h is
    within 1e-16 of 1 or p(1-p) + eps is below 1e-200 (eps = 0, p = 1e-300 gives a finite 0, not NaN).
    """
    p_ref, beta, eps = check_map_params(p_ref, beta, eps)
    p = check_p(p, eps)
    z = np.asarray(logit_h(p, p_ref, beta, eps))
    var = p * (1.0 - p) + eps
    abs_z = np.abs(z)
    with np.errstate(divide="ignore"):
        log_abs = (
            -abs_z
            - 2.0 * np.log1p(np.exp(-abs_z))
            + np.log(np.abs(1.0 - 2.0 * p))
            - np.log(2.0 * beta)
            - 1.5 * np.log(var)
        )
    return scalar_or_array(np.sign(2.0 * p - 1.0) * np.exp(log_abs))


def iterate_logit(p_ref: object, beta: object, eps: object, *, n: int) -> np.ndarray:
    """Logits z_0..z_n of the orbit p_k = h(p_{k-1}), p_0 = p_ref; shape (n+1, *broadcast shape)."""
    p_ref, beta, eps = check_map_params(p_ref, beta, eps)
    n = check_positive_int("n", n, minimum=0)
    a = logit(p_ref)
    a, beta, eps = np.broadcast_arrays(a, beta, eps)
    z = np.empty((n + 1, *a.shape))
    z[0] = a
    for k in range(n):
        z[k + 1] = logit_map(z[k], a, beta, eps)
    return z


def iterate(p_ref: object, beta: object, eps: object, n: int) -> np.ndarray:
    """The orbit p_0..p_n of Eq. (8), p_0 = p_ref, computed in logit space; shape (n+1, *broadcast)."""
    return expit(iterate_logit(p_ref, beta, eps, n=n))
