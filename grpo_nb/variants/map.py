"""The success recursion of every GRPO variant, in logit coordinates: the numpy home of the variants' map.

A variant changes one exact GRPO step (paper Eq. "GRPO Iterations") in two places. With p = p_{n-1} = E_{pi_{n-1}}[r],
it maximises over policies pi

    J(pi) = E_pi[A(o)] - beta [alpha KL(pi || pi_ref) + (1 - alpha) KL(pi || pi_{n-1})],

* normalisation ``"mean_var"``: A = (r - p)/sqrt(p(1-p) + eps), the paper's Eq. 4 (omega^+ for a success, -omega^-
  for a failure); ``"mean"``: A = r - p, mean-only centring as in Dr. GRPO (no eps);
* KL anchor: alpha = 1 is the paper's iteration (KL to pi_ref), alpha = 0 the mirror step (KL to the previous
  policy only), 0 < alpha < 1 both.

The maximiser is pi_n ∝ pi_ref^alpha pi_{n-1}^{1-alpha} exp(A/beta) (:mod:`grpo_nb.variants.policy`). Started at
pi_0 = pi_ref, every pi_n is pi_ref tilted by a function of the reward only, and its success logit z_n = logit p_n obeys

    z_n = alpha a + (1 - alpha) z_{n-1} + s(z_{n-1}) / beta,      a = logit p_ref,

where s = A(success) - A(failure) is the gap between the two advantages: s(z) = 1/sqrt(v(z) + eps) for ``"mean_var"``
(v = p(1-p), Eq. 4's omega^+ + omega^-) and s = 1 for ``"mean"`` ((1 - p) + p). The first two terms are the logit of
the anchor pi_ref^alpha pi_{n-1}^{1-alpha}: Theorem 2's a, pulled towards the current logit. With ``"mean_var"`` and
alpha = 1 this is Theorem 2's map, and :func:`variant_logit_map` then performs the operations of
:func:`grpo_nb.dynamics.map.logit_map` exactly (the orbits agree bit for bit).

Variance normalisation is mean-only normalisation with an adaptive KL coefficient: s(z)/beta = 1/beta_eff(z) with
beta_eff = beta sqrt(p(1-p) + eps) (:func:`effective_beta`).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, logit

from grpo_nb.dynamics.map import bernoulli_variance_of_logit, log_abs_logit_map_slope, logit_map, logit_map_slope
from grpo_nb.validation import check_alpha, check_map_params, check_normalization, check_positive_int

__all__ = [
    "anchor_logit",
    "effective_beta",
    "iterate",
    "iterate_logit",
    "log_abs_variant_logit_map_slope",
    "logit_increment",
    "variant_logit_map",
    "variant_logit_map_slope",
]


#: The kernels of this module: public, vectorised and fast, they do not validate their input (their callers do).
KERNELS = (
    "anchor_logit",
    "effective_beta",
    "log_abs_variant_logit_map_slope",
    "logit_increment",
    "variant_logit_map",
    "variant_logit_map_slope",
)


def anchor_logit(z: object, a: object, alpha: object) -> np.ndarray:
    """alpha a + (1 - alpha) z: the success logit of the anchor pi_ref^alpha pi_{n-1}^{1-alpha} (pi_0 = pi_ref).

    Exactly ``a`` where alpha = 1 (also for z = +inf), exactly ``z`` where alpha = 0. No validation (vectorised).
    """
    z, a, alpha = (np.asarray(x, dtype=float) for x in (z, a, alpha))
    with np.errstate(invalid="ignore"):
        mixed = alpha * a + (1.0 - alpha) * z
    return np.where(alpha == 1.0, a, np.where(alpha == 0.0, z, mixed))


def logit_increment(z: object, beta: object, eps: object, *, normalization: str = "mean_var") -> np.ndarray:
    """s(z)/beta, the step a variant adds to its anchor's logit: 1/(beta sqrt(v(z) + eps)) or 1/beta ("mean").

    ``"mean_var"`` is Theorem 2's push, :func:`~grpo_nb.dynamics.map.logit_map` with a = 0. No validation.
    """
    z = np.asarray(z, dtype=float)
    if normalization == "mean":
        return np.broadcast_to(1.0 / np.asarray(beta, dtype=float), np.broadcast_shapes(z.shape, np.shape(beta)))
    return logit_map(z, 0.0, beta, eps)


def variant_logit_map(
    z: object, a: object, beta: object, eps: object, *, normalization: str = "mean_var", alpha: object = 1.0
) -> np.ndarray:
    """g(z) = alpha a + (1 - alpha) z + s(z)/beta, the variant's success recursion in logit coordinates. No validation.

    For ``"mean_var"`` it is :func:`~grpo_nb.dynamics.map.logit_map` with the anchor logit in place of a, so at
    alpha = 1 it is Theorem 2's map, bit for bit. With eps = 0 it may reach +inf (the orbit leaves for p = 1).
    """
    anchor = anchor_logit(z, a, alpha)
    if normalization == "mean":
        return anchor + 1.0 / np.asarray(beta, dtype=float)
    return logit_map(z, anchor, beta, eps)


def variant_logit_map_slope(
    z: object, beta: object, eps: object, *, normalization: str = "mean_var", alpha: object = 1.0
) -> np.ndarray:
    """g'(z) = (1 - alpha) + s'(z)/beta, with s'/beta = Prop. 1's slope in logit form ("mean_var") or 0 ("mean").

    At a fixed point this is the multiplier that decides stability (Lemma 1's slope for alpha = 1). No validation.
    """
    z = np.asarray(z, dtype=float)
    push = 0.0 * z if normalization == "mean" else logit_map_slope(z, beta, eps)
    return (1.0 - np.asarray(alpha, dtype=float)) + push


def log_abs_variant_logit_map_slope(
    z: object, beta: object, eps: object, *, normalization: str = "mean_var", alpha: object = 1.0
) -> np.ndarray:
    """log|g'(z)| without overflow: log|(1 - alpha) + sign(z) e^L| with L = log|s'(z)/beta| in log form.

    For alpha = 1 it is :func:`~grpo_nb.dynamics.map.log_abs_logit_map_slope` itself; for ``"mean"`` it is
    log(1 - alpha) (-inf at alpha = 1: the map is constant). No validation.
    """
    z = np.asarray(z, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore"):
        log_damp = np.log1p(-alpha)  # log(1 - alpha), -inf at alpha = 1
    if normalization == "mean":
        return np.broadcast_to(log_damp, np.broadcast_shapes(z.shape, alpha.shape, np.shape(beta))) + 0.0
    big = log_abs_logit_map_slope(z, beta, eps)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        up = np.logaddexp(log_damp, big)  # z >= 0: (1 - alpha) + |s'|/beta
        hi, lo = np.maximum(log_damp, big), np.minimum(log_damp, big)
        down = hi + np.log1p(-np.exp(lo - hi))  # z < 0: |(1 - alpha) - |s'|/beta|
        down = np.where(np.isneginf(lo), hi, down)
    return np.where(z < 0, down, up)


def effective_beta(z: object, beta: object, eps: object) -> np.ndarray:
    """beta_eff = beta sqrt(p(1-p) + eps) at p = sigmoid(z): variance normalisation is mean-only with this beta.

    s(z)/beta = 1/beta_eff(z) (:func:`logit_increment`). No validation.
    """
    return np.asarray(beta, dtype=float) * np.sqrt(bernoulli_variance_of_logit(np.asarray(z, dtype=float)) + eps)


def iterate_logit(
    p_ref: object, beta: object, eps: object, *, n: int, normalization: str = "mean_var", alpha: object = 1.0
) -> np.ndarray:
    """Logits z_0..z_n of a variant's success recursion from z_0 = logit p_ref; shape (n+1, *broadcast shape).

    Validated as :func:`grpo_nb.dynamics.map.iterate_logit` (p_ref in (0, 1), beta > 0, eps >= 0, n >= 0), plus
    ``normalization`` in ("mean_var", "mean") and 0 <= ``alpha`` <= 1; alpha broadcasts with the other three.
    """
    p_ref, beta, eps = check_map_params(p_ref, beta, eps)
    normalization, alpha = check_normalization(normalization), check_alpha(alpha)
    n = check_positive_int("n", n, minimum=0)
    a = logit(p_ref)
    try:
        a, beta, eps, alpha = np.broadcast_arrays(a, beta, eps, alpha)
    except ValueError as err:
        raise ValueError(
            f"p_ref, beta, eps, alpha have shapes {np.shape(p_ref)}, {np.shape(beta)}, {np.shape(eps)}, "
            f"{np.shape(alpha)} that do not broadcast; valid shapes are numpy-broadcastable"
        ) from err
    z = np.empty((n + 1, *a.shape))
    z[0] = a
    for k in range(n):
        z[k + 1] = variant_logit_map(z[k], a, beta, eps, normalization=normalization, alpha=alpha)
    return z


def iterate(
    p_ref: object, beta: object, eps: object, n: int, *, normalization: str = "mean_var", alpha: object = 1.0
) -> np.ndarray:
    """The orbit p_0..p_n of a variant (p_0 = p_ref), computed in logit space; shape (n+1, *broadcast shape).

    With the defaults (``"mean_var"``, alpha = 1) it equals :func:`grpo_nb.dynamics.map.iterate` exactly.
    """
    return expit(iterate_logit(p_ref, beta, eps, n=n, normalization=normalization, alpha=alpha))
