"""The first step of GRPO on a network, predicted from the effective loss and measured.

At theta = theta_old = theta_ref, with exact expectations over the answers, the gradient of GRPO's objective is
that of its effective loss (Eq. 6): the mean over prompts of E_pi[omega^+ r - omega^- (1 - r)], whose value at
pi_theta is (omega^+ + omega^-) p_theta - omega^-, with the weights at p_old; the KL term has zero gradient at
pi_ref. One gradient-ascent step of size ``lr`` on the trained parameters is therefore

    delta theta = lr/P sum_q s(p_q) grad p_q,        s = omega^+_eps + omega^-_eps = 1/sqrt(p(1-p) + eps),

and to first order it moves prompt j's log-odds z_j = logit p_j by

    delta z_j = lr/P sum_q s(p_q) K_jq,        K_jq = grad z_j . grad p_q = p_q (1 - p_q) grad z_j . grad z_q,

a kernel over prompts: its diagonal is each prompt's own push, its other entries what the shared parameters carry
from one prompt to another. The measured change is exact (one forward pass per prompt before and after the step);
they agree up to terms of order lr^2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from scipy.special import logit

from grpo_nb.smollm.arithmetic import ANSWER_TOKENS, ArithmeticTask
from grpo_nb.smollm.blocks import SplitModel
from grpo_nb.validation import check_eps, check_open_interval, check_scalar
from grpo_nb.weights import weight_scale

__all__ = ["FirstStep", "first_step", "logit_gradients"]


@dataclass(frozen=True)
class FirstStep:
    """p before the step (P,), the kernel K (P, P), the predicted and the measured change of each prompt's log-odds."""

    p: np.ndarray
    kernel: np.ndarray
    predicted: np.ndarray
    measured: np.ndarray
    eps: float
    lr: float

    @property
    def relative_residual(self) -> float:
        """max_j |measured - predicted| / max_j |predicted|."""
        return float(np.max(np.abs(self.measured - self.predicted)) / np.max(np.abs(self.predicted)))

    @property
    def own_share(self) -> np.ndarray:
        """Per prompt, the share of its predicted change that its own term s(p_j) K_jj makes."""
        s = np.asarray(weight_scale(self.p, self.eps))  # s(p) = omega^+ + omega^-
        return s * np.diag(self.kernel) / (self.kernel @ s)


def logit_gradients(split: SplitModel, hidden: torch.Tensor, task: ArithmeticTask) -> tuple[np.ndarray, torch.Tensor]:
    """(p (P,), the gradients of z_j = logit p_j in the trained parameters, stacked (P, n_trained)); float64."""
    grads, ps = [], []
    for j in range(task.sequences.shape[0]):
        logp = split.answer_logprobs(hidden[j : j + 1], task.sequences[j : j + 1], ANSWER_TOKENS).sum()
        z = logp - torch.log1p(-torch.exp(logp))  # logit p = log p - log(1 - p)
        g = torch.autograd.grad(z, split.parameters())
        grads.append(torch.cat([x.reshape(-1) for x in g]).double())
        ps.append(float(logp.detach().exp()))
    return np.asarray(ps), torch.stack(grads).cpu()


def first_step(split: SplitModel, task: ArithmeticTask, *, lrs: tuple[float, ...], eps: float) -> list[FirstStep]:
    """Predict (from the kernel) and measure (from the exact p after the step) the change of every prompt's log-odds
    under one gradient-ascent step on the effective loss, for each step size in ``lrs`` (the gradients are taken
    once). ``split`` is left as it was."""
    lrs = tuple(check_open_interval("lr", lr, lo=0.0, hi=np.inf) for lr in lrs)
    eps = check_scalar("eps", check_eps(eps))
    hidden = split.lower(task.sequences)
    p, grad_z = logit_gradients(split, hidden, task)
    kernel = (grad_z @ grad_z.T).numpy() * (p * (1.0 - p))[None, :]  # K_jq = grad z_j . grad p_q
    weight = np.asarray(weight_scale(p, eps))  # s(p) = omega^+ + omega^- = 1/sqrt(p(1-p) + eps)
    direction = torch.from_numpy(weight * p * (1.0 - p)) @ grad_z / p.size  # 1/P sum_q s(p_q) grad p_q
    return [
        FirstStep(p=p, kernel=kernel, predicted=lr / p.size * kernel @ weight,
                  measured=_measured_change(split, hidden, task, lr * direction, p), eps=eps, lr=lr)
        for lr in lrs
    ]  # fmt: skip


def _measured_change(
    split: SplitModel, hidden: torch.Tensor, task: ArithmeticTask, step: torch.Tensor, p: np.ndarray
) -> np.ndarray:
    """logit p_j after adding ``step`` to the trained parameters, minus logit p_j before (parameters restored)."""
    saved = [x.detach().clone() for x in split.parameters()]
    try:
        with torch.no_grad():
            offset = 0
            for x in split.parameters():
                x.add_(step[offset : offset + x.numel()].view_as(x).to(x.dtype))
                offset += x.numel()
            after = split.answer_logprobs(hidden, task.sequences, ANSWER_TOKENS).sum(dim=1).double()
    finally:
        with torch.no_grad():
            for x, s in zip(split.parameters(), saved, strict=True):
                x.copy_(s)
    return logit(after.exp().cpu().numpy()) - logit(p)
