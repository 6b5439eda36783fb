"""Section "Theorem 4's hypothesis against amplification" of the chapter "Amplification and convergence"
(``book/amplification_regimes.md``, paper §4).

* :func:`theorem4_hypothesis_grid`, :func:`hypothesis_table`: where Theorem 4's hypothesis (p_ref within a ball
  around a stable p* on which h contracts) can hold at all, given that amplification keeps every fixed point away
  from p_ref, against where the orbit converges.

The negative tests replace ``contraction_on_ball``, the name this module reads, with a condition that ignores the gap
and see the verdicts fail.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logit

from grpo_nb.dynamics.fixed_points import fixed_points_grid
from grpo_nb.dynamics.map import h_prime, iterate_logit
from grpo_nb.dynamics.regimes import Regime, regime_map
from grpo_nb.report import Table
from grpo_nb.validation import check_map_params, check_positive_int

__all__ = [
    "HypothesisTable",
    "Theorem4Hypothesis",
    "contraction_on_ball",
    "hypothesis_table",
    "theorem4_hypothesis_grid",
]


def contraction_on_ball(p_star: float, p_ref: float, beta: float, eps: float, *, n_grid: int = 2001) -> float:
    """max |h'(p)| over the closed ball of radius |p* - p_ref| around p*, clipped to [0, 1] (``n_grid`` sample points
    including both ends and p_ref itself), h' from Proposition 1. Below 1 exactly when Theorem 4's hypothesis can hold
    for this p* (section "Theorem 4's hypothesis against amplification")."""
    d = abs(p_star - p_ref)
    lo, hi = max(0.0, p_star - d), min(1.0, p_star + d)
    p = np.append(np.linspace(lo, hi, n_grid), p_ref)
    if eps == 0:  # h' is defined on (0, 1) only (Remark 1)
        p = p[(p > 0) & (p < 1)]
    return float(np.max(np.abs(h_prime(p, p_ref, beta, eps))))


@dataclass(frozen=True)
class Theorem4Hypothesis:
    """:func:`theorem4_hypothesis_grid` over a (p_ref, beta) grid at one eps (arrays of the broadcast shape, per fixed
    point on a last axis of 3).

    holds: the hypothesis can hold for that fixed point (contraction on the ball, and p* stable);
    contraction: max |h'| on the ball (NaN where there is no such fixed point);
    gap_ratio: (logit p* - logit p_ref) beta sqrt(1 + 4 eps) / 2, which amplification puts at >= 1;
    banach_ok: where ``holds``, the orbit from p_ref obeys |p_n - p*| <= L^n |p_ref - p*| for n up to ``n``.
    """

    holds: np.ndarray
    contraction: np.ndarray
    gap_ratio: np.ndarray
    banach_ok: bool

    @property
    def holds_somewhere(self) -> np.ndarray:
        """Per grid point: the hypothesis holds for at least one fixed point."""
        return self.holds.any(axis=-1)


def theorem4_hypothesis_grid(
    p_ref: object, beta: object, eps: float, *, n: int = 60, n_ball: int = 2001
) -> Theorem4Hypothesis:
    """Where Theorem 4's hypothesis can hold on the broadcast (p_ref, beta) grid at one eps (section "Theorem 4's
    hypothesis against amplification").

    Theorem 4 (local convergence) assumes a fixed point p* with |h'(p*)| < 1 and p_0 = p_ref in [p* - delta,
    p* + delta], where h contracts on that closed ball (the local Banach theorem). Amplification (Theorem 3 in logit
    form) puts every fixed point away from p_ref: logit p* - logit p_ref = 1/(beta sqrt(p*(1-p*) + eps))
    >= 2/(beta sqrt(1 + 4 eps)), with equality only at p* = 1/2. So the ball's radius is at least d = |p* - p_ref|
    > 0, and the hypothesis can hold, for some delta, exactly when L = max |h'| on [p* - d, p* + d] (clipped to
    [0, 1]) is below 1: :func:`contraction_on_ball`, a module-level name that the negative test replaces by a
    condition that ignores the gap. Where it holds, Banach's estimate |p_n - p*| <= L^n d must hold along the orbit
    from p_ref for ``n`` steps (``banach_ok``), so such a wrong condition is caught by the orbits that do not
    converge.
    """
    p_ref, beta, eps_arr = check_map_params(p_ref, beta, eps, broadcast=True)
    n = check_positive_int("n", n)
    eps = float(eps_arr.flat[0])
    grid = fixed_points_grid(p_ref, beta, eps)
    has = ~np.isnan(grid.logits)
    a = logit(p_ref)
    gap_ratio = np.where(has, (grid.logits - a[..., None]) * beta[..., None] * np.sqrt(1 + 4 * eps) / 2, np.nan)
    contraction = np.full(grid.logits.shape, np.nan)
    for idx in zip(*np.nonzero(has & grid.stable), strict=True):
        p_star, p_ref_i, beta_i = float(expit(grid.logits[idx])), float(p_ref[idx[:-1]]), float(beta[idx[:-1]])
        contraction[idx] = contraction_on_ball(p_star, p_ref_i, beta_i, eps, n_grid=n_ball)
    with np.errstate(invalid="ignore"):
        holds = has & grid.stable & (contraction < 1)
    z = iterate_logit(p_ref, beta, eps, n=n)
    banach_ok = True
    steps = np.arange(n + 1)
    for idx in zip(*np.nonzero(holds), strict=True):
        p_star, big_l = expit(grid.logits[idx]), contraction[idx]
        dist = np.abs(expit(z[(slice(None), *idx[:-1])]) - p_star)
        banach_ok &= bool((dist <= big_l**steps * dist[0] * (1 + 1e-6) + 1e-15).all())
    return Theorem4Hypothesis(holds, contraction, gap_ratio, banach_ok)


def _runs(mask: np.ndarray, beta: np.ndarray) -> str:
    """The runs of True in ``mask`` as beta intervals, e.g. "[0.2, 1.1], [4, 6]"; "none" if there are none."""
    idx = np.nonzero(mask)[0]
    if idx.size == 0:
        return "none"
    breaks = np.nonzero(np.diff(idx) > 1)[0]
    starts, ends = np.r_[idx[0], idx[breaks + 1]], np.r_[idx[breaks], idx[-1]]
    return ", ".join(f"[{beta[s]:.3g}, {beta[e]:.3g}]" for s, e in zip(starts, ends, strict=True))


@dataclass(frozen=True)
class HypothesisTable:
    """:func:`hypothesis_table`'s table and verdicts: ``implies`` (wherever the hypothesis holds, the orbit
    converges), ``banach_ok`` (Banach's estimate along those orbits), ``fails_but_converges`` (grid points where the
    orbit converges although the hypothesis holds for no fixed point), ``holds`` and ``converges`` (boolean arrays,
    prompt x beta)."""

    table: Table
    implies: bool
    banach_ok: bool
    fails_but_converges: int
    holds: np.ndarray
    converges: np.ndarray


def hypothesis_table(p_refs: Sequence[float], betas: Sequence[float], eps: float) -> HypothesisTable:
    """Per prompt: where on the beta grid Theorem 4's hypothesis fails for every fixed point
    (:func:`theorem4_hypothesis_grid`), and where the orbit from p_ref does not converge to a fixed point
    (:func:`grpo_nb.dynamics.regimes.regime_map`: a cycle or chaos) (section "Theorem 4's hypothesis against
    amplification")."""
    p = np.asarray(p_refs, dtype=float)[:, None]
    b = np.asarray(betas, dtype=float)[None, :]
    hyp = theorem4_hypothesis_grid(p, b, eps)
    rm = regime_map(p, b, eps)
    converges = (rm.regime == Regime.INTERIOR) | (rm.regime == Regime.NEAR_ONE)
    holds = hyp.holds_somewhere
    rows = [
        [p[i, 0], _runs(~holds[i], b[0]), _runs(~converges[i], b[0]), int((~holds[i] & converges[i]).sum())]
        for i in range(p.shape[0])
    ]
    headers = [r"$p_{\mathrm{ref}}$", "β where Theorem 4's hypothesis fails", "β where the orbit does not converge",
               "grid β: fails, yet converges"]  # fmt: skip
    return HypothesisTable(
        Table(headers, rows, ".3g"),
        implies=bool(converges[holds].all()),
        banach_ok=hyp.banach_ok,
        fails_but_converges=int((~holds & converges).sum()),
        holds=holds,
        converges=converges,
    )
