"""Where the orbit of Eq. (8) from p_0 = p_ref goes, over a (beta, p_ref) grid: the regime map of paper §4.

Each grid point gets a :class:`Regime` from its long-run orbit (computed by
:func:`grpo_nb.dynamics.orbits.classify_orbits`; this module detects no periods itself) and its fixed points
(:func:`grpo_nb.dynamics.fixed_points.fixed_points_grid`):

* ``Regime.INTERIOR`` (0): the orbit converges to a fixed point with p*(1-p*) >= eps, an interior one;
* ``Regime.NEAR_ONE`` (1): it converges to the fixed point next to 1, where p*(1-p*) < eps so the smoothing eps
  dominates the variance and the map is saturated at its cap logit p_ref + 1/(beta sqrt(eps)) (for eps = 0: the orbit
  runs to p = 1);
* ``Regime.CYCLE`` (2): it settles on a k-cycle (``period`` = k; -1 when the period detector could not resolve k);
* ``Regime.CHAOTIC`` (3): no finite limit set (positive Lyapunov exponent).

Two flags mark where Theorem 4 (a local statement) does not describe the orbit from p_ref:

* ``stable_elsewhere``: some fixed point has |h'(p*)| < 1 but the orbit from p_ref does not converge to it
  (it goes to another fixed point, a cycle or chaos);
* ``no_stable``: no fixed point has |h'(p*)| < 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np
from scipy.special import expit, logit

from grpo_nb.dynamics.fixed_points import THEOREM2, FixedPointGrid, fixed_points_grid
from grpo_nb.dynamics.map import bernoulli_variance_of_logit
from grpo_nb.dynamics.orbits import OrbitClass, OrbitSummary, classify_orbits
from grpo_nb.dynamics.recursions import LogitRecursion
from grpo_nb.validation import check_beta, check_eps, check_p_ref, check_positive_int

__all__ = ["Regime", "RegimeMap", "regime_grid", "regime_map"]


class Regime(IntEnum):
    """Where the orbit from p_ref goes; ``RegimeMap.regime`` holds these codes, ``.label`` names them for readers."""

    INTERIOR = 0
    NEAR_ONE = 1
    CYCLE = 2
    CHAOTIC = 3

    @property
    def label(self) -> str:
        """The reader-facing name used in tables and legends."""
        return _REGIME_LABELS[self]


_REGIME_LABELS = {
    Regime.INTERIOR: "interior fixed point",
    Regime.NEAR_ONE: "fixed point next to 1",
    Regime.CYCLE: "cycle",
    Regime.CHAOTIC: "chaotic",
}


@dataclass(frozen=True)
class RegimeMap:
    """Regimes over the broadcast grid of (p_ref, beta) at one eps (arrays of the broadcast shape).

    regime: :class:`Regime` codes; period: 1 for a fixed point, k for a k-cycle, 0 for chaos, -1 unresolved;
    limit_logit: the logit the orbit converges to (NaN for a cycle or chaos, +inf for an escape with eps = 0);
    matched_index: index (0..2) of the fixed point the orbit converges to in ``fixed_point_logits`` (-1 if none);
    fixed_point_logits / fixed_point_slopes: (..., 3), NaN-padded; n_fixed_points; stable_elsewhere; no_stable.
    """

    p_ref: np.ndarray
    beta: np.ndarray
    eps: float
    regime: np.ndarray
    period: np.ndarray
    limit_logit: np.ndarray
    matched_index: np.ndarray
    fixed_point_logits: np.ndarray
    fixed_point_slopes: np.ndarray
    n_fixed_points: np.ndarray
    stable_elsewhere: np.ndarray
    no_stable: np.ndarray

    def counts(self) -> dict[str, int]:
        """Number of grid points in each regime and with each flag."""
        out = {r.label: int(np.sum(self.regime == r)) for r in Regime}
        out["stable fixed point exists, orbit goes elsewhere"] = int(self.stable_elsewhere.sum())
        out["no stable fixed point"] = int(self.no_stable.sum())
        return out


def _matched_fixed_points(
    fps: FixedPointGrid, limit: np.ndarray, settled: np.ndarray, match_rtol: float, *, where: tuple
) -> np.ndarray:
    """Per grid point, the index of the fixed point nearest to the orbit's limit logit (distance relative to
    max(1, |limit|)) where the orbit ``settled`` on a finite fixed point, -1 elsewhere. RuntimeError when a settled
    orbit is further than ``match_rtol`` from every fixed point (a fixed point was missed); ``where`` = (p_ref, beta,
    eps) names the grid point in the message."""
    with np.errstate(invalid="ignore"):
        dist = np.abs(fps.logits - limit[..., None]) / np.maximum(1.0, np.abs(limit[..., None]))
    dist = np.where(np.isnan(dist), np.inf, dist)
    matched = np.argmin(dist, axis=-1)
    matched_ok = np.take_along_axis(dist, matched[..., None], axis=-1)[..., 0] <= match_rtol
    if (settled & ~matched_ok).any():
        bad = np.nonzero(settled & ~matched_ok)
        i = tuple(x[0] for x in bad)
        p_ref, beta, eps = where
        raise RuntimeError(
            f"orbit limit logit {limit[i]!r} matches no fixed point {fps.logits[i]!r} "
            f"(p_ref={p_ref[i]!r}, beta={beta[i]!r}, eps={eps!r})"
        )
    return np.where(settled, matched, -1)


def _regimes(orbit: OrbitSummary, limit: np.ndarray, escaped: np.ndarray, eps: float, *, uses_eps: bool) -> np.ndarray:
    """The :class:`Regime` code of each orbit: a converged one is NEAR_ONE where its limit has p(1-p) < eps (or it
    escaped to p = 1; never for a recursion that does not use eps) and INTERIOR otherwise; a cycle is CYCLE, the
    rest CHAOTIC."""
    converged = orbit.kind == OrbitClass.FIXED_POINT
    with np.errstate(invalid="ignore"):
        near_one = np.where(escaped, True, uses_eps & (bernoulli_variance_of_logit(limit) < eps))
    regime = np.full(limit.shape, Regime.CHAOTIC, dtype=int)
    regime[orbit.kind == OrbitClass.CYCLE] = Regime.CYCLE
    regime[converged] = np.where(near_one[converged], Regime.NEAR_ONE, Regime.INTERIOR)
    regime[orbit.kind == OrbitClass.CHAOTIC] = Regime.CHAOTIC
    return regime


def regime_map(
    p_ref: object,
    beta: object,
    eps: float,
    *,
    match_rtol: float = 1e-6,
    variant: LogitRecursion | None = None,
    **orbit_options,
) -> RegimeMap:
    """Label each (p_ref, beta) by where the orbit from p_ref goes (see module docstring). Vectorised.

    ``eps`` is a scalar; ``orbit_options`` go to :func:`grpo_nb.dynamics.orbits.classify_orbits` (transient,
    tolerances). A converged orbit is matched to the fixed point nearest to its limit logit, within
    ``match_rtol`` relative (a failed match raises RuntimeError: it would mean a fixed point was missed).
    ``variant``: the regimes of another recursion (a :class:`~grpo_nb.dynamics.recursions.LogitRecursion`, e.g. a GRPO
    variant of :mod:`grpo_nb.variants`), with its own fixed points and orbits; None is Theorem 2's map. A recursion in
    which eps does not enter (``uses_eps`` False) has no "next to 1" regime except the escape to p = 1.
    """
    p_ref, beta, eps_arr = check_p_ref(p_ref), check_beta(beta), check_eps(eps)
    if eps_arr.ndim:
        raise ValueError(f"eps={eps!r} must be a scalar; valid range is a single number 0 <= eps < inf")
    if not (isinstance(match_rtol, float) and 0 < match_rtol < 1):
        raise ValueError(f"match_rtol={match_rtol!r} is out of range; valid range is 0 < match_rtol < 1")
    eps = float(eps_arr)
    p_ref, beta = np.broadcast_arrays(p_ref, beta)
    fps = fixed_points_grid(p_ref, beta, eps, variant=variant)
    orbit = classify_orbits(p_ref, beta, eps, variant=variant, **orbit_options)
    uses_eps = (THEOREM2 if variant is None else variant).uses_eps

    converged = orbit.kind == OrbitClass.FIXED_POINT
    limit = np.where(converged, orbit.limit_logits[..., -1], np.nan)
    escaped = converged & np.isposinf(limit)
    matched = _matched_fixed_points(fps, limit, converged & ~escaped, match_rtol, where=(p_ref, beta, eps))
    regime = _regimes(orbit, limit, escaped, eps, uses_eps=uses_eps)
    stable = fps.stable
    any_stable = stable.any(axis=-1)
    idx = np.arange(3)
    stable_not_reached = stable & (idx != matched[..., None])
    return RegimeMap(
        p_ref=np.asarray(p_ref),
        beta=np.asarray(beta),
        eps=eps,
        regime=regime,
        period=np.asarray(orbit.period),
        limit_logit=limit,
        matched_index=matched,
        fixed_point_logits=fps.logits,
        fixed_point_slopes=fps.slopes,
        n_fixed_points=fps.counts,
        stable_elsewhere=stable_not_reached.any(axis=-1),
        no_stable=~any_stable,
    )


def regime_grid(n_beta: int, n_p: int) -> tuple[np.ndarray, np.ndarray]:
    """The (p_ref column, beta row) grid of the regime maps: beta in [1e-2, 10^1.5], p_ref in [1e-4, 0.999].

    ``n_beta`` values of beta evenly spaced in log10, ``n_p`` values of p_ref evenly spaced in logit; shapes
    (n_p, 1) and (1, n_beta), which :func:`regime_map` broadcasts.
    """
    n_beta, n_p = check_positive_int("n_beta", n_beta, minimum=2), check_positive_int("n_p", n_p, minimum=2)
    beta = np.logspace(-2, 1.5, n_beta)[None, :]
    p_ref = expit(np.linspace(logit(1e-4), logit(0.999), n_p))[:, None]
    return p_ref, beta
