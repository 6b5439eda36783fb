"""Small display helpers for chapters: Markdown tables with fixed number formatting.

Fixed formatting keeps committed outputs stable under nbval (no platform-dependent last digits).
The book renders Markdown outputs as MyST (``nb_render_markdown_format: myst`` in ``_config.yml``), like
its prose: ``$...$`` in a cell is math, and a ``|`` inside a cell must be escaped or it splits the cell.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

from IPython.display import Markdown

__all__ = ["NO_VALUE", "escape_markdown", "markdown_table"]

NO_VALUE = "—"  # a NaN in a table marks a cell with no value (e.g. no next term): shown as a dash, not "nan"

# Characters that start emphasis, code, links, math, HTML or a table cell in MyST/CommonMark text.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|$~])")
# A pipe that is not already escaped (preceded by an even number of backslashes).
_BARE_PIPE = re.compile(r"(?<!\\)((?:\\\\)*)\|")


def escape_markdown(text: str) -> str:
    """``text`` shown literally in Markdown: ``p*``, ``a_b``, ``|x|`` or ``$5`` stay as typed."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def _cell(text: str) -> str:
    """A table cell: Markdown as given, with every unescaped ``|`` escaped so that it stays in its cell."""
    return _BARE_PIPE.sub(r"\1\\|", text.replace("\n", " "))


def _fmt(value: object, fmt: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and math.isnan(value):
        return NO_VALUE
    try:
        return format(value, fmt)
    except (TypeError, ValueError):
        return str(value)


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[object]], fmt: str = ".4g") -> Markdown:
    """A Markdown table; numbers are formatted with ``fmt`` (strings pass through unchanged).

    Headers and string cells are Markdown (``$p^*$`` is typeset); a ``|`` in them is kept in its cell.
    A NaN stands for "no value" and is shown as ``NO_VALUE`` (a dash).
    """
    lines = ["| " + " | ".join(_cell(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        lines.append("| " + " | ".join(_cell(_fmt(v, fmt)) for v in row) + " |")
    return Markdown("\n".join(lines))
