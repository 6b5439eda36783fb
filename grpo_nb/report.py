"""Small display helpers for chapters: Markdown tables with fixed number formatting.

Fixed formatting keeps committed outputs stable under nbval (no platform-dependent last digits).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from IPython.display import Markdown

__all__ = ["markdown_table"]


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
