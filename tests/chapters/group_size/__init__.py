"""The group-size chapter's analyses (``grpo_nb.chapters.group_size``), one test file per section module, and what
the files share: the chapter's difficulty levels and its eight prompts."""

from __future__ import annotations

import numpy as np

from grpo_nb.tabular.algorithm1 import make_task
from grpo_nb.ustat.bandit import PromptSet

LEVELS = (0.5, 0.2, 0.05, 0.01, 0.001)  # the chapter's difficulty levels


def chapter_prompts() -> PromptSet:
    """The chapter's eight prompts of section "Minibatches and a fixed sampling budget"."""
    task = make_task(np.array([0.05, 0.1, 0.2, 0.3, 0.5, 0.6, 0.7, 0.8]), n_outcomes=6, n_success=2, seed=1)
    return PromptSet(task.ref_logits, task.reward, np.full(8, 1 / 8))
