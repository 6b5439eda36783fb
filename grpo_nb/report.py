"""Small display helpers for chapters: Markdown tables with fixed number formatting.

Fixed formatting keeps committed outputs stable under nbval (no platform-dependent last digits).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from IPython.display import Markdown

__all__ = ["markdown_table", "show_checked"]


def _fmt(value: object, fmt: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    try:
        return format(value, fmt)
    except (TypeError, ValueError):
        return str(value)


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[object]], fmt: str = ".4g") -> Markdown:
    """A Markdown table; numbers are formatted with ``fmt`` (strings pass through unchanged)."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        lines.append("| " + " | ".join(_fmt(v, fmt) for v in row) + " |")
    return Markdown("\n".join(lines))


def show_checked(identities: object, *, brief: bool = False) -> None:
    """Display checked identities and assert that each holds (the chapters' "show it, then check it" step).

    ``identities`` is one :class:`grpo_nb.symbolic.identity.Identity` or a list of them. Each is shown with both
    sides and its relation, or with ``brief=True`` as its name and the residual sympy simplified to; an identity
    that does not hold raises AssertionError naming it.
    """
    import sympy as sp
    from IPython.display import display

    for ident in identities if isinstance(identities, (list, tuple)) else [identities]:
        if brief:
            display(Markdown(f"**{ident.name}**: residual simplifies to ${sp.latex(ident.residual)}$"))
        else:
            display(ident)
        if not ident.holds:
            raise AssertionError(f"{ident.name} does not hold")
