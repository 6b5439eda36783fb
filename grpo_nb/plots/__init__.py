"""Figure functions: each takes data or parameters and returns a matplotlib Figure (no theory here).

Importing this package applies the book's house style (``book.mplstyle``: sizes for the text column,
mathtext labels); ``BOOK_STYLE`` is its path, for ``plt.style.context`` elsewhere.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt

BOOK_STYLE = Path(__file__).with_name("book.mplstyle")

plt.style.use(BOOK_STYLE)

__all__ = ["BOOK_STYLE"]
