"""Policies over a finite outcome set with a binary reward (paper §2.4, Thm 1).

- ``policy``: the numpy home of E_pi[r], total variation and Theorem 1's Gibbs policy (batched).
- ``softmax_policy``: the softmax policy over K outcomes: its E_pi[r] and its policy gradient in the logits, exact
  (pi * (r - V)) and on-policy (REINFORCE); the softmax bandit of :mod:`grpo_nb.ustat` reads the same functions.
- ``closed_form``: Theorem 1's GRPO step, an independent numerical maximiser of the same objective,
  and exact iterations (public API: ``tabular.grpo_step``).
- ``algorithm1``: Algorithm 1 on tabular softmax policies (sampled groups, mu inner gradient steps).
"""

from grpo_nb.tabular.algorithm1 import Algorithm1Run, TabularTask, algorithm1, make_task
from grpo_nb.tabular.closed_form import (
    grpo_objective,
    grpo_step,
    policy_expected_reward,
    solve_grpo_step,
    success_orbit,
)
from grpo_nb.tabular.policy import expected_reward, gibbs_log_policy, total_variation

__all__ = [
    "Algorithm1Run",
    "TabularTask",
    "algorithm1",
    "expected_reward",
    "gibbs_log_policy",
    "grpo_objective",
    "grpo_step",
    "make_task",
    "solve_grpo_step",
    "success_orbit",
    "policy_expected_reward",
    "total_variation",
]
