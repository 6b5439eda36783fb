"""Remark 2 of paper §4: conditions on beta hold per prompt; a statement uniform over prompts needs their supremum.

Per prompt q (success probability p_ref(q) under pi_ref), Theorem 4's condition beta > B(p*) (Lemma 1) is read at
the fixed point the orbit from p_ref starts next to, the lowest one. :func:`per_prompt_bounds` finds, on a beta grid,
where that fixed point is unstable (|h'(p*)| >= 1); the per-prompt lower bound beta_q is the largest such beta (0 if
none), and the uniform bound over a set of prompts is max_q beta_q.

An a-priori bound needs no prompt at all: B(p) = v sqrt(1 - 4v) / (2 (v + eps)^{3/2}) with v = p(1-p) is below
v / (2 (v + eps)^{3/2}), whose maximum over v (at v = 2 eps) is 1/(3^{3/2} sqrt(eps)); so every fixed point of every
prompt is stable once beta >= 1/(3^{3/2} sqrt(eps)). With eps = 0 the bound is infinite: B(p) = sqrt(1 - 4v)/(2 sqrt v)
grows without bound as v -> 0, and the per-prompt bounds grow as p_ref -> 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grpo_nb.dynamics.fixed_points import fixed_points_grid
from grpo_nb.report import Table
from grpo_nb.validation import check_beta, check_eps, check_p_ref

__all__ = ["PerPromptBounds", "per_prompt_bounds", "prompt_free_bound"]


def prompt_free_bound(eps: float) -> float:
    """1/(3^{3/2} sqrt(eps)): above this beta every fixed point of every prompt is stable (+inf for eps = 0)."""
    eps = float(check_eps(eps))
    return float("inf") if eps == 0 else float(1.0 / (3**1.5 * np.sqrt(eps)))


@dataclass(frozen=True)
class PerPromptBounds:
    """Per prompt: beta_q (largest grid beta where the lowest fixed point is unstable; 0 if none), the smallest such
    beta (NaN if none), and whether the unstable betas form one unbroken run of the grid; the uniform bound."""

    p_ref: np.ndarray
    beta_q: np.ndarray
    beta_from: np.ndarray
    one_interval: np.ndarray
    uniform: float
    worst_prompt: float

    def table(self, every: int = 1) -> Table:
        """Every ``every``-th prompt: p_ref, where its lowest fixed point is unstable, beta_q."""
        rows = [
            [p, "never" if b == 0 else f"[{lo:.3g}, {b:.3g}]", b]
            for p, lo, b in zip(self.p_ref[::every], self.beta_from[::every], self.beta_q[::every], strict=True)
        ]
        return Table(["p_ref", "β where the lowest fixed point is unstable", "per-prompt bound β_q"], rows, ".3g")


def per_prompt_bounds(p_refs: object, betas: object, eps: float) -> PerPromptBounds:
    """Remark 2 on a set of prompts: the per-prompt lower bounds beta_q on the beta grid, and their max (see module)."""
    p = np.atleast_1d(check_p_ref(p_refs)).astype(float)
    b = np.atleast_1d(check_beta(betas)).astype(float)
    if p.ndim != 1 or b.ndim != 1 or not (np.diff(b) > 0).all():
        raise ValueError("p_refs and betas must be 1-D, betas increasing; valid: 1-D arrays, 0 < betas strictly rising")
    grid = fixed_points_grid(p[:, None], b[None, :], float(check_eps(eps)))
    unstable = (grid.counts > 0) & (np.abs(grid.slopes[..., 0]) >= 1)
    beta_q = np.zeros(p.size)
    beta_from = np.full(p.size, np.nan)
    one = np.ones(p.size, dtype=bool)
    for i, row in enumerate(unstable):
        idx = np.nonzero(row)[0]
        if idx.size:
            beta_q[i], beta_from[i] = b[idx[-1]], b[idx[0]]
            one[i] = bool((np.diff(idx) == 1).all())
    k = int(np.argmax(beta_q))
    return PerPromptBounds(p, beta_q, beta_from, one, float(beta_q[k]), float(p[k]))
