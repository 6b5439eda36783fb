"""Sections "Local convergence (Theorem 4 and Lemma 1)" and "The paper's Fig. 4: the bound on β" of the chapter
"Amplification and convergence" (``book/amplification_convergence.md``, paper §4).

* :func:`theorem4_stability_check` ("Local convergence (Theorem 4 and Lemma 1)"): Lemma 1 / Theorem 4's bound B(p*)
  against the fixed points' slopes, and perturbed orbits that stay (stable) or leave (unstable).
* :func:`beta_bound_peaks` ("The paper's Fig. 4: the bound on β"): the peak of B(p*) per eps against its small-eps value
  1/(3^{3/2} sqrt(eps)).

The negative tests replace ``theorem4_beta_bound_logit``, the name this module reads, with wrong formulas and see the
verdicts fail.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import logit

from grpo_nb.dynamics.fixed_points import fixed_points_grid
from grpo_nb.dynamics.map import logit_map, logit_map_power
from grpo_nb.dynamics.paper_bounds import prompt_free_beta_bound, theorem4_beta_bound, theorem4_beta_bound_logit
from grpo_nb.report import Table

__all__ = ["BoundPeak", "BoundPeaks", "Perturbed", "StabilityCheck", "beta_bound_peaks", "theorem4_stability_check"]


@dataclass(frozen=True)
class Perturbed:
    """Fixed points of one kind (stable or unstable) that :func:`theorem4_stability_check` perturbed: how many, and
    how many behaved as Theorem 4 says (came back, or left)."""

    count: int
    as_predicted: int


@dataclass(frozen=True)
class StabilityCheck:
    """Theorem 4 on a grid: B(p*)/beta against a finite-difference slope of the map, stability verdicts, and orbits.

    max_relative_error: largest |B(p*)/beta - |h'(p*)|| / max(|h'(p*)|, 1e-3) with h'(p*) from central differences;
    bound_matches_stability: beta > B(p*) exactly where the finite-difference |h'(p*)| < 1 (away from |h'| = 1);
    moved: for "stable" and "unstable" fixed points, a :class:`Perturbed` (how many, how many behaved as Theorem 4
    says);
    n_fixed_points: how many fixed points the grid has in all.
    """

    max_relative_error: float
    bound_matches_stability: bool
    moved: dict[str, Perturbed]
    n_fixed_points: int


def theorem4_stability_check(
    p_ref: np.ndarray, beta: np.ndarray, eps: float, *, delta: float = 1e-6, n: int = 200, step: float = 1e-3
) -> StabilityCheck:
    """Lemma 1 / Theorem 4 on the broadcast (p_ref column, beta row) grid at one eps (section "Local convergence
    (Theorem 4 and Lemma 1)").

    The slope of h at each fixed point is measured without Proposition 1's formula: by a central difference of the
    logit map g (Theorem 2 in log-odds) with logit step ``step``; since g = logit o h o sigmoid and h(p*) = p*, the
    chain rule gives g'(z*) = h'(p*) at a fixed point. It is compared with Lemma 1's B(p*)/beta, and beta > B(p*) with
    |h'(p*)| < 1 (fixed points with | |h'| - 1 | < 1e-6 are left out of that comparison). Then each fixed point with
    |logit| < 50 that is not near-neutral (| |h'| - 1 | > 0.05) is perturbed by ``delta`` in logit and iterated
    ``n`` times: ``moved`` counts, for stable and for unstable ones, how many there are and how many came back
    within delta/10 (stable) or left beyond 10 delta (unstable).
    """
    grid = fixed_points_grid(p_ref, beta, eps)
    has = ~np.isnan(grid.logits)
    a = np.broadcast_to(logit(p_ref)[..., None], grid.logits.shape)
    b = np.broadcast_to(np.asarray(beta, dtype=float)[..., None], grid.logits.shape)
    z_star = np.where(has, grid.logits, 0.0)
    fd = (logit_map(z_star + step, a, b, eps) - logit_map(z_star - step, a, b, eps)) / (2 * step)
    bound = theorem4_beta_bound_logit(z_star, eps)
    err = np.abs(bound / b - np.abs(fd))[has] / np.maximum(np.abs(fd[has]), 1e-3)
    decided = has & (np.abs(np.abs(fd) - 1) > 1e-6)
    matches = bool(((b > bound)[decided] == (np.abs(fd) < 1)[decided]).all())
    sel = has & (np.abs(grid.logits) < 50) & (np.abs(np.abs(fd) - 1) > 0.05)
    i, j, k = np.nonzero(sel)
    z_sel, slope = grid.logits[i, j, k], fd[i, j, k]
    z = logit_map_power(z_sel + delta, a[i, j, k], b[i, j, k], eps, n=n)
    stable = np.abs(slope) < 1
    moved = {
        "stable": Perturbed(int(stable.sum()), int(np.sum(stable & (np.abs(z - z_sel) < delta / 10)))),
        "unstable": Perturbed(int((~stable).sum()), int(np.sum(~stable & (np.abs(z - z_sel) > 10 * delta)))),
    }
    return StabilityCheck(float(err.max()), matches, moved, int(has.sum()))


@dataclass(frozen=True)
class BoundPeak:
    """Theorem 4's B(p*) at one eps: its peak over p*, the variance p*(1 - p*) where the peak sits, B(1/2), and the
    larger of B at 1e-12 and at 1 - 1e-12 (the ends)."""

    eps: float
    peak: float
    variance_at_peak: float
    at_half: float
    at_ends: float


@dataclass(frozen=True)
class BoundPeaks:
    """:func:`beta_bound_peaks`' table and one :class:`BoundPeak` per eps, in the order of the eps values."""

    table: Table
    peaks: tuple[BoundPeak, ...]


def beta_bound_peaks(eps_values: Sequence[float], n_grid: int = 200001) -> BoundPeaks:
    """The peak of Theorem 4's B(p*) over p* in (0, 1) per eps, next to 1/(3^{3/2} sqrt(eps)) and 2 eps (section
    "The paper's Fig. 4: the bound on β").

    Per eps also B(1/2) and the largest of B at 1e-12 and 1 - 1e-12 (the ends), for the chapter's asserts.
    """
    p_star = np.linspace(0, 1, n_grid)[1:-1]
    rows, facts = [], []
    for eps in eps_values:
        b = theorem4_beta_bound(p_star, eps)
        peak = float(b.max())
        p_peak = p_star[np.argmax(b)]  # B is symmetric under p -> 1 - p: report the variance at the peak
        rows.append([eps, peak, prompt_free_beta_bound(eps), p_peak * (1 - p_peak), 2 * eps])
        ends = float(np.max(theorem4_beta_bound(np.array([1e-12, 1 - 1e-12]), eps)))
        at_half = float(theorem4_beta_bound(0.5, eps))
        facts.append(BoundPeak(float(eps), peak, float(p_peak * (1 - p_peak)), at_half, ends))
    headers = ["ε", r"max $\mathcal{B}(p^*)$", r"$1/(3^{3/2}\sqrt{\varepsilon})$", "p*(1−p*) at the peak", "2ε"]
    return BoundPeaks(Table(headers, rows, ".3g"), tuple(facts))
