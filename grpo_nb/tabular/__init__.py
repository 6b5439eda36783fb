"""Policies over a finite outcome set with a binary reward (paper §2.4, Thm 1).

- ``closed_form``: Theorem 1's GRPO step, an independent numerical maximiser of the same objective,
  and exact iterations (public API: ``tabular.grpo_step``).
- ``algorithm1``: Algorithm 1 on tabular softmax policies (sampled groups, mu inner gradient steps).
"""

from grpo_nb.tabular.algorithm1 import Algorithm1Run, TabularTask, algorithm1, make_task
from grpo_nb.tabular.closed_form import (
    grpo_objective,
    grpo_step,
    grpo_weights,
    solve_grpo_step,
    success_probabilities,
    success_probability,
)

__all__ = [
    "Algorithm1Run",
    "TabularTask",
    "algorithm1",
    "grpo_objective",
    "grpo_step",
    "grpo_weights",
    "make_task",
    "solve_grpo_step",
    "success_probabilities",
    "success_probability",
]
