"""Where Eq. (8) is chaotic over a (beta, p_ref) grid, and a float64 test of chaos that does not use the exponent.

* :func:`lyapunov_map`: the orbit classification of :func:`grpo_nb.dynamics.orbits.classify_orbits` (period and
  Lyapunov exponent of the orbit from p_ref) over a (p_ref, beta) grid at one eps;
* :func:`chaos_region`: for each p_ref row, the beta range of its chaotic points, and the overall extent;
* :func:`twin_orbit_growth`: sensitivity to initial conditions measured directly. Two orbits that start on the
  attractor 1e-10 apart (relative to the logit scale) are iterated side by side; the function returns the largest
  gap they reach. A chaotic orbit pulls them apart to order one; an attracting cycle brings them together. The
  exponent that classified the orbit is not used, so this check can disagree with it.

Nothing is asserted here: each function reports, the chapter decides.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logit

from grpo_nb.dynamics.map import logit_map, logit_map_power
from grpo_nb.dynamics.orbits import OrbitClass, classify_orbits
from grpo_nb.validation import check_beta, check_map_params, check_p_ref, check_positive_int, check_scalar

__all__ = [
    "ChaosRegion",
    "ChaosSurvey",
    "LyapunovMap",
    "chaos_region",
    "chaos_survey",
    "lyapunov_map",
    "twin_orbit_growth",
]


@dataclass(frozen=True)
class LyapunovMap:
    """Orbit kind, period and Lyapunov exponent of the orbit from p_ref over a grid, shape (n_p_ref, n_beta)."""

    p_ref: np.ndarray
    beta: np.ndarray
    eps: float
    kind: np.ndarray
    period: np.ndarray
    lyapunov: np.ndarray


def lyapunov_map(
    p_ref: object, beta: object, eps: object, *, transient: int = 1500, n_lyapunov: int = 1024
) -> LyapunovMap:
    """Classify the orbit from every p_ref (1-D) at every beta (1-D), one eps (vectorised, one call)."""
    p_ref, beta = check_p_ref(p_ref).reshape(-1), check_beta(beta).reshape(-1)
    eps = check_scalar("eps", eps)
    s = classify_orbits(
        p_ref[:, None], beta[None, :], eps, transient=transient, n_keep=128, n_lyapunov=n_lyapunov, max_extensions=2
    )
    return LyapunovMap(p_ref, beta, eps, s.kind, s.period, s.lyapunov)


@dataclass(frozen=True)
class ChaosRegion:
    """The chaotic points of a :class:`LyapunovMap`.

    chaotic: boolean mask; p_max: largest p_ref with a chaotic point (NaN if none); p_next: smallest grid p_ref
    above it; beta_min / beta_max: extent in beta; rows_with_chaos: p_ref rows that have one; rows: per p_ref row
    with chaos, p_ref, the number of chaotic betas, their range, and the largest exponent.
    """

    chaotic: np.ndarray
    p_max: float
    p_next: float
    beta_min: float
    beta_max: float
    rows_with_chaos: np.ndarray
    rows: list[list]


def chaos_region(m: LyapunovMap) -> ChaosRegion:
    """Summarise where a Lyapunov map is chaotic (no period up to 64 and exponent > 1e-3)."""
    if not isinstance(m, LyapunovMap):
        raise ValueError(f"m={m!r} is not a LyapunovMap; valid input is lyapunov_map's output")
    chaotic = m.kind == OrbitClass.CHAOTIC
    has = chaotic.any(axis=1)
    rows = []
    for i in np.flatnonzero(has):
        b = m.beta[chaotic[i]]
        rows.append([m.p_ref[i], int(b.size), f"{b.min():.3g} - {b.max():.3g}", float(m.lyapunov[i][chaotic[i]].max())])
    if not has.any():
        return ChaosRegion(chaotic, np.nan, np.nan, np.nan, np.nan, has, rows)
    top = np.flatnonzero(has).max()
    p_next = m.p_ref[top + 1] if top + 1 < m.p_ref.size else np.nan
    b = m.beta[None, :] * np.ones_like(m.lyapunov)
    return ChaosRegion(chaotic, float(m.p_ref[top]), float(p_next), b[chaotic].min(), b[chaotic].max(), has, rows)


def twin_orbit_growth(
    p_ref: object, beta: object, eps: object, *, transient: int = 3000, n: int = 20000, gap: float = 1e-10
) -> np.ndarray:
    """Largest |z_k - z'_k| / max(1, |z_k|) over k <= n of two orbits started ``gap`` apart on the attractor.

    Both orbits start from z_T, the orbit from p_ref after ``transient`` steps (z'_T = z_T + gap max(1, |z_T|)).
    Broadcast over (p_ref, beta, eps); float64 throughout.
    """
    p_ref, beta, eps = check_map_params(p_ref, beta, eps, broadcast=True)
    transient, n = check_positive_int("transient", transient, minimum=0), check_positive_int("n", n)
    gap = check_scalar("gap", gap)
    if not 0 < gap < 1e-3:
        raise ValueError(f"gap={gap!r} is out of range; valid range is 0 < gap < 1e-3")
    a = logit(p_ref)
    z = logit_map_power(a, a, beta, eps, n=transient)
    w = z + gap * np.maximum(1.0, np.abs(z))
    worst = np.zeros(np.broadcast_shapes(z.shape, w.shape))
    for _ in range(n):
        z, w = logit_map(z, a, beta, eps), logit_map(w, a, beta, eps)
        worst = np.maximum(worst, np.abs(z - w) / np.maximum(1.0, np.abs(z)))
    return worst


@dataclass(frozen=True)
class ChaosSurvey:
    """A :class:`LyapunovMap`, its :class:`ChaosRegion`, and the twin-orbit test of its chaotic and cycle points.

    chaos_growth: :func:`twin_orbit_growth` at every chaotic point (from 1e-10); cycle_growth: the same over
    ``n_cycle`` steps at every cycle point; region: the chaotic points whose twin orbits reach ``confirm``.
    """

    map: LyapunovMap
    region: ChaosRegion
    chaos_growth: np.ndarray
    cycle_growth: np.ndarray
    unconfirmed: list[list]


def chaos_survey(
    p_ref: object, beta: object, eps: object, *, confirm: float = 1e-3, n_cycle: int = 2000
) -> ChaosSurvey:
    """:func:`lyapunov_map`, then :func:`twin_orbit_growth` at every chaotic and every cycle point; the region is
    that of the chaotic points the twin orbits confirm (growth from 1e-10 to at least ``confirm``).

    unconfirmed: p_ref, beta, exponent and growth of each chaotic point the twin orbits did not confirm."""
    m = lyapunov_map(p_ref, beta, eps)
    p, b = np.broadcast_arrays(m.p_ref[:, None], m.beta[None, :])
    chaotic, cycle = m.kind == OrbitClass.CHAOTIC, m.kind == OrbitClass.CYCLE
    grow = twin_orbit_growth(p[chaotic], b[chaotic], m.eps)
    shrink = twin_orbit_growth(p[cycle], b[cycle], m.eps, n=n_cycle)
    ok = chaotic.copy()
    ok[chaotic] = grow >= confirm
    confirmed = LyapunovMap(
        m.p_ref, m.beta, m.eps, np.where(chaotic & ~ok, OrbitClass.CYCLE, m.kind), m.period, m.lyapunov
    )
    bad = chaotic & ~ok
    unconfirmed = [
        [pp, bb, lam, g] for pp, bb, lam, g in zip(p[bad], b[bad], m.lyapunov[bad], grow[~ok[chaotic]], strict=True)
    ]
    return ChaosSurvey(m, chaos_region(confirmed), grow, shrink, unconfirmed)
