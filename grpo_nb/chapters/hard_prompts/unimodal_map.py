"""Section "The recursion in logit coordinates is a unimodal map" of the chapter "Hard prompts: bifurcations, cycles
and chaos" (``book/hard_prompts_map.md``), with its subsections "Why a fixed point below 1/2 turns into a cycle, and why
easy prompts never cycle" and "Where the cycles live".

In logit coordinates the recursion of Theorem 2 is z_n = g(z_{n-1}), g(z) = a + 1/(beta sqrt(v(z) + eps)),
a = logit p_ref (:mod:`grpo_nb.dynamics.map`): g maps its bounded interval I into itself
(:func:`invariant_interval_excess`), the orbits of easy prompts (p_ref >= 1/2) are monotone
(:func:`monotone_after_first_step`), and :func:`cycle_location_table` shows where the attracting cycles of
:func:`grpo_nb.dynamics.cycle_geometry.cycle_location_survey` lie. The negative tests replace ``logit_map`` in this
module with a wrong map and see the checks fail.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy.special import logit

from grpo_nb.dynamics.cycle_geometry import CycleLocationSurvey
from grpo_nb.dynamics.map import iterate_logit, logit_map, logit_map_cap
from grpo_nb.report import Table
from grpo_nb.validation import check_map_params, check_open_interval, check_positive_int

__all__ = ["cycle_location_table", "invariant_interval_excess", "monotone_after_first_step"]


def invariant_interval_excess(p_ref: object, beta: object, eps: object, *, n_points: int = 201) -> float:
    """How far g leaves I = [g(0), a + 1/(beta sqrt(eps))], relative to the logit scale; <= 0 when g(I) is in I
    (section "The recursion in logit coordinates is a unimodal map").

    For every broadcast (p_ref, beta, eps) (eps > 0, where I is bounded), g is evaluated at ``n_points`` evenly
    spaced z of I; returns the largest of (g(0) - g(z)) / max(1, |z|) and (g(z) - sup) / max(1, |z|). Only
    rounding can make it positive, by about 1e-16.
    """
    p_ref, beta, eps = check_map_params(p_ref, beta, eps, broadcast=True)
    if np.any(eps == 0):
        raise ValueError("eps=0.0 is out of range here; valid range is eps > 0 (with eps = 0 I is unbounded)")
    n_points = check_positive_int("n_points", n_points, minimum=2)
    a = logit(p_ref)[..., None]
    beta, eps = beta[..., None], eps[..., None]
    lo = logit_map(0.0, a, beta, eps)
    hi = logit_map_cap(a, beta, eps)
    z = lo + (hi - lo) * np.linspace(0, 1, n_points)
    gz = logit_map(z, a, beta, eps)
    scale = np.maximum(1.0, np.abs(z))
    return float(max(np.max((lo - gz) / scale), np.max((gz - hi) / scale)))


def monotone_after_first_step(
    p_ref: object, beta: object, eps: object, *, n: int = 200, tol: float = 1e-12
) -> np.ndarray:
    """Whether the orbit z_1, ..., z_n of Eq. (8) is monotone (up or down, within ``tol``), per broadcast point
    (section "Why a fixed point below 1/2 turns into a cycle, and why easy prompts never cycle").

    For p_ref >= 1/2 the orbit stays where g is increasing (z > 0), so it is monotone from step 1 on.
    Returns a boolean array of the broadcast shape of (p_ref, beta, eps).
    """
    n = check_positive_int("n", n, minimum=2)
    tol = check_open_interval("tol", tol, lo=0.0, hi=1.0)
    steps = np.diff(iterate_logit(p_ref, beta, eps, n=n)[1:], axis=0)
    return (steps >= -tol).all(axis=0) | (steps <= tol).all(axis=0)


def cycle_location_table(surveys: Mapping[str, CycleLocationSurvey]) -> Table:
    """Where the attracting cycles lie (section "Where the cycles live"): one column per survey of
    :func:`grpo_nb.dynamics.cycle_geometry.cycle_location_survey`, headed by its key (Markdown)."""
    if not isinstance(surveys, Mapping) or not surveys:
        raise ValueError(f"surveys={surveys!r} is invalid; valid input is a non-empty dict label -> survey")
    for label, survey in surveys.items():
        if not isinstance(survey, CycleLocationSurvey):
            raise ValueError(f"surveys[{label!r}]={survey!r} is invalid; valid: a cycle_location_survey result")
    columns = list(surveys.values())
    rows = [
        ["attracting cycles found (grid points × starts)", *(s.n_cycles for s in columns)],
        ["… lowest point below $z_-$, highest above it", *(s.n_straddle for s in columns)],
        ["… entirely in $p < 1/2$", *(s.n_below_half for s in columns)],
        ["… their periods", *(", ".join(map(str, s.periods_below_half.tolist())) or "none" for s in columns)],
        [r"… of period $\ge 3$", *(s.n_long for s in columns)],
        [r"… of period $\ge 3$ with a point in $p > 1/2$", *(s.n_long_cross for s in columns)],
        ["orbits with no period up to the maximum (chaos or slow)", *(s.n_unresolved for s in columns)],
    ]
    return Table(["", *surveys], rows)
