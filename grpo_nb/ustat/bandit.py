"""The softmax bandit on which every GRPO gradient estimator can be computed exactly.

One prompt has K answers o = 0..K-1 with verifiable rewards r(o) in {0, 1}; the policy is pi = softmax(theta)
with one free logit per answer. Its value V = E_pi[r] (``bandit_expected_reward``) and its policy gradient
grad V = pi * (r - V) (``exact_gradient``, the target every estimator of :mod:`grpo_nb.ustat.estimators` is measured
against) are those of the softmax policy, :mod:`grpo_nb.tabular.softmax_policy`, importable from here too. Several
prompts are a :class:`PromptSet`: each prompt has its own logits and rewards (a tabular policy, no parameter shared
between prompts) and a probability of being drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grpo_nb.tabular.softmax_policy import bandit_expected_reward, check_bandit, exact_gradient
from grpo_nb.validation import check_policy

__all__ = [
    "PromptSet",
    "check_bandit",
    "exact_gradient",
    "score_norms",
    "bandit_expected_reward",
]


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
