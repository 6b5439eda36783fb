"""The analyses of the chapter "Group size" (``book/group_size.md``), one module per part or section of the chapter:

* :mod:`~grpo_nb.chapters.group_size.u_statistic`, Part 1 ("The gradient as a U-statistic"): the softmax bandits,
  Lemma 1, the exact moments, the MSE against G, the scaling law, reward normalisation;
* Part 2 ("Finite groups in the dynamics"), in three modules:

  * :mod:`~grpo_nb.chapters.group_size.finite_groups_law` ("The expected step of a finite group", "The finite-group
    recursion on a two-answer prompt", "The law against Algorithm 1 runs"): the expected step of a finite group, its
    recursion replayed on two-answer prompts, and its law against Algorithm 1 runs;
  * :mod:`~grpo_nb.chapters.group_size.finite_groups_gaps` ("The book's own gaps, predicted"): the GRPO-iterations
    chapter's gap and the toy LM's run against the finite-group law, and the gradient of the k3 term;
  * :mod:`~grpo_nb.chapters.group_size.finite_groups_no_signal` ("Groups without signal, and dynamic sampling",
    "Hard prompts: do finite groups blur the cycles and chaos?"): the rules for groups without signal, and the
    finite-group chain of a hard prompt;

* :mod:`~grpo_nb.chapters.group_size.paper_results`, the section "More of the U-statistic paper": prompt-only
  baselines (Corollary 5), model strength against the MSE, the arcsin objective (Proposition 13), the KL bias
  (Theorem 12) and the PL condition behind Theorem 8;
* :mod:`~grpo_nb.chapters.group_size.choosing_group_size`, the section "What this means for choosing G": the
  chapter's evidence on G gathered in one table.

The chapter imports them all through this package, ``from grpo_nb.chapters import group_size as checks``.
"""

from grpo_nb.chapters.group_size import paper_results
from grpo_nb.chapters.group_size.choosing_group_size import GroupSizeGuide, group_size_guide
from grpo_nb.chapters.group_size.finite_groups_gaps import (
    IterationsGap,
    K3Gradient,
    ToyLMGap,
    iterations_gap,
    k3_gradient_check,
    toy_lm_gap,
)
from grpo_nb.chapters.group_size.finite_groups_law import (
    ChainComparison,
    Retention,
    StepFactorCheck,
    expected_map_curves,
    replay_check,
    retention_table,
    step_factor_check,
    trajectory_comparison,
)
from grpo_nb.chapters.group_size.finite_groups_no_signal import (
    BurstStatistics,
    ZeroVarianceStudy,
    burst_statistics,
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
