"""Section "The paper's Fig. 3: where condition (2) holds" of the chapter "Amplification and convergence"
(``book/amplification_theorem3.md``, paper §4).

* :func:`condition2_failure_region`: where Theorem 3's printed condition (2) fails, as beta and p_ref ranges;
* :func:`condition2_small_beta_growth`: the exponent with which its left-hand side grows as beta -> 0, fitted and
  compared with a claimed exponent;
* :func:`condition2_everywhere`: whether it holds for every (beta, p_ref) at an eps, because the smallest left-hand
  side over beta exceeds the largest right-hand side over p_ref.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grpo_nb.dynamics.paper_bounds import (
    prompt_free_beta_bound,
    theorem3_condition,
    theorem3_condition2_log_lhs,
    theorem4_beta_bound,
)
from grpo_nb.report import Table, bound

__all__ = [
    "Condition2Everywhere",
    "Condition2Extremes",
    "Condition2Failures",
    "ExponentFit",
    "FailureRegion",
    "condition2_everywhere",
    "condition2_failure_region",
    "condition2_small_beta_growth",
]


@dataclass(frozen=True)
class Condition2Failures:
    """Where condition (2) fails at one eps: how many grid points, the beta and p_ref ranges they span (None where
    nothing fails), and whether it fails at the smallest or the largest beta of the grid."""

    n_failing: int
    beta_range: tuple[float, float] | None
    p_ref_range: tuple[float, float] | None
    fails_at_a_beta_end: bool


@dataclass(frozen=True)
class FailureRegion:
    """:func:`condition2_failure_region`'s table and one :class:`Condition2Failures` per eps (keyed by eps)."""

    table: Table
    by_eps: dict[float, Condition2Failures]


def condition2_failure_region(p_ref: np.ndarray, beta: np.ndarray, eps_values: Sequence[float]) -> FailureRegion:
    """Where condition (2) of Theorem 3 fails on the (p_ref, beta) grid (1-D each), per eps (section "Fig. 3: where
    condition (2) holds").

    Returns a :class:`FailureRegion`: the table and, per eps, the number of failures, their beta and p_ref ranges and
    whether one sits at an end of the beta range.
    """
    p_ref, beta = np.asarray(p_ref, dtype=float), np.asarray(beta, dtype=float)
    rows, region = [], {}
    for eps in eps_values:
        fails = ~theorem3_condition(p_ref[:, None], beta[None, :], eps)
        if fails.any():
            b_idx, p_idx = np.nonzero(fails.any(axis=0))[0], np.nonzero(fails.any(axis=1))[0]
            b_rng = (float(beta[b_idx[0]]), float(beta[b_idx[-1]]))
            p_rng = (float(p_ref[p_idx[0]]), float(p_ref[p_idx[-1]]))
            rows.append(
                [
                    eps,
                    f"{fails.sum()}",
                    f"[{b_rng[0]:.3g}, {b_rng[1]:.3g}]",
                    f"[{p_rng[0]:.4g}, {1 - p_rng[1]:.2g} from 1]",
                ]
            )
        else:
            b_rng = p_rng = None
            rows.append([eps, "0", "none", "none"])
        at_end = bool(fails[:, 0].any() or fails[:, -1].any())
        region[eps] = Condition2Failures(int(fails.sum()), b_rng, p_rng, at_end)
    headers = ["ε", "failing grid points", "β range of the failures", r"$p_{\mathrm{ref}}$ range of the failures"]
    return FailureRegion(Table(headers, rows), region)


@dataclass(frozen=True)
class ExponentFit:
    """:func:`condition2_small_beta_growth`'s table, the fitted and the claimed exponent per eps, and per eps whether
    they agree (the verdict)."""

    table: Table
    fitted: np.ndarray
    claimed: np.ndarray
    matches: list[bool]


def condition2_small_beta_growth(
    eps_values: Sequence[float],
    claimed: Sequence[float],
    *,
    beta: np.ndarray | None = None,
    rtol: float = 1e-6,
) -> ExponentFit:
    """How fast cosh^2(1/(2 beta sqrt(1/4 + eps))) in condition (2) grows as beta -> 0: a fitted exponent (section
    "The paper's Fig. 3: where condition (2) holds", which also feeds it the wrong exponent 1 and sees every verdict
    fail).

    For each eps, the slope of log cosh^2 = log LHS - log beta (:func:`theorem3_condition2_log_lhs`) against 1/beta
    is fitted by least squares on ``beta`` (default 30 values in [1e-3, 10^-1.5]) and compared with the ``claimed``
    exponent for that eps (cosh^2 ~ e^{claimed/beta}). Derivation: cosh^2 x = e^{2x}(1 + e^{-2x})^2 / 4, so
    log cosh^2 x = 2x - log 4 + O(e^{-2x}) with 2x = 1/(beta sqrt(1/4 + eps)): the exponent is 1/sqrt(1/4 + eps),
    2 at eps = 0. The verdict per eps: |fitted - claimed| <= rtol |claimed|.
    """
    beta = np.logspace(-3, -1.5, 30) if beta is None else np.asarray(beta, dtype=float)
    rows, fits, ok = [], [], []
    if len(claimed) != len(eps_values):
        raise ValueError(f"claimed has {len(claimed)} values; valid is one per eps ({len(eps_values)})")
    for eps, exponent in zip(eps_values, claimed, strict=True):
        log_cosh2 = theorem3_condition2_log_lhs(beta, eps) - np.log(beta)
        fitted = float(np.polyfit(1.0 / beta, log_cosh2, 1)[0])
        fits.append(fitted)
        ok.append(bool(abs(fitted - exponent) <= rtol * abs(exponent)))
        rows.append([eps, f"{fitted:.9f}", f"{exponent:.9f}", bound(abs(fitted / exponent - 1), rtol)])
    headers = ["ε", "fitted exponent (slope of log cosh² against 1/β)", "claimed exponent", "relative gap"]
    return ExponentFit(Table(headers, rows), np.array(fits), np.asarray(claimed, dtype=float), ok)


@dataclass(frozen=True)
class Condition2Extremes:
    """Condition (2)'s two sides at one eps: the smallest left-hand side over beta and the beta where it sits, the
    largest right-hand side over p_ref, the prompt-free cap 1/(3^{3/2} sqrt(eps)) above it, and the verdict
    ``holds_everywhere`` (min LHS >= max RHS: condition (2) holds for every (beta, p_ref))."""

    lhs_min: float
    beta_at_lhs_min: float
    rhs_max: float
    cap: float
    holds_everywhere: bool


@dataclass(frozen=True)
class Condition2Everywhere:
    """:func:`condition2_everywhere`'s table and one :class:`Condition2Extremes` per eps (keyed by eps)."""

    table: Table
    by_eps: dict[float, Condition2Extremes]


def condition2_everywhere(eps_values: Sequence[float], n_grid: int = 200001) -> Condition2Everywhere:
    """Per eps: min over beta of condition (2)'s left-hand side against max over p_ref of its right-hand side (section
    "The paper's Fig. 3: where condition (2) holds").

    The right-hand side is Theorem 4's B at p_ref, B(p) = v sqrt(1 - 4v) / (2 (v + eps)^{3/2}) with v = p(1-p), so
    it never exceeds 1/(3^{3/2} sqrt(eps)) (the maximum over v of v/(2 (v + eps)^{3/2}), at v = 2 eps). The left-hand
    side beta cosh^2(c/beta), c = 1/(2 sqrt(1/4 + eps)), is c cosh^2(u)/u with u = c/beta; it has one minimum, and it
    is at least beta. Hence condition (2) holds for every (beta, p_ref) where min LHS >= max RHS, and for every p_ref
    once beta >= 1/(3^{3/2} sqrt(eps)). Both extremes are taken on dense grids (``n_grid`` values of u in (0, 10] and of
    p_ref in (1/2, 1)); returned per eps as a :class:`Condition2Extremes`.
    """
    c_over_beta = np.linspace(0, 10, n_grid)[1:]
    p = np.linspace(0.5, 1, n_grid)[1:-1]
    rows, facts = [], {}
    for eps in eps_values:
        beta = 1.0 / (2.0 * np.sqrt(0.25 + eps)) / c_over_beta
        lhs = np.exp(theorem3_condition2_log_lhs(beta, eps))
        rhs_max = float(theorem4_beta_bound(p, eps).max())
        cap = prompt_free_beta_bound(eps)
        e = Condition2Extremes(float(lhs.min()), float(beta[np.argmin(lhs)]), rhs_max, cap, bool(lhs.min() >= rhs_max))
        facts[eps] = e
        rows.append([eps, e.lhs_min, e.beta_at_lhs_min, rhs_max, cap, e.holds_everywhere])
    headers = ["ε", r"min over β of $\beta\cosh^2(\cdot)$", "at β", r"max over $p_{\mathrm{ref}}$ of the right side",
               r"$1/(3^{3/2}\sqrt{\varepsilon})$", "(2) holds everywhere"]  # fmt: skip
    return Condition2Everywhere(Table(headers, rows, ".4g"), facts)
