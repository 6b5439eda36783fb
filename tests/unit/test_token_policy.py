"""Answers of several tokens (grpo_nb.tabular.token_policy): autograd against the closed forms of grpo_nb.kl, the
chain rule of the KL, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from grpo_nb.kl import expected_estimator_gradient, softmax_kl_gradients
from grpo_nb.tabular.token_policy import TokenPolicy, flat_gradient, kl_term, per_token_kl, sequence_kl, success

CASES = [("k1", "reward"), ("k2", "loss"), ("k3", "ratio_weighted"), ("k3", "loss"), ("k1", "loss")]


@pytest.mark.parametrize(("estimator", "placement"), CASES)
def test_one_token_autograd_is_the_closed_form(estimator: str, placement: str) -> None:
    rng = np.random.default_rng(1)
    for _ in range(5):
        policy, ref = TokenPolicy.random(5, 1, rng, grad=True), TokenPolicy.random(5, 1, rng)
        auto = flat_gradient(kl_term(policy, ref, estimator, placement=placement), policy)
        log_ref = torch.log_softmax(ref.logits[0], -1).numpy()[0]
        closed = expected_estimator_gradient(policy.logits[0].detach().numpy()[0], log_ref, estimator,
                                             placement=placement)  # fmt: skip
        assert np.abs(auto - closed).max() < 1e-12


def test_the_kls_of_one_token_are_the_closed_forms_and_the_chain_rule_holds_in_value() -> None:
    rng = np.random.default_rng(2)
    policy, ref = TokenPolicy.random(4, 1, rng, grad=True), TokenPolicy.random(4, 1, rng)
    reverse, forward = softmax_kl_gradients(policy.logits[0].detach().numpy()[0],
                                            torch.log_softmax(ref.logits[0], -1).numpy()[0])  # fmt: skip
    assert np.abs(flat_gradient(sequence_kl(policy, ref, "reverse"), policy) - reverse).max() < 1e-12
    assert np.abs(flat_gradient(sequence_kl(policy, ref, "forward"), policy) - forward).max() < 1e-12
    policy, ref = TokenPolicy.random(3, 3, rng, grad=True), TokenPolicy.random(3, 3, rng)
    # the chain rule: the reverse KL weights the prefixes by pi, the forward one by pi_ref (same values)
    assert abs(float((sequence_kl(policy, ref, "reverse") - per_token_kl(policy, ref)).detach())) < 1e-12
    forward = per_token_kl(policy, ref, old=ref, direction="forward")
    assert abs(float((sequence_kl(policy, ref, "forward") - forward).detach())) < 1e-12
    gap = flat_gradient(sequence_kl(policy, ref), policy) - flat_gradient(per_token_kl(policy, ref), policy)
    assert np.abs(gap).max() > 1e-3


def test_probabilities_sum_to_one_and_success_reads_the_reward() -> None:
    policy = TokenPolicy.random(3, 2, np.random.default_rng(3))
    assert abs(float(policy.log_probs().exp().sum()) - 1) < 1e-12
    assert torch.allclose(policy.token_log_probs().sum(dim=1), policy.log_probs())
    assert abs(float(success(policy, np.ones(9))) - 1) < 1e-12


def test_bad_input_raises_naming_the_parameter() -> None:
    rng = np.random.default_rng(4)
    policy, ref, other = TokenPolicy.random(3, 2, rng), TokenPolicy.random(3, 2, rng), TokenPolicy.random(4, 2, rng)
    with pytest.raises(ValueError, match="estimator"):
        kl_term(policy, ref, "k4", placement="loss")
    with pytest.raises(ValueError, match="placement"):
        kl_term(policy, ref, "k3", placement="advantage")
    with pytest.raises(ValueError, match="direction"):
        sequence_kl(policy, ref, "sideways")
    with pytest.raises(ValueError, match="ref"):
        sequence_kl(policy, other)
    with pytest.raises(ValueError, match="old"):
        per_token_kl(policy, ref, old=other)
    with pytest.raises(ValueError, match="reward"):
        success(policy, np.ones(4))
    with pytest.raises(ValueError, match=r"logits\[1\]"):
        TokenPolicy((torch.zeros(1, 3), torch.zeros(2, 3)))
    with pytest.raises(ValueError, match="V"):
        TokenPolicy.random(1, 2, rng)
