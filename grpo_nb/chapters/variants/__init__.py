"""The analyses of the chapter "GRPO variants" (``book/variants.md`` and its sub-pages), one module per section, each
returning its table and the values its asserts need:

* :mod:`~grpo_nb.chapters.variants.variant_set` ("The variants"): the variants the chapter compares
  (:data:`ALL_VARIANTS`) and the random instances its checks draw (:func:`random_instance`);
* :mod:`~grpo_nb.chapters.variants.optimal_policy` ("The optimal policy of every variant"): every closed-form policy
  against the numerical solver of :mod:`grpo_nb.tabular` (:func:`solver_agreement`);
* :mod:`~grpo_nb.chapters.variants.success_recursion` ("The success recursion in logit form"): tabular runs from
  pi_0 = pi_ref against :func:`grpo_nb.variants.iterate`, and each variant's orbit (:func:`recursion_agreement`,
  :func:`variant_orbit`, :func:`orbit_table`);
* :mod:`~grpo_nb.chapters.variants.mean_only` ("Mean-only normalisation with KL to pi_ref: one step"): the
  numerically maximised step forgets pi_{n-1}, and with both KLs the affine map approaches its fixed point
  geometrically (:func:`mean_only_fixed_point`);
* :mod:`~grpo_nb.chapters.variants.mirror` ("Mirror (alpha = 0)"): alpha = 0 has no fixed point, its orbits increase,
  and they run to p = 1 (:func:`mirror_survey`);
* :mod:`~grpo_nb.chapters.variants.renyi` ("The Rényi term vanishes from pi_0 = pi_ref"): the Rényi correction
  vanishes from pi_ref, and from any other start it is what the one-dimensional recursion misses; it decays like
  (1 - alpha)^{2n} (:func:`renyi_check`);
* :mod:`~grpo_nb.chapters.variants.fixed_points_against_alpha1` ("The fixed points, against alpha = 1"): alpha < 1
  against alpha = 1: the fixed points are Theorem 2's at alpha beta (:func:`fixed_point_comparison`,
  :func:`variant_fixed_points`, :func:`fixed_point_table`);
* :mod:`~grpo_nb.chapters.variants.regimes_and_cycles` ("What alpha does to the regimes, and to the cycles"): the
  regime maps of the variants, and where their cycles live (:func:`regime_survey`, :func:`cycle_frontier`,
  :func:`refine_cycle_frontier`);
* :mod:`~grpo_nb.chapters.variants.adaptive_beta` ("Variance normalisation is mean-only normalisation with an adaptive
  beta"): the two steps have one maximiser at beta_eff = beta sqrt(p(1-p)+eps), and how far beta_eff falls below its
  value at p = 1/2, with the exact p and inside a group of G answers (:func:`effective_beta_check`,
  :func:`effective_beta_factors`);
* :mod:`~grpo_nb.chapters.variants.convergence` ("When the iteration settles on a fixed point"): orbits that do not
  (:func:`convergence_counterexamples`).

The chapter imports them all through this package, ``from grpo_nb.chapters import variants as checks``.
"""

from grpo_nb.chapters.variants.adaptive_beta import (
    EffectiveBetaCheck,
    EffectiveBetaFactors,
    effective_beta_check,
    effective_beta_factors,
)
from grpo_nb.chapters.variants.convergence import ConvergenceCases, convergence_counterexamples
from grpo_nb.chapters.variants.fixed_points_against_alpha1 import (
    FixedPointComparison,
    VariantFixedPoint,
    fixed_point_comparison,
    fixed_point_table,
    variant_fixed_points,
)
from grpo_nb.chapters.variants.mean_only import MeanOnlyCheck, mean_only_fixed_point
from grpo_nb.chapters.variants.mirror import MirrorSurvey, mirror_survey
from grpo_nb.chapters.variants.optimal_policy import SolverAgreement, solver_agreement
from grpo_nb.chapters.variants.regimes_and_cycles import (
    CycleFrontier,
    FrontierRefinement,
    RegimeSurvey,
    cycle_frontier,
    refine_cycle_frontier,
    regime_survey,
)
from grpo_nb.chapters.variants.renyi import RenyiCheck, renyi_check
from grpo_nb.chapters.variants.settings import BETA_GRID, FIG5, P_REF_GRID
from grpo_nb.chapters.variants.success_recursion import (
    RecursionAgreement,
    VariantOrbit,
    orbit_table,
    recursion_agreement,
    variant_orbit,
)
from grpo_nb.chapters.variants.variant_set import ALL_VARIANTS, random_instance

__all__ = [
    "BETA_GRID",
    "FIG5",
    "P_REF_GRID",
    "ALL_VARIANTS",
    "ConvergenceCases",
    "CycleFrontier",
    "EffectiveBetaCheck",
    "EffectiveBetaFactors",
    "FixedPointComparison",
    "FrontierRefinement",
    "MeanOnlyCheck",
    "MirrorSurvey",
    "RecursionAgreement",
    "RegimeSurvey",
    "RenyiCheck",
    "SolverAgreement",
    "VariantFixedPoint",
    "VariantOrbit",
    "convergence_counterexamples",
    "cycle_frontier",
    "effective_beta_check",
    "effective_beta_factors",
    "fixed_point_comparison",
    "fixed_point_table",
    "mean_only_fixed_point",
    "mirror_survey",
    "orbit_table",
    "random_instance",
    "recursion_agreement",
    "refine_cycle_frontier",
    "regime_survey",
    "renyi_check",
    "solver_agreement",
    "variant_fixed_points",
    "variant_orbit",
]
