"""Section "The fixed points, against alpha = 1" of the chapter "GRPO variants" (``book/variants_both_kls.md``): the
fixed points of mean+var with 0 < alpha < 1 against those of alpha = 1 (Theorem 2), which are Theorem 2's at alpha beta;
every fixed point of the paper's Fig. 5 case at each alpha."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import logit
from tqdm.auto import tqdm

from grpo_nb.chapters.variants.variant_set import _small
from grpo_nb.dynamics.fixed_points import fixed_points, fixed_points_grid
from grpo_nb.dynamics.map import logit_map_cap
from grpo_nb.report import Table
from grpo_nb.validation import check_map_params
from grpo_nb.variants.variant import Variant

__all__ = [
    "FixedPointComparison",
    "VariantFixedPoint",
    "fixed_point_comparison",
    "fixed_point_table",
    "variant_fixed_points",
]


@dataclass(frozen=True)
class FixedPointComparison:
    """Per alpha: residuals, missed roots, how the fixed points moved against alpha = 1, and the multiplier identity."""

    table: Table
    max_residual: float
    missed_roots: int
    lowest_rises: bool
    top_stable_rises: bool
    multiplier_error: float


def fixed_point_comparison(
    p_ref: np.ndarray, beta: np.ndarray, eps: np.ndarray, *, alphas: Sequence[float] = (0.3, 0.5, 0.7)
) -> FixedPointComparison:
    """The fixed points of mean+var with 0 < alpha < 1 against those of alpha = 1 (Theorem 2), over a broadcast grid.

    max_residual: |g_alpha(z*) - z*| / max(1, |z*|) with the variant's own map; missed_roots: sign changes of
    g_alpha(z) - z on a 4000-point logit grid between a - 1 and the cap that no reported fixed point explains;
    lowest_rises / top_stable_rises: the lowest and the highest stable fixed point lie at or above alpha = 1's;
    multiplier_error: |g_alpha'(z*) - (1 - alpha + alpha h'_{alpha beta}(z*))| relative to max(1, |g_alpha'(z*)|).
    """
    p_ref, beta, eps = check_map_params(p_ref, beta, eps, broadcast=True)
    a = logit(p_ref)
    v1 = fixed_points_grid(p_ref, beta, eps)
    rows, residual, missed, low_ok, top_ok, mult_err = [], 0.0, 0, True, True, 0.0
    for alpha in tqdm(list(alphas), desc="alphas"):
        variant = Variant("mean_var", alpha)
        grid = fixed_points_grid(p_ref, beta, eps, variant=variant)
        has = ~np.isnan(grid.logits)
        z_star = np.where(has, grid.logits, 0.0)
        with np.errstate(over="ignore", invalid="ignore"):
            res = np.abs(variant(z_star, a[..., None], beta[..., None], eps[..., None]) - z_star)
        res_a = float(np.max(np.where(has, res / np.maximum(1.0, np.abs(z_star)), 0.0)))
        cap = np.where(eps > 0, logit_map_cap(a, alpha * beta, np.where(eps > 0, eps, 1.0)), a + 200.0)
        zz = a[..., None] - 1.0 + (np.minimum(cap, a + 1e4) - a + 2.0)[..., None] * np.linspace(0, 1, 4000)
        with np.errstate(over="ignore", invalid="ignore"):
            f = variant(zz, a[..., None], beta[..., None], eps[..., None]) - zz
        changes = np.count_nonzero(np.diff(np.sign(f), axis=-1) != 0, axis=-1)
        missed_a = int(np.sum(np.maximum(changes - grid.counts, 0)))
        both = (grid.counts > 0) & (v1.counts > 0)
        # fmin / fmax skip the NaN padding (and warn about nothing)
        low_a = bool(np.all(np.fmin.reduce(grid.logits, -1)[both] >= np.fmin.reduce(v1.logits, -1)[both]))
        top_v = np.fmax.reduce(np.where(grid.stable, grid.logits, -np.inf), -1)
        top_1 = np.fmax.reduce(np.where(v1.stable, v1.logits, -np.inf), -1)
        stable_both = np.isfinite(top_v) & np.isfinite(top_1)
        top_a = bool(np.all(top_v[stable_both] >= top_1[stable_both]))
        reduced = fixed_points_grid(p_ref, alpha * beta, eps)
        predicted = 1 - alpha + alpha * reduced.slopes
        err_a = float(np.nanmax(np.abs(grid.slopes - predicted) / np.maximum(1.0, np.abs(grid.slopes))))
        residual, missed = max(residual, res_a), missed + missed_a
        low_ok, top_ok, mult_err = low_ok and low_a, top_ok and top_a, max(mult_err, err_a)
        found = str(int(grid.counts.sum()))
        rows.append([alpha, found, _small(res_a, 1e-9), str(missed_a), low_a, top_a, _small(err_a)])
    headers = [
        "α",
        "fixed points found",
        "max residual",
        "missed roots",
        "lowest rises",
        "top stable rises",
        r"multiplier vs $1 - \alpha + \alpha h'_{\alpha\beta}$",
    ]
    return FixedPointComparison(Table(headers, rows, ".3g"), residual, missed, low_ok, top_ok, mult_err)


@dataclass(frozen=True)
class VariantFixedPoint:
    """One fixed point of mean+var at one alpha (:func:`variant_fixed_points`): its index from the lowest, p*, its
    logit, the multiplier g'(z*) and whether it is stable."""

    alpha: float
    index: int
    p: float
    logit: float
    multiplier: float
    stable: bool


def variant_fixed_points(p_ref: float, beta: float, eps: float, *, alphas: Sequence[float]) -> list[VariantFixedPoint]:
    """Every fixed point of mean+var at each alpha (section "The fixed points, against alpha = 1", the paper's Fig. 5
    case)."""
    return [
        VariantFixedPoint(alpha, i, fp.p, fp.logit, fp.slope, fp.stable)
        for alpha in alphas
        for i, fp in enumerate(fixed_points(p_ref, beta, eps, variant=Variant("mean_var", alpha)))
    ]


def fixed_point_table(points: Sequence[VariantFixedPoint]) -> Table:
    """The :class:`VariantFixedPoint` list as a table."""
    rows = [[f.alpha, f.index, f.p, f.logit, f.multiplier, f.stable] for f in points]
    return Table(
        ["α", "fixed point", "$p^*$", r"$\operatorname{logit} p^*$", "multiplier $g'(z^*)$", "stable"], rows, ".4g"
    )
