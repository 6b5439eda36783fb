"""A checked identity: the expressions a derivation produced, and whether the claim holds.

Every function of :mod:`grpo_nb.symbolic` returns one (or a list) of these, so a chapter can
show the derivation *and* assert it, and a test can feed a wrong expression and see it rejected.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

__all__ = ["Identity", "check_equal"]


@dataclass(frozen=True)
class Identity:
    """``lhs == rhs`` (or ``lhs <relation> rhs``) with the simplified difference as evidence."""

    name: str
    lhs: sp.Expr
    rhs: sp.Expr
    holds: bool
    residual: sp.Expr | None = None
    relation: str = "=="
    notes: str = ""
    extra: dict = field(default_factory=dict)

    def _repr_markdown_(self) -> str:
        mark = "holds" if self.holds else "FAILS"
        return (
            f"**{self.name}** ({mark}): $${sp.latex(self.lhs)} \\;{_latex_rel(self.relation)}\\; {sp.latex(self.rhs)}$$"
        )


def _latex_rel(relation: str) -> str:
    return {"==": "=", "<=": "\\le", "<": "<", ">=": "\\ge", ">": ">", "undefined": "\\ \\text{and}\\ "}.get(
        relation, relation
    )


def check_equal(name: str, lhs: sp.Expr, rhs: sp.Expr, *, notes: str = "", **simplify_kwargs) -> Identity:
    """Identity whose check is ``simplify(lhs - rhs) == 0``."""
    residual = sp.simplify(sp.sympify(lhs) - sp.sympify(rhs), **simplify_kwargs)
    return Identity(name=name, lhs=lhs, rhs=rhs, holds=bool(residual == 0), residual=residual, notes=notes)
