"""Every fixed point of Theorem 2's map h, with its slope h'(p*) and stability (paper §3-§4).

The search runs in logit coordinates z = logit p, where the map is (Thm 2)

    g(z) = a + 1 / (beta * sqrt(v(z) + eps)),   a = logit p_ref,   v(z) = sigmoid(z) sigmoid(-z) = 1/(4 cosh^2(z/2)),

and fixed points are the roots of F(z) = g(z) - z. The shape of g splits the line into monotone brackets:

* g is even with its minimum at z = 0, so F is strictly decreasing on z <= 0: one root there iff g(0) < 0,
  and it lies in [g(0), 0].
* On z > 0, g'(z) = v tanh(z/2) / (2 beta (v + eps)^{3/2}). With t = tanh(z/2), w = 1 - t^2 and c = 4 eps the
  sign of d/d(t^2) log g' is that of w (1 + 3c) - 2c, so for eps > 0 g' rises to a single maximum at
  w* = 2c / (1 + 3c) and falls to 0 afterwards; F' = g' - 1 therefore vanishes at most twice on z > 0, F is
  monotone between those points, and every root is below a + 1/(beta sqrt(eps)). With eps = 0, g' = sinh(z/2)/beta
  is increasing (F is convex on z > 0) and F' vanishes once, at z = 2 asinh(beta).

Hence h has one or three fixed points for eps > 0 (two at a tangency), and zero or two for eps = 0 (where 0 and 1
are excluded, Remark 1). Each monotone piece is solved with ``scipy.optimize.elementwise.find_root`` (Chandrupatla),
vectorised over a grid of (p_ref, beta, eps). Slopes use the conjugacy h'(p*) = g'(z*) (Lemma 1 in logit form), so
a fixed point at 1 - 1e-300, where float64 rounds p* to 1.0, still gets its logit and its slope.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize.elementwise import find_root
from scipy.special import expit, logit

from grpo_nb.dynamics.map import log_abs_logit_map_slope, logit_map, logit_map_cap, logit_map_slope
from grpo_nb.dynamics.recursions import FixedPointGrid, LogitRecursion
from grpo_nb.validation import check_map_params

__all__ = [
    "THEOREM2",
    "FixedPoint",
    "FixedPointGrid",
    "fixed_points",
    "fixed_points_grid",
    "monotone_brackets",
    "Theorem2Recursion",
]


@dataclass(frozen=True)
class FixedPoint:
    """A fixed point p* = h(p*): its probability, its logit (exact where p* rounds to 1.0), h'(p*) and |h'| < 1."""

    p: float
    logit: float
    slope: float
    stable: bool


def _residual(z: np.ndarray, a: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> np.ndarray:
    return logit_map(z, a, beta, eps) - z


def _slope_minus_one(z: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> np.ndarray:
    return logit_map_slope(z, beta, eps) - 1.0


def _solve(func, lo: np.ndarray, hi: np.ndarray, args: tuple[np.ndarray, ...], active: np.ndarray) -> np.ndarray:
    """Root of a monotone ``func`` on [lo, hi] where ``active`` (a sign change or a zero at an end); NaN elsewhere."""
    out = np.full(lo.shape, np.nan)
    if not active.any():
        return out
    idx = np.nonzero(active)
    sub_args = tuple(x[idx] for x in args)
    lo_a, hi_a = lo[idx], hi[idx]
    f_lo, f_hi = func(lo_a, *sub_args), func(hi_a, *sub_args)
    root = np.where(f_lo == 0, lo_a, np.where(f_hi == 0, hi_a, np.nan))
    strict = (f_lo != 0) & (f_hi != 0)
    if strict.any():
        res = find_root(func, (lo_a[strict], hi_a[strict]), args=tuple(x[strict] for x in sub_args))
        root[strict] = res.x
    out[idx] = root
    return out


def _eps_zero_upper(a: np.ndarray, beta: np.ndarray, z_crit: np.ndarray) -> np.ndarray:
    """For eps = 0: a point above z_crit where F > 0 (F convex, -> +inf); found by doubling."""
    eps0 = np.zeros_like(a)
    hi = np.maximum(2.0 * z_crit, 1.0)
    for _ in range(64):
        low = _residual(hi, a, beta, eps0) <= 0
        if not low.any():
            break
        hi = np.where(low, 2.0 * hi, hi)
    return hi


def monotone_brackets(a: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """Breakpoints b0 = 0 <= b1 <= b2 <= b3 of z > 0 between which F(z) = g(z) - z is monotone.

    Shape (4, *broadcast). For eps > 0 with max g' > 1 these are 0, the two roots of g' = 1 and an upper bound
    a + 1/(beta sqrt eps) (plus a margin) on every root; otherwise empty pieces have b_i = b_{i+1}. Inputs validated.
    """
    a, beta, eps = (np.asarray(x, dtype=float) for x in np.broadcast_arrays(a, beta, eps))
    smooth = eps > 0
    safe_eps = np.where(smooth, eps, 1.0)
    # eps > 0: g' is unimodal on z > 0 with its maximum at w* = 2c/(1+3c), c = 4 eps (z_c without cancellation).
    c = 4.0 * safe_eps
    w_star = 2.0 * c / (1.0 + 3.0 * c)
    t_star = np.sqrt(1.0 - w_star)
    z_peak = 2.0 * np.log1p(t_star) - np.log(w_star)
    peak_above_one = smooth & (logit_map_slope(z_peak, beta, safe_eps) > 1.0)
    cap = logit_map_cap(a, beta, safe_eps)  # every root lies below the cap; margin survives rounding at 1e150
    z_top = cap + 1.0 + 1e-12 * np.abs(cap)
    # beyond z_tail, g' <= exp(-z) / (2 beta eps^1.5) < 1
    z_tail = np.maximum(z_peak, -np.log(2.0 * beta) - 1.5 * np.log(safe_eps)) + 1.0
    args = (beta, safe_eps)
    zeros = np.zeros_like(a)
    z1 = _solve(_slope_minus_one, zeros, z_peak, args, peak_above_one)
    z2 = _solve(_slope_minus_one, z_peak, z_tail, args, peak_above_one)
    b_top = np.maximum(z_top, np.where(peak_above_one, z2, 0.0))
    b1 = np.where(peak_above_one, z1, b_top)
    b2 = np.where(peak_above_one, z2, b_top)
    # eps = 0: g' = sinh(z/2)/beta, F is convex on z > 0 with its minimum at 2 asinh(beta).
    z_crit0 = 2.0 * np.arcsinh(beta)
    if (~smooth).any():
        hi0 = np.where(~smooth, _eps_zero_upper(a, beta, np.where(~smooth, z_crit0, 1.0)), 0.0)
    else:
        hi0 = zeros
    b1 = np.where(smooth, b1, z_crit0)
    b2 = np.where(smooth, b2, hi0)
    b3 = np.where(smooth, b_top, hi0)
    return np.stack([zeros, b1, b2, b3])


def fixed_points_grid(
    p_ref: object, beta: object, eps: object, *, variant: LogitRecursion | None = None
) -> FixedPointGrid:
    """All fixed points of h_{eps, p_ref} (Thm 2) over broadcast arrays of (p_ref, beta, eps), vectorised.

    Returns logits sorted ascending in the last axis (length 3, NaN-padded), the slopes h'(p*) (Lemma 1, computed
    in logit space) and the number of fixed points. Logits are accurate to ~1e-15 relative (Chandrupatla on
    monotone brackets), including fixed points at logit 1e3..1e9 where p* = 1.0 in float64.
    ``variant``: another recursion (:class:`~grpo_nb.dynamics.recursions.LogitRecursion`, e.g. a GRPO variant of
    :mod:`grpo_nb.variants`), whose own ``fixed_points_grid`` then answers; None is Theorem 2's map.
    """
    p_ref, beta, eps = check_map_params(p_ref, beta, eps, broadcast=True)
    if variant is not None:
        return variant.fixed_points_grid(p_ref, beta, eps)
    a = logit(p_ref)
    shape = a.shape
    a, beta, eps = a.ravel(), beta.ravel(), eps.ravel()
    args = (a, beta, eps)
    roots = np.full((4, a.size), np.nan)
    # z <= 0: F strictly decreasing, root in [g(0), 0] iff g(0) < 0.
    g0 = logit_map(np.zeros_like(a), a, beta, eps)
    roots[0] = _solve(_residual, np.minimum(g0, 0.0), np.zeros_like(a), args, g0 < 0)
    # z > 0: three monotone pieces.
    b = monotone_brackets(a, beta, eps)
    f_b = np.stack([_residual(bi, a, beta, eps) for bi in b])
    for i in range(3):
        lo, hi, f_lo, f_hi = b[i], b[i + 1], f_b[i], f_b[i + 1]
        change = (np.sign(f_lo) * np.sign(f_hi) < 0) | (f_hi == 0)
        if i == 0:
            change |= f_lo == 0
        roots[i + 1] = _solve(_residual, lo, hi, args, (hi > lo) & change)
    roots = np.sort(roots, axis=0)  # NaN sorts last
    counts = np.sum(~np.isnan(roots), axis=0)
    if (counts > 3).any():  # cannot happen by the bracket argument; guard against a numerical double count
        raise RuntimeError("found more than three fixed points; please report the parameters")
    logits = roots[:3].T
    slopes = np.where(np.isnan(logits), np.nan, logit_map_slope(np.nan_to_num(logits), beta[:, None], eps[:, None]))
    return FixedPointGrid(logits.reshape(*shape, 3), slopes.reshape(*shape, 3), counts.reshape(shape))


def fixed_points(p_ref: float, beta: float, eps: float, *, variant: LogitRecursion | None = None) -> list[FixedPoint]:
    """Every fixed point of h_{eps, p_ref} (Thm 2, Prop 1), sorted by logit, with slope h'(p*) and stability.

    Scalar arguments. For eps > 0 there are 1 or 3 (2 at a tangency); for eps = 0, 0 or 2 (p = 0, 1 excluded).
    ``variant``: the fixed points of another recursion instead (see :func:`fixed_points_grid`).
    """
    check_map_params(p_ref, beta, eps, scalar=True)
    grid = fixed_points_grid(p_ref, beta, eps, variant=variant)
    out = []
    for z, s in zip(grid.logits, grid.slopes, strict=True):
        if not np.isnan(z):
            out.append(FixedPoint(p=float(expit(z)), logit=float(z), slope=float(s), stable=bool(abs(s) < 1.0)))
    return out


class Theorem2Recursion:
    """Theorem 2's map g(z) = a + 1/(beta sqrt(v(z) + eps)) (dynamics.map), as a
    :class:`~grpo_nb.dynamics.recursions.LogitRecursion` whose fixed points :func:`fixed_points_grid` finds."""

    uses_eps = True

    def __call__(self, z: np.ndarray, a: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> np.ndarray:
        return logit_map(z, a, beta, eps)

    def log_abs_slope(self, z: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> np.ndarray:
        return log_abs_logit_map_slope(z, beta, eps)

    def fixed_points_grid(self, p_ref: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> FixedPointGrid:
        return fixed_points_grid(p_ref, beta, eps)

    def __repr__(self) -> str:
        return "THEOREM2"


#: Theorem 2's recursion, the default of every dynamics function that takes a ``variant``.
THEOREM2 = Theorem2Recursion()
