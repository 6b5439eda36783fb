"""Every claim a chapter makes about a sampled run holds at every seed, not only at the one the page shows.

The chapters whose runs sample with torch (``chapter_runs.TORCH_CHAPTERS``: the toy LM's SFT and GRPO, TRL's
draws) have a cell tagged ``parameters`` that sets ``SEED``, and every sampled computation on the page takes its
seed from it. Here each such chapter runs at four more seeds (the README's nbval run checks seed 0), alone on a
simulated other machine (``chapter_runs.py``): every cell must run, so every ``assert`` of the chapter holds
at all five seeds, and nbval compares every output it compares at seed 0, so no verdict or exact table may depend
on the draw (what a page prints from a draw sits in a cell tagged ``nbval-ignore-output``). The group-size pages
(``GROUP_SIZE_SEEDED``) run only their cells tagged ``seeded`` here (the toy-LM run and the Monte Carlo draws; the
rest runs alone in ``test_chapters_alone.py``); so does the entropy-control page of the family chapter, whose TRL
runs are its seeded cells (``test_chapter_seeds_grpo_family.py``). These four seeds are a live sample: every sampled
chapter's claims were checked at 20 seeds by the committed seed sweep (``tests/chapters/test_seed_sweep.py``). A
fixture notebook whose assert holds at seed 0 only fails this check.

The seed runs of the seeded chapters sit in files of their own (``SPLIT``), so that they spread over the
test workers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.book_layout import BOOK, ROOT
from tests.chapters.chapter_runs import (
    SECTION_SEEDED_CHAPTERS,
    SEEDED_CHAPTERS,
    TORCH_CHAPTERS,
    check_alone,
    run_nbval,
)

SEEDS = (1, 2, 3, 4)
SPLIT = {
    "parametric_grpo_runs": ("test_chapter_seeds_parametric_grpo_a.py", "test_chapter_seeds_parametric_grpo_b.py"),
    "parametric_grpo_unstable": ("test_chapter_seeds_parametric_grpo_a.py", "test_chapter_seeds_parametric_grpo_b.py"),
    "trl_grpo_step": ("test_chapter_seeds_trl_grpo.py",),
    "trl_grpo_practice": ("test_chapter_seeds_trl_grpo.py",),
    "tracker_questions_advantage": ("test_chapter_seeds_tracker_questions.py",),
    "tracker_questions_kl": ("test_chapter_seeds_tracker_questions.py",),
    "tracker_questions_clipping": ("test_chapter_seeds_tracker_questions.py",),
}
# the group-size pages whose Monte Carlo draws and toy-LM run are the cells tagged ``seeded``
GROUP_SIZE_SEEDED = ("group_size_ustatistic", "group_size_dynamics")
FRAGILE = ROOT / "tests" / "fixtures" / "notebooks" / "seed_fragile.json"  # not .ipynb: nbval would collect it


def check_at_seed(chapter: str, seed: int, env: dict[str, str], folder) -> None:
    check_alone(BOOK / f"{chapter}.ipynb", env, folder / "empty", seed)


def test_every_torch_chapter_is_run_at_other_seeds():
    here = Path(__file__).parent
    assert set(SPLIT) == set(SEEDED_CHAPTERS) and set(TORCH_CHAPTERS) == {*SEEDED_CHAPTERS, *SECTION_SEEDED_CHAPTERS}
    assert all((here / name).is_file() for names in SPLIT.values() for name in names)


@pytest.mark.parametrize("page", GROUP_SIZE_SEEDED)
@pytest.mark.parametrize("seed", SEEDS)
def test_group_size_seeded_claims_hold_at_other_seeds(page, seed, other_machine, tmp_path):
    check_at_seed(page, seed, other_machine, tmp_path)


def test_a_seed_fragile_assert_fails_at_another_seed(other_machine, tmp_path):
    def run(seed):
        return run_nbval(FRAGILE, tmp_path / str(seed), other_machine, seed)

    assert run(0).returncode == 0  # holds for the seed it was written at ...
    failed = [run(seed) for seed in SEEDS]
    assert any(p.returncode != 0 and "AssertionError" in p.stdout for p in failed)  # ... and not for every seed


def test_the_longest_files_are_collected_first():
    from conftest import LONGEST_FIRST

    here = Path(__file__).parent
    assert all((here / name).is_file() or (BOOK / name).is_file() for name in LONGEST_FIRST)
    assert {*SPLIT["parametric_grpo_runs"], *SPLIT["trl_grpo_step"], "test_chapters_alone.py"} <= set(LONGEST_FIRST)
