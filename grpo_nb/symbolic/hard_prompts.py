"""Theorem 2's recursion in logit coordinates is a smooth unimodal map of an interval (beyond paper §4).

With z = logit p and a = logit p_ref, Eq. (8) reads z_n = g(z_{n-1}) with

    g(z) = a + 1 / (beta sqrt(v(z) + eps)),    v(z) = e^z / (1 + e^z)^2 = p(1 - p).

Four identities make g a valley with a single minimum, bounded above, which is what the hard-prompts chapter
builds on (period doubling and chaos are properties of such maps):

* g is even, g(-z) = g(z);
* g'(z) = v(z) tanh(z/2) / (2 beta (v(z) + eps)^{3/2}) (Proposition 1 in logit coordinates), with the sign of z;
* g(0) = a + 1/(beta sqrt(1/4 + eps)), the minimum;
* lim_{z -> inf} g(z) = a + 1/(beta sqrt(eps)), the supremum.

Beyond those, the derivation of g from Theorem 2's h itself, and the sympy steps behind the hard-prompts chapter's
threshold for cycles:

* :func:`logit_map_from_theorem2`: logit h(sigmoid z) for Eq. (8)'s h, as printed, simplifies to g;
* :func:`logit_map_branch_signs`: g' < 0 on z < 0 and g' > 0 on z > 0 (sympy decides both signs);
* :func:`no_cycle_threshold`: g(0) = 0 solved for a gives p_c = sigmoid(-1/(beta sqrt(1/4 + eps)));
* :func:`critical_curvature`, :func:`flip_gap_leading_order`: g(z) = g(0) + k z^2 + O(z^4) with
  k = 1/(32 beta (1/4 + eps)^{3/2}), and on that quadratic model the fixed point below 0 has slope -1 when
  g(0) = -3/(4k), so the period-doubling point lies 24 beta (1/4 + eps)^{3/2} below logit p_c to leading order.

Each function takes an optional ``claimed`` formula (an expression in :data:`Z`, :data:`A`, :data:`BETA`,
:data:`EPS`) in place of the right-hand side, so a test can feed a wrong one and see the check fail.
"""

from __future__ import annotations

from dataclasses import replace

import sympy as sp

from grpo_nb.dynamics.bifurcation import logit_map_sympy
from grpo_nb.symbolic.identity import Identity, check_equal

__all__ = [
    "A",
    "critical_curvature",
    "flip_gap_leading_order",
    "logit_map_branch_signs",
    "logit_map_from_theorem2",
    "no_cycle_threshold",
    "theorem2_h",
    "threshold_steps",
    "BETA",
    "EPS",
    "G",
    "Z",
    "logit_map_derivative",
    "logit_map_even",
    "logit_map_minimum",
    "logit_map_supremum",
    "logit_map_unimodal",
]

Z, A, BETA, EPS, G = logit_map_sympy()
_V = sp.exp(Z) / (1 + sp.exp(Z)) ** 2  # p(1 - p) at p = sigmoid(z)


def logit_map_even(g: sp.Expr | None = None) -> Identity:
    """g(-z) = g(z) for the logit map :data:`G` (or for ``g``, another expression in :data:`Z`)."""
    g = G if g is None else sp.sympify(g)
    return check_equal("g is even", g.subs(Z, -Z), g)


def logit_map_derivative(claimed: sp.Expr | None = None) -> Identity:
    """Proposition 1 in logit form: dg/dz = v tanh(z/2) / (2 beta (v + eps)^{3/2}) (or ``claimed``).

    The difference is simplified with tanh written in exponentials (sympy does not cancel it otherwise); the
    identity keeps the formula as stated for display.
    """
    rhs = _V * sp.tanh(Z / 2) / (2 * BETA * (_V + EPS) ** sp.Rational(3, 2)) if claimed is None else claimed
    rhs = sp.sympify(rhs)
    return replace(check_equal("g'(z)", sp.diff(G, Z), rhs.rewrite(sp.exp)), rhs=rhs)


def logit_map_minimum(claimed: sp.Expr | None = None) -> Identity:
    """The value at the critical point z = 0 (p = 1/2): g(0) = a + 1/(beta sqrt(1/4 + eps)) (or ``claimed``)."""
    rhs = A + 1 / (BETA * sp.sqrt(sp.Rational(1, 4) + EPS)) if claimed is None else claimed
    return check_equal("g(0)", G.subs(Z, 0), rhs)


def logit_map_supremum(claimed: sp.Expr | None = None) -> Identity:
    """The bound approached as z -> inf (p -> 1): lim g = a + 1/(beta sqrt(eps)) (or ``claimed``)."""
    rhs = A + 1 / (BETA * sp.sqrt(EPS)) if claimed is None else claimed
    return check_equal("sup g", sp.limit(G, Z, sp.oo), rhs)


def logit_map_unimodal() -> list[Identity]:
    """The four identities above, in the order the chapter states them."""
    return [logit_map_even(), logit_map_derivative(), logit_map_minimum(), logit_map_supremum()]


def theorem2_h(eps_factor: int = 1) -> sp.Expr:
    """Eq. (8) as printed, h(p) = 1/(1 + (1-p_ref)/p_ref exp(-1/(beta sqrt(p(1-p) + eps)))), at p = sigmoid(z),
    p_ref = sigmoid(a). ``eps_factor`` scales eps (a test feeds 2 to perturb the formula)."""
    p, p_ref = 1 / (1 + sp.exp(-Z)), 1 / (1 + sp.exp(-A))
    return 1 / (1 + (1 - p_ref) / p_ref * sp.exp(-1 / (BETA * sp.sqrt(p * (1 - p) + eps_factor * EPS))))


def logit_map_from_theorem2(h: sp.Expr | None = None) -> Identity:
    """log(h/(1-h)) of Theorem 2's h (or ``h``, an expression in Z, A, BETA, EPS) equals the logit map g."""
    h = theorem2_h() if h is None else sp.sympify(h)
    derived = sp.expand_log(sp.log(sp.simplify(h / (1 - h))), force=True)
    ident = check_equal("logit h(σ(z)) = g(z)", derived, G)
    if not ident.holds:  # sympy may leave exponentials unsimplified: retry written in exponentials
        ident = replace(ident, holds=sp.simplify((derived - G).rewrite(sp.exp)) == 0)
    return replace(ident, lhs=sp.log(sp.Symbol("h") / (1 - sp.Symbol("h"))))


def logit_map_branch_signs(g: sp.Expr | None = None) -> list[Identity]:
    """g'(z) > 0 for z > 0 and g'(z) < 0 for z < 0, for :data:`G` (or ``g``, an expression in Z).

    z = +-log(1 + w) with w > 0 covers both branches; sympy decides the sign of the factored derivative.
    """
    g = G if g is None else sp.sympify(g)
    w = sp.Symbol("w", positive=True)
    out = []
    for name, z_of_w, relation in (("z > 0", sp.log(1 + w), ">"), ("z < 0", -sp.log(1 + w), "<")):
        d = sp.factor(sp.simplify(sp.diff(g, Z).rewrite(sp.exp).subs(Z, z_of_w)))
        holds = bool(d.is_positive) if relation == ">" else bool(d.is_negative)
        out.append(
            Identity(name=f"g'(z) on {name}, z = ±log(1+w)", lhs=d, rhs=sp.Integer(0), holds=holds, relation=relation)
        )
    return out


def no_cycle_threshold(claimed: sp.Expr | None = None) -> Identity:
    """g(0) = 0 solved for a (sympy), against p_c = 1/(1 + exp(1/(beta sqrt(1/4 + eps)))) (or ``claimed``).

    g(0) grows with a (it is a plus a constant), so g(0) >= 0 exactly when p_ref >= p_c.
    """
    rhs = 1 / (1 + sp.exp(1 / (BETA * sp.sqrt(sp.Rational(1, 4) + EPS)))) if claimed is None else claimed
    (a_c,) = sp.solve(sp.Eq(G.subs(Z, 0), 0), A)
    derived = 1 / (1 + sp.exp(-a_c))
    return check_equal("no-cycle threshold, g(0) = 0", derived, sp.sympify(rhs))


def critical_curvature(claimed: sp.Expr | None = None) -> Identity:
    """k = g''(0)/2 = 1/(32 beta (1/4 + eps)^{3/2}) (or ``claimed``), from sympy's series of g at z = 0."""
    rhs = 1 / (32 * BETA * (sp.Rational(1, 4) + EPS) ** sp.Rational(3, 2)) if claimed is None else claimed
    k = sp.series(G, Z, 0, 3).removeO().coeff(Z, 2)
    return check_equal("k = g''(0)/2", k, sp.sympify(rhs))


def flip_gap_leading_order(claimed: sp.Expr | None = None) -> Identity:
    """On q(z) = m + k z^2 (g to second order, k from :func:`critical_curvature`'s series), the fixed point below 0
    has slope -1 when m = -3/(4k): sympy solves q(z) = z, q'(z) = -1. The gap 3/(4k) in a = logit p_ref between
    g(0) = 0 and that point is 24 beta (1/4 + eps)^{3/2} (or ``claimed``)."""
    rhs = 24 * BETA * (sp.Rational(1, 4) + EPS) ** sp.Rational(3, 2) if claimed is None else claimed
    m, z, k = sp.symbols("m z k", real=True)
    (sol,) = sp.solve([m + k * z**2 - z, 2 * k * z + 1], [m, z], dict=True)
    k_g = sp.series(G, Z, 0, 3).removeO().coeff(Z, 2)
    return check_equal("gap to the first doubling", -sol[m].subs(k, k_g), sp.sympify(rhs))


def threshold_steps() -> list[Identity]:
    """The sympy steps of the no-cycle threshold and of its distance to the first period doubling."""
    return [*logit_map_branch_signs(), no_cycle_threshold(), critical_curvature(), flip_gap_leading_order()]
