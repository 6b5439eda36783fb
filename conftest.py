"""pytest settings for every run from the repository root: tests/ and nbval over book/ (also one chapter alone).

Which chapters nbval collects from book/: the chapters whose outputs come from torch (``TORCH_CHAPTERS``), run here
under the default settings. Every other chapter's nbval run is its run alone on a simulated other machine
(``tests/test_chapters_alone.py``), so the suite runs each chapter once, not twice. A notebook named on the command
line (``pytest book/intro.ipynb``) is collected whatever it is. nbval leaves widget views out of its comparison
(``tests/nbval_widgets.py``).
"""

from __future__ import annotations

from pathlib import Path

from tests.chapter_runs import TORCH_CHAPTERS
from tests.nbval_widgets import compare_without_widget_views

BOOK = Path(__file__).resolve().parent / "book"


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    """Leave out of a collection of book/ the chapters that ``tests/test_chapters_alone.py`` runs with nbval."""
    if collection_path.suffix != ".ipynb" or collection_path.parent != BOOK or collection_path.stem in TORCH_CHAPTERS:
        return None
    named = {Path(arg.split("::")[0]).resolve() for arg in config.args}
    return None if collection_path.resolve() in named else True


def pytest_collection_modifyitems(items) -> None:
    compare_without_widget_views(items)
