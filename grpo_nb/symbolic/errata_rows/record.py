"""The record of one erratum and the ways its checks are combined.

An :class:`Erratum` holds where the slip is, what is printed, the correction, its kind and two checks: one that the
corrected statement holds, and (where a check can reject the printed text) one that the printed statement fails. A
check made of several steps holds when all of them do; a printed text that can be read several ways is rejected
only when every reading fails; a numeric claim is an :class:`~grpo_nb.symbolic.identity.Identity` whose verdict
its caller computes.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from grpo_nb.symbolic.identity import Identity

__all__ = ["Erratum"]


@dataclass(frozen=True)
class Erratum:
    """One slip: where, what is printed, the correction, and the checks (printed_check is None when no check can
    reject the printed text: a cross-reference, a step, or a sentence that was true of what it described when it was
    written)."""

    location: str
    printed: str
    corrected: str
    kind: str
    corrected_check: Identity
    printed_check: Identity | None = None
    chapter: str | None = None
    extraction: bool = False

    @property
    def confirmed(self) -> bool:
        """The corrected statement holds, and the printed one (where testable) fails."""
        return self.corrected_check.holds and (self.printed_check is None or not self.printed_check.holds)


def _all(name: str, items: list[Identity], notes: str = "") -> Identity:
    return Identity(
        name=name,
        lhs=sp.Integer(sum(i.holds for i in items)),
        rhs=sp.Integer(len(items)),
        holds=all(i.holds for i in items),
        notes=notes,
        extra={"steps": items},
    )


def _any(name: str, items: list[Identity]) -> Identity:
    """Holds when one of ``items`` does: a printed text that can be read several ways is rejected only when every
    reading fails."""
    return Identity(
        name=name,
        lhs=sp.Integer(sum(i.holds for i in items)),
        rhs=sp.Integer(1),
        holds=any(i.holds for i in items),
        relation=">=",
        extra={"steps": items},
    )


def _exp_check(name: str, lhs: sp.Expr, rhs: sp.Expr) -> Identity:
    residual = sp.simplify((lhs - rhs).rewrite(sp.exp))
    return Identity(name=name, lhs=lhs, rhs=rhs, holds=bool(residual == 0), residual=residual)


def _numeric(name: str, value: float, target: float, holds: bool, relation: str = "==", notes: str = "") -> Identity:
    """A numeric claim as an :class:`Identity` (value, target and the verdict computed by the caller)."""
    return Identity(name, sp.Float(value), sp.Float(target), bool(holds), relation=relation, notes=notes)
