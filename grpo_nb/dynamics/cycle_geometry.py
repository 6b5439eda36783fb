"""Where the cycles of Eq. (8) live, and for which p_ref they cannot exist (beyond paper §4).

In logit coordinates Theorem 2's recursion is z_n = g(z_{n-1}), g(z) = a + 1/(beta sqrt(v(z) + eps)),
a = logit p_ref (:mod:`grpo_nb.dynamics.map`). g decreases on z < 0, increases on z > 0, and g(0) is its minimum.

* :func:`no_cycle_threshold`: p_c(beta, eps) = sigmoid(-1/(beta sqrt(1/4 + eps))), the p_ref at which g(0) = 0.
  For p_ref >= p_c every orbit is monotone from its first step on and no cycle exists; for p_ref < p_c, g has a
  fixed point z_- < 0 with a negative multiplier, and the argument fails.
* :func:`flip_interval`: the p_ref for which that fixed point z_- has slope below -1 (Lemma 1), found with
  Brent's method: the fixed point loses stability there by period doubling.
* :func:`limit_cycles`: the attracting cycles reached from several starting points, for each (p_ref, beta, eps).
* :func:`cycle_location_survey`, :func:`threshold_survey`: the two grids of the hard-prompts chapter.

Nothing is asserted here: each function reports, the chapter decides.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit, logit

from grpo_nb.dynamics.fixed_points import fixed_points_grid
from grpo_nb.dynamics.map import iterate_logit, logit_map, logit_map_cap, logit_map_power, logit_map_slope
from grpo_nb.validation import check_beta, check_eps, check_map_params, check_positive_int

__all__ = [
    "CycleLocationSurvey",
    "LimitCycles",
    "ThresholdSurvey",
    "cycle_location_survey",
    "flip_curve",
    "flip_interval",
    "limit_cycles",
    "no_cycle_threshold",
    "threshold_survey",
]


def no_cycle_threshold(beta: object, eps: object) -> np.ndarray | float:
    """p_c(beta, eps) = sigmoid(-1/(beta sqrt(1/4 + eps))): the p_ref at which g(0) = 0 (g from the numpy home).

    Always below 1/2. Broadcast over (beta, eps).
    """
    _, beta, eps = check_map_params(0.5, beta, eps, broadcast=True)
    out = expit(-logit_map(0.0, 0.0, beta, eps))  # g(0) with a = 0 is 1/(beta sqrt(1/4 + eps))
    return float(out) if out.ndim == 0 else out


def _flip_logits(beta: float, eps: float) -> tuple[float, float]:
    """The logits z < 0 where g'(z) = -1: the one nearest 0 and the farthest one (-inf if none); NaN if none."""
    z = -np.geomspace(1e-8, 2e3, 4001)
    excess = logit_map_slope(z, beta, eps) + 1.0  # < 0 where the slope is below -1
    below = np.flatnonzero(excess < 0)
    if below.size == 0:
        return float("nan"), float("nan")
    i, j = below[0], below[-1]

    def f(x: float) -> float:
        return float(logit_map_slope(x, beta, eps)) + 1.0

    upper = brentq(f, z[i], z[i - 1], xtol=1e-14, rtol=1e-14)
    lower = -np.inf if j == z.size - 1 else brentq(f, z[j + 1], z[j], xtol=1e-14, rtol=1e-14)
    return upper, lower


def flip_interval(beta: object, eps: object) -> tuple[float, float]:
    """(p_low, p_up): the p_ref for which the fixed point below 1/2 has slope < -1 (Lemma 1); NaN, NaN if none.

    The fixed point z_- of a prompt solves z = a + 1/(beta sqrt(v(z) + eps)) and increases with a, and its slope
    g'(z_-) depends on z_- alone; so the slope crosses -1 where z_- crosses a root of g'(z) = -1 (Brent's method),
    and a = z - 1/(beta sqrt(v(z) + eps)) there. p_low = 0 where the slope stays below -1 down to z = -inf
    (eps = 0). Scalars only.
    """
    _, beta, eps = (float(x) for x in check_map_params(0.5, beta, eps, scalar=True))
    upper, lower = _flip_logits(beta, eps)
    if np.isnan(upper):
        return float("nan"), float("nan")

    def p_of(z: float) -> float:
        return float(expit(z - (logit_map(z, 0.0, beta, eps)))) if np.isfinite(z) else 0.0

    return p_of(lower), p_of(upper)


def flip_curve(beta: object, eps: object) -> tuple[np.ndarray, np.ndarray]:
    """:func:`flip_interval` over a 1-D array of beta at one eps: arrays (p_low, p_up) (NaN where no flip)."""
    beta = check_beta(beta).reshape(-1)
    return tuple(np.array(v) for v in zip(*(flip_interval(b, eps) for b in beta), strict=True))


@dataclass(frozen=True)
class LimitCycles:
    """Attracting limit sets of the orbits from several starts, one row per (grid point, start).

    period: (m,) smallest period <= max_period (0: none found, chaos or slow convergence); window: (m, n_keep)
    the last logits; index: (m,) the flat grid index; lower_fixed: (m,) logit z_- of the fixed point below 1/2
    (NaN if none).
    """

    period: np.ndarray
    window: np.ndarray
    index: np.ndarray
    lower_fixed: np.ndarray


def _periods(window: np.ndarray, max_period: int, tol: float) -> np.ndarray:
    """Smallest k <= max_period with |z_{j+k} - z_j| <= tol max(1, |z_j|) over the window (0 if none)."""
    out = np.zeros(window.shape[0], dtype=int)
    scale = np.maximum(1.0, np.abs(window))
    for k in range(max_period, 0, -1):
        ok = np.all(np.abs(window[:, k:] - window[:, :-k]) <= tol * scale[:, :-k], axis=1)
        out[ok] = k
    return out


def limit_cycles(
    p_ref: object,
    beta: object,
    eps: object,
    *,
    n_starts: int = 9,
    transient: int = 6000,
    n_keep: int = 96,
    max_period: int = 32,
    tol: float = 1e-8,
) -> LimitCycles:
    """Iterate g from p_ref, from the critical point z = 0 and from ``n_starts`` points spread over the invariant
    interval [g(0), a + 1/(beta sqrt(eps))] (eps > 0), and record the period of each limit set.

    By Singer's theorem (negative Schwarzian) every attracting cycle attracts z = 0 or an end of the interval, so
    these starts find every attracting cycle. Broadcast over (p_ref, beta, eps); eps > 0.
    """
    p_ref, beta, eps = check_map_params(p_ref, beta, eps, broadcast=True)
    if np.any(eps == 0):
        raise ValueError("eps=0.0 is out of range here; valid range is eps > 0 (the interval must be bounded)")
    n_starts = check_positive_int("n_starts", n_starts, minimum=2)
    transient, n_keep = check_positive_int("transient", transient), check_positive_int("n_keep", n_keep, minimum=4)
    max_period = check_positive_int("max_period", max_period)
    a, beta, eps = (np.broadcast_to(x, p_ref.shape).reshape(-1) for x in (logit(p_ref), beta, eps))
    lo, hi = logit_map(0.0, a, beta, eps), logit_map_cap(a, beta, eps)
    starts = np.column_stack([a, np.zeros_like(a), lo[:, None] + (hi - lo)[:, None] * np.linspace(0, 1, n_starts)])
    shape = starts.shape
    z = logit_map_power(starts, a[:, None], beta[:, None], eps[:, None], n=transient)
    window = np.empty((*shape, n_keep))
    for k in range(n_keep):
        window[..., k] = z
        z = logit_map(z, a[:, None], beta[:, None], eps[:, None])
    fp = fixed_points_grid(expit(a), beta, eps)
    lower = np.where(fp.logits < 0, fp.logits, np.inf).min(axis=-1)
    lower = np.where(np.isfinite(lower), lower, np.nan)
    window = window.reshape(-1, n_keep)
    return LimitCycles(
        period=_periods(window, max_period, tol),
        window=window,
        index=np.repeat(np.arange(a.size), shape[1]),
        lower_fixed=np.repeat(lower, shape[1]),
    )


@dataclass(frozen=True)
class CycleLocationSurvey:
    """Every attracting cycle (period >= 2) found on a grid, and where its points lie.

    n_cycles: cycles found (one per grid point and start); n_straddle: how many have their lowest point below the
    fixed point z_- and their highest above it; n_below_half: how many lie entirely in p < 1/2 (z < 0);
    periods_below_half: the periods of those; n_long: cycles of period >= 3; n_long_cross: how many of those have
    a point with p > 1/2; n_unresolved: orbits with no period up to max_period; rows: the table.
    """

    n_cycles: int
    n_straddle: int
    n_below_half: int
    periods_below_half: np.ndarray
    n_long: int
    n_long_cross: int
    n_unresolved: int
    rows: list[list]


def cycle_location_survey(p_ref: object, beta: object, eps: object, **options) -> CycleLocationSurvey:
    """:func:`limit_cycles` on a broadcast grid, then the position of each cycle relative to z_- and to z = 0."""
    lc = limit_cycles(p_ref, beta, eps, **options)
    cyc = lc.period >= 2
    lo, hi = lc.window[cyc].min(axis=1), lc.window[cyc].max(axis=1)
    z_minus, period = lc.lower_fixed[cyc], lc.period[cyc]
    straddle = (lo < z_minus) & (hi > z_minus)
    below = hi < 0
    long = period >= 3
    rows = [
        ["attracting cycles found (grid points x starts)", int(cyc.sum())],
        ["... lowest point below z_-, highest above z_-", int(straddle.sum())],
        ["... entirely in p < 1/2", int(below.sum())],
        ["... periods of those", ", ".join(str(k) for k in sorted(set(period[below].tolist()))) or "none"],
        ["... of period >= 3", int(long.sum())],
        ["... of period >= 3 with a point in p > 1/2", int((long & ~below).sum())],
        ["orbits with no period up to the maximum (chaos or slow)", int(np.sum(lc.period == 0))],
    ]
    return CycleLocationSurvey(
        n_cycles=int(cyc.sum()),
        n_straddle=int(straddle.sum()),
        n_below_half=int(below.sum()),
        periods_below_half=np.unique(period[below]),
        n_long=int(long.sum()),
        n_long_cross=int((long & ~below).sum()),
        n_unresolved=int(np.sum(lc.period == 0)),
        rows=rows,
    )


@dataclass(frozen=True)
class ThresholdSurvey:
    """Cycles around the thresholds p_flip <= p_c, per (beta, eps) of a grid.

    cycles_above: attracting cycles found with p_ref in [p_c, 1) (any start); non_monotone_above: orbits from
    p_ref >= p_c that are not monotone from step 1; cycles_between: attracting cycles with p_ref strictly between
    the upper flip point p_up and p_c; two_cycles_below: grid points just below p_up (logit offset ``below``)
    where a 2-cycle is found; n_below: how many such points were tried; gap_ratio: (logit p_c - logit p_up) /
    (24 beta (1/4 + eps)^{3/2}), the leading-order gap, shape (n_eps, n_beta), NaN where no flip; rows: beta,
    eps, p_c, p_up, the gap and its ratio.
    """

    cycles_above: int
    non_monotone_above: int
    cycles_between: int
    two_cycles_below: int
    n_below: int
    gap_ratio: np.ndarray
    rows: list[list]


def threshold_survey(
    beta: object, eps: object, *, above=(0.0, 1e-3, 0.1, 1.0, 5.0), between=(0.1, 0.5, 0.9), below: float = 0.02
) -> ThresholdSurvey:
    """For each beta (1-D) and eps (1-D, > 0): p_ref at logit p_c + ``above`` (monotone orbits, no cycle), at the
    fractions ``between`` of the logit gap from p_up to p_c (no cycle), and at logit p_up - ``below`` x gap (a
    2-cycle, just born by period doubling)."""
    beta, eps = check_beta(beta).reshape(-1), check_eps(eps).reshape(-1)
    if np.any(eps == 0):
        raise ValueError("eps=0.0 is out of range here; valid range is eps > 0")
    cycles_above = non_mono = cycles_between = two_below = n_below = 0
    ratios, rows = np.full((eps.size, beta.size), np.nan), []
    for i, e in enumerate(eps):
        for j, b in enumerate(beta):
            a_c = float(logit(no_cycle_threshold(b, e)))
            a_up = float(logit(flip_interval(b, e)[1]))
            up = expit(a_c + np.asarray(above))
            cycles_above += int(np.sum(limit_cycles(up, b, e).period >= 2))
            steps = np.diff(iterate_logit(up, b, e, n=300)[1:], axis=0)
            non_mono += int(np.sum(~((steps >= -1e-12).all(axis=0) | (steps <= 1e-12).all(axis=0))))
            if np.isnan(a_up):
                rows.append([b, e, expit(a_c), np.nan, np.nan, np.nan])
                continue
            gap = a_c - a_up
            mid = expit(a_up + gap * np.asarray(between))
            cycles_between += int(np.sum(limit_cycles(mid, b, e).period >= 2))
            n_below += 1
            lc = limit_cycles(expit(a_up - below * gap), b, e, transient=40000)
            two_below += int(np.any(lc.period == 2))
            ratios[i, j] = gap / (24 * b * (0.25 + e) ** 1.5)
            rows.append([b, e, expit(a_c), expit(a_up), gap, ratios[i, j]])
    return ThresholdSurvey(cycles_above, non_mono, cycles_between, two_below, n_below, ratios, rows)
