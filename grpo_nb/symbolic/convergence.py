"""§4 of Mroueh (2025), the convergence half: Theorems 4 and 6 checked numerically, local contraction around a
stable fixed point.

Theorem 6 (local Banach): if |h'(p*)| < 1 there is an interval I = [p* - r, p* + r] on which |h'| <= k < 1, h
maps I into itself and the iteration contracts to p*. Theorem 4 applies it to Eq. (8): the orbit from p_0 = p_ref
converges to p* when p_ref lies in I.

:func:`local_contraction` finds such an interval for given (p_ref, beta, eps), with k = (1 + |h'(p*)|)/2, and checks
on a grid: sup_I |h'| <= k, |h(x) - p*| <= k |x - p*| for x in I, and orbits started in I satisfy
|x_{n+1} - p*| <= k |x_n - p*| step by step. It also reports whether (and when) the orbit from p_ref enters I.
Fixed points are those of :func:`grpo_nb.dynamics.fixed_points.fixed_points`; only fixed points at least 1e-9 away
from 0 and 1 are examined (closer ones have no representable neighbourhood in p).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import sympy as sp

from grpo_nb.dynamics.fixed_points import fixed_points
from grpo_nb.dynamics.map import h, h_prime, iterate
from grpo_nb.symbolic.identity import Identity
from grpo_nb.validation import check_beta, check_eps, check_p_ref, check_positive_int

__all__ = [
    "ContractionInterval",
    "local_contraction",
    "theorem4_local_convergence",
    "theorem6_local_contraction",
]

_EDGE = 1e-9


@dataclass(frozen=True)
class ContractionInterval:
    """A stable fixed point p*, its slope, the constant k and the interval [lo, hi] where |h'| <= k."""

    p_star: float
    slope: float
    k: float
    lo: float
    hi: float
    sup_slope: float
    max_step_ratio: float
    orbit_enters_at: int | None

    @property
    def radius(self) -> float:
        return min(self.p_star - self.lo, self.hi - self.p_star)


def _sup_abs_slope(p_star: float, r: float, p_ref: float, beta: float, eps: float, n_grid: int) -> float:
    x = np.linspace(max(p_star - r, 0.0 if eps > 0 else _EDGE), min(p_star + r, 1.0 if eps > 0 else 1 - _EDGE), n_grid)
    return float(np.max(np.abs(h_prime(x, p_ref, beta, eps))))


def local_contraction(p_ref: float, beta: float, eps: float, *, n: int = 60) -> list[ContractionInterval]:
    """One :class:`ContractionInterval` per stable fixed point (|h'(p*)| < 1) at least 1e-9 from 0 and 1."""
    p_ref_f, beta_f, eps_f = float(check_p_ref(p_ref)), float(check_beta(beta)), float(check_eps(eps))
    n = check_positive_int("n", n)
    out = []
    orbit = iterate(p_ref_f, beta_f, eps_f, 400)
    for fp in fixed_points(p_ref_f, beta_f, eps_f):
        if not fp.stable or fp.p < _EDGE or 1 - fp.p < _EDGE:
            continue
        k = 0.5 * (1.0 + abs(fp.slope))
        room = min(fp.p, 1.0 - fp.p)
        radii = room * np.logspace(0, -9, 91)
        r = next((float(x) for x in radii if _sup_abs_slope(fp.p, x, p_ref_f, beta_f, eps_f, 801) <= k), None)
        if r is None:
            continue
        lo, hi = fp.p - r, fp.p + r
        sup_slope = _sup_abs_slope(fp.p, r, p_ref_f, beta_f, eps_f, 4001)
        starts = np.linspace(lo, hi, 41)
        x = starts.copy()
        ratios = []
        for _ in range(n):
            nxt = np.asarray(h(x, p_ref_f, beta_f, eps_f))
            dist, nxt_dist = np.abs(x - fp.p), np.abs(nxt - fp.p)
            mask = dist > 1e-13  # below this the step ratio is rounding noise
            if mask.any():
                ratios.append(float(np.max(nxt_dist[mask] / dist[mask])))
            x = nxt
        inside = np.nonzero((orbit >= lo) & (orbit <= hi))[0]
        out.append(
            ContractionInterval(
                p_star=fp.p,
                slope=fp.slope,
                k=k,
                lo=lo,
                hi=hi,
                sup_slope=sup_slope,
                max_step_ratio=max(ratios) if ratios else 0.0,
                orbit_enters_at=int(inside[0]) if inside.size else None,
            )
        )
    return out


def theorem6_local_contraction(
    p_ref: float, beta: float, eps: float, *, claimed_k: float | None = None
) -> list[Identity]:
    """Theorem 6 at each stable fixed point: sup_I |h'| <= k < 1 and every step from I shrinks |x - p*| by <= k.

    ``claimed_k`` replaces the constant k = (1 + |h'(p*)|)/2 in the checks (a value below |h'(p*)| claims a
    contraction the map does not have, and the check must fail).
    """
    out = []
    for c in local_contraction(p_ref, beta, eps):
        if claimed_k is not None:
            c = replace(c, k=float(claimed_k))
        out.append(
            Identity(
                name=f"Theorem 6 at p* = {c.p_star:.6f}: sup |h'| on I <= k < 1, steps contract by <= k",
                lhs=sp.Float(max(c.sup_slope, c.max_step_ratio)),
                rhs=sp.Float(c.k),
                holds=bool(c.k < 1 and c.sup_slope <= c.k and c.max_step_ratio <= c.k + 1e-9),
                relation="<=",
                notes=f"I = [{c.lo:.6g}, {c.hi:.6g}], h'(p*) = {c.slope:.4f}, k = (1 + |h'(p*)|)/2 = {c.k:.4f}.",
                extra={"interval": c},
            )
        )
    return out


def theorem4_local_convergence(p_ref: float, beta: float, eps: float, *, n: int = 400, tol: float = 1e-9) -> Identity:
    """Theorem 4: if the orbit from p_ref (Eq. 8) is in or enters a contraction interval I of a stable p*,
    it converges to p* (|p_n - p*| <= tol after ``n`` steps). Fails when no stable fixed point's interval is
    reached, which happens (e.g. a cycle): the theorem is local."""
    p_ref_f, beta_f, eps_f = float(check_p_ref(p_ref)), float(check_beta(beta)), float(check_eps(eps))
    n = check_positive_int("n", n)
    orbit = iterate(p_ref_f, beta_f, eps_f, n)
    reached = [c for c in local_contraction(p_ref_f, beta_f, eps_f) if c.orbit_enters_at is not None]
    if not reached:
        return Identity(
            name="Theorem 4: the orbit from p_ref reaches no contraction interval",
            lhs=sp.Float(float(orbit[-1])),
            rhs=sp.nan,
            holds=False,
            relation="->",
        )
    c = min(reached, key=lambda item: item.orbit_enters_at)
    err = float(abs(orbit[-1] - c.p_star))
    return Identity(
        name=f"Theorem 4: orbit from p_ref = {p_ref_f:g} converges to p* = {c.p_star:.6f}",
        lhs=sp.Float(err),
        rhs=sp.Float(tol),
        holds=bool(err <= tol),
        relation="<=",
        notes=f"The orbit is in I from step {c.orbit_enters_at} (0: p_ref in I); lhs = |p_n - p*| after {n} steps.",
        extra={"interval": c, "enters_at": c.orbit_enters_at, "error": err},
    )
