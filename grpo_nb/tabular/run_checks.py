"""How far a tabular Algorithm 1 run is from the exact recursion (Thm 1's policies, Thm 2's map h), per step.

* :func:`one_step_gaps`: the largest |p_n - h(p_{n-1})| and the largest TV(pi_n, Thm 1's step from pi_{n-1}) over
  iterations and prompts: how well each outer step solved its inner problem.
* :func:`mean_one_step_gap`: the mean |p_n - h(p_{n-1})|, for comparing group sizes.
"""

from __future__ import annotations

import numpy as np

from grpo_nb.dynamics.map import h
from grpo_nb.tabular.algorithm1 import Algorithm1Run, TabularTask
from grpo_nb.tabular.closed_form import grpo_step
from grpo_nb.tabular.policy import total_variation

__all__ = ["mean_one_step_gap", "one_step_gaps"]


def _p_gaps(run: Algorithm1Run, p_ref: object, beta: float, eps: float) -> np.ndarray:
    return np.abs(run.p_true[1:] - h(run.p_true[:-1], p_ref, beta, eps))


def one_step_gaps(run: Algorithm1Run, task: TabularTask, p_ref: object, beta: float, eps: float) -> tuple[float, float]:
    """(max_n,q |p_n - h(p_{n-1})|, max_n,q TV(pi_n, grpo_step(pi_ref, pi_{n-1}))) of a run on ``task``.

    ``p_ref`` is the reference success probability per prompt used in h (the task's, as the chapter states it).
    """
    pol = run.policies
    tv = max(
        float(total_variation(grpo_step(task.pi_ref[q], pol[n, q], task.reward[q], beta, eps), pol[n + 1, q]))
        for n in range(pol.shape[0] - 1)
        for q in range(pol.shape[1])
    )
    return float(_p_gaps(run, p_ref, beta, eps).max()), tv


def mean_one_step_gap(run: Algorithm1Run, p_ref: object, beta: float, eps: float) -> float:
    """The mean over iterations and prompts of |p_n - h(p_{n-1})|."""
    return float(_p_gaps(run, p_ref, beta, eps).mean())
