"""Section "What each normalisation climbs" of the chapter "The GRPO family" (``book/grpo_family.md``).

* :func:`finite_group_climbs`: the gap s_G(p) of GRPO's and Dr. GRPO's group advantages at a finite group size G, by
  enumerating every reward vector of the group, against the G -> infinity gaps of :mod:`grpo_nb.family.objectives`
  and the signal retention rho_G of :func:`grpo_nb.ustat.finite_group.signal_retention`;
* :func:`regime_survey`: where each recursion converges or cycles.

A check reads the module-level name of the book's statement when it runs (:data:`STATED_SHARE`), so a test that
replaces it by a wrong one (monkeypatch) sees the check fail.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from grpo_nb import family
from grpo_nb.constants import PAPER_EPS
from grpo_nb.dynamics.regimes import Regime, regime_grid, regime_map
from grpo_nb.report import Table
from grpo_nb.ustat.finite_group import signal_retention
from grpo_nb.variants import Variant

__all__ = ["FiniteGroupClimbs", "RegimeSurvey", "STATED_SHARE", "STATED_TRL_SHARE", "finite_group_climbs",
           "finite_group_gap", "regime_survey"]  # fmt: skip

#: The book's statement: the share of the G -> infinity slope 1/sqrt(p(1-p)+eps) that GRPO keeps at TRL's default
#: G = 8, per p (to two digits).
STATED_SHARE = {0.01: 0.26, 0.1: 0.70}
#: The same with TRL's group advantage (Bessel-corrected std plus 1e-4 outside the root).
STATED_TRL_SHARE = {0.01: 0.24, 0.1: 0.65}
SHARE_G = 8
SHARE_TOL = 0.005  # the stated shares are rounded to two digits


def finite_group_gap(
    p: np.ndarray, G: int, name: str, *, eps: float | None = PAPER_EPS, form: str = "paper"
) -> np.ndarray:
    """s_G(p): the expected GRPO-type gradient of a group of G answers is s_G(p) grad p, with
    s_G = E[(1/G) sum_i A_i (r_i/p - (1 - r_i)/(1 - p))] over the 2^G reward vectors of the group (a success's
    score averages to grad p / p, a failure's to -grad p / (1 - p)); A_i by :func:`grpo_nb.family.advantage` in
    ``form`` "paper" (Eq. 4 on the group's p_hat) or "trl" (``eps`` None: TRL's own constant)."""
    p = np.asarray(p, dtype=float)
    groups = np.array(list(itertools.product((0.0, 1.0), repeat=G)))
    scaled = family.method(name).scaling not in family.UNSMOOTHED
    adv = family.advantage(name, groups, form=form, eps=eps) if scaled else family.advantage(name, groups)
    k = groups.sum(axis=1)
    prob = p[..., None] ** k * (1 - p[..., None]) ** (G - k)
    score = groups / p[..., None, None] - (1 - groups) / (1 - p[..., None, None])
    return np.sum(prob * np.mean(adv * score, axis=-1), axis=-1)


@dataclass(frozen=True)
class FiniteGroupClimbs:
    """GRPO's finite-group gap against its limit: ``table`` (share kept per G and p), ``route_gap`` (enumeration
    against rho_G s_inf), ``share`` and ``trl_share`` (at :data:`SHARE_G`, Eq. 4's and TRL's advantage; ``share_holds``:
    both as stated), ``g2_spread`` (how far s_2 is from constant over p),
    ``g2_ratio`` (s_2 of GRPO over Dr. GRPO's), ``dr_grpo_gap`` (Dr. GRPO's s_G against (G-1)/G)."""

    table: Table
    route_gap: float
    share: dict[float, float]
    trl_share: dict[float, float]
    share_holds: bool
    g2_spread: float
    g2_ratio: float
    dr_grpo_gap: float


def finite_group_climbs(eps: float = PAPER_EPS) -> FiniteGroupClimbs:
    """s_G(p) of GRPO and Dr. GRPO for G = 2, 4, 8, 16 on p = 0.005..0.995, by :func:`finite_group_gap`."""
    p = np.linspace(0.005, 0.995, 199)
    limit = family.gap(p, "std", eps)
    route, dr_gap, rows = 0.0, 0.0, []
    for G in (2, 4, 8, 16):
        s = finite_group_gap(p, G, "grpo", eps=eps)
        route = max(route, float(np.max(np.abs(s / limit - signal_retention(p, G, eps)))))
        dr_gap = max(dr_gap, float(np.max(np.abs(finite_group_gap(p, G, "dr_grpo") - (G - 1) / G))))
        rows.append([str(G), *(f"{float(finite_group_gap(q, G, 'grpo', eps=eps) / family.gap(q, 'std', eps)):.2f}"
                               for q in (0.01, 0.1, 0.3, 0.5))])  # fmt: skip
    share = {q: float(finite_group_gap(q, SHARE_G, "grpo", eps=eps) / family.gap(q, "std", eps)) for q in STATED_SHARE}
    trl = {
        q: float(finite_group_gap(q, SHARE_G, "grpo", eps=None, form="trl") / family.gap(q, "std", eps))
        for q in STATED_TRL_SHARE
    }
    holds = all(abs(share[q] - STATED_SHARE[q]) < SHARE_TOL for q in STATED_SHARE)
    holds &= all(abs(trl[q] - STATED_TRL_SHARE[q]) < SHARE_TOL for q in STATED_TRL_SHARE)
    s2 = finite_group_gap(p, 2, "grpo", eps=eps)
    g2_ratio = float(s2.mean() / finite_group_gap(np.array(0.3), 2, "dr_grpo"))
    table = Table(["$G$", *(f"share kept at $p = {q}$" for q in (0.01, 0.1, 0.3, 0.5))], rows)
    return FiniteGroupClimbs(table, route, share, trl, holds, float(np.ptp(s2) / s2.mean()), g2_ratio, dr_gap)


RECURSIONS = {"GRPO (std)": Variant(), "Dr. GRPO (mean only)": Variant("mean"),
              "successes only (log p)": family.SuccessOnlyRecursion()}  # fmt: skip


@dataclass(frozen=True)
class RegimeSurvey:
    """Regime counts per recursion on the 40 x 40 grid (eps = 1e-5) and the facts the section asserts."""

    table: Table
    cycles: dict[str, int]
    cycles_where_unstable: bool


def regime_survey(eps: float = PAPER_EPS) -> RegimeSurvey:
    """Where each recursion's orbit from p_ref goes, on :func:`grpo_nb.dynamics.regimes.regime_grid` (40 x 40)
    (section "What each normalisation climbs")."""
    p_ref, beta = regime_grid(40, 40)
    maps = {k: regime_map(p_ref, beta, eps, variant=v) for k, v in RECURSIONS.items()}
    rows = [[k, *(int((m.regime == r).sum()) for r in Regime)] for k, m in maps.items()]
    log_map = maps["successes only (log p)"]
    return RegimeSurvey(
        Table(["recursion", *(r.label for r in Regime)], rows),
        {k: int((m.regime == Regime.CYCLE).sum()) for k, m in maps.items()},
        bool(np.array_equal(log_map.regime == Regime.CYCLE, log_map.no_stable)),
    )
