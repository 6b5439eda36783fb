"""The errata of §3 of Mroueh (2025) v1, the dynamics of the success probability: Remark 1 (eps = 0) and the
reading of Fig. 2 that p* = 1 is almost always a fixed point.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from grpo_nb.constants import PAPER_EPS
from grpo_nb.dynamics.fixed_points import fixed_points
from grpo_nb.dynamics.map import logit_h
from grpo_nb.symbolic.errata_rows.record import Erratum, _all, _numeric
from grpo_nb.symbolic.identity import Identity, check_equal
from grpo_nb.symbolic.policy_dynamics import remark1_discontinuity

__all__ = ["rows"]


def _remark1() -> Erratum:
    items = remark1_discontinuity()
    no_fixed_point = Identity(
        name="eps = 0, p_ref = 1/2, beta = 0.1: no fixed point in (0, 1)",
        lhs=sp.Integer(len(fixed_points(0.5, 0.1, 0.0))),
        rhs=sp.Integer(0),
        holds=len(fixed_points(0.5, 0.1, 0.0)) == 0,
    )
    return Erratum(
        "Remark 1",
        "with ε = 0, h is no longer continuous at 0 and 1, and fixed points in [0, 1] are not guaranteed",
        "with ε = 0 the formula is undefined at p = 0, 1 and may have no fixed point in (0, 1); its one-sided "
        "limits there are 1, so its continuous extension has h(0) = h(1) = 1 and the fixed point p = 1",
        "statement",
        _all(
            "limits at 0+ and 1-, undefined end points, and an example without interior fixed point",
            [*items, no_fixed_point],
        ),
        None,
        "policy_dynamics",
    )


def _p_star_one() -> Erratum:
    a = sp.Symbol("a", real=True)
    beta, eps = sp.symbols("beta varepsilon", positive=True)
    p_ref = 1 / (1 + sp.exp(-a))
    h_at_one = 1 / (1 + (1 - p_ref) / p_ref * sp.exp(-1 / (beta * sp.sqrt(eps))))  # Eq. (8) at p = 1 (v = 0)
    gap = sp.simplify(1 - h_at_one)
    grid = np.meshgrid(np.geomspace(1e-9, 1 - 1e-9, 9), np.geomspace(1e-3, 1e3, 9), [1e-8, PAPER_EPS, 1e-2, 1.0])
    finite = np.isfinite(logit_h(1.0, *grid))
    interior = fixed_points(0.3, 2.0, 1e-2)
    corrected = _all(
        "h(1) < 1 for eps > 0, and an example without a fixed point near 1",
        [
            Identity("1 - h(1) > 0 (eps > 0)", gap, sp.Integer(0), bool(gap.is_positive), relation=">"),
            _numeric(
                "grid of (p_ref, beta, eps): points with logit h(1) finite",
                finite.sum(),
                finite.size,
                bool(finite.all()),
            ),
            _numeric(
                "p_ref = 0.3, beta = 2, eps = 1e-2: largest fixed point",
                interior[-1].p,
                0.99,
                len(interior) == 1 and interior[-1].p < 0.99,
                relation="<",
            ),
        ],
    )
    return Erratum(
        "§3, after Proposition 1 (reading Fig. 2)",
        "p* = 1 is almost always a fixed point",
        "for ε > 0, h(1) = σ(logit p_ref + 1/(β√ε)) < 1, so p = 1 is never a fixed point; there is often a fixed "
        "point next to 1, with logit ≈ logit p_ref + 1/(β√ε), but not always (p_ref = 0.3, β = 2, ε = 10⁻²: the "
        "only fixed point is interior). With ε = 0, 1 is a fixed point of the continuous extension only",
        "statement",
        corrected,
        check_equal("h(1) = 1", h_at_one, sp.Integer(1)),
        "policy_dynamics",
    )


def rows() -> list[Erratum]:
    """The rows of §3, in the paper's order: Remark 1, then p* = 1 after Proposition 1."""
    return [_remark1(), _p_star_one()]
