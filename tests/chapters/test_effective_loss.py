"""The chapter "GRPO's effective loss" (:mod:`grpo_nb.chapters.effective_loss`): the contrastive split of a step on
Algorithm 1's tabular tasks (the pull on the successes and the push on the failures move p in the ratio of the odds,
and together make the whole step), and its sympy derivation (the forces in the ratio of the weights), failed with a
wrong weight in the loss."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_nb.chapters.effective_loss import contrastive_step_split
from grpo_nb.symbolic import effective_loss as proofs
from grpo_nb.tabular.algorithm1 import make_task

SETTINGS = settings(deadline=None, max_examples=20)


@SETTINGS
@given(p=st.floats(0.02, 0.98), seed=st.integers(0, 1000))
def test_contrastive_split_ratio_is_odds(p: float, seed: int) -> None:
    task = make_task([p], n_outcomes=6, seed=seed)
    split = contrastive_step_split(task, task.ref_logits, eps=1e-4, lr=1e-4)
    ratio = split.dp_pull_successes / split.dp_push_failures
    assert np.allclose(ratio, (1 - p) / p, rtol=1e-2)
    assert np.allclose(split.dp_pull_successes + split.dp_push_failures, split.dp_step, rtol=1e-2)
    assert (split.dp_step > 0).all()


def test_contrastive_gradients_are_parallel_in_the_ratio_of_the_weights():
    forces = proofs.contrastive_gradient_split(n_success=2, n_fail=2)
    assert all(i.holds for i in forces)
    swapped = proofs.contrastive_gradient_split(claimed={"ratio": proofs.P / (1 - proofs.P), "share": proofs.P})
    assert [i.holds for i in swapped] == [True, True, False, False]


def test_contrastive_split_fails_with_a_wrong_weight_in_the_loss(monkeypatch):
    # the loss with omega^- replaced by omega^+ (equal weights): its gradients are no longer in the ratio (1-p)/p
    wrong = SimpleNamespace(**{k: getattr(proofs.ex, k) for k in ("softmax", "omega_plus")})
    wrong.omega_minus = proofs.ex.omega_plus
    monkeypatch.setattr(proofs, "ex", wrong)
    forces = proofs.contrastive_gradient_split(n_success=1, n_fail=2)
    by_claim = {i.extra["claim"]: i.holds for i in forces}
    assert not by_claim["omega_minus"] and not by_claim["ratio"] and not by_claim["share"]
