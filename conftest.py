"""pytest settings for every run from the repository root: tests/ and nbval over book/ (also one chapter alone).

Which chapters nbval collects from book/: the chapters whose outputs come from torch (``TORCH_CHAPTERS``), run here
under the default settings. Every other chapter's nbval run is its run alone on a simulated other machine
(``tests/chapters/test_chapters_alone.py``), so the suite runs each chapter once, not twice. A notebook named on
the command line (``pytest book/intro.ipynb``) is collected whatever it is. nbval leaves widget views out of its
comparison (``tests/nbval_widgets.py``).

Order: the longest test files (the chapters run alone and at other seeds, and nbval over the training chapter,
minutes each) are collected first, and xdist keeps that order (``--no-loadscope-reorder`` in pyproject.toml), so
that ``--dist loadfile`` starts them at once and the short tests fill the workers' last minutes.

Tiers: every test gets the marker of its folder, so that one tier runs alone (``pytest -m unit``, the fast tier):
``unit`` (tests/unit/: grpo_nb itself), ``chapters`` (tests/chapters/ and nbval over book/*.ipynb) and ``book``
(tests/book/: the build and the browser). Tests at the top of tests/ (the ipywidgets explorers in fresh kernels) are
``chapters``.

The floors: a session that runs a chapter alone (a test that uses the ``floors`` fixture) starts building the
virtualenv of the lowest versions grpo_nb allows (``tests/chapters/floors_venv.py``) from PyPI as soon as collection
ends (``FLOORS_BUILD``), and the chapters run alone there; unless ``-m`` leaves out the tests marked ``network``
(``-m "not network"``, offline): then they run alone in this environment.

Every nbval cell's fresh run must show a PNG where the cell has figure metadata and write nothing to stderr
(``tests/nbval_run_checks.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.chapters.chapter_runs import TORCH_CHAPTERS
from tests.chapters.floors_venv import BackgroundBuild
from tests.nbval_run_checks import check_every_run
from tests.nbval_widgets import compare_without_widget_views

ROOT = Path(__file__).resolve().parent
TIERS = {"unit": "unit", "chapters": "chapters", "book": "book"}
LONGEST_FIRST = (  # test files under tests/chapters/ and book/, longest first
    "test_chapter_seeds_parametric_grpo_a.py",
    "test_chapter_seeds_parametric_grpo_b.py",
    "test_chapters_alone.py",
    "parametric_grpo_runs.ipynb",
    "test_chapter_seeds.py",
    "test_chapter_seeds_trl_grpo.py",
    "test_chapter_seeds_tracker_questions.py",
    "test_colab_path.py",
)
BOOK = ROOT / "book"
FLOORS_BUILD = pytest.StashKey[BackgroundBuild | None]()  # the floors' virtualenv, where this session builds it


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    """Leave out of a collection of book/ the chapters that ``tests/chapters/test_chapters_alone.py`` runs."""
    if collection_path.suffix != ".ipynb" or collection_path.parent != BOOK or collection_path.stem in TORCH_CHAPTERS:
        return None
    named = {Path(arg.split("::")[0]).resolve() for arg in config.args}
    return None if collection_path.resolve() in named else True


def tier(path: Path) -> str:
    """The tier of a test file: its folder under tests/; ``chapters`` for a notebook of book/ or a file at the top of
    tests/."""
    parts = path.resolve().relative_to(ROOT).parts
    if parts[0] == "tests" and len(parts) > 2 and parts[1] in TIERS:
        return TIERS[parts[1]]
    return "chapters"


def pytest_collection_modifyitems(items) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(Path(item.fspath).name, len(rank)))  # stable: the rest keep their order
    for item in items:
        item.add_marker(getattr(pytest.mark, tier(Path(item.fspath))))
    compare_without_widget_views(items)
    check_every_run(items)


def may_install(item, markexpr: str) -> bool:
    """Whether ``-m markexpr`` would keep ``item`` if it were marked ``network`` too (it then may install from PyPI)."""
    from _pytest.mark.expression import Expression  # pytest's own evaluator of -m

    names = {mark.name for mark in item.iter_markers()} | {"network"}
    return not markexpr or Expression.compile(markexpr).evaluate(lambda name, **kwargs: name in names)


def pytest_collection_finish(session) -> None:
    """Start building the floors' virtualenv where a selected test runs a chapter alone and may install from PyPI
    (module docstring)."""
    markexpr = session.config.option.markexpr
    alone = [item for item in session.items if "floors" in getattr(item, "fixturenames", ())]
    wanted = not session.config.option.collectonly and any(may_install(item, markexpr) for item in alone)
    session.config.stash[FLOORS_BUILD] = BackgroundBuild() if wanted else None
