"""The clipped per-sample term of PPO and GRPO (paper §2, GRPO-Clip; §2.1's two cases).

    f_eps(x, A) = min(x A, clip(x, 1 - eps, 1 + eps) A),   x = pi_theta(o|q) / pi_old(o|q) > 0.

§2.1 splits it by the sign of the advantage:  A > 0 gives A min(x, 1 + eps) (no credit for raising a
success beyond 1 + eps), A < 0 gives A max(x, 1 - eps) (no credit for pushing a failure below 1 - eps).
Here ``clip_eps`` is the clip range epsilon of PPO, not the variance smoothing of Eq. (4);
``clip_eps = inf`` is the unclipped objective x A (GRPO-No-Clip).
"""

from __future__ import annotations

import numpy as np

from grpo_nb.validation import check_clip_eps, check_ratio_advantage, scalar_or_array

__all__ = ["clipped_term", "clipped_term_by_sign", "clipped_term_slope"]


def clipped_term(ratio: object, advantage: object, clip_eps: object) -> np.ndarray | float:
    """f_eps(x, A) = min(x A, clip(x, 1 - eps, 1 + eps) A) (GRPO-Clip). Numpy-vectorised."""
    x, a = check_ratio_advantage(ratio, advantage)
    e = check_clip_eps(clip_eps)
    with np.errstate(invalid="ignore"):
        clipped = np.clip(x, 1.0 - e, 1.0 + e)
    return scalar_or_array(np.minimum(x * a, clipped * a))


def clipped_term_by_sign(ratio: object, advantage: object, clip_eps: object) -> np.ndarray | float:
    """§2.1's case form: A min(x, 1 + eps) for A >= 0 and A max(x, 1 - eps) for A < 0."""
    x, a = check_ratio_advantage(ratio, advantage)
    e = check_clip_eps(clip_eps)
    return scalar_or_array(np.where(a >= 0, a * np.minimum(x, 1.0 + e), a * np.maximum(x, 1.0 - e)))


def clipped_term_slope(ratio: object, advantage: object, clip_eps: object) -> np.ndarray | float:
    """d f_eps / d x: A where the unclipped branch is active, 0 where the clip holds the term constant.

    At the kinks x = 1 +- eps the one-sided slope towards the inside (A) is returned.
    """
    x, a = check_ratio_advantage(ratio, advantage)
    e = check_clip_eps(clip_eps)
    frozen = ((a > 0) & (x > 1.0 + e)) | ((a < 0) & (x < 1.0 - e))
    return scalar_or_array(np.where(frozen, 0.0, a * np.ones_like(x)))
