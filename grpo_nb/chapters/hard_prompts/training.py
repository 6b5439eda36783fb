"""Section "What it means for training" of the chapter "Hard prompts: bifurcations, cycles and chaos"
(``book/hard_prompts_training.md``): the recursion with a finite group of G samples (:func:`finite_group_summary`), the
fixed-point branch above the first doubling point (:func:`fixed_point_branch`), and the window of beta in which the
orbit from p_ref swings (a cycle or chaos) instead of converging (:func:`swing_window`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logit

from grpo_nb.chapters.hard_prompts.bifurcation_diagrams import _check_diagram, escape_beta
from grpo_nb.dynamics.bifurcation import BifurcationDiagram, finite_group_orbit
from grpo_nb.dynamics.map import iterate_logit
from grpo_nb.dynamics.orbits import OrbitClass, attractor, orbit_kind
from grpo_nb.dynamics.uniform_beta import prompt_beta_bound
from grpo_nb.validation import check_open_interval, check_positive_int

__all__ = [
    "EXIT_EDGE_TOL",
    "FiniteGroupSummary",
    "FixedPointBranch",
    "SwingWindow",
    "exit_edge",
    "finite_group_summary",
    "fixed_point_branch",
    "swing_window",
]


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
    point (0 if there is none); exit_beta: :func:`escape_beta`, the largest grid beta whose orbit ends next to p = 1;
    exit_edge: the beta between it and the lowest swinging grid beta at which the orbit starts to swing, bisected to
    ``EXIT_EDGE_TOL`` (:func:`exit_edge`; NaN without a swing above the exit); n_steady_inside: grid betas between
    exit_edge and B_1 whose orbit does not swing (0: the window is whole); n_below_exit / n_below_exit_near_one: grid
    betas below the exit, and how many of them end on the top fixed point (as :func:`escape_beta` reads it);
    n_below_b1: grid betas below B_1; row: p_ref, eps, B_1 (NaN if none), the exit edge, the swinging grid range.
    """

    n_swing: int
    lowest_swing: float
    highest_swing: float
    beta_1: float
    exit_beta: float
    exit_edge: float
    n_steady_inside: int
    n_below_exit: int
    n_below_exit_near_one: int
    n_below_b1: int
    row: list


#: how close :func:`exit_edge` brackets the beta at which the orbit from p_ref starts to swing
EXIT_EDGE_TOL = 1e-4


def _ends_next_to_one(p_ref: float, beta: float, eps: float, escape_logit: float = 1.0) -> bool:
    """Whether the orbit from p_ref converges to a fixed point above ``sigmoid(escape_logit)`` (:func:`escape_beta`'s
    reading of the exit to p ~ 1)."""
    if orbit_kind(p_ref, beta, eps).kind != "fixed_point":
        return False
    return bool(logit(attractor(p_ref, beta, eps)[0]) > escape_logit)


def exit_edge(p_ref: float, eps: float, *, below: float, above: float, tol: float = EXIT_EDGE_TOL) -> float:
    """The beta in [below, above] at which the orbit from p_ref stops ending next to p = 1, by bisection to ``tol``:
    the orbit must end next to 1 at ``below`` and not at ``above``. Returns the midpoint of the last bracket."""
    tol = check_open_interval("tol", tol, lo=0.0, hi=np.inf)
    if not (_ends_next_to_one(p_ref, below, eps) and not _ends_next_to_one(p_ref, above, eps)):
        raise ValueError(
            f"below={below!r}, above={above!r} is not a bracket; valid: the orbit from p_ref={p_ref!r} ends next to "
            "p = 1 at below and not at above"
        )
    while above - below > tol:
        mid = 0.5 * (below + above)
        below, above = (mid, above) if _ends_next_to_one(p_ref, mid, eps) else (below, mid)
    return 0.5 * (below + above)


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
    bracketed = swing.any() and np.isfinite(exit_beta) and exit_beta < lo  # else the window has no lower edge here
    edge = exit_edge(d.p_ref, d.eps, below=exit_beta, above=lo) if bracketed else np.nan
    inside = (d.beta > edge) & (d.beta < bound.beta_q) if swing.any() else np.zeros_like(swing)
    return SwingWindow(
        n_swing=int(swing.sum()),
        lowest_swing=lo,
        highest_swing=hi,
        beta_1=float(bound.beta_q),
        exit_beta=exit_beta,
        exit_edge=edge,
        n_steady_inside=int((inside & ~swing).sum()),
        n_below_exit=int(below.sum()),
        n_below_exit_near_one=int((below & near_one).sum()),
        n_below_b1=int(np.sum(d.beta < bound.beta_q)),
        row=[d.p_ref, d.eps, bound.beta_q if bound.beta_q > 0 else np.nan, edge, window],
    )


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
