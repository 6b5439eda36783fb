"""GRPO variants (the paper's latest abstract): mean-only vs mean + variance normalisation; KL to pi_ref, to pi_{n-1}
(mirror), or both, beta [alpha KL(pi || pi_ref) + (1 - alpha) KL(pi || pi_{n-1})].

Public API: ``iterate(p_ref, beta, eps, n, normalization="mean_var", alpha=1.0)`` (the success recursion in logit
space; equal to :func:`grpo_nb.dynamics.iterate` at the defaults) and ``iterate_logit``; ``Variant`` (a variant as a
recursion that :mod:`grpo_nb.dynamics` studies through ``variant=``); ``policy_step`` (the optimal tabular policy in
closed form) and ``solve_policy_step`` (the same step maximised numerically by :mod:`grpo_nb.tabular`).
Submodules: ``map`` (the numpy home of the variants' logit map), ``variant``, ``policy`` (closed forms and the Rényi
form of the recursion). The chapter's analyses are in :mod:`grpo_nb.chapters.variants`.
"""

from grpo_nb.variants.map import (
    anchor_logit,
    effective_beta,
    iterate,
    iterate_logit,
    log_abs_variant_logit_map_slope,
    logit_increment,
    variant_logit_map,
    variant_logit_map_slope,
)
from grpo_nb.variants.policy import (
    log_anchor,
    policy_orbit,
    policy_step,
    renyi_correction,
    renyi_divergence,
    renyi_recursion_logit,
    solve_policy_step,
    success_logit,
)
from grpo_nb.variants.variant import MIRROR, Variant

__all__ = [
    "MIRROR",
    "Variant",
    "anchor_logit",
    "effective_beta",
    "iterate",
    "iterate_logit",
    "log_abs_variant_logit_map_slope",
    "log_anchor",
    "logit_increment",
    "policy_orbit",
    "policy_step",
    "renyi_correction",
    "renyi_divergence",
    "renyi_recursion_logit",
    "solve_policy_step",
    "success_logit",
    "variant_logit_map",
    "variant_logit_map_slope",
]
