"""The analyses of the chapter "Hard prompts: bifurcations, cycles and chaos" (``book/hard_prompts.md``): cycles,
period doubling and chaos of Eq. (8) for small p_ref; the section of the chapter that uses each is named in brackets.

In logit coordinates the recursion of Theorem 2 is z_n = g(z_{n-1}), g(z) = a + 1/(beta sqrt(v(z) + eps)),
a = logit p_ref (:mod:`grpo_nb.dynamics.map`). Each function here runs one analysis of the chapter over that map
and returns its table rows together with the numbers the chapter asserts (errors, margins, extreme values), so the
claim stays visible and checked on the page. Nothing is asserted here: a function reports, the chapter decides.

* :func:`invariant_interval_excess` ("The recursion in logit coordinates is a unimodal map"): g maps its bounded
  interval I into itself;
* :func:`monotone_after_first_step` ("Why a fixed point below 1/2 turns into a cycle, and why easy prompts never
  cycle"): the monotone orbits of easy prompts (p_ref >= 1/2);
* :func:`cycle_location_table` ("Where the cycles live"): where the attracting cycles of
  :func:`grpo_nb.dynamics.cycle_geometry.cycle_location_survey` lie, as the chapter's table;
* :func:`two_cycle_check` ('The paper's "divergent" run is a 2-cycle') and :func:`attractor_report` (there, and for
  the period-3 window in "Where chaos occurs at eps = 1e-5"): a cycle found by iteration, checked against g and
  against the fixed-point solver of :mod:`grpo_nb.dynamics.fixed_points` (Lemma 1's slope);
* :func:`diagram_summary`, :func:`lower_fixed_point_slope`, :func:`escape_beta` ("Bifurcation diagrams over beta",
  "Where chaos occurs at eps = 1e-5", "Feigenbaum's constant"): the bifurcation diagrams of
  :mod:`grpo_nb.dynamics.bifurcation`, read and cross-checked;
* :func:`cascade_check` ("Where the cycles appear: the period-doubling cascade") and :func:`feigenbaum_summary`
  ("Feigenbaum's constant"): the period-doubling cascade and Feigenbaum's constant;
* :func:`chaos_check`, :func:`confirm_chaos` ("Is it really chaos? A check in high precision"): chaos confirmed in
  high precision (:mod:`grpo_nb.dynamics.high_precision`), against the standard error of a finite-time exponent
  (:func:`grpo_nb.dynamics.orbits.finite_time_exponent_se`);
* :func:`finite_group_summary`, :func:`fixed_point_branch` and :func:`swing_window` ("What it means for training"):
  the recursion with a finite group of G samples, the fixed-point branch above the first doubling point, and the
  window of beta in which the orbit from p_ref swings (a cycle or chaos) instead of converging.

The negative tests replace ``logit_map`` in this module with a wrong map and see the checks fail.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logit
from tqdm.auto import tqdm

from grpo_nb.dynamics.bifurcation import (
    FEIGENBAUM_DELTA,
    BifurcationDiagram,
    accumulation_point,
    critical_orbit_logit,
    doubling_betas,
    feigenbaum_ratios,
    finite_group_orbit,
    superstable_betas,
)
from grpo_nb.dynamics.cycle_geometry import CycleLocationSurvey
from grpo_nb.dynamics.fixed_points import FixedPointGrid, fixed_points_grid
from grpo_nb.dynamics.high_precision import (
    SeparationResult,
    mp_lyapunov,
    renormalised_separation_rate,
    separation_test,
)
from grpo_nb.dynamics.map import iterate_logit, log_abs_logit_map_slope, logit_map, logit_map_cap
from grpo_nb.dynamics.orbits import OrbitClass, OrbitKind, attractor, finite_time_exponent_se, orbit_kind
from grpo_nb.dynamics.uniform_beta import prompt_beta_bound
from grpo_nb.report import Table
from grpo_nb.validation import check_map_params, check_open_interval, check_positive_int

__all__ = [
    "AttractorReport",
    "Cascade",
    "ChaosCheck",
    "ChaosSamples",
    "DiagramSummary",
    "FeigenbaumSummary",
    "FiniteGroupSummary",
    "FixedPointBranch",
    "SwingWindow",
    "TwoCycleCheck",
    "attractor_report",
    "cascade_check",
    "chaos_check",
    "confirm_chaos",
    "cycle_location_table",
    "diagram_summary",
    "escape_beta",
    "feigenbaum_summary",
    "finite_group_summary",
    "fixed_point_branch",
    "invariant_interval_excess",
    "lower_fixed_point_slope",
    "monotone_after_first_step",
    "swing_window",
    "two_cycle_check",
]


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


def _check_diagram(name: str, value: object) -> BifurcationDiagram:
    if not isinstance(value, BifurcationDiagram):
        raise ValueError(f"{name}={value!r} is not a BifurcationDiagram; valid input is bifurcation_diagram's output")
    return value


def _relative_gap(x: np.ndarray, y: np.ndarray) -> float:
    """max |x - y| / max(1, |y|): a distance of logits relative to the logit scale (0 for empty input)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    return float(np.max(np.abs(x - y) / np.maximum(1.0, np.abs(y)), initial=0.0))


# --------------------------------------------------------------------------------------------
# The shape of g
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# A cycle, checked
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# Bifurcation diagrams, read and cross-checked
# --------------------------------------------------------------------------------------------


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


@dataclass(frozen=True)
class FixedPointBranch:
    """The fixed-point branch of a diagram above beta_min (the first doubling point B_1).

    n_not_fixed: grid points above beta_min whose orbit is not a fixed point; max_increment: largest step of
    p* from one beta to the next (negative: p* falls as beta grows); min_gain: smallest p* - p_ref (positive:
    amplification, Theorem 3); row: p_ref, eps, beta_min, p* just above it, the largest beta, p* there.
    """

    n_not_fixed: int
    max_increment: float
    min_gain: float
    row: list


def fixed_point_branch(diagram: BifurcationDiagram, beta_min: float) -> FixedPointBranch:
    """Read the fixed point p* of the orbit from p_ref on the grid points of a diagram above ``beta_min`` (section
    "What it means for training")."""
    d = _check_diagram("diagram", diagram)
    beta_min = check_open_interval("beta_min", beta_min, lo=0.0, hi=np.inf)
    above = d.beta > beta_min
    if above.sum() < 2:
        raise ValueError(f"beta_min={beta_min!r} is out of range; valid: below the second largest beta of the diagram")
    p_star = expit(d.limit_logits[above, -1])
    return FixedPointBranch(
        n_not_fixed=int(np.sum(d.kind[above] != OrbitClass.FIXED_POINT)),
        max_increment=float(np.max(np.diff(p_star))),
        min_gain=float(np.min(p_star - d.p_ref)),
        row=[d.p_ref, d.eps, beta_min, p_star[0], d.beta[-1], p_star[-1]],
    )


# --------------------------------------------------------------------------------------------
# The cascade and Feigenbaum's constant
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cascade:
    """The period-doubling cascade of one (p_ref, eps): doubling points B_k and superstable points R_k.

    interleaved: B_1 > R_1 > B_2 > R_2 > ...; return_error: largest |g^{2^k}(0)| at R_k, k = 1..n_checked (0 at a
    superstable cycle); earliest_return: smallest |g^{2^j}(0)| at R_k over j < k, k = 1..n_checked (away from 0
    when the critical point does not return before 2^k steps); rows: k, the period born at B_k, B_k, R_k and
    B_k - B_{k+1}.
    """

    p_ref: float
    eps: float
    doubling: np.ndarray
    superstable: np.ndarray
    interleaved: bool
    return_error: float
    earliest_return: float
    rows: list[list]


def cascade_check(p_ref: object, eps: object, *, n_doublings: int = 9, n_checked: int = 6) -> Cascade:
    """Locate the cascade (:func:`superstable_betas`, :func:`doubling_betas`) and check R_1..R_{n_checked} (section
    "Where the cycles appear: the period-doubling cascade"; "Feigenbaum's constant" reads the same cascades)."""
    n_doublings = check_positive_int("n_doublings", n_doublings, minimum=2)
    n_checked = check_positive_int("n_checked", n_checked)
    r = superstable_betas(p_ref, eps, n_doublings=n_doublings)
    if r.size == 0:
        raise ValueError(
            f"p_ref={p_ref!r}, eps={eps!r} give no superstable 2-cycle; valid: a prompt whose cascade exists"
        )
    b = doubling_betas(p_ref, eps, r)
    p_ref, eps = float(p_ref), float(eps)
    ks = range(1, min(n_checked, r.size) + 1)
    error = max((abs(float(critical_orbit_logit(p_ref, r[k - 1], eps, n=2**k))) for k in ks), default=0.0)
    earliest = min(
        (abs(float(critical_orbit_logit(p_ref, r[k - 1], eps, n=2**j))) for k in ks for j in range(k)), default=np.inf
    )
    rows = [[k + 1, 2 ** (k + 1), b[k], r[k], b[k] - b[k + 1] if k + 1 < b.size else np.nan] for k in range(b.size)]
    interleaved = bool(np.all(b > r) and np.all(b[1:] < r[:-1]))
    return Cascade(p_ref, eps, b, r, interleaved, error, earliest, rows)


@dataclass(frozen=True)
class FeigenbaumSummary:
    """Ratios delta_k of every cascade (B and R sequences), their distance to Feigenbaum's delta, and a table.

    ratios: label -> delta_1, delta_2, ...; first_error / last_error: |delta_1 - delta| and |delta_last - delta|
    per sequence; rows: p_ref, eps, sequence, delta_1, delta_3, the last two ratios, :func:`accumulation_point`.
    """

    ratios: dict[str, np.ndarray]
    first_error: np.ndarray
    last_error: np.ndarray
    rows: list[list]


def _tex(x: float) -> str:
    """A power of ten as TeX (``10^{-4}``), any other number as ``format(x, "g")``."""
    mantissa, exponent = f"{x:.12e}".split("e")  # decimal digits, not log10: the same on every machine
    return f"10^{{{int(exponent)}}}" if float(mantissa) == 1.0 else f"{x:g}"


def feigenbaum_summary(cascades: Sequence[Cascade]) -> FeigenbaumSummary:
    """Feigenbaum ratios (:func:`feigenbaum_ratios`) of the B_k and R_k of each cascade (>= 5 points each) (section
    "Feigenbaum's constant")."""
    if not isinstance(cascades, Sequence) or not cascades or not all(isinstance(c, Cascade) for c in cascades):
        raise ValueError(f"cascades={cascades!r} is invalid; valid input is a non-empty list of cascade_check results")
    ratios, first, last, rows = {}, [], [], []
    for i, c in enumerate(cascades):
        for name, seq in (("B", c.doubling), ("R", c.superstable)):
            if seq.size < 5:
                raise ValueError(
                    f"cascades[{i}] has {seq.size} points {name}_k; valid: >= 5 (cascade_check with n_doublings >= 5)"
                )
            d = feigenbaum_ratios(seq)
            ratios[rf"${name}_k$, $p_{{\mathrm{{ref}}}} = {_tex(c.p_ref)}$, $\varepsilon = {_tex(c.eps)}$"] = d
            first.append(abs(d[0] - FEIGENBAUM_DELTA))
            last.append(abs(d[-1] - FEIGENBAUM_DELTA))
            rows.append([c.p_ref, c.eps, name, d[0], d[2], d[-2], d[-1], accumulation_point(seq)])
    return FeigenbaumSummary(ratios, np.array(first), np.array(last), rows)


# --------------------------------------------------------------------------------------------
# Chaos, confirmed in high precision
# --------------------------------------------------------------------------------------------


def _linearisation_error(res: SeparationResult) -> float:
    """Largest |log separation - linearised prediction| before each pair reaches the threshold (NaN if none does)."""
    gaps = [np.max(np.abs(res.log_separation[i, :m] - res.predicted[i, :m])) for i, m in enumerate(res.growth_steps)]
    gaps = [g for g, m in zip(gaps, res.growth_steps, strict=True) if m > 0]
    return float(max(gaps)) if gaps else float("nan")


@dataclass(frozen=True)
class ChaosCheck:
    """One chaotic (p_ref, beta, eps) in high precision against float64.

    kind: the float64 :func:`orbit_kind`; separation: pairs started 1e-30 apart (``dps`` digits);
    linearisation_error: see :func:`confirm_chaos`; precision_error: largest difference of the log separations at
    ``dps`` and ``dps_check`` digits up to the threshold; mp_lyapunov: the exponent with 40 digits;
    renormalised_rate: Benettin's rate over ``n_rate`` steps; rate_se: the standard error of an ``n_rate``-step
    exponent on this attractor (batch means of log|g'| along the float64 orbit): how far two finite-time rates
    can honestly be apart; rows: one table row of those rates.
    """

    kind: OrbitKind
    separation: SeparationResult
    linearisation_error: float
    precision_error: float
    mp_lyapunov: float
    renormalised_rate: float
    rate_se: float
    rows: list[list]


def chaos_check(
    p_ref: object,
    beta: object,
    eps: object,
    *,
    n_pairs: int = 8,
    dps: int = 60,
    dps_check: int = 100,
    n_rate: int = 3000,
) -> ChaosCheck:
    """Separation of nearby orbits at ``dps`` and ``dps_check`` digits, the 40-digit exponent and Benettin's rate,
    with the standard error of an ``n_rate``-step exponent (section "Is it really chaos? A check in high
    precision")."""
    kind = orbit_kind(p_ref, beta, eps)
    res = separation_test(p_ref, beta, eps, n_pairs=n_pairs, dps=dps)
    res_hi = separation_test(p_ref, beta, eps, n_pairs=n_pairs, dps=dps_check)
    lam_mp = mp_lyapunov(p_ref, beta, eps, n=n_rate, dps=40)
    rate = renormalised_separation_rate(p_ref, beta, eps, n=n_rate)
    se = finite_time_exponent_se(p_ref, beta, eps, n=n_rate)
    upto = [slice(0, m + 1) for m in res.growth_steps if m > 0]
    precision = max(
        (np.max(np.abs(res_hi.log_separation[i, s] - res.log_separation[i, s])) for i, s in enumerate(upto)),
        default=np.nan,
    )
    steps = f"{res.growth_steps.min()} - {res.growth_steps.max()}"
    rows = [[kind.lyapunov, lam_mp, res.mean_rate, rate, se, steps]]
    return ChaosCheck(kind, res, _linearisation_error(res), float(precision), lam_mp, rate, se, rows)


@dataclass(frozen=True)
class ChaosSamples:
    """Chaotic grid points sampled from diagrams and checked in high precision, one entry per sample.

    min_growth_steps: fewest steps any pair needed from 1e-30 to 1e-6 (-1 if one never got there);
    linearisation_error: largest gap between the log separation and the linearised prediction before 1e-6;
    lyapunov: the diagram's 2048-step exponent; lyapunov_long: float64 exponent over ``n_long`` steps;
    rate: Benettin's rate with 60 digits over ``n_rate`` steps; rows: the table of the chapter.
    """

    min_growth_steps: np.ndarray
    linearisation_error: np.ndarray
    lyapunov: np.ndarray
    lyapunov_long: np.ndarray
    rate: np.ndarray
    rows: list[list]


def confirm_chaos(
    diagrams: Sequence[BifurcationDiagram],
    *,
    quantiles: Sequence[float] = (0.2, 0.5, 0.8),
    lyapunov_min: float = 0.05,
    n_pairs: int = 4,
    n_rate: int = 3000,
    n_long: int = 20000,
    progress: bool = False,
) -> ChaosSamples:
    """At the ``quantiles`` of each diagram's chaotic grid values with exponent > ``lyapunov_min``, follow
    ``n_pairs`` pairs started 1e-30 apart with 60 digits for 3 log(1e24)/lambda + 50 steps, and compare Benettin's
    60-digit rate with the float64 exponent averaged over ``n_long`` steps. ``progress`` shows a tqdm bar (section
    "Is it really chaos? A check in high precision")."""
    if isinstance(diagrams, BifurcationDiagram) or not isinstance(diagrams, Sequence) or not diagrams:
        raise ValueError(f"diagrams={diagrams!r} is invalid; valid input is a non-empty list of BifurcationDiagram")
    q = np.asarray(quantiles, dtype=float)
    if q.ndim != 1 or q.size == 0 or not np.all((q >= 0) & (q <= 1)):
        raise ValueError(f"quantiles={quantiles!r} is out of range; valid: a non-empty list of values in [0, 1]")
    lyapunov_min = check_open_interval("lyapunov_min", lyapunov_min, lo=0.0, hi=np.inf)
    n_pairs, n_rate, n_long = (
        check_positive_int(k, v) for k, v in (("n_pairs", n_pairs), ("n_rate", n_rate), ("n_long", n_long))
    )
    cols = {k: [] for k in ("growth", "lin", "lam", "long", "rate")}
    rows = []
    for i, d in enumerate(tqdm(diagrams, desc="mpmath checks", disable=not progress)):
        _check_diagram(f"diagrams[{i}]", d)
        idx = np.flatnonzero((d.kind == OrbitClass.CHAOTIC) & (d.lyapunov > lyapunov_min))
        if idx.size == 0:
            raise ValueError(f"diagrams[{i}] has no chaotic beta with exponent > {lyapunov_min}; valid: a chaotic one")
        for j in idx[np.round(np.quantile(np.arange(idx.size), q)).astype(int)]:
            beta, lam = float(d.beta[j]), float(d.lyapunov[j])
            res = separation_test(d.p_ref, beta, d.eps, n_pairs=n_pairs, n=int(3 * np.log(1e24) / lam) + 50)
            rate = renormalised_separation_rate(d.p_ref, beta, d.eps, n=n_rate)
            lam_long = orbit_kind(d.p_ref, beta, d.eps, n_lyapunov=n_long).lyapunov
            for k, v in zip(
                cols, (res.growth_steps.min(), _linearisation_error(res), lam, lam_long, rate), strict=True
            ):
                cols[k].append(v)
            rows.append([d.p_ref, d.eps, beta, lam, lam_long, rate, int(res.growth_steps.max())])
    return ChaosSamples(*(np.array(v) for v in cols.values()), rows=rows)


# --------------------------------------------------------------------------------------------
# Finite groups
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FiniteGroupSummary:
    """The recursion with group estimates K/G (:func:`finite_group_orbit`) for several G, and the exact one.

    orbits: label (mathtext) -> p_0..p_n ("exact recursion ($G = \\infty$)", "$G = 16$", ...); per G after
    ``transient`` steps: no_signal: fraction of groups with K = 0 or K = G; alternating: fraction of steps that
    reverse the previous one (up-down); median_high: median of the values above the geometric mean of the exact
    attractor's extremes (NaN if none); rows: those three per G, then the exact recursion's.
    """

    orbits: dict[str, np.ndarray]
    no_signal: np.ndarray
    alternating: np.ndarray
    median_high: np.ndarray
    rows: list[list]


def _alternation(p: np.ndarray) -> float:
    steps = np.sign(np.diff(p))
    return float(np.mean(steps[1:] * steps[:-1] < 0))


def finite_group_summary(
    p_ref: object, beta: object, eps: object, *, groups: Sequence[int], n: int, seed: int = 0, transient: int = 20
) -> FiniteGroupSummary:
    """Run :func:`finite_group_orbit` for each G in ``groups`` (same seed) next to the exact recursion (section "What
    it means for training").

    The orbit from p_ref of the exact recursion must have a finite limit set (a fixed point or cycle).
    """
    n = check_positive_int("n", n, minimum=2)
    transient = check_positive_int("transient", transient, minimum=0)
    if transient > n - 2:
        raise ValueError(f"transient={transient!r} is out of range; valid range is 0 <= transient <= n - 2 = {n - 2}")
    if isinstance(groups, (int, np.integer)) or not isinstance(groups, Sequence) or not groups:
        raise ValueError(f"groups={groups!r} is invalid; valid input is a non-empty list of group sizes G >= 2")
    cycle = np.array(attractor(p_ref, beta, eps))
    split = np.sqrt(cycle.min() * cycle.max())
    exact = expit(iterate_logit(p_ref, beta, eps, n=n))
    orbits = {r"exact recursion ($G = \infty$)": exact}
    no_signal, alternating, high, rows = [], [], [], []
    for G in groups:
        p_sim, empty = finite_group_orbit(p_ref, beta, eps, G=G, n=n, seed=seed)
        orbits[f"$G = {G}$"] = p_sim
        tail = p_sim[transient:]
        no_signal.append(empty.mean())
        alternating.append(_alternation(tail))
        high.append(np.median(tail[tail > split]) if np.any(tail > split) else np.nan)
        rows.append([str(G), no_signal[-1], alternating[-1], high[-1]])
    rows.append(["exact", 0.0, _alternation(exact[transient:]), np.median(cycle[cycle > split])])
    return FiniteGroupSummary(orbits, np.array(no_signal), np.array(alternating), np.array(high), rows)


@dataclass(frozen=True)
class SwingWindow:
    """Where on a diagram's beta grid the orbit from p_ref swings (is a cycle or chaotic) instead of converging.

    n_swing: grid betas with a swinging orbit; lowest_swing / highest_swing: their range (NaN if none); beta_1: the
    upper end of the prompt's interval of betas with an unstable lowest fixed point (Lemma 1), B_1, the first doubling
    point (0 if there is none); exit_beta: :func:`escape_beta`; n_below_exit / n_below_exit_near_one: grid betas
    below the exit, and how many of them end on the top fixed point (as :func:`escape_beta` reads it); n_below_b1:
    grid betas below B_1; row: p_ref, eps, B_1 (NaN if none), exit beta, the swinging range.
    """

    n_swing: int
    lowest_swing: float
    highest_swing: float
    beta_1: float
    exit_beta: float
    n_below_exit: int
    n_below_exit_near_one: int
    n_below_b1: int
    row: list


def swing_window(diagram: BifurcationDiagram) -> SwingWindow:
    """Read where the orbit from p_ref of a diagram swings, next to the prompt's unstable interval of beta
    (:func:`grpo_nb.dynamics.uniform_beta.prompt_beta_bound`) and its exit to p ~ 1 (section "What it means for
    training")."""
    d = _check_diagram("diagram", diagram)
    swing = d.kind != OrbitClass.FIXED_POINT
    bound = prompt_beta_bound(d.p_ref, d.eps)
    exit_beta = escape_beta(d)
    below = d.beta < exit_beta
    near_one = (d.kind == OrbitClass.FIXED_POINT) & (d.limit_logits[:, -1] > 1.0)  # escape_beta's default
    lo, hi = (float(d.beta[swing].min()), float(d.beta[swing].max())) if swing.any() else (np.nan, np.nan)
    window = f"{lo:.4g} - {hi:.4g}" if swing.any() else "none"
    return SwingWindow(
        n_swing=int(swing.sum()),
        lowest_swing=lo,
        highest_swing=hi,
        beta_1=float(bound.beta_q),
        exit_beta=exit_beta,
        n_below_exit=int(below.sum()),
        n_below_exit_near_one=int((below & near_one).sum()),
        n_below_b1=int(np.sum(d.beta < bound.beta_q)),
        row=[d.p_ref, d.eps, bound.beta_q if bound.beta_q > 0 else np.nan, exit_beta, window],
    )
