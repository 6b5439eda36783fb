"""The contrastive weights of stabilised GRPO (Mroueh 2025, Eq. 4).

With a binary reward and success probability p of the old policy, the smoothed advantage
(r - p) / sqrt(p(1-p) + eps) takes two values:

    omega_plus(p, eps)  = (1 - p) / sqrt(p(1-p) + eps)    for r = 1 (a success is pulled up),
    omega_minus(p, eps) =       p / sqrt(p(1-p) + eps)    for r = 0 (a failure is pushed down).

Eq. (3) of the paper prints the smoothing *outside* the root, (1 - p)/(sqrt(p(1-p)) + eps); the
text before it and Eq. (4) put it inside. ``eps_inside_root=False`` evaluates the printed Eq. (3)
so that a chapter can show the difference; the default (inside) is the one the rest of the paper uses.

Mean-only normalisation (Dr. GRPO) centres the reward and does not scale it: A = r - p, that is 1 - p for a success
and -p for a failure (:func:`mean_only_advantage`); its two weights 1 - p and p sum to 1, where Eq. 4's sum to
1/sqrt(p(1-p) + eps).
"""

from __future__ import annotations

import numpy as np

from grpo_nb.validation import check_binary_reward, check_eps, check_p, scalar_or_array

__all__ = ["mean_only_advantage", "omega_minus", "omega_plus", "stabilised_advantage", "weight_scale"]


def _validated(p: object, eps: object) -> tuple[np.ndarray, np.ndarray]:
    eps_arr = check_eps(eps)
    p_arr = check_p(p, eps_arr)
    return p_arr, eps_arr


def weight_scale(p: object, eps: object, *, eps_inside_root: bool = True) -> np.ndarray | float:
    """1 / sqrt(p(1-p) + eps) (Eq. 4), or 1 / (sqrt(p(1-p)) + eps) with ``eps_inside_root=False`` (Eq. 3 as printed).

    This is also omega_plus + omega_minus. eps = 0 is allowed only for 0 < p < 1.
    """
    p, eps = _validated(p, eps)
    var = p * (1.0 - p)
    denom = np.sqrt(var + eps) if eps_inside_root else np.sqrt(var) + eps
    return scalar_or_array(1.0 / denom)


def omega_plus(p: object, eps: object, *, eps_inside_root: bool = True) -> np.ndarray | float:
    """omega^+_eps(p) = (1 - p) / sqrt(p(1-p) + eps), the weight of a success (Eq. 4). Numpy-vectorised.

    Valid for p in [0, 1] and eps >= 0, with eps = 0 only for 0 < p < 1 (ValueError otherwise).
    ``eps_inside_root=False`` gives Eq. (3) as printed, (1 - p) / (sqrt(p(1-p)) + eps).
    """
    p_arr, _ = _validated(p, eps)
    return scalar_or_array((1.0 - p_arr) * np.asarray(weight_scale(p, eps, eps_inside_root=eps_inside_root)))


def omega_minus(p: object, eps: object, *, eps_inside_root: bool = True) -> np.ndarray | float:
    """omega^-_eps(p) = p / sqrt(p(1-p) + eps), the weight of a failure (Eq. 4). Numpy-vectorised.

    Valid for p in [0, 1] and eps >= 0, with eps = 0 only for 0 < p < 1 (ValueError otherwise).
    ``eps_inside_root=False`` gives Eq. (3) as printed, p / (sqrt(p(1-p)) + eps).
    """
    p_arr, _ = _validated(p, eps)
    return scalar_or_array(p_arr * np.asarray(weight_scale(p, eps, eps_inside_root=eps_inside_root)))


def stabilised_advantage(reward: object, p: object, eps: object) -> np.ndarray | float:
    """The stabilised advantage of a binary reward (Eqs. 3-4): A = (r - p)/sqrt(p(1-p) + eps).

    For r in {0, 1} it takes the two values omega^+_eps(p) (r = 1) and -omega^-_eps(p) (r = 0), which is how it is
    computed here. ``reward`` and ``p`` broadcast (a group's rewards (..., G) with its p of shape (..., 1)).
    """
    r = check_binary_reward("reward", reward)
    p_arr, eps_arr = _validated(p, eps)
    adv = np.where(r == 1.0, omega_plus(p_arr, eps_arr), -np.asarray(omega_minus(p_arr, eps_arr)))
    return scalar_or_array(adv + 0.0)  # + 0.0 turns -omega^-(0) = -0.0 into 0.0: no advantage reads as "-0"


def mean_only_advantage(reward: object, p: object) -> np.ndarray | float:
    """The mean-only advantage of a binary reward (Dr. GRPO): A = r - p, i.e. 1 - p (r = 1) and -p (r = 0).

    Valid for p in [0, 1] (no variance, so no smoothing and no exclusion of p = 0, 1). ``reward`` and ``p`` broadcast.
    """
    r = check_binary_reward("reward", reward)
    p_arr = check_p(p, np.float64(1.0))  # any eps > 0: mean-only centring is defined at p = 0 and 1 too
    return scalar_or_array(r - p_arr + 0.0)
