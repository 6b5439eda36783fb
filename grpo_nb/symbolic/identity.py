"""A checked identity: the expressions a derivation produced, and whether the claim holds.

Every function of :mod:`grpo_nb.symbolic` returns one (or a list) of these, so a chapter can
show the derivation *and* assert it, and a test can feed a wrong expression and see it rejected.

A check compares what sympy *derives* (from the objective, the Bernoulli statistics, the KL term or the
softmax policy of :mod:`grpo_nb.symbolic.expressions`) with the formula the paper *prints*, typed out
literally. The printed formula is a default that the caller can replace: every check function takes
``claimed={key: expr}``, and each :class:`Identity` names its key in ``extra["claim"]`` (the expression
that was compared is ``extra["claimed"]``), so a test can feed a misprint or a perturbed formula and see
exactly that check fail.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import sympy as sp
from IPython.display import Markdown

from grpo_nb.report import escape_markdown, markdown_table

__all__ = [
    "Identity",
    "SympyVerdict",
    "check_equal",
    "check_on_open_unit",
    "check_sign",
    "check_vector_equal",
    "checks_table",
    "claims",
    "differs_at_a_point",
    "sympy_verdict",
]


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
    # sympy's pretty printer spells out the smoothing constant's name (varepsilon); on the page it is one letter
    one_letter = {s: sp.Symbol("ε") for s in getattr(expr, "free_symbols", ()) if s.name == "varepsilon"}
    shown = expr.xreplace(one_letter) if one_letter else expr
    return max(len(line) for line in sp.pretty(shown, use_unicode=True, wrap_line=False).splitlines())


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


def differs_at_a_point(expr: sp.Expr) -> bool:
    """True when ``expr`` is non-zero at one point inside every domain the checks use (each free symbol set to a
    distinct number in (0.2, 0.8), so 0 < p, p_ref < 1 and positive parameters): then ``expr`` is not identically
    zero, and the slow ``simplify`` can be skipped. False when it is zero there or cannot be evaluated."""
    expr = sp.sympify(expr)
    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    point = {s: sp.Rational(20 + (37 * i + 11) % 59, 100) for i, s in enumerate(symbols)}
    try:
        value = complex(expr.subs(point).evalf(30))
    except (TypeError, ValueError, ZeroDivisionError):
        return False
    return bool(abs(value) > 1e-12)


def _residual(diff: sp.Expr, **simplify_kwargs) -> sp.Expr:
    """The simplified difference, or the difference itself when it is visibly non-zero at a point."""
    diff = sp.sympify(diff)
    return diff if differs_at_a_point(diff) else sp.simplify(diff, **simplify_kwargs)


def check_equal(
    name: str, lhs: sp.Expr, rhs: sp.Expr, *, notes: str = "", claim: str = "", **simplify_kwargs
) -> Identity:
    """Identity whose check is ``simplify(lhs - rhs) == 0``; ``claim`` is the key of the printed formula ``rhs``."""
    residual = _residual(sp.sympify(lhs) - sp.sympify(rhs), **simplify_kwargs)
    extra = {"claim": claim, "claimed": rhs} if claim else {}
    return Identity(name=name, lhs=lhs, rhs=rhs, holds=bool(residual == 0), residual=residual, notes=notes, extra=extra)


def claims(
    claimed: Mapping[str, object] | sp.Expr | None, printed: Mapping[str, object], main: str | None = None
) -> dict[str, object]:
    """The printed formulas of a check, with the caller's ``claimed`` replacements.

    ``claimed`` is a mapping {key: formula}; a single expression replaces the ``main`` formula. Raises ValueError
    for a key the check does not know (so that a misspelt test cannot pass by checking the printed formula instead
    of the injected one).
    """
    if claimed is not None and not isinstance(claimed, Mapping):
        if main is None:
            raise ValueError(
                f"claimed={claimed!r} must be a mapping {{key: formula}}; valid keys are {sorted(printed)}"
            )
        claimed = {main: claimed}
    claimed = dict(claimed or {})
    unknown = sorted(set(claimed) - set(printed))
    if unknown:
        raise ValueError(f"claimed={unknown!r} names no formula of this check; valid keys are {sorted(printed)}")
    return {key: sp.sympify(claimed.get(key, value)) for key, value in printed.items()}


#: p = u/(1+u) with u > 0: makes 0 < p < 1 visible to sympy's assumptions (u is the odds of p)
ODDS = sp.Symbol("u", positive=True)


def check_on_open_unit(
    name: str, lhs: sp.Expr, rhs: sp.Expr, *, p: sp.Symbol, notes: str = "", claim: str = ""
) -> Identity:
    """lhs == rhs for 0 < p < 1: the difference simplifies to 0 after p = u/(1+u), u > 0."""
    residual = _residual(sp.sympify(lhs - rhs).subs({p: ODDS / (1 + ODDS)}))
    extra = {"claim": claim, "claimed": rhs} if claim else {}
    return Identity(name=name, lhs=lhs, rhs=rhs, holds=bool(residual == 0), residual=residual, notes=notes, extra=extra)


def check_sign(
    name: str, expr: sp.Expr, relation: str, *, subs: Mapping | None = None, notes: str = "", claim: str = ""
) -> Identity:
    """expr > 0 (relation '>'), expr >= 0 ('>='), or expr < 0 ('<'), decided by sympy's assumptions.

    ``subs`` (for instance p = u/(1+u)) makes the domain visible to sympy. The expression is brought to one
    fraction; the signs of its factored numerator and of its denominator are decided separately. A sign that
    sympy cannot decide counts as a failure.
    """
    if relation not in (">", ">=", "<"):
        raise ValueError(f"relation={relation!r} is not a sign relation; valid values are '>', '>=', '<'")
    attribute = {">": "is_positive", ">=": "is_nonnegative", "<": "is_negative"}[relation]
    moved = sp.sympify(expr).subs(dict(subs or {}))
    num, den = sp.fraction(sp.together(moved))
    num = sp.factor(num)
    holds = bool(getattr(num, attribute)) and bool(den.is_positive)
    if not holds:  # a second route: sympy's simplified form may expose the sign where the fraction does not
        holds = bool(getattr(sp.simplify(moved), attribute))
    extra = {"claim": claim, "claimed": expr} if claim else {}
    return Identity(
        name=name,
        lhs=expr,
        rhs=sp.Integer(0),
        holds=holds,
        residual=num / den,
        relation=relation,
        notes=notes,
        extra=extra,
    )


def check_vector_equal(name: str, lhs: sp.Matrix, rhs: sp.Matrix, *, claim: str = "") -> Identity:
    """Component-wise: every entry of lhs - rhs simplifies to 0."""
    residual = (lhs - rhs).applyfunc(_residual)
    extra = {"claim": claim, "claimed": rhs} if claim else {}
    return Identity(name=name, lhs=lhs, rhs=rhs, holds=all(r == 0 for r in residual), residual=residual, extra=extra)


def checks_table(items: Identity | list[Identity]) -> Markdown:
    """A Markdown table of checks: name, relation, verdict and notes (for the appendix chapter)."""
    items = items if isinstance(items, list) else [items]
    rows = [[escape_markdown(i.name), escape_markdown(i.relation), i.verdict, escape_markdown(i.notes)] for i in items]
    return markdown_table(["check", "relation", "result", "notes"], rows)


@dataclass(frozen=True, repr=False)
class SympyVerdict:
    """Identities derived with sympy, shown as one line: the claim they check, how many, and whether each holds.

    The page shows this line; the derivations themselves are shown by :func:`grpo_nb.report.show_checked` in a
    folded cell below it."""

    claim: str
    identities: tuple[Identity, ...]

    @property
    def holds(self) -> bool:
        return all(ident.holds for ident in self.identities)

    def __repr__(self) -> str:
        n = len(self.identities)
        count = "one identity" if n == 1 else f"{n} identities"
        if self.holds:
            return f"✓ {self.claim} ({count} derived with sympy; {'it holds' if n == 1 else 'each holds'})"
        failing = "; ".join(ident.name for ident in self.identities if not ident.holds)
        return f"✗ {self.claim}: sympy finds that this does not hold ({failing})"

    def _repr_markdown_(self) -> str:
        return repr(self)


def sympy_verdict(claim: str, identities: Identity | Sequence[Identity]) -> SympyVerdict:
    """The one-line verdict of the sympy checks of ``claim`` (Markdown: ``claim`` may hold ``$...$`` math)."""
    found = (identities,) if isinstance(identities, Identity) else tuple(identities)
    if not found:
        raise ValueError("identities=() is empty; valid: at least one Identity")
    return SympyVerdict(claim, found)
