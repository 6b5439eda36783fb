"""The GRPO family side by side: GRPO, Dr. GRPO, DAPO, BNPO, GSPO, CISPO, RLOO and REINFORCE++.

Public API: ``advantage(name, rewards, ...)`` (rewards (groups, G) -> advantages (groups, G)), ``loss(name, logp,
advantages, ...)`` (a batch's loss and its exact gradient), ``METHODS`` (one :class:`Method` record per method, with
its enumerated fields ``Centring``, ``Scaling``, ``Ratio``, ``Clip``, ``KLPlacement``, ``KLEstimator``,
``Aggregation``, ``SilentGroups``, ``TRLTrainer``: :mod:`.methods`; ``advantage`` and ``loss`` also take a record in
place of a name), and what each normalisation climbs (:mod:`.objectives`: ``gap``, ``climbed``, ``success_weights``,
``SuccessOnlyRecursion``, ``forward_kl_success``) with its sympy derivations (:mod:`.symbolic`). Names:
``METHOD_NAMES`` = grpo, dr_grpo, dapo, bnpo, gspo, cispo, rloo, reinforce_pp. The chapter's analyses are in
:mod:`grpo_nb.chapters.grpo_family`.
"""

from grpo_nb.family.advantage import ADVANTAGE_RULES, REINFORCE_PP_EPS, advantage, leave_one_out_baseline
from grpo_nb.family.loss import DEFAULT_CLIP, LossValue, aggregation_weights, loss
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
    "NORMALISATIONS",
    "REINFORCE_PP_EPS",
    "LossValue",
    "Method",
    "Ratio",
    "Scaling",
    "SilentGroups",
    "SuccessOnlyRecursion",
    "TRLTrainer",
    "advantage",
    "aggregation_weights",
    "climbed",
    "climbed_gradients",
    "forward_kl_success",
    "gap",
    "leave_one_out_baseline",
    "loss",
    "method",
    "rloo_identity",
    "success_weights",
]
