"""Section 'The paper's "divergent" run is a 2-cycle' of the chapter "Hard prompts: bifurcations, cycles and chaos"
(``book/hard_prompts_map.md``): a cycle found by iteration, checked against g and against the fixed-point solver of
:mod:`grpo_nb.dynamics.fixed_points` (Lemma 1's slope); :func:`attractor_report` also serves the period-3 window of
"Where chaos occurs at eps = 1e-5". The negative tests replace ``logit_map`` in this module with a wrong map and see
the checks fail.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logit

from grpo_nb.dynamics.fixed_points import fixed_points_grid
from grpo_nb.dynamics.map import iterate_logit, log_abs_logit_map_slope, logit_map
from grpo_nb.dynamics.orbits import OrbitKind, attractor, orbit_kind
from grpo_nb.validation import check_map_params, check_open_interval, check_positive_int

__all__ = ["AttractorReport", "TwoCycleCheck", "attractor_report", "two_cycle_check"]


def _relative_gap(x: np.ndarray, y: np.ndarray) -> float:
    """max |x - y| / max(1, |y|): a distance of logits relative to the logit scale (0 for empty input)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    return float(np.max(np.abs(x - y) / np.maximum(1.0, np.abs(y)), initial=0.0))


@dataclass(frozen=True)
class AttractorReport:
    """The attractor of the orbit from p_ref, checked against g and against the fixed-point solver.

    kind: :func:`grpo_nb.dynamics.orbits.orbit_kind`; points / logits: the k points of the limit set in orbit
    order (:func:`grpo_nb.dynamics.orbits.attractor`); multiplier: |g'(z_1) ... g'(z_k)|; map_error: how far g
    moves each point from the next one, relative to the logit scale; orbit: logits z_0..z_n from p_ref;
    landing_error: distance of the last k orbit points to the limit set, relative to the logit scale;
    lower_fixed_logits / lower_fixed_slopes: the solver's fixed points below p = 1/2 and Lemma 1's slope there.
    """

    kind: OrbitKind
    points: tuple[float, ...]
    logits: np.ndarray
    multiplier: float
    map_error: float
    orbit: np.ndarray
    landing_error: float
    lower_fixed_logits: np.ndarray
    lower_fixed_slopes: np.ndarray


def attractor_report(p_ref: object, beta: object, eps: object, *, n: int = 400) -> AttractorReport:
    """Find the attractor of the orbit from p_ref (fixed point or cycle) and measure how well each claim holds
    (section "Where chaos occurs at eps = 1e-5", for the period-3 window; :func:`two_cycle_check` runs it twice).

    Scalars only. Raises :class:`grpo_nb.dynamics.orbits.ChaoticOrbitError` when the orbit has no finite limit set.
    """
    p_ref, beta, eps = (float(x) for x in check_map_params(p_ref, beta, eps, scalar=True))
    n = check_positive_int("n", n)
    kind = orbit_kind(p_ref, beta, eps)
    points = attractor(p_ref, beta, eps)
    z = logit(np.array(points))
    a = logit(p_ref)
    orbit = iterate_logit(p_ref, beta, eps, n=n)
    fp = fixed_points_grid(p_ref, beta, eps)
    lower = np.isfinite(fp.logits) & (fp.logits < 0)
    return AttractorReport(
        kind=kind,
        points=points,
        logits=z,
        multiplier=float(np.exp(np.sum(log_abs_logit_map_slope(z, beta, eps)))),
        map_error=_relative_gap(logit_map(z, a, beta, eps), np.roll(z, -1)),
        orbit=orbit,
        landing_error=_relative_gap(np.sort(orbit[-z.size :]), np.sort(z)),
        lower_fixed_logits=fp.logits[lower],
        lower_fixed_slopes=fp.slopes[lower],
    )


@dataclass(frozen=True)
class TwoCycleCheck:
    """The orbit at ``beta`` (a 2-cycle for the paper's Fig. 5 run) and at ``beta_stable``, with a table."""

    cycle: AttractorReport
    stable: AttractorReport
    rows: list[list]


def two_cycle_check(p_ref: object, beta: object, eps: object, *, beta_stable: float) -> TwoCycleCheck:
    """:func:`attractor_report` at ``beta`` (expected: a 2-cycle around an unstable fixed point) and at a larger
    ``beta_stable`` (expected: a stable fixed point), with the rows of the chapter's table (section 'The paper's
    "divergent" run is a 2-cycle'): the two cycle points, the fixed point between them, the cycle's multiplier, the
    stable fixed point."""
    beta_stable = check_open_interval("beta_stable", beta_stable, lo=0.0, hi=np.inf)
    cyc = attractor_report(p_ref, beta, eps)
    stable = attractor_report(p_ref, beta_stable, eps)
    if cyc.logits.size != 2 or cyc.lower_fixed_logits.size != 1 or stable.logits.size != 1:
        raise ValueError(
            f"beta={beta!r}, beta_stable={beta_stable!r} do not give a 2-cycle and a fixed point; valid: a beta "
            "below the first doubling point B_1 of p_ref and a beta_stable above it"
        )
    (p1, p2), (z1, z2), z_fix = cyc.points, cyc.logits, cyc.lower_fixed_logits[0]
    rows = [
        ["cycle point 1", p1, z1, "after a step from the high point"],
        ["cycle point 2", p2, z2, "after a step from the low point"],
        ["fixed point in between", expit(z_fix), z_fix, f"unstable: slope {cyc.lower_fixed_slopes[0]:.3f}"],
        [
            r"cycle multiplier $\lvert g'(z_1)\,g'(z_2)\rvert$",
            cyc.multiplier,
            np.nan,
            f"Lyapunov exponent {cyc.kind.lyapunov:.4f}",
        ],
        [
            rf"$\beta = {beta_stable:g}$ instead: stable fixed point",
            stable.points[0],
            stable.logits[0],
            f"Lyapunov exponent {stable.kind.lyapunov:.4f}",
        ],
    ]
    return TwoCycleCheck(cyc, stable, rows)
