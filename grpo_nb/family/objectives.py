"""What each normalisation of a 0/1 reward climbs, and the success recursion it gives (the chapter "The GRPO family").

With exact expectations over the answers of one prompt, an advantage that gives a success the weight w+(p) and a
failure -w-(p) has the expected policy gradient E[A grad log pi] = (w+ + w-) grad p = s(p) grad p, so the update
climbs the F with F' = s:

- ``"std"`` (GRPO, Eq. 4): s = 1/sqrt(p(1-p) + eps) (:func:`grpo_nb.weights.weight_scale`), F = arcsin((2p - 1)/
  sqrt(1 + 4 eps)), which is 2 arcsin(sqrt p) - pi/2 at eps = 0;
- ``"mean"`` (Dr. GRPO; RLOO with the factor G/(G-1)): s = 1, F = p;
- ``"log"`` (fine-tuning on the successes only, rejection sampling): w+ = 1/p, w- = 0, s = 1/p, F = log p.

In the exact KL-regularised step of Theorem 1 only the gap s enters: from pi_0 = pi_ref, z_n = logit p_n obeys
z_n = a + s(p_{n-1})/beta (a = logit p_ref). For "std" and "mean" that is :mod:`grpo_nb.variants` (``Variant()``,
``Variant("mean")``); :class:`SuccessOnlyRecursion` is the "log" one, z_n = a + (1 + e^{-z_{n-1}})/beta.

:func:`forward_kl_success` is the same step with the KL in the other direction, beta KL(pi_ref || pi), which is what
Schulman's k3 in the loss climbs (:func:`grpo_nb.kl.expected_estimator_gradient`): pi(o) = beta pi_ref(o)/(lambda -
A(o)), lambda the root that normalises it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from grpo_nb.dynamics.recursions import FixedPointGrid
from grpo_nb.validation import check_choice, check_eps, check_map_params, check_p
from grpo_nb.weights import omega_minus, omega_plus, weight_scale

__all__ = [
    "NORMALISATIONS",
    "SuccessOnlyRecursion",
    "climbed",
    "forward_kl_success",
    "gap",
    "success_weights",
]

NORMALISATIONS: tuple[str, ...] = ("std", "mean", "log")

#: The kernels of this module: public, vectorised and fast, they do not validate their input (their callers do).
KERNELS = ()


def success_weights(p: object, normalisation: str, eps: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(w+(p), w-(p)): the weight of a success and (minus) that of a failure, with exact expectations.

    "std": Eq. 4's (omega+, omega-) (:mod:`grpo_nb.weights`); "mean": (1 - p, p); "log": (1/p, 0). p in [0, 1] (for
    "log", 0 < p <= 1; for "std" with eps = 0, 0 < p < 1).
    """
    check_choice("normalisation", normalisation, NORMALISATIONS)
    eps_arr = check_eps(eps)
    if normalisation == "std":
        return np.asarray(omega_plus(p, eps_arr)), np.asarray(omega_minus(p, eps_arr))
    p_arr = check_p(p, np.float64(1.0))
    if normalisation == "mean":
        return 1.0 - p_arr, p_arr
    if (p_arr == 0).any():
        raise ValueError("p contains 0; valid range is 0 < p <= 1 for normalisation='log' (weight 1/p)")
    return 1.0 / p_arr, np.zeros_like(p_arr)


def gap(p: object, normalisation: str, eps: float = 0.0) -> np.ndarray:
    """s(p) = w+(p) + w-(p), the slope of what the update climbs: 1/sqrt(p(1-p)+eps), 1 or 1/p."""
    if normalisation == "std":
        return np.asarray(weight_scale(p, eps))
    w_plus, w_minus = success_weights(p, normalisation, eps)
    return w_plus + w_minus


def climbed(p: object, normalisation: str, eps: float = 0.0) -> np.ndarray:
    """F(p) with F' = :func:`gap`: arcsin((2p - 1)/sqrt(1 + 4 eps)) ("std"), p ("mean"), log p ("log")."""
    check_choice("normalisation", normalisation, NORMALISATIONS)
    eps_arr = check_eps(eps)
    p_arr = check_p(p, np.float64(1.0))
    if normalisation == "std":
        return np.arcsin((2 * p_arr - 1) / np.sqrt(1 + 4 * eps_arr))
    if normalisation == "mean":
        return p_arr
    with np.errstate(divide="ignore"):
        return np.log(p_arr)


def _success_only_map(z: np.ndarray, a: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """a + (1 + e^{-z})/beta = a + 1/(beta p): the "log" normalisation's recursion in logit form."""
    return a + (1.0 + np.exp(np.minimum(-z, 700.0))) / beta


@dataclass(frozen=True)
class SuccessOnlyRecursion:
    """z_n = a + 1/(beta p_{n-1}): the exact KL-regularised step with the gap s = 1/p of fine-tuning on successes.

    A :class:`grpo_nb.dynamics.recursions.LogitRecursion` (eps does not enter), so :func:`grpo_nb.dynamics.regime_map`
    studies it through ``variant=``. Its slope is -e^{-z}/beta < 0: the map decreases, so it has exactly one fixed
    point, z* = a + (1 + e^{-z*})/beta, which is stable when e^{-z*} < beta.
    """

    uses_eps: bool = False
    label: str = "successes only (log p)"

    def __call__(self, z: np.ndarray, a: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> np.ndarray:
        return _success_only_map(np.asarray(z, dtype=float), np.asarray(a, dtype=float), np.asarray(beta, dtype=float))

    def slope(self, z: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> np.ndarray:
        """g'(z) = -e^{-z}/beta."""
        return -np.exp(np.minimum(-np.asarray(z, dtype=float), 700.0)) / np.asarray(beta, dtype=float)

    def log_abs_slope(self, z: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> np.ndarray:
        """log|g'(z)| = -z - log beta."""
        return -np.asarray(z, dtype=float) - np.log(np.asarray(beta, dtype=float))

    def fixed_points_grid(self, p_ref: object, beta: object, eps: object) -> FixedPointGrid:
        """The one fixed point by bisection on [a + 1/beta, g(a + 1/beta)], where g(z) - z changes sign."""
        p_ref, beta, eps = check_map_params(p_ref, beta, eps, broadcast=True)
        a = np.log(p_ref) - np.log1p(-p_ref)
        lo = a + 1.0 / beta
        hi = _success_only_map(lo, a, beta)
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            above = _success_only_map(mid, a, beta) > mid
            lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
        z = 0.5 * (lo + hi)
        logits = np.concatenate([z[..., None], np.full((*z.shape, 2), np.nan)], axis=-1)
        slopes = np.concatenate([self.slope(z, beta, eps)[..., None], np.full((*z.shape, 2), np.nan)], axis=-1)
        return FixedPointGrid(logits, slopes, np.ones(z.shape, dtype=int))


def forward_kl_success(p_prev: float, p_ref: float, beta: float, eps: float) -> float:
    """p_n after one exact step that maximises E_pi[A] - beta KL(pi_ref || pi) (the forward KL), from a policy that is
    pi_ref tilted by the reward (so the step depends on p only), with Eq. 4's advantage at p = ``p_prev``.

    Stationarity gives pi(o) = beta pi_ref(o)/(lambda - A(o)); summing over successes and failures,
    p_n = beta p_ref/(lambda - omega+) with lambda > omega+ the root of
    beta p_ref/(lambda - omega+) + beta (1 - p_ref)/(lambda + omega-) = 1.
    """
    p_ref_arr, beta_arr, eps_arr = check_map_params(p_ref, beta, eps)
    p_ref, beta = float(p_ref_arr), float(beta_arr)
    w_plus, w_minus = float(omega_plus(p_prev, eps_arr)), float(omega_minus(p_prev, eps_arr))

    def excess(lam: float) -> float:
        return beta * p_ref / (lam - w_plus) + beta * (1 - p_ref) / (lam + w_minus) - 1.0

    lam = brentq(excess, w_plus + beta * p_ref * 1e-9, w_plus + beta + 1.0, xtol=1e-14, rtol=1e-15)
    return beta * p_ref / (lam - w_plus)
