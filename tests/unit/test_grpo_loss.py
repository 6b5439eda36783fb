"""grpo_nb.toylm.grpo.grpo_loss, the loss the book prints in parametric_grpo_runs, is Algorithm 1's: minus the mean
clipped surrogate min(x A, clip(x, 1 - eps, 1 + eps) A) of each answer's whole-sequence ratio x, plus beta times the
mean over answers of k3 summed over tokens (or the KL term it is given). Its gradient at pi_theta = pi_old is the
advantage-weighted score minus beta times the KL's."""

from __future__ import annotations

import pytest
import torch

from grpo_nb.toylm.grpo import grpo_loss


def _batch(seed: int = 0) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    logp = -torch.rand(6, 3, generator=g, dtype=torch.float64) * 3
    logp_old = logp + 0.3 * torch.randn(6, 3, generator=g, dtype=torch.float64)
    logp_ref = logp + 0.5 * torch.randn(6, 3, generator=g, dtype=torch.float64)
    adv = torch.randn(6, generator=g, dtype=torch.float64)
    return logp, logp_old, logp_ref, adv


def _by_hand(logp, logp_old, logp_ref, adv, beta, clip_eps):
    loss = 0.0
    for i in range(len(adv)):
        x = float(torch.exp((logp[i] - logp_old[i]).sum()))
        clipped = x if clip_eps is None else min(max(x, 1 - clip_eps), 1 + clip_eps)
        surrogate = min(x * float(adv[i]), clipped * float(adv[i]))
        d = logp_ref[i] - logp[i]
        k3 = float((torch.exp(d) - d - 1).sum())
        loss += (-surrogate + beta * k3) / len(adv)
    return loss


@pytest.mark.parametrize("clip_eps", [None, 0.2])
@pytest.mark.parametrize("beta", [0.0, 0.04, 2.0])
def test_the_loss_is_the_clipped_surrogate_plus_beta_k3(beta, clip_eps):
    logp, logp_old, logp_ref, adv = _batch()
    loss = grpo_loss(logp, logp_old, adv, beta=beta, clip_eps=clip_eps, logp_ref=logp_ref)
    assert float(loss) == pytest.approx(_by_hand(logp, logp_old, logp_ref, adv, beta, clip_eps), rel=1e-12)


def test_a_wrong_formula_fails_the_comparison():
    logp, logp_old, logp_ref, adv = _batch(1)
    loss = grpo_loss(logp, logp_old, adv, beta=0.5, clip_eps=0.2, logp_ref=logp_ref)
    assert float(loss) != pytest.approx(_by_hand(logp, logp_old, logp_ref, -adv, 0.5, 0.2), rel=1e-6)
    assert float(loss) != pytest.approx(_by_hand(logp, logp_old, logp_ref, adv, -0.5, 0.2), rel=1e-6)


def test_a_given_kl_term_replaces_k3():
    logp, logp_old, logp_ref, adv = _batch(2)
    kl = torch.tensor(0.7, dtype=torch.float64)
    with_kl = grpo_loss(logp, logp_old, adv, beta=2.0, clip_eps=None, kl=kl)
    without = grpo_loss(logp, logp_old, adv, beta=2.0, clip_eps=None, kl=torch.zeros((), dtype=torch.float64))
    assert float(with_kl - without) == pytest.approx(1.4, rel=1e-12)


def test_on_policy_its_gradient_is_the_weighted_score_minus_the_k3_gradient():
    logp, _, logp_ref, adv = _batch(3)
    logp = logp.clone().requires_grad_(True)
    grpo_loss(logp, logp.detach(), adv, beta=0.3, clip_eps=0.2, logp_ref=logp_ref).backward()
    d = logp_ref - logp.detach()
    expected = (-adv[:, None] + 0.3 * (1 - torch.exp(d))) / len(adv)  # d/dlogp of -x A and of exp(d) - d - 1
    assert torch.allclose(logp.grad, expected.expand_as(logp), rtol=1e-12, atol=1e-15)
