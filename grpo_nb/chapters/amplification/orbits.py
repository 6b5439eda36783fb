"""Sections "The paper's Fig. 5: what the iterations do", 'The "divergent" case is a stable 2-cycle' and "A map of
the regimes" of the chapter "Amplification and convergence" (``book/amplification_convergence.md`` and
``book/amplification_regimes.md``, paper §4): where the orbits go.

* :func:`orbit_table` ("The paper's Fig. 5: what the iterations do"): where the orbit from p_ref goes for each
  (p_ref, beta).
* :func:`two_cycle_report` ('The "divergent" case is a stable 2-cycle'): the "divergent" case of Fig. 5 as a
  2-cycle, with its multiplier and fixed points.
* :func:`regime_count_table` ("A map of the regimes"): the regime maps' counts per regime.
* :func:`missed_stable_points` ("A map of the regimes"): the oscillating points that have a stable fixed point, and
  how far their orbits stay from it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import logit

from grpo_nb.dynamics.fixed_points import FixedPoint, fixed_points
from grpo_nb.dynamics.map import iterate_logit, logit_map, logit_map_slope
from grpo_nb.dynamics.orbits import OrbitKind, attractor, orbit_kind
from grpo_nb.dynamics.regimes import Regime, RegimeMap
from grpo_nb.report import Table

__all__ = [
    "MissedStablePoints",
    "OrbitTable",
    "TwoCycle",
    "missed_stable_points",
    "orbit_table",
    "regime_count_table",
    "two_cycle_report",
]


@dataclass(frozen=True)
class OrbitTable:
    """:func:`orbit_table`'s table, the orbit kind per case, and per case the verdict ``consistent``: a fixed-point
    verdict matches a fixed point of h, and a limit "stuck at 1" has a logit above 100."""

    table: Table
    kinds: tuple[OrbitKind, ...]
    consistent: list[bool]


def orbit_table(cases: Sequence[tuple[float, float]], eps: float, n: int = 400) -> OrbitTable:
    """For each (p_ref, beta) case: orbit kind, period, Lyapunov exponent, limit set, fixed points and how many are
    stable (section "The paper's Fig. 5: what the iterations do").

    The verdict per case (``consistent``): a fixed-point verdict matches a fixed point of h to 1e-9 in logit after
    ``n`` steps, and a limit "stuck at 1" (p within 1e-9 of 1) has a logit above 100.
    """
    rows, kinds, ok = [], [], []
    for p_ref, beta in cases:
        kind = orbit_kind(p_ref, beta, eps)
        kinds.append(kind)
        limit = attractor(p_ref, beta, eps)
        fps = fixed_points(p_ref, beta, eps)
        z_end = float(iterate_logit(p_ref, beta, eps, n=n)[-1])
        near_one = max(limit) >= 1 - 1e-9
        matched = (
            kind.kind != "fixed_point" or min(abs(fp.logit - z_end) / max(1.0, abs(fp.logit)) for fp in fps) < 1e-9
        )
        ok.append(bool(matched and (not near_one or z_end > 100)))
        where = f"logit {z_end:.5g}" if near_one else ", ".join(f"{x:.4g}" for x in limit)
        rows.append(
            [beta, p_ref, kind.kind, kind.period, f"{kind.lyapunov:.3g}", where, len(fps), sum(fp.stable for fp in fps)]
        )
    headers = ["β", r"$p_{\mathrm{ref}}$", "orbit", "period", "Lyapunov exp.", "limit", "fixed points", "stable"]
    return OrbitTable(Table(headers, rows), tuple(kinds), ok)


@dataclass(frozen=True)
class TwoCycle:
    """One orbit's attractor as a 2-cycle: the table of the quantities the chapter quotes, the orbit's kind, the cycle's
    points, how well g swaps them, its multiplier g'(z1) g'(z2), h's fixed points, the orbit's logits and the ratios
    by which its distance to the cycle shrinks every two steps."""

    table: Table
    kind: OrbitKind
    cycle: tuple[float, ...]
    swap_error: float
    multiplier: float
    fixed_points: list[FixedPoint]
    orbit_logits: np.ndarray
    shrink: np.ndarray


def two_cycle_report(p_ref: float, beta: float, eps: float, *, n: int = 2000) -> TwoCycle:
    """The 2-cycle that the orbit from p_ref settles on (section 'The "divergent" case is a stable 2-cycle'): its
    points (attractor), how well g swaps them (max |g(z1) - z2|, |g(z2) - z1|), its multiplier, h's fixed points, the
    orbit's logits over ``n`` steps, and the ratios by which the distance to the cycle shrinks every two steps (steps
    60..120)."""
    kind = orbit_kind(p_ref, beta, eps)
    cycle = attractor(p_ref, beta, eps)
    if len(cycle) != 2:
        raise ValueError(f"the orbit from p_ref={p_ref!r}, beta={beta!r}, eps={eps!r} is not a 2-cycle: {kind}")
    z1, z2 = logit(cycle[0]), logit(cycle[1])
    a = logit(p_ref)
    swap = max(abs(float(logit_map(z1, a, beta, eps)) - z2), abs(float(logit_map(z2, a, beta, eps)) - z1))
    multiplier = float(logit_map_slope(z1, beta, eps) * logit_map_slope(z2, beta, eps))
    z = iterate_logit(p_ref, beta, eps, n=n)
    dist = np.abs(z[0:200:2] - z[-1 - (len(z) - 1) % 2])
    fps = fixed_points(p_ref, beta, eps)
    rows = [
        ["cycle p values", f"{cycle[0]:.6f}, {cycle[1]:.6f}"],
        [r"cycle multiplier $g'(z_1)\,g'(z_2)$", f"{multiplier:.4f}"],
        [r"Lyapunov exponent ($\tfrac12 \log$ of the multiplier)", f"{kind.lyapunov:.4f}"],
        ["fixed points (logit)", ", ".join(f"{fp.logit:.4g}" for fp in fps)],
        [r"their slopes $h'(p^*)$", ", ".join(f"{fp.slope:.3g}" for fp in fps)],
        ["largest logit on the orbit", f"{z.max():.4f}"],
    ]
    table = Table(["quantity", "value"], rows)
    return TwoCycle(table, kind, cycle, swap, multiplier, fps, z, dist[31:61] / dist[30:60])


def regime_count_table(maps: Mapping[float, RegimeMap]) -> Table:
    """Per eps: grid points per regime, the two stability flags, and the cycle periods seen (section "A map of the
    regimes")."""
    rows = []
    for eps, rm in maps.items():
        c = rm.counts()
        periods = np.unique(rm.period[rm.regime == Regime.CYCLE])
        flags = [str(c["stable fixed point exists, orbit goes elsewhere"]), str(c["no stable fixed point"])]
        rows.append([eps, *(str(c[r.label]) for r in Regime), *flags, ", ".join(str(k) for k in periods)])
    headers = ["ε", *(r.label for r in Regime), "stable f.p. not reached", "no stable f.p.", "cycle periods seen"]
    return Table(headers, rows)


@dataclass(frozen=True)
class MissedStablePoints:
    """:func:`missed_stable_points` on one regime map: ``n_oscillating`` cycle or chaos points, ``with_stable`` of them
    with a fixed point of slope |h'| < 1 (read off the slopes, not off the map's flags); ``stable_is_top``: at each of
    those there are three fixed points and only the top one is stable; ``margin``: the smallest gap, in logit, between
    the middle fixed point and the highest point of their orbits over ``n`` steps (positive: no orbit climbs past it;
    NaN unless ``stable_is_top``); ``tail_gap``: the smallest distance, in logit, from the last 256 of those steps to a
    stable fixed point."""

    n_oscillating: int
    with_stable: int
    stable_is_top: bool
    margin: float
    tail_gap: float
    n: int


def missed_stable_points(rm: RegimeMap, *, n: int) -> MissedStablePoints:
    """Section "A map of the regimes": do the oscillating orbits that have a stable fixed point stay away from it?

    Reads the slopes of the map's fixed points and iterates each such orbit from p_ref for ``n`` steps
    (:func:`iterate_logit`). g increases on z > 0, so an orbit that climbs above the middle fixed point runs to the top
    one; one that never does never comes near it."""
    oscillating = (rm.regime == Regime.CYCLE) | (rm.regime == Regime.CHAOTIC)
    stable = np.abs(rm.fixed_point_slopes) < 1  # NaN padding compares False
    chosen = oscillating & stable.any(axis=-1)
    logits, stable = rm.fixed_point_logits[chosen], stable[chosen]
    stable_is_top = bool(np.all(rm.n_fixed_points[chosen] == 3) and np.all(stable == [False, False, True]))
    z = iterate_logit(rm.p_ref[chosen], rm.beta[chosen], rm.eps, n=n)
    margin = float(np.min(logits[:, 1] - z.max(axis=0), initial=np.inf)) if stable_is_top else float("nan")
    to_stable = np.abs(z[-256:, :, None] - np.where(stable, logits, np.inf)[None])
    return MissedStablePoints(
        int(oscillating.sum()), int(chosen.sum()), stable_is_top, margin, float(np.min(to_stable, initial=np.inf)), n
    )
