"""Section "Is it really chaos? A check in high precision" of the chapter "Hard prompts: bifurcations, cycles and chaos"
(``book/hard_prompts_cascade.md``): chaos confirmed in high precision (:mod:`grpo_nb.dynamics.high_precision`), against
the standard error of a finite-time exponent (:func:`grpo_nb.dynamics.orbits.finite_time_exponent_se`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from tqdm.auto import tqdm

from grpo_nb.chapters.hard_prompts.bifurcation_diagrams import _check_diagram
from grpo_nb.dynamics.bifurcation import BifurcationDiagram
from grpo_nb.dynamics.high_precision import (
    SeparationResult,
    mp_lyapunov,
    renormalised_separation_rate,
    separation_test,
)
from grpo_nb.dynamics.orbits import OrbitClass, OrbitKind, finite_time_exponent_se, orbit_kind
from grpo_nb.validation import check_open_interval, check_positive_int

__all__ = ["ChaosCheck", "ChaosSamples", "chaos_check", "confirm_chaos"]


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
