"""Policies over a finite outcome set with a binary reward (paper §2.4, Thm 1)."""

from grpo_nb.tabular.closed_form import (
    grpo_objective,
    grpo_step,
    grpo_weights,
    solve_grpo_step,
    success_probabilities,
    success_probability,
)

__all__ = [
    "grpo_objective",
    "grpo_step",
    "grpo_weights",
    "solve_grpo_step",
    "success_probabilities",
    "success_probability",
]
