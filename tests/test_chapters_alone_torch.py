"""The chapters whose outputs come from torch, opened alone on another machine (see ``test_chapters_alone.py``)."""

from __future__ import annotations

import pytest

from tests.book_layout import chapter_notebooks
from tests.chapter_runs import TORCH_CHAPTERS
from tests.test_chapters_alone import check_alone, env  # noqa: F401  (the module's install fixture)

pytestmark = pytest.mark.machine  # not yet green: run with -m machine (see CONTRIBUTING)

CHAPTERS = [nb for nb in chapter_notebooks() if nb.stem in TORCH_CHAPTERS]


def test_every_torch_chapter_exists():
    assert sorted(nb.stem for nb in CHAPTERS) == sorted(TORCH_CHAPTERS)


@pytest.mark.parametrize("notebook", CHAPTERS, ids=lambda p: p.stem)
def test_torch_chapter_alone_on_another_machine(notebook, env, tmp_path):  # noqa: F811
    check_alone(notebook, env, tmp_path / "empty")
