"""The non-parametric side of §5 on the toy LM's (P, K) tables of log pi(o|q): Theorem 1's policy, total variation,
success probabilities.

Thin adapters: the formulas live in :mod:`grpo_nb.tabular.policy` (their one numpy home); here they are applied to
validated (P prompts, K enumerated outputs) log tables.
"""

from __future__ import annotations

import numpy as np

from grpo_nb.tabular import policy
from grpo_nb.validation import check_binary_reward, check_log_policy_table

__all__ = ["table_expected_reward", "theorem1_logpolicy", "total_variation"]


def table_expected_reward(logp: object, reward: object) -> np.ndarray:
    """p(q) = sum_o pi(o|q) r(q, o) (Eq. 7), exactly, from a (P, K) table of log pi."""
    logp = check_log_policy_table("logp", logp)
    return policy.expected_reward(np.exp(logp), check_binary_reward("reward", reward, shape=logp.shape))


def theorem1_logpolicy(logp_ref: object, reward: object, p_prev: object, beta: object, eps: object) -> np.ndarray:
    """Theorem 1: log pi_n(o|q) = log pi_ref(o|q) + (omega^+ r - omega^- (1 - r))/beta - log Z_{n-1}(q).

    ``p_prev`` (P,) is the success probability of pi_{n-1}; returns a (P, K) table, normalised per prompt.
    """
    logp_ref = check_log_policy_table("logp_ref", logp_ref)
    reward = check_binary_reward("reward", reward, shape=logp_ref.shape)
    return policy.gibbs_log_policy(logp_ref, reward, np.asarray(p_prev, dtype=float).reshape(-1), beta, eps)


def total_variation(logp_a: object, logp_b: object) -> np.ndarray:
    """TV(pi_a(.|q), pi_b(.|q)) = 1/2 sum_o |pi_a - pi_b| per prompt, from two (P, K) log tables."""
    a, b = check_log_policy_table("logp_a", logp_a), check_log_policy_table("logp_b", logp_b)
    if a.shape != b.shape:
        raise ValueError(f"logp_a of shape {a.shape} and logp_b of shape {b.shape} differ; they must match")
    return policy.total_variation(np.exp(a), np.exp(b))
