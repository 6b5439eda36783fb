"""Section "What alpha does to the regimes, and to the cycles" of the chapter "GRPO variants" (``book/variants.md``):
the regime maps of the variants, and where their cycles live."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from tqdm.auto import tqdm

from grpo_nb.chapters.variants.variant_set import _P_REF
from grpo_nb.dynamics.regimes import Regime, RegimeMap, regime_map
from grpo_nb.report import Table
from grpo_nb.variants.variant import Variant

__all__ = ["CycleFrontier", "RegimeSurvey", "cycle_frontier", "regime_survey"]


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
    """Per alpha: the largest p_ref of the grid with a cycle or chaos, and with a flipped lowest fixed point."""

    table: Table
    largest_cycle_p_ref: np.ndarray
    largest_flip_p_ref: np.ndarray
    maps: dict


def cycle_frontier(
    p_ref: np.ndarray, beta: np.ndarray, eps: float, *, alphas: Sequence[float] = (1.0, 0.9, 0.7, 0.5, 0.3)
) -> CycleFrontier:
    """How far the cycles retreat as alpha decreases: regime maps of mean+var for each alpha on a hard-prompt grid.

    For each alpha, the largest p_ref at which some beta of the grid gives a cycle or chaos, and the largest p_ref at
    which the lowest fixed point has multiplier < -1 (necessary for such an orbit; NaN when none).
    """
    maps = regime_survey(p_ref, beta, eps, variants=[Variant("mean_var", a) for a in alphas]).maps
    rows, cyc, flip = [], [], []
    p_col = np.broadcast_to(p_ref, next(iter(maps.values())).regime.shape)
    for alpha, rm in zip(alphas, maps.values(), strict=True):
        osc = rm.regime >= Regime.CYCLE
        flipped = rm.fixed_point_slopes[..., 0] < -1
        c = float(p_col[osc].max()) if osc.any() else np.nan
        f = float(p_col[flipped].max()) if flipped.any() else np.nan
        periods = sorted({int(k) for k in rm.period[osc] if k > 1})
        rows.append(
            [alpha, c, f, int(osc.sum()), ", ".join(map(str, periods[:6])) + (" …" if len(periods) > 6 else "")]
        )
        cyc.append(c)
        flip.append(f)
    headers = [
        "α",
        f"largest {_P_REF} with a cycle or chaos",
        f"largest {_P_REF} with multiplier < −1",
        "grid points",
        "periods seen",
    ]
    return CycleFrontier(Table(headers, rows, ".3g"), np.array(cyc), np.array(flip), maps)
