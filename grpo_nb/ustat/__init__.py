"""GRPO's gradient as a U-statistic, and what a finite group does to the success recursion.

Public API: ``exact_gradient(logits, reward)`` (the policy gradient of a softmax bandit, shape (K,); its one home is
:mod:`grpo_nb.tabular.softmax_policy`) and ``gradient_estimates(logits, reward, G, n_groups, estimator, seed=0)``
(one estimate per group of G answers, shape (n_groups, K); estimator "vanilla" | "grpo" | "oracle" | "grpo_std").
Submodules: ``bandit`` (the softmax bandit, several prompts), ``estimators`` (the group estimators, Lemma 1's
pairwise kernel), ``moments`` (exact bias and MSE for every G, the Hoeffding decomposition of Theorem 2, the expected
step factor), ``scaling`` (minibatches and the optimal group size, Proposition 3 and Theorem 7), ``finite_group``
(the success recursion with a finite group: its expected step, its law, the orbits of its expected map, dynamic
sampling). The group-size chapter's analyses are :mod:`grpo_nb.chapters.group_size`.
"""

from grpo_nb.tabular.softmax_policy import bandit_expected_reward, exact_gradient
from grpo_nb.ustat.bandit import PromptSet
from grpo_nb.ustat.estimators import ESTIMATORS, gradient_estimates
from grpo_nb.ustat.moments import exact_moments, hoeffding_constants

__all__ = [
    "ESTIMATORS",
    "PromptSet",
    "exact_gradient",
    "exact_moments",
    "gradient_estimates",
    "hoeffding_constants",
    "bandit_expected_reward",
]
