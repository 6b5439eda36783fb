"""A checked identity: the expressions a derivation produced, and whether the claim holds.

Every function of :mod:`grpo_nb.symbolic` returns one (or a list) of these, so a chapter can
show the derivation *and* assert it, and a test can feed a wrong expression and see it rejected.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from grpo_nb.report import escape_markdown

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

    @property
    def verdict(self) -> str:
        return "holds" if self.holds else "FAILS"

    def latex(self) -> str:
        """The claim as one TeX formula: ``lhs <relation> rhs``.

        A long claim is set on two aligned lines, and one whose sides are very long in a smaller size, so
        that it fits the text column of the book's pages (MathJax 3 does not break lines by itself).
        """
        lhs, rel, rhs = sp.latex(self.lhs), _latex_rel(self.relation), sp.latex(self.rhs)
        widths = (_width(self.lhs), _width(self.rhs))
        if sum(widths) <= _ONE_LINE:
            return f"{lhs} {rel} {rhs}"
        size = "\\small " if max(widths) > _LONG_SIDE else ""
        return f"{size}\\begin{{aligned}}\n& {lhs} \\\\\n& \\quad {rel} {rhs}\n\\end{{aligned}}"

    def _repr_markdown_(self) -> str:
        """Name and verdict as text, the claim as display math (MyST and Jupyter both typeset ``$$`` blocks)."""
        return f"**{escape_markdown(self.name)}** ({self.verdict})\n\n$$\n{self.latex()}\n$$\n"

    def _repr_pretty_(self, printer, cycle: bool) -> None:
        """Plain-text fallback (text/plain): deterministic sympy strings, no object ids."""
        printer.text(f"{self.name} ({self.verdict}): {sp.sstr(self.lhs)} {self.relation} {sp.sstr(self.rhs)}")


# Widths in columns of sympy's 2-D pretty print (fractions stacked, as typeset), a proxy for the width on the
# page: both sides fit one line of the book's text column up to _ONE_LINE; a side wider than _LONG_SIDE is
# set \small (MathJax 3 has no \footnotesize).
_ONE_LINE = 80
_LONG_SIDE = 75


def _width(expr: sp.Expr) -> int:
    return max(len(line) for line in sp.pretty(expr, use_unicode=True, wrap_line=False).splitlines())


_LATEX_RELATIONS = {
    "==": "=",
    "!=": "\\neq",
    "<=": "\\le",
    "<": "<",
    ">=": "\\ge",
    ">": ">",
    "->": "\\to",
}
_LATEX_WORDS = {"undefined": "and"}  # relation "undefined": both sides are undefined (the name says why)


def _latex_rel(relation: str) -> str:
    """TeX for a relation; a word (``undefined``, ``period``) is set as text between the two sides."""
    if relation in _LATEX_RELATIONS:
        return f"\\;{_LATEX_RELATIONS[relation]}\\;"
    return f"\\quad\\text{{{_LATEX_WORDS.get(relation, relation)}}}\\quad"


def check_equal(name: str, lhs: sp.Expr, rhs: sp.Expr, *, notes: str = "", **simplify_kwargs) -> Identity:
    """Identity whose check is ``simplify(lhs - rhs) == 0``."""
    residual = sp.simplify(sp.sympify(lhs) - sp.sympify(rhs), **simplify_kwargs)
    return Identity(name=name, lhs=lhs, rhs=rhs, holds=bool(residual == 0), residual=residual, notes=notes)
