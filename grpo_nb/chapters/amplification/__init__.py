"""The analyses of the chapter "Amplification and convergence" (``book/amplification.md`` and its sub-pages,
paper §4), each returning its table and the values the chapter's asserts need, in one module per section (or group
of sections) of the chapter:

* :mod:`~grpo_nb.chapters.amplification.theorem3`, "Amplification (Theorem 3)": Theorem 3 in logit form over a
  (p_ref, beta) grid, and on Theorem 1's closed-form policies over random finite outcome spaces;
* :mod:`~grpo_nb.chapters.amplification.condition2`, "The paper's Fig. 3: where condition (2) holds": where
  Theorem 3's printed condition (2) fails, how its left-hand side grows as beta -> 0, and whether it holds for
  every (beta, p_ref);
* :mod:`~grpo_nb.chapters.amplification.local_convergence`, "Local convergence (Theorem 4 and Lemma 1)" and
  "The paper's Fig. 4: the bound on β": Theorem 4's bound B(p*) against the fixed points' slopes and perturbed
  orbits, and the peak of B(p*) per eps;
* :mod:`~grpo_nb.chapters.amplification.orbits`, "The paper's Fig. 5: what the iterations do", 'The "divergent"
  case is a stable 2-cycle' and "A map of the regimes": where the orbits go, the 2-cycle, the regime maps' counts
  and the oscillating orbits that miss a stable fixed point;
* :mod:`~grpo_nb.chapters.amplification.theorem4_hypothesis`, "Theorem 4's hypothesis against amplification": where
  Theorem 4's hypothesis can hold at all, against where the orbit converges;
* :mod:`~grpo_nb.chapters.amplification.one_beta`, "Remark 2: one β for all prompts": the per-prompt bounds on beta
  read off a grid, beside the exact set of unsafe betas and the prompt-free bound;
* :mod:`~grpo_nb.chapters.amplification.beta_in_practice`, "What β means in practice": the KL weights used in
  practice, the k3 penalty's gradients, the practical betas on the regime maps, the first exact step and the
  recursion as beta -> 0;
* :func:`sympy_verdict` (each section with a sympy derivation): the one-line verdict shown above the folded
  derivation.

The chapter imports them all through this package, ``from grpo_nb.chapters import amplification as checks``. The
formulas they check live in :mod:`grpo_nb.dynamics` (``map``, ``paper_bounds``, ``fixed_points``, ``orbits``,
``regimes``, ``uniform_beta``) and :mod:`grpo_nb.kl`; the negative tests replace names a section's module reads
(``amplification_gap``, ``theorem4_beta_bound_logit``, ``contraction_on_ball``, ``grpo_step``, ``gibbs_log_policy``,
``k3``) with wrong formulas and see the verdicts fail.
"""

from grpo_nb.chapters.amplification.beta_in_practice import (
    PRACTICE_BETAS,
    FirstStep,
    KLGradients,
    PracticeRegimes,
    SmallBetaLimit,
    first_step,
    kl_penalty_gradients,
    practice_regime_table,
    small_beta_limit,
)
from grpo_nb.chapters.amplification.condition2 import (
    Condition2Everywhere,
    Condition2Extremes,
    Condition2Failures,
    ExponentFit,
    FailureRegion,
    condition2_everywhere,
    condition2_failure_region,
    condition2_small_beta_growth,
)
from grpo_nb.chapters.amplification.local_convergence import (
    BoundPeak,
    BoundPeaks,
    Perturbed,
    StabilityCheck,
    beta_bound_peaks,
    theorem4_stability_check,
)
from grpo_nb.chapters.amplification.one_beta import (
    PerPromptBounds,
    UniformBetaReport,
    per_prompt_bounds,
    uniform_beta_report,
)
from grpo_nb.chapters.amplification.orbits import (
    MissedStablePoints,
    OrbitTable,
    TwoCycle,
    missed_stable_points,
    orbit_table,
    regime_count_table,
    two_cycle_report,
)
from grpo_nb.chapters.amplification.theorem3 import (
    Theorem3Solver,
    Theorem3Survey,
    Theorem3Tabular,
    theorem3_solver_check,
    theorem3_survey,
    theorem3_tabular,
)
from grpo_nb.chapters.amplification.theorem4_hypothesis import (
    HypothesisTable,
    Theorem4Hypothesis,
    contraction_on_ball,
    hypothesis_table,
    theorem4_hypothesis_grid,
)
from grpo_nb.symbolic.identity import sympy_verdict

__all__ = [
    "BoundPeak",
    "BoundPeaks",
    "Condition2Everywhere",
    "Condition2Extremes",
    "Condition2Failures",
    "ExponentFit",
    "FailureRegion",
    "FirstStep",
    "HypothesisTable",
    "KLGradients",
    "MissedStablePoints",
    "OrbitTable",
    "PRACTICE_BETAS",
    "PerPromptBounds",
    "Perturbed",
    "PracticeRegimes",
    "SmallBetaLimit",
    "StabilityCheck",
    "Theorem3Survey",
    "Theorem3Solver",
    "Theorem3Tabular",
    "Theorem4Hypothesis",
    "TwoCycle",
    "UniformBetaReport",
    "beta_bound_peaks",
    "condition2_everywhere",
    "condition2_failure_region",
    "condition2_small_beta_growth",
    "contraction_on_ball",
    "first_step",
    "hypothesis_table",
    "kl_penalty_gradients",
    "missed_stable_points",
    "orbit_table",
    "per_prompt_bounds",
    "practice_regime_table",
    "regime_count_table",
    "small_beta_limit",
    "sympy_verdict",
    "theorem3_survey",
    "theorem3_solver_check",
    "theorem3_tabular",
    "theorem4_hypothesis_grid",
    "theorem4_stability_check",
    "two_cycle_report",
    "uniform_beta_report",
]
