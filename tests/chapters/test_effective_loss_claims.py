"""The corrected claims of "GRPO's effective loss": the contrastive split of the gradient (its forces in the ratio
of the weights), checked on the sympy derivation and failed with a wrong weight in the loss."""

from __future__ import annotations

from types import SimpleNamespace

from grpo_nb.symbolic import effective_loss as proofs


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
