"""The softmax bandit on which every GRPO gradient estimator can be computed exactly.

One prompt has K answers o = 0..K-1 with verifiable rewards r(o) in {0, 1}; the policy is pi = softmax(theta)
with one free logit per answer. Its value is V = E_pi[r] (Eq. 7 of Mroueh 2025, here ``p``), and the policy
gradient theorem (Eq. 3 of the U-statistic paper) gives

    grad_theta V = E_pi[r(o) grad log pi(o)],    grad_theta log pi(o) = e_o - pi   (the softmax score),

so that grad V = pi * (r - V) componentwise. That vector is the target every estimator of
:mod:`grpo_nb.ustat.estimators` is measured against. Several prompts are a :class:`PromptSet`: each prompt
has its own logits and rewards (a tabular policy, no parameter shared between prompts) and a probability of
being drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import softmax

from grpo_nb.tabular.policy import expected_reward
from grpo_nb.validation import check_binary_reward, check_logits, check_policy

__all__ = [
    "PromptSet",
    "check_bandit",
    "exact_gradient",
    "score_norms",
    "bandit_expected_reward",
]


def check_bandit(logits: object, reward: object) -> tuple[np.ndarray, np.ndarray]:
    """Validated (logits, reward): finite logits of shape (..., K), K >= 2, and 0/1 rewards of the same shape."""
    logits = check_logits("logits", logits)
    reward = check_binary_reward("reward", reward, shape=logits.shape)
    return logits, reward


def bandit_expected_reward(logits: object, reward: object) -> np.ndarray | float:
    """V = E_{o ~ softmax(logits)}[r(o)], per prompt (shape (...,)); a float for one prompt."""
    logits, reward = check_bandit(logits, reward)
    v = expected_reward(softmax(logits, axis=-1), reward)
    return float(v) if np.ndim(v) == 0 else v


def exact_gradient(logits: object, reward: object) -> np.ndarray:
    """grad_logits E_{o ~ softmax(logits)}[r(o)] = pi * (r - V): the policy gradient (Eq. 3) with the softmax score.

    ``logits`` and ``reward`` have shape (K,) (one prompt; the result is (K,)) or (..., K) (batched over prompts).
    Bad input raises ValueError: non-finite logits, K < 2, rewards not in {0, 1}, shapes that differ.
    """
    logits, reward = check_bandit(logits, reward)
    pi = softmax(logits, axis=-1)
    value = expected_reward(pi, reward)[..., None]
    return pi * (reward - value)


def score_norms(pi: np.ndarray) -> np.ndarray:
    """||e_o - pi||^2 = 1 - 2 pi_o + ||pi||^2 for every answer o (the squared norm of the softmax score)."""
    return 1.0 - 2.0 * pi + np.sum(pi * pi, axis=-1, keepdims=True)


@dataclass(frozen=True)
class PromptSet:
    """P prompts, each a softmax bandit over K answers: logits and 0/1 rewards of shape (P, K), and the prompt
    distribution ``prompt_probs`` of shape (P,) (the law from which a minibatch draws its prompts)."""

    logits: np.ndarray
    reward: np.ndarray
    prompt_probs: np.ndarray

    def __post_init__(self) -> None:
        logits, reward = check_bandit(self.logits, self.reward)
        if logits.ndim != 2:
            raise ValueError(f"logits has shape {logits.shape}; valid shape is (P, K): one row of logits per prompt")
        probs = check_policy("prompt_probs", self.prompt_probs)
        if probs.shape != (logits.shape[0],):
            raise ValueError(
                f"prompt_probs has shape {probs.shape}; valid shape is ({logits.shape[0]},), one probability per prompt"
            )
        object.__setattr__(self, "logits", logits)
        object.__setattr__(self, "reward", reward)
        object.__setattr__(self, "prompt_probs", probs)

    @property
    def expected_reward(self) -> np.ndarray:
        """V(x) = E_pi[r] per prompt, shape (P,)."""
        return np.asarray(bandit_expected_reward(self.logits, self.reward)).reshape(-1)

    @property
    def gradient(self) -> np.ndarray:
        """The gradient of J = sum_x rho(x) V(x) in the tabular logits: rho(x) grad V(x) in row x, shape (P, K)."""
        return self.prompt_probs[:, None] * exact_gradient(self.logits, self.reward)
