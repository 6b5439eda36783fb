"""The clipped per-sample term of PPO and GRPO (paper §2, GRPO-Clip; §2.1's two cases).

    f_eps(x, A) = min(x A, clip(x, 1 - eps, 1 + eps) A),   x = pi_theta(o|q) / pi_old(o|q) > 0.

§2.1 splits it by the sign of the advantage:  A > 0 gives A min(x, 1 + eps) (no credit for raising a
success beyond 1 + eps), A < 0 gives A max(x, 1 - eps) (no credit for pushing a failure below 1 - eps).
Here ``clip_eps`` is the clip range epsilon of PPO, not the variance smoothing of Eq. (4);
``clip_eps = inf`` is the unclipped objective x A (GRPO-No-Clip).
"""

from __future__ import annotations

import numpy as np

__all__ = ["check_clip_eps", "clipped_term", "clipped_term_by_sign", "clipped_term_slope"]


def check_clip_eps(clip_eps: object) -> np.ndarray:
    """clip_eps in [0, inf] (inf means no clipping); ValueError naming clip_eps otherwise."""
    try:
        arr = np.asarray(clip_eps, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"clip_eps={clip_eps!r} is not a real number; valid range is 0 <= clip_eps <= inf") from err
    bad = np.isnan(arr) | (arr < 0)
    if bad.any():
        value = float(arr[bad].flat[0]) if arr.ndim else float(arr)
        raise ValueError(f"clip_eps={value!r} is out of range; valid range is 0 <= clip_eps <= inf")
    return arr


def _check_ratio_advantage(ratio: object, advantage: object) -> tuple[np.ndarray, np.ndarray]:
    for name, value in (("ratio", ratio), ("advantage", advantage)):
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{name}={value!r} is not a real number or array") from err
        if name == "ratio":
            bad = ~(np.isfinite(arr) & (arr >= 0))
            rng = "0 <= ratio < inf"
        else:
            bad = ~np.isfinite(arr)
            rng = "-inf < advantage < inf"
        if bad.any():
            first = float(arr[bad].flat[0]) if arr.ndim else float(arr)
            raise ValueError(f"{name}={first!r} is out of range; valid range is {rng}")
    x, a = np.asarray(ratio, dtype=float), np.asarray(advantage, dtype=float)
    try:
        np.broadcast_shapes(x.shape, a.shape)
    except ValueError as err:
        raise ValueError(f"ratio shape {x.shape} and advantage shape {a.shape} do not broadcast") from err
    return x, a


def _out(x: np.ndarray) -> np.ndarray | float:
    return float(x) if np.ndim(x) == 0 else x


def clipped_term(ratio: object, advantage: object, clip_eps: object) -> np.ndarray | float:
    """f_eps(x, A) = min(x A, clip(x, 1 - eps, 1 + eps) A) (GRPO-Clip). Numpy-vectorised."""
    x, a = _check_ratio_advantage(ratio, advantage)
    e = check_clip_eps(clip_eps)
    with np.errstate(invalid="ignore"):
        clipped = np.clip(x, 1.0 - e, 1.0 + e)
    return _out(np.minimum(x * a, clipped * a))


def clipped_term_by_sign(ratio: object, advantage: object, clip_eps: object) -> np.ndarray | float:
    """§2.1's case form: A min(x, 1 + eps) for A >= 0 and A max(x, 1 - eps) for A < 0."""
    x, a = _check_ratio_advantage(ratio, advantage)
    e = check_clip_eps(clip_eps)
    return _out(np.where(a >= 0, a * np.minimum(x, 1.0 + e), a * np.maximum(x, 1.0 - e)))


def clipped_term_slope(ratio: object, advantage: object, clip_eps: object) -> np.ndarray | float:
    """d f_eps / d x: A where the unclipped branch is active, 0 where the clip holds the term constant.

    At the kinks x = 1 +- eps the one-sided slope towards the inside (A) is returned.
    """
    x, a = _check_ratio_advantage(ratio, advantage)
    e = check_clip_eps(clip_eps)
    frozen = ((a > 0) & (x > 1.0 + e)) | ((a < 0) & (x < 1.0 - e))
    return _out(np.where(frozen, 0.0, a * np.ones_like(x)))
