"""Every claim a chapter makes about a sampled run holds at every seed, not only at the one the page shows.

The chapters whose runs sample with torch (``tests/chapter_runs.TORCH_CHAPTERS``: the toy LM's SFT and GRPO, TRL's
draws) have a cell tagged ``parameters`` that sets ``SEED``, and every sampled computation on the page takes its
seed from it. Here each such chapter is executed at four more seeds (the README's run checks seed 0; this file and
the two named in ``SPLIT``): every cell must run, so every ``assert`` of the chapter holds at all five. Outputs are
not compared (another seed draws other answers); what a chapter prints from a draw sits in a cell nbval does not
compare. A fixture notebook whose assert holds at seed 0 only must fail here.
"""

from __future__ import annotations

import pytest

from tests.book_layout import BOOK, ROOT
from tests.chapter_runs import TORCH_CHAPTERS, execute_at_seed

pytestmark = pytest.mark.machine  # not yet green: run with -m machine (see CONTRIBUTING)

SEEDS = (1, 2, 3, 4)
SPLIT = ("test_chapter_seeds_parametric_grpo.py", "test_chapter_seeds_trl_grpo.py")  # one file each: two workers
FRAGILE = ROOT / "tests" / "fixtures" / "notebooks" / "seed_fragile.json"  # not .ipynb: nbval would collect it


def check_at_seed(chapter: str, seed: int, folder) -> None:
    error = execute_at_seed(BOOK / f"{chapter}.ipynb", seed, folder)
    assert error is None, f"{chapter} at SEED = {seed}:\n{error}"


def test_every_torch_chapter_is_run_at_other_seeds():
    covered = {"group_size"} | {name.split("test_chapter_seeds_")[1][:-3] for name in SPLIT}
    assert covered == set(TORCH_CHAPTERS)


@pytest.mark.parametrize("seed", SEEDS)
def test_group_size_asserts_hold_at_other_seeds(seed, tmp_path):
    check_at_seed("group_size", seed, tmp_path)


def test_a_seed_fragile_assert_fails_at_another_seed(tmp_path):
    assert execute_at_seed(FRAGILE, 0, tmp_path / "zero") is None  # holds for the seed it was written at ...
    errors = [execute_at_seed(FRAGILE, seed, tmp_path / str(seed)) for seed in SEEDS]
    assert any(e is not None and "AssertionError" in e for e in errors), errors  # ... and not for every seed
