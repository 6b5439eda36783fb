"""The symbols and the kinds of check that the lemmas and Theorem 3 of §4 (App. B) build on.

:data:`Z`, :data:`X` and :data:`A_POS` are the free variables of Lemmas 3 and 4 (z and x real, a > 0). A sign is
decided by sympy's assumptions once 0 < p < 1 and 0 < p_ref < 1 are made explicit (p = u/(1+u), p_ref = 1/(1+A) with
u, A > 0); an inequality that sympy cannot decide is checked on a grid and reported with its smallest margin; an
identity between hyperbolic and exponential forms is decided after rewriting both sides with exp.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import sympy as sp

from grpo_nb.symbolic.expressions import OPEN_UNIT_SUBS
from grpo_nb.symbolic.identity import Identity, check_sign, differs_at_a_point

__all__ = ["A_POS", "X", "Z"]

Z, X = sp.symbols("z x", real=True)
A_POS = sp.Symbol("a", positive=True)
_HALF = sp.Rational(1, 2)
_S = sp.Symbol("s", positive=True)
Claimed = Mapping[str, sp.Expr] | sp.Expr | None


def _is_positive(expr: sp.Expr) -> bool:
    """Sign of ``expr`` decided by sympy's assumptions, with 0 < p < 1 and 0 < p_ref < 1 made explicit."""
    return check_sign("positive", expr, ">", subs=OPEN_UNIT_SUBS).holds


def _grid_identity(
    name: str, margin: float, notes: str, tol: float = 0.0, strict: bool = False, **extra: object
) -> Identity:
    """An inequality checked on a grid: holds when the smallest margin is >= -tol (> 0 when ``strict``)."""
    ok = margin > 0 if strict else margin >= -tol
    return Identity(
        name=name,
        lhs=sp.Float(margin),
        rhs=sp.Float(0 if strict else -tol),
        holds=bool(np.isfinite(margin) and ok),
        relation=">" if strict else ">=",
        notes=notes,
        extra={"min_margin": margin, **extra},
    )


def _unclaimed(ident: Identity) -> Identity:
    """A check of another function shown inside this one: its printed formula is injected there, not here."""
    extra = {k: v for k, v in ident.extra.items() if k not in ("claim", "claimed")}
    return Identity(**{**ident.__dict__, "extra": extra})


def _exp_check(name: str, lhs: sp.Expr, rhs: sp.Expr, claim: str = "") -> Identity:
    """lhs == rhs after rewriting hyperbolic functions with exp."""
    diff = sp.sympify(lhs) - sp.sympify(rhs)
    residual = diff if differs_at_a_point(diff) else sp.simplify(diff.rewrite(sp.exp))
    extra = {"claim": claim, "claimed": rhs} if claim else {}
    return Identity(name=name, lhs=lhs, rhs=rhs, holds=bool(residual == 0), residual=residual, extra=extra)
