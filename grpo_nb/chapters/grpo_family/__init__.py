"""The analyses of the chapter "The GRPO family, side by side" (``book/grpo_family.md`` and its pages
``book/grpo_family_new.md``, ``book/grpo_family_entropy.md``, ``book/grpo_family_entropy_control.md``), one module
per section or page:

* :mod:`~grpo_nb.chapters.grpo_family.table`, "One table, every row computed": the family's rows, each advantage
  computed by :func:`grpo_nb.family.advantage`, and what TRL's flags leave out;
* :mod:`~grpo_nb.chapters.grpo_family.trl_check`, "Checked against TRL's code": TRL 1.16's advantages, losses and
  gradients, run by TRL's own ``GRPOTrainer``, against :mod:`grpo_nb.family`, and TRL's silent groups;
* :mod:`~grpo_nb.chapters.grpo_family.identities`, "Identities between rows": RLOO = G/(G-1) x Dr. GRPO and how far
  it carries to the trainers, the pairwise form at G = 2, GSPO's on-policy gradient, the silent groups;
* :mod:`~grpo_nb.chapters.grpo_family.climbs`, "What each normalisation climbs": the finite-group gap against its
  G -> infinity limit, and where each recursion converges or cycles;
* :mod:`~grpo_nb.chapters.grpo_family.kl_direction`, "What each KL estimator optimises": each estimator's direction
  (closed form and autograd), its scope (answers of two tokens, older samples, inner optima), the forward-KL orbit;
* :mod:`~grpo_nb.chapters.grpo_family.new_rows`, the page "The new rows" (``book/grpo_family_new.md``): SAPO's and
  VESPO's token weights and on-policy identities, MaxRL's truncation order by exact sums, what GDPO climbs with two
  rewards, TRL's two multi-reward aggregations;
* :mod:`~grpo_nb.chapters.grpo_family.entropy_bonus`, the page "The entropy bonus" (``book/grpo_family_entropy.md``):
  what TRL's ``entropy_coef`` adds to the loss, Theorem 1's step with it (a tempered tilt, computed by
  :mod:`~grpo_nb.chapters.grpo_family.tempered_step`), its recursion, fixed points and amplification;
* :mod:`~grpo_nb.chapters.grpo_family.entropy_control`, the page "Controlling the entropy"
  (``book/grpo_family_entropy_control.md``): TRL's adaptive entropy coefficient against its logs and on the toy
  task, and where the exact iteration ends when a bonus is annealed. The page reaches it as ``checks.entropy_control``.

The chapter imports them all through this package, ``from grpo_nb.chapters import grpo_family as checks``. A check
reads the module-level name of the book's statement in its section's module when it runs (``rloo_factor``,
``silent_probability``, ``PAIR_SCALE``, ``STATED_SHARE``, ``CLAIMED_DIRECTION``, ``CLAIMED_SCOPE``, ``ADVANTAGE``,
``LOSS``), so a test that replaces it there by a wrong one (monkeypatch) sees the check fail.
"""

from grpo_nb.chapters.grpo_family import entropy_control
from grpo_nb.chapters.grpo_family.climbs import (
    STATED_SHARE,
    FiniteGroupClimbs,
    RegimeSurvey,
    finite_group_climbs,
    finite_group_gap,
    regime_survey,
)
from grpo_nb.chapters.grpo_family.entropy_bonus import (
    BONUS_REFERENCES,
    SOLVER_TOL,
    STATED_BONUS,
    STATED_EXPONENT,
    STATED_RECURSION,
    SURVEY_BETA,
    SURVEY_COEFS,
    AmplificationSurvey,
    TRLEntropyTerm,
    amplification_survey,
    bonus_curves,
    recursion_check,
    tilt_check,
    trl_entropy_term,
)
from grpo_nb.chapters.grpo_family.identities import (
    PAIR_SCALE,
    RLOOAgainstDrGRPO,
    RowIdentities,
    rloo_against_dr_grpo,
    rloo_factor,
    row_identities,
    silent_probability,
)
from grpo_nb.chapters.grpo_family.kl_direction import (
    CLAIMED_DIRECTION,
    CLAIMED_SCOPE,
    KLEstimators,
    KLScope,
    kl_estimators,
    kl_scope,
)
from grpo_nb.chapters.grpo_family.new_rows import (
    ANGLE_TOL,
    MULTI_REWARD_CLIMBED,
    TRUNCATION_ORDER,
    MaxRLTruncation,
    MultiRewardClimbs,
    OnPolicyIdentities,
    TRLMultiReward,
    maxrl_truncation,
    multi_reward_climbs,
    on_policy_identities,
    sapo_temperature_rounding,
    token_weights,
    trl_multi_reward,
    truncated_gap,
    truncated_gap_at,
)
from grpo_nb.chapters.grpo_family.table import EXAMPLE_REWARDS, FamilyTable, family_table
from grpo_nb.chapters.grpo_family.tempered_step import (
    entropy_bonus_objective,
    entropy_bonus_step,
    solve_entropy_bonus_step,
    tempered_reference,
    tempered_success,
)
from grpo_nb.chapters.grpo_family.tolerances import TOL, TOL_TRL
from grpo_nb.chapters.grpo_family.trl_check import TRL_LOSS_CASES, TRL_REWARDS, TRLComparison, trl_comparison

__all__ = [
    "entropy_control",
    "entropy_bonus_objective",
    "entropy_bonus_step",
    "solve_entropy_bonus_step",
    "tempered_reference",
    "tempered_success",
    "BONUS_REFERENCES",
    "SOLVER_TOL",
    "STATED_BONUS",
    "STATED_EXPONENT",
    "STATED_RECURSION",
    "SURVEY_BETA",
    "SURVEY_COEFS",
    "AmplificationSurvey",
    "TRLEntropyTerm",
    "amplification_survey",
    "bonus_curves",
    "recursion_check",
    "tilt_check",
    "trl_entropy_term",
    "ANGLE_TOL",
    "MULTI_REWARD_CLIMBED",
    "MaxRLTruncation",
    "MultiRewardClimbs",
    "OnPolicyIdentities",
    "TRLMultiReward",
    "TRUNCATION_ORDER",
    "maxrl_truncation",
    "multi_reward_climbs",
    "on_policy_identities",
    "sapo_temperature_rounding",
    "token_weights",
    "truncated_gap",
    "truncated_gap_at",
    "trl_multi_reward",
    "CLAIMED_DIRECTION",
    "CLAIMED_SCOPE",
    "EXAMPLE_REWARDS",
    "PAIR_SCALE",
    "STATED_SHARE",
    "TOL",
    "TOL_TRL",
    "TRL_LOSS_CASES",
    "TRL_REWARDS",
    "FamilyTable",
    "FiniteGroupClimbs",
    "KLEstimators",
    "KLScope",
    "RLOOAgainstDrGRPO",
    "RegimeSurvey",
    "RowIdentities",
    "TRLComparison",
    "family_table",
    "finite_group_climbs",
    "finite_group_gap",
    "kl_estimators",
    "kl_scope",
    "regime_survey",
    "rloo_against_dr_grpo",
    "rloo_factor",
    "row_identities",
    "silent_probability",
    "trl_comparison",
]
