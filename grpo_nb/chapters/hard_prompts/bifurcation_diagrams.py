"""Section "Bifurcation diagrams over beta" of the chapter "Hard prompts: bifurcations, cycles and chaos"
(``book/hard_prompts_chaos.md``), and the section after it, "Where chaos occurs at eps = 1e-5": the bifurcation diagrams
of :mod:`grpo_nb.dynamics.bifurcation`, read and cross-checked with the fixed points and slopes of Lemma 1's solver
(:func:`diagram_summary`, :func:`lower_fixed_point_slope`, :func:`escape_beta`; "Feigenbaum's constant" reads
:func:`escape_beta` too).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grpo_nb.chapters.hard_prompts.two_cycle import _relative_gap
from grpo_nb.dynamics.bifurcation import BifurcationDiagram
from grpo_nb.dynamics.fixed_points import FixedPointGrid, fixed_points_grid
from grpo_nb.dynamics.orbits import OrbitClass
from grpo_nb.validation import check_open_interval

__all__ = ["DiagramSummary", "diagram_summary", "escape_beta", "lower_fixed_point_slope"]


def _check_diagram(name: str, value: object) -> BifurcationDiagram:
    """``value`` itself if it is a :class:`BifurcationDiagram`, else a ValueError naming ``name``."""
    if not isinstance(value, BifurcationDiagram):
        raise ValueError(f"{name}={value!r} is not a BifurcationDiagram; valid input is bifurcation_diagram's output")
    return value


def lower_fixed_point_slope(p_ref: object, beta: object, eps: object) -> np.ndarray:
    """Lemma 1's slope h'(p*) at the fixed point below p = 1/2, over a broadcast grid; +inf where there is none
    (section "Where chaos occurs at eps = 1e-5", at p_ref = 1e-2; :func:`diagram_summary` reads the same slope).

    It is negative (g decreases on z < 0); the fixed point loses stability by period doubling where it drops
    below -1.
    """
    return _lower_slope(fixed_points_grid(p_ref, beta, eps))


def _lower_slope(fp: FixedPointGrid) -> np.ndarray:
    """The slope of the (at most one) fixed point with logit < 0 on each grid point; +inf where there is none."""
    return np.where(fp.logits < 0, fp.slopes, np.inf).min(axis=-1)


def escape_beta(diagram: BifurcationDiagram, *, escape_logit: float = 1.0) -> float:
    """The largest beta of a diagram whose orbit from p_ref ends at the fixed point near p = 1 (NaN if none)
    (sections "Where chaos occurs at eps = 1e-5" and "Feigenbaum's constant"; a column of :func:`diagram_summary`).

    Such an orbit is a fixed point whose last logit exceeds ``escape_logit``: by default p > sigmoid(1) = 0.73, where
    the only attracting fixed point is the top one (its logit is about logit p_ref + 1/(beta sqrt eps), near 8 at
    eps = 1e-2, beta = 0.57, far above 20 at eps = 1e-5; the middle fixed point is unstable).
    """
    d = _check_diagram("diagram", diagram)
    escape_logit = check_open_interval("escape_logit", escape_logit, lo=0.0, hi=np.inf)
    up = d.beta[(d.kind == OrbitClass.FIXED_POINT) & (d.limit_logits[:, -1] > escape_logit)]
    return float(up.max()) if up.size else float("nan")


@dataclass(frozen=True)
class DiagramSummary:
    """Each diagram checked against the fixed-point solver, one entry per diagram, plus the summary table.

    fixed_offset: largest distance from a fixed-point limit at a moderate logit to the solver's nearest fixed
    point, relative to the logit scale (0 if none); unstable_fixed: how many of those nearest fixed points are
    unstable; lower_slope_max: largest slope of the fixed point below 1/2 where the orbit is a cycle or chaotic
    (-inf if none); chaotic_lyapunov_min / cycle_lyapunov_max: smallest Lyapunov exponent of a chaotic orbit
    (+inf if none) and largest of a cycle (-inf if none); rows: p_ref, eps, the largest beta with a 2-cycle, the
    longest period, the chaotic beta range, :func:`escape_beta`.
    """

    fixed_offset: np.ndarray
    unstable_fixed: np.ndarray
    lower_slope_max: np.ndarray
    chaotic_lyapunov_min: np.ndarray
    cycle_lyapunov_max: np.ndarray
    rows: list[list]


def diagram_summary(diagrams: Sequence[BifurcationDiagram], *, moderate_logit: float = 50.0) -> DiagramSummary:
    """Cross-check every diagram with the fixed points and slopes that Lemma 1's solver computes (section
    "Bifurcation diagrams over beta").

    A fixed-point limit below ``moderate_logit`` must be a stable fixed point of the solver; a cycle or chaos
    needs the fixed point below 1/2 to have slope < -1; chaos has a positive exponent, a cycle a negative one.
    """
    if isinstance(diagrams, BifurcationDiagram) or not isinstance(diagrams, Sequence) or not diagrams:
        raise ValueError(f"diagrams={diagrams!r} is invalid; valid input is a non-empty list of BifurcationDiagram")
    moderate_logit = check_open_interval("moderate_logit", moderate_logit, lo=0.0, hi=np.inf)
    out = {k: [] for k in ("offset", "unstable", "slope", "chaos", "cycle")}
    rows = []
    for i, d in enumerate(diagrams):
        _check_diagram(f"diagrams[{i}]", d)
        fp = fixed_points_grid(d.p_ref, d.beta, d.eps)
        last = d.limit_logits[:, -1]
        fixed = d.kind == OrbitClass.FIXED_POINT
        moderate = fixed & (last < moderate_logit)
        nearest = (np.arange(d.beta.size), np.nanargmin(np.abs(fp.logits - last[:, None]), axis=1))
        out["offset"].append(_relative_gap(fp.logits[nearest][moderate], last[moderate]))
        out["unstable"].append(int(np.sum(~fp.stable[nearest][moderate])))
        out["slope"].append(np.max(_lower_slope(fp)[~fixed], initial=-np.inf))
        chaotic, cycle = d.kind == OrbitClass.CHAOTIC, d.kind == OrbitClass.CYCLE
        out["chaos"].append(np.min(d.lyapunov[chaotic], initial=np.inf))
        out["cycle"].append(np.max(d.lyapunov[cycle], initial=-np.inf))
        two = d.beta[d.period == 2]
        band = d.beta[chaotic]
        chaos_range = f"{band.min():.3f} - {band.max():.3f}" if band.size else "none"
        rows.append([d.p_ref, d.eps, two.max() if two.size else np.nan, d.period.max(), chaos_range, escape_beta(d)])
    return DiagramSummary(*(np.array(v) for v in out.values()), rows=rows)
