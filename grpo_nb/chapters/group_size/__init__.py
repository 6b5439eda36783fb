"""The analyses of the chapter "Group size" (``book/group_size.md``), in two modules, one per part of the chapter:

* :mod:`~grpo_nb.chapters.group_size.u_statistic`, Part 1 ("The gradient as a U-statistic"): the softmax bandits,
  Lemma 1, the exact moments, the MSE against G, the scaling law, reward normalisation;
* :mod:`~grpo_nb.chapters.group_size.finite_groups`, Part 2 ("Finite groups in the dynamics"): the expected step of
  a finite group, its law against Algorithm 1 runs, the book's own gaps, groups without signal, hard prompts, and
  the evidence on G gathered for section "What this means for choosing G";
* :mod:`~grpo_nb.chapters.group_size.paper_results`, the section "More of the U-statistic paper": prompt-only
  baselines (Corollary 5), model strength against the MSE, the arcsin objective (Proposition 13), the KL bias
  (Theorem 12) and the PL condition behind Theorem 8.

The chapter imports both through this package, ``from grpo_nb.chapters import group_size as checks``.
"""

from grpo_nb.chapters.group_size import paper_results
from grpo_nb.chapters.group_size.finite_groups import (
    BurstStatistics,
    ChainComparison,
    GroupSizeGuide,
    IterationsGap,
    K3Gradient,
    Retention,
    StepFactorCheck,
    ToyLMGap,
    ZeroVarianceStudy,
    burst_statistics,
    expected_map_curves,
    group_size_guide,
    iterations_gap,
    k3_gradient_check,
    replay_check,
    retention_table,
    step_factor_check,
    toy_lm_gap,
    trajectory_comparison,
    zero_variance_study,
)
from grpo_nb.chapters.group_size.u_statistic import (
    BudgetOptimum,
    DifficultyScan,
    ExactRoutes,
    Lemma1Check,
    MSECurves,
    Normalisation,
    Theorem2Fit,
    bandits,
    budget_optimum,
    budget_table,
    difficulty_scan,
    exact_routes,
    gradient_check,
    lemma1_check,
    mse_curves,
    normalisation_table,
    theorem2_fit,
)

__all__ = [
    "BudgetOptimum",
    "BurstStatistics",
    "ChainComparison",
    "DifficultyScan",
    "ExactRoutes",
    "GroupSizeGuide",
    "IterationsGap",
    "K3Gradient",
    "Lemma1Check",
    "MSECurves",
    "Normalisation",
    "Retention",
    "StepFactorCheck",
    "Theorem2Fit",
    "ToyLMGap",
    "ZeroVarianceStudy",
    "bandits",
    "budget_optimum",
    "budget_table",
    "burst_statistics",
    "difficulty_scan",
    "exact_routes",
    "expected_map_curves",
    "gradient_check",
    "group_size_guide",
    "iterations_gap",
    "k3_gradient_check",
    "lemma1_check",
    "mse_curves",
    "normalisation_table",
    "paper_results",
    "replay_check",
    "retention_table",
    "step_factor_check",
    "theorem2_fit",
    "toy_lm_gap",
    "trajectory_comparison",
    "zero_variance_study",
]
