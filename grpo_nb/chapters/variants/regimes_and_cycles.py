"""Section "What alpha does to the regimes, and to the cycles" of the chapter "GRPO variants"
(``book/variants_both_kls.md``): the regime maps of the variants, and where their cycles live."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from tqdm.auto import tqdm

from grpo_nb.chapters.variants.variant_set import _P_REF
from grpo_nb.dynamics.orbits import OrbitClass, classify_orbits
from grpo_nb.dynamics.regimes import Regime, RegimeMap, regime_map
from grpo_nb.report import Table
from grpo_nb.variants.variant import Variant

__all__ = [
    "CycleFrontier",
    "FrontierRefinement",
    "RegimeSurvey",
    "cycle_frontier",
    "refine_cycle_frontier",
    "regime_survey",
]


@dataclass(frozen=True)
class RegimeSurvey:
    """:func:`regime_survey`'s counts table, the regime map of each variant, and ``flips_where_oscillating``: whether
    every cycle or chaotic grid point has its lowest fixed point with multiplier below -1 (the flip condition:
    without it the orbit cannot oscillate around that fixed point)."""

    table: Table
    maps: dict[Variant, RegimeMap]
    flips_where_oscillating: bool


def regime_survey(
    p_ref: np.ndarray, beta: np.ndarray, eps: float, *, variants: Sequence[Variant], progress: bool = True
) -> RegimeSurvey:
    """Regime maps of several variants on one grid (:func:`grpo_nb.dynamics.regime_map` with ``variant=``), as a
    :class:`RegimeSurvey`."""
    maps, rows, flip_ok = {}, [], True
    for variant in tqdm(list(variants), desc="regime maps", disable=not progress):
        rm = regime_map(p_ref, beta, eps, variant=variant)
        maps[variant] = rm
        oscillating = rm.regime >= Regime.CYCLE
        flip_ok &= bool(np.all(rm.fixed_point_slopes[..., 0][oscillating] < -1))
        counts = [int(np.sum(rm.regime == r)) for r in Regime]
        rows.append([variant.label, *counts, int(np.sum(oscillating & (rm.fixed_point_slopes[..., 0] < -1)))])
    headers = ["variant", *(r.label for r in Regime), "of which flip (multiplier < −1)"]
    return RegimeSurvey(Table(headers, rows, ".4g"), maps, flip_ok)


@dataclass(frozen=True)
class CycleFrontier:
    """Per alpha: the largest p_ref of the grid with a cycle or chaos, and with a flipped lowest fixed point (both
    lower bounds, read off the grid), and ``flip_bound``: the sup over every beta of the p_ref with a flipped fixed
    point (:meth:`grpo_nb.variants.Variant.flip_bound`, an upper bound on the p_ref of any cycle)."""

    table: Table
    alphas: tuple[float, ...]
    largest_cycle_p_ref: np.ndarray
    largest_flip_p_ref: np.ndarray
    flip_bound: np.ndarray
    maps: dict


def cycle_frontier(
    p_ref: np.ndarray, beta: np.ndarray, eps: float, *, alphas: Sequence[float] = (1.0, 0.9, 0.7, 0.5, 0.3)
) -> CycleFrontier:
    """How far the cycles retreat as alpha decreases: regime maps of mean+var for each alpha on a hard-prompt grid.

    For each alpha, the largest p_ref at which some beta of the grid gives a cycle or chaos, and the largest p_ref at
    which the lowest fixed point has multiplier < -1 (necessary for such an orbit; NaN when none), and the flip bound
    over all beta.
    """
    maps = regime_survey(p_ref, beta, eps, variants=[Variant("mean_var", a) for a in alphas]).maps
    bounds = np.array([v.flip_bound(eps) for v in maps])
    rows, cyc, flip = [], [], []
    p_col = np.broadcast_to(p_ref, next(iter(maps.values())).regime.shape)
    for alpha, rm, top in zip(alphas, maps.values(), bounds, strict=True):
        osc = rm.regime >= Regime.CYCLE
        flipped = rm.fixed_point_slopes[..., 0] < -1
        c = float(p_col[osc].max()) if osc.any() else np.nan
        f = float(p_col[flipped].max()) if flipped.any() else np.nan
        periods = sorted({int(k) for k in rm.period[osc] if k > 1})
        periods_seen = ", ".join(map(str, periods[:6])) + (" …" if len(periods) > 6 else "")
        rows.append([alpha, c, f, f"{top:.4g}", int(osc.sum()), periods_seen])
        cyc.append(c)
        flip.append(f)
    headers = [
        "α",
        f"largest {_P_REF} with a cycle or chaos",
        f"largest {_P_REF} with multiplier < −1",
        f"sup over all β of {_P_REF} with multiplier < −1",
        "grid points",
        "periods seen",
    ]
    return CycleFrontier(Table(headers, rows, ".3g"), tuple(alphas), np.array(cyc), np.array(flip), bounds, maps)


@dataclass(frozen=True)
class FrontierRefinement:
    """:func:`refine_cycle_frontier` per alpha: the coarse grid's largest cycling p_ref (``grid_p_ref``), the finer
    scan's (``scan_p_ref``, at ``scan_beta``), both lower bounds on where the cycles stop, and the flip bound above."""

    table: Table
    alphas: tuple[float, ...]
    grid_p_ref: np.ndarray
    scan_p_ref: np.ndarray
    scan_beta: np.ndarray
    flip_bound: np.ndarray


def _largest_cycling_prompt(variant: Variant, p_ref: np.ndarray, beta: np.ndarray, eps: float) -> tuple[float, float]:
    """(p_ref, beta) of the largest p_ref of the grid whose orbit cycles or is chaotic, (NaN, NaN) if none.

    Only the grid points whose fixed point below 1/2 has multiplier < -1 are iterated: elsewhere no cycle can live."""
    p_grid, b_grid = np.broadcast_arrays(p_ref, beta)
    lowest = variant.fixed_points_grid(p_grid, b_grid, eps).slopes[..., 0]
    flipped = lowest < -1
    kinds = classify_orbits(p_grid[flipped], b_grid[flipped], eps, variant=variant).kind
    oscillating = kinds != OrbitClass.FIXED_POINT
    if not oscillating.any():
        return float("nan"), float("nan")
    top = int(np.argmax(np.where(oscillating, p_grid[flipped], 0.0)))
    return float(p_grid[flipped][top]), float(b_grid[flipped][top])


#: The finer scan of :func:`refine_cycle_frontier`: p_ref points between the two bounds, and its beta grid.
FINE_P_POINTS = 40
FINE_BETA = np.geomspace(0.1, 100.0, 600)


def refine_cycle_frontier(
    frontier: CycleFrontier, eps: float, *, alphas: Sequence[float] = (0.7, 0.5)
) -> FrontierRefinement:
    """Section "What alpha does to the regimes, and to the cycles": where the cycles stop, between the coarse grid's
    largest cycling p_ref (a lower bound) and the flip bound (an upper bound), on a finer grid: ``FINE_P_POINTS``
    p_ref spaced geometrically between the two, times ``FINE_BETA``, iterated where a fixed point flips."""
    rows = []
    for alpha in tqdm(list(alphas), desc="finer scans"):
        k = frontier.alphas.index(alpha)
        low, high = float(frontier.largest_cycle_p_ref[k]), float(frontier.flip_bound[k])
        p_ref = np.geomspace(low, high, FINE_P_POINTS)[:, None]
        rows.append([alpha, low, *_largest_cycling_prompt(Variant("mean_var", alpha), p_ref, FINE_BETA, eps), high])
    headers = ["α", f"coarse grid: largest {_P_REF} with a cycle", "finer scan: largest", "at β", "flip bound"]
    grid, scan, at_beta, bounds = (np.array(col) for col in list(zip(*rows, strict=True))[1:])
    return FrontierRefinement(Table(headers, rows, ".2g"), tuple(alphas), grid, scan, at_beta, bounds)
