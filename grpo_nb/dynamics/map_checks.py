"""The policy-dynamics chapter's numerical checks of paper §3, each returning its table and the values its asserts need.

* :func:`sign_change_counts`: a brute-force count of the roots of g(z) - z on a fine grid, to compare with the
  number of fixed points :func:`grpo_nb.dynamics.fixed_points.fixed_points_grid` finds.
* :func:`top_fixed_points`: the highest fixed point of h for several (p_ref, beta, eps), against the cap
  logit h(1) = logit p_ref + 1/(beta sqrt(eps)).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.special import expit, logit

from grpo_nb.dynamics.fixed_points import fixed_points
from grpo_nb.dynamics.map import logit_h, logit_map, logit_map_cap, logit_map_margin
from grpo_nb.report import Table
from grpo_nb.validation import check_map_params, check_positive_int

__all__ = ["sign_change_counts", "top_fixed_points"]


def sign_change_counts(p_ref: object, beta: object, eps: float, n_grid: int = 4001) -> np.ndarray:
    """Sign changes of F(z) = g(z) - z on ``n_grid`` points of [min(g(0), 0) - 1, logit p_ref + 1/(beta sqrt eps) + 1].

    Every fixed point lies in that interval (g's minimum is g(0), its supremum the cap), so the count is a lower
    bound on the number of fixed points that does not use the monotone brackets of ``fixed_points_grid``.
    Broadcast over (p_ref, beta); eps > 0 scalar.
    """
    p_ref, beta, eps_arr = check_map_params(p_ref, beta, eps, broadcast=True)
    if not (eps_arr > 0).all():
        raise ValueError(f"eps={eps!r} is out of range; valid range is eps > 0 (the interval's top is finite)")
    n_grid = check_positive_int("n_grid", n_grid, minimum=2)
    a, b, e = (x[..., None] for x in (logit(p_ref), beta, eps_arr))
    g0 = a + logit_map_margin(b, e)
    top = logit_map_cap(a, b, e) + 1
    s = np.linspace(0.0, 1.0, n_grid)
    z = np.minimum(g0, 0) - 1 + (top - np.minimum(g0, 0) + 1) * s
    f = logit_map(z, a, b, e) - z
    return np.sum(np.sign(f[..., 1:]) != np.sign(f[..., :-1]), axis=-1)


def top_fixed_points(cases: Sequence[tuple[float, float, float]]) -> tuple[Table, list[dict]]:
    """For each (p_ref, beta, eps): logit h(1) (the cap), the top fixed point's logit, -log10(1 - p*), slope,
    stability, and whether p*(1 - p*) < eps (the fixed point "next to 1", where the smoothing dominates)."""
    rows, facts = [], []
    for p_ref, beta, eps in cases:
        top = fixed_points(p_ref, beta, eps)[-1]
        cap = float(logit_map_cap(logit(p_ref), beta, eps))
        logit_h1 = float(logit_h(1.0, p_ref, beta, eps))
        near_one = bool(expit(top.logit) * expit(-top.logit) < eps)
        minus_log10_gap = np.logaddexp(0.0, top.logit) / np.log(10)  # -log10(1 - p*) = log10(1 + e^{z*})
        rows.append([p_ref, beta, eps, f"{logit_h1:.6g}", f"{top.logit:.6g}", f"{minus_log10_gap:.4g}",
                     f"{top.slope:.3g}", top.stable, near_one])  # fmt: skip
        facts.append({"cap": cap, "logit_h1": logit_h1, "top": top, "near_one": near_one})
    headers = ["p_ref", "β", "ε", "logit h(1)", "logit of top p*", "−log10(1 − p*)", "h'(p*)", "stable", "p*(1−p*) < ε"]
    return Table(headers, rows), facts
