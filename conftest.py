"""pytest settings for every run from the repository root: tests/ and nbval over book/ (also one chapter alone).

Which chapters nbval collects from book/: the chapters whose outputs come from torch (``TORCH_CHAPTERS``), run here
under the default settings. Every other chapter's nbval run is its run alone on a simulated other machine
(``tests/chapters/test_chapters_alone.py``), so the suite runs each chapter once, not twice. A notebook named on
the command line (``pytest book/intro.ipynb``) is collected whatever it is.

Widget views are not part of a chapter's committed outputs: ``tools/render_notebook.py`` drops the
ipywidgets explorers and the tqdm.auto progress bars, because without a kernel they are sliders that move
nothing and finished bars. A fresh run by nbval displays them again, so they are left out of its side of
the comparison too; every other output is still compared with the committed one.

Tiers: every test gets the marker of its folder, so that one tier runs alone (``pytest -m unit``, the fast tier):
``unit`` (tests/unit/: grpo_nb itself), ``chapters`` (tests/chapters/ and nbval over book/*.ipynb) and ``book``
(tests/book/: the build and the browser). Tests at the top of tests/ (the ipywidgets explorers in fresh kernels) are
``chapters``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.chapters.chapter_runs import TORCH_CHAPTERS

ROOT = Path(__file__).resolve().parent
TIERS = {"unit": "unit", "chapters": "chapters", "book": "book"}

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
BOOK = ROOT / "book"


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    """Leave out of a collection of book/ the chapters that ``tests/chapters/test_chapters_alone.py`` runs."""
    if collection_path.suffix != ".ipynb" or collection_path.parent != BOOK or collection_path.stem in TORCH_CHAPTERS:
        return None
    named = {Path(arg.split("::")[0]).resolve() for arg in config.args}
    return None if collection_path.resolve() in named else True


def without_widget_views(outputs: list) -> list:
    """The outputs of a cell less those that display a widget."""
    return [out for out in outputs if WIDGET_VIEW not in out.get("data", {})]


def tier(path: Path) -> str:
    """The tier of a test file: its folder under tests/; ``chapters`` for a notebook of book/ or a file at the top of
    tests/."""
    parts = path.resolve().relative_to(ROOT).parts
    if parts[0] == "tests" and len(parts) > 2 and parts[1] in TIERS:
        return TIERS[parts[1]]
    return "chapters"


def pytest_collection_modifyitems(items) -> None:
    for item in items:
        item.add_marker(getattr(pytest.mark, tier(Path(item.fspath))))
        if not type(item).__module__.startswith("nbval") or not hasattr(item, "compare_outputs"):
            continue
        compare = item.compare_outputs

        def compare_without_widgets(test, ref, skip_compare=None, _compare=compare):
            return _compare(without_widget_views(test), without_widget_views(ref), skip_compare)

        item.compare_outputs = compare_without_widgets
