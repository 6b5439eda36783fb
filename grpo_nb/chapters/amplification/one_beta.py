"""Section "Remark 2: one β for all prompts" of the chapter "Amplification and convergence"
(``book/amplification_beta.md``, paper §4).

* :func:`per_prompt_bounds`, :func:`uniform_beta_report`: the per-prompt lower bounds on beta read off a grid, beside
  the exact set of betas that are unsafe for some prompt (:mod:`grpo_nb.dynamics.uniform_beta`) and the prompt-free
  bound :func:`grpo_nb.dynamics.paper_bounds.prompt_free_beta_bound`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grpo_nb.dynamics.fixed_points import fixed_points, fixed_points_grid
from grpo_nb.dynamics.uniform_beta import (
    PUpThreshold,
    SafeBetas,
    SupremumBound,
    p_up_threshold,
    prompt_beta_bound,
    safe_betas,
    supremum_bound,
)
from grpo_nb.report import Table
from grpo_nb.validation import check_beta, check_eps, check_p_ref

__all__ = ["PerPromptBounds", "UniformBetaReport", "per_prompt_bounds", "uniform_beta_report"]


@dataclass(frozen=True)
class PerPromptBounds:
    """:func:`per_prompt_bounds` per prompt: beta_q (largest grid beta where the lowest fixed point is unstable; 0 if
    none), the smallest such beta (NaN if none), and whether the unstable betas form one unbroken run of the grid;
    the uniform bound max_q beta_q and the prompt that sets it."""

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
        return Table(
            [r"$p_{\mathrm{ref}}$", "β where the lowest fixed point is unstable", r"per-prompt bound $\beta_q$"],
            rows,
            ".3g",
        )


def per_prompt_bounds(p_refs: object, betas: object, eps: float) -> PerPromptBounds:
    """Remark 2 of paper §4 on a set of prompts (section "Remark 2: one β for all prompts"): conditions on beta hold
    per prompt, and a statement uniform over prompts needs their supremum.

    Per prompt (success probability p_ref under pi_ref), Theorem 4's condition beta > B(p*) (Lemma 1) is read at the
    fixed point the orbit from p_ref starts next to, the lowest one. On the beta grid ``betas`` (increasing) the
    per-prompt bound beta_q is the largest beta where that fixed point is unstable (|h'(p*)| >= 1; 0 if none; the betas
    below the unstable run are safe as well, so it is no lower bound on the safe betas), and the uniform bound over
    the prompts is max_q beta_q; it stays below
    :func:`grpo_nb.dynamics.paper_bounds.prompt_free_beta_bound` when eps > 0.
    """
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


@dataclass(frozen=True)
class UniformBetaReport:
    """:func:`uniform_beta_report`: the exact answer to Remark 2 (:mod:`grpo_nb.dynamics.uniform_beta`) next to the
    grid reading of :func:`per_prompt_bounds`, with what the page checks about the two."""

    grid: PerPromptBounds
    safe: SafeBetas
    supremum: SupremumBound
    threshold: PUpThreshold
    grid_worst_exact: float  #: the exact beta_q of the prompt that sets the grid's largest beta_q
    supremum_prompt_exact: float  #: the exact beta_q of the prompt whose lowest fixed point is B's maximiser
    hardest_slope_above: float  #: h' at the hardest prompt's lowest fixed point, at 1.01 x the unsafe interval's start

    @property
    def lower(self) -> float:
        return self.safe.unsafe[0][0]

    @property
    def upper(self) -> float:
        return self.safe.unsafe[0][1]

    def verdict(self) -> str:
        """One line of Markdown: the unsafe interval, the supremum and its prompt, the grid's reading, the threshold."""

        def tex(x: float) -> str:  # 1.99e-05 -> 1.99 \times 10^{-5}
            mantissa, exponent = f"{x:.3g}".split("e")
            return rf"{mantissa} \times 10^{{{int(exponent)}}}"

        sup, t = self.supremum, self.threshold
        return (
            rf"✓ unstable for some prompt exactly when $\beta$ lies in an open interval from about {self.lower:.5f} to "
            rf"{self.upper:.4f}; the supremum of "
            rf"the per-prompt bounds is $\max_p \mathcal B(p) = {sup.beta:.3f}$ at $p^* = {tex(sup.p_star)}$ (the "
            rf"prompt $p_{{\mathrm{{ref}}}} = {tex(sup.p_ref)}$), the grid's largest $\beta_q$ is "
            rf"{self.grid.uniform:.3f}; prompts above $p_{{\mathrm{{ref}}}} = {t.p_up:.5f}$ (the peak of "
            rf"$p_{{\mathrm{{up}}}}(\beta)$, at $\beta = {t.beta:.3f}$) need no bound"
        )


def uniform_beta_report(
    p_refs: object, betas: object, eps: float, *, p_lo: float = 1e-12, p_hi: float = 0.5
) -> UniformBetaReport:
    """Remark 2 of paper §4 (section "Remark 2: one β for all prompts"), exactly: the betas at which some prompt with
    p_ref in [p_lo, p_hi] has an unstable lowest fixed point (Theorem 4, Lemma 1), found by root finders, beside the
    per-prompt bounds of the prompts ``p_refs`` read off the grid ``betas``."""
    grid = per_prompt_bounds(p_refs, betas, eps)
    safe = safe_betas(eps, p_lo=p_lo, p_hi=p_hi)
    sup = supremum_bound(eps)
    hardest = fixed_points(p_lo, 1.01 * safe.unsafe[0][0], eps)[0] if safe.unsafe else None
    return UniformBetaReport(
        grid=grid,
        safe=safe,
        supremum=sup,
        threshold=p_up_threshold(eps),
        grid_worst_exact=prompt_beta_bound(grid.worst_prompt, eps).beta_q,
        supremum_prompt_exact=prompt_beta_bound(sup.p_ref, eps).beta_q,
        hardest_slope_above=float("nan") if hardest is None else hardest.slope,
    )
