"""Figure functions: each takes data or parameters and returns a matplotlib Figure (no theory here).

Importing this package applies the book's house style (``book.mplstyle``: sizes for the text column,
mathtext labels); ``BOOK_STYLE`` is its path, for ``plt.style.context`` elsewhere. In a notebook it also makes every
figure show in two layouts, as drawn on a wide screen and restacked on a phone (``narrow_screens``).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt

from grpo_nb.plots.narrow_screens import show_both_layouts

BOOK_STYLE = Path(__file__).with_name("book.mplstyle")

plt.style.use(BOOK_STYLE)
show_both_layouts()

__all__ = ["BOOK_STYLE"]
