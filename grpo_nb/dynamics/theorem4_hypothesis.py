"""When Theorem 4's hypothesis can hold: p_ref within the contraction radius of a fixed point (paper §4).

Theorem 4 (local convergence) assumes a fixed point p* with |h'(p*)| < 1 and p_0 = p_ref in [p* - delta, p* + delta],
where delta comes from the local Banach fixed-point theorem: h must be a contraction on that closed ball. But
amplification (Theorem 3 in logit form) puts every fixed point away from p_ref:

    logit p* - logit p_ref = 1 / (beta sqrt(p*(1-p*) + eps)) >= 2 / (beta sqrt(1 + 4 eps)),

with equality only at p* = 1/2 (p(1-p) <= 1/4). So the ball must have radius at least d = |p* - p_ref| > 0, and the
hypothesis can hold, for some delta, exactly when

    max over p in [p* - d, p* + d] (clipped to [0, 1]) of |h'(p)| < 1,

with h' from Proposition 1 (:func:`grpo_nb.dynamics.map.h_prime`). Where it holds, Banach's estimate
|p_n - p*| <= L^n d (L the maximum above) must hold along the orbit from p_ref: :func:`theorem4_hypothesis_grid`
checks that too, so a wrong condition (one that ignores the gap d, say) is caught by the orbits that do not converge.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logit

from grpo_nb.dynamics.fixed_points import fixed_points_grid
from grpo_nb.dynamics.map import h_prime, iterate_logit
from grpo_nb.dynamics.regimes import Regime, regime_map
from grpo_nb.report import Table
from grpo_nb.validation import check_map_params, check_positive_int

__all__ = ["Theorem4Hypothesis", "contraction_on_ball", "hypothesis_table", "theorem4_hypothesis_grid"]


def contraction_on_ball(p_star: float, p_ref: float, beta: float, eps: float, *, n_grid: int = 2001) -> float:
    """max |h'(p)| over the closed ball of radius |p* - p_ref| around p*, clipped to [0, 1] (``n_grid`` sample points
    including both ends and p_ref itself). Below 1 exactly when Theorem 4's hypothesis can hold for this p*."""
    d = abs(p_star - p_ref)
    lo, hi = max(0.0, p_star - d), min(1.0, p_star + d)
    p = np.append(np.linspace(lo, hi, n_grid), p_ref)
    if eps == 0:  # h' is defined on (0, 1) only (Remark 1)
        p = p[(p > 0) & (p < 1)]
    return float(np.max(np.abs(h_prime(p, p_ref, beta, eps))))


@dataclass(frozen=True)
class Theorem4Hypothesis:
    """Over a (p_ref, beta) grid at one eps (arrays of the broadcast shape, per fixed point on a last axis of 3).

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
    p_ref: object,
    beta: object,
    eps: float,
    *,
    n: int = 60,
    n_ball: int = 2001,
    condition: Callable[[float, float, float, float, float], float] | None = None,
) -> Theorem4Hypothesis:
    """Where Theorem 4's hypothesis can hold on the broadcast (p_ref, beta) grid at one eps (see module docstring).

    ``condition(p_star, p_ref, beta, eps)`` returns the contraction constant L on the ball that Theorem 4 needs
    (default :func:`contraction_on_ball`); a different one (one that ignores the gap, say) can be passed to see Banach's
    estimate fail on the orbits.
    """
    p_ref, beta, eps_arr = check_map_params(p_ref, beta, eps, broadcast=True)
    n = check_positive_int("n", n)
    eps = float(eps_arr.flat[0])
    condition = condition or (lambda ps, pr, b, e: contraction_on_ball(ps, pr, b, e, n_grid=n_ball))
    grid = fixed_points_grid(p_ref, beta, eps)
    has = ~np.isnan(grid.logits)
    a = logit(p_ref)
    gap_ratio = np.where(has, (grid.logits - a[..., None]) * beta[..., None] * np.sqrt(1 + 4 * eps) / 2, np.nan)
    contraction = np.full(grid.logits.shape, np.nan)
    for idx in zip(*np.nonzero(has & grid.stable), strict=True):
        contraction[idx] = condition(float(expit(grid.logits[idx])), float(p_ref[idx[:-1]]), float(beta[idx[:-1]]), eps)
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


def hypothesis_table(p_refs: Sequence[float], betas: Sequence[float], eps: float) -> tuple[Table, dict[str, object]]:
    """Per prompt: where on the beta grid Theorem 4's hypothesis fails for every fixed point, and where the orbit from
    p_ref does not converge to a fixed point (:func:`grpo_nb.dynamics.regimes.regime_map`: a cycle or chaos).

    Returns the table and the verdicts: ``implies`` (wherever the hypothesis holds, the orbit converges),
    ``banach_ok`` (Banach's estimate along those orbits), ``fails_but_converges`` (grid points where the orbit converges
    although the hypothesis holds for no fixed point), ``holds`` and ``converges`` (boolean arrays, prompt x beta).
    """
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
    headers = ["p_ref", "β where Theorem 4's hypothesis fails", "β where the orbit does not converge",
               "grid β: fails, yet converges"]  # fmt: skip
    verdicts = {
        "implies": bool(converges[holds].all()),
        "banach_ok": hyp.banach_ok,
        "fails_but_converges": int((~holds & converges).sum()),
        "holds": holds,
        "converges": converges,
    }
    return Table(headers, rows, ".3g"), verdicts
