"""Theorem 2's recursion in logit coordinates is a smooth unimodal map of an interval (beyond paper §4).

With z = logit p and a = logit p_ref, Eq. (8) reads z_n = g(z_{n-1}) with

    g(z) = a + 1 / (beta sqrt(v(z) + eps)),    v(z) = e^z / (1 + e^z)^2 = p(1 - p).

Four identities make g a valley with a single minimum, bounded above, which is what the hard-prompts chapter
builds on (period doubling and chaos are properties of such maps):

* g is even, g(-z) = g(z);
* g'(z) = v(z) tanh(z/2) / (2 beta (v(z) + eps)^{3/2}) (Proposition 1 in logit coordinates), with the sign of z;
* g(0) = a + 1/(beta sqrt(1/4 + eps)), the minimum;
* lim_{z -> inf} g(z) = a + 1/(beta sqrt(eps)), the supremum.

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
