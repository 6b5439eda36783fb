"""The GRPO family side by side: GRPO, Dr. GRPO, DAPO, BNPO, GSPO, CISPO, RLOO, REINFORCE++, SAPO, VESPO, MaxRL and
GDPO.

Public API: ``advantage(name, rewards, ...)`` (rewards (groups, G) -> advantages (groups, G)), ``loss(name, logp,
advantages, ...)`` (a batch's loss and its exact gradient), ``METHODS`` (one :class:`Method` record per method, with
its enumerated fields ``Centring``, ``Scaling``, ``Ratio``, ``Clip``, ``KLPlacement``, ``KLEstimator``,
``Aggregation``, ``SilentGroups``, ``TRLTrainer``: :mod:`.methods`; ``advantage`` and ``loss`` also take a record in
place of a name), and what each normalisation climbs (:mod:`.objectives`: ``gap``, ``climbed``, ``success_weights``,
``SuccessOnlyRecursion``, ``forward_kl_success``) with its sympy derivations (:mod:`.symbolic`). Names:
``METHOD_NAMES`` = grpo, dr_grpo, dapo, bnpo, gspo, cispo, rloo, reinforce_pp, sapo, vespo, maxrl, gdpo. Several
rewards per answer: ``multi_reward_advantage`` (:mod:`.multi_reward`, TRL's two aggregations, GDPO's among them).
The chapter's analyses are in :mod:`grpo_nb.chapters.grpo_family`.
"""

from grpo_nb.family.advantage import (
    ADVANTAGE_RULES,
    REINFORCE_PP_EPS,
    UNSMOOTHED,
    advantage,
    batch_normalised,
    leave_one_out_baseline,
)
from grpo_nb.family.loss import DEFAULT_CLIP, LossValue, aggregation_weights, gamma_weight, loss, soft_gate
from grpo_nb.family.methods import (
    METHOD_NAMES,
    METHODS,
    Aggregation,
    Centring,
    Clip,
    KLEstimator,
    KLPlacement,
    Method,
    Ratio,
    Scaling,
    SilentGroups,
    TRLTrainer,
    method,
)
from grpo_nb.family.multi_reward import MULTI_REWARD_AGGREGATIONS, multi_reward_advantage
from grpo_nb.family.objectives import (
    NORMALISATIONS,
    SuccessOnlyRecursion,
    climbed,
    forward_kl_success,
    gap,
    success_weights,
)
from grpo_nb.family.symbolic import CLIMBED, climbed_gradients, rloo_identity

__all__ = [
    "ADVANTAGE_RULES",
    "Aggregation",
    "CLIMBED",
    "Centring",
    "Clip",
    "DEFAULT_CLIP",
    "KLEstimator",
    "KLPlacement",
    "METHODS",
    "METHOD_NAMES",
    "MULTI_REWARD_AGGREGATIONS",
    "NORMALISATIONS",
    "REINFORCE_PP_EPS",
    "LossValue",
    "Method",
    "Ratio",
    "Scaling",
    "SilentGroups",
    "SuccessOnlyRecursion",
    "TRLTrainer",
    "UNSMOOTHED",
    "advantage",
    "aggregation_weights",
    "batch_normalised",
    "climbed",
    "climbed_gradients",
    "forward_kl_success",
    "gamma_weight",
    "gap",
    "leave_one_out_baseline",
    "loss",
    "method",
    "multi_reward_advantage",
    "rloo_identity",
    "soft_gate",
    "success_weights",
]
