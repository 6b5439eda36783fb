"""GRPO's success-probability dynamics (paper §3-§4): the map h, its fixed points and orbits.

Public API: ``h``, ``h_prime``, ``iterate`` (Thm 2, Prop 1), ``fixed_points`` (every fixed point, with its slope
and stability), ``attractor`` and ``orbit_kind`` (where the orbit from p_ref goes), ``classify_orbits`` (the same,
vectorised), and the logit map ``logit_map`` / ``logit_map_slope`` / ``logit_map_power`` that all of them share.
Submodules: ``map`` (Thm 2, Prop 1), ``fixed_points``, ``paper_bounds`` (Thm 3's condition (2), Thm 4's bound,
Remark 2's prompt-free bound), ``uniform_beta`` (Remark 2 exactly: the supremum of the per-prompt bounds, the betas
safe for a whole range of prompts, the prompts that need a lower bound on beta), ``orbits`` (limit sets, Lyapunov
exponents and the spread of finite-time ones), ``regimes`` (maps over (beta, p_ref)), ``bifurcation`` and
``high_precision`` (the hard-prompts chapter), ``recursions`` (the interface through which fixed points, orbits and
regimes take another recursion, ``variant=``, such as the GRPO variants of :mod:`grpo_nb.variants`). The chapters'
analyses (a table and its verdicts) are in :mod:`grpo_nb.chapters`.
"""

from grpo_nb.dynamics.fixed_points import THEOREM2, FixedPoint, fixed_points, fixed_points_grid
from grpo_nb.dynamics.map import (
    bernoulli_variance_of_logit,
    h,
    h_prime,
    iterate,
    iterate_logit,
    log_abs_logit_map_slope,
    logit_h,
    logit_map,
    logit_map_power,
    logit_map_slope,
)
from grpo_nb.dynamics.orbits import OrbitClass, OrbitKind, OrbitSummary, attractor, classify_orbits, orbit_kind
from grpo_nb.dynamics.recursions import LogitRecursion
from grpo_nb.dynamics.regimes import Regime, regime_map
from grpo_nb.dynamics.uniform_beta import (
    p_up_threshold,
    prompt_beta_bound,
    safe_betas,
    supremum_bound,
    unstable_prompts,
)

__all__ = [
    "THEOREM2",
    "FixedPoint",
    "LogitRecursion",
    "OrbitClass",
    "OrbitKind",
    "OrbitSummary",
    "Regime",
    "attractor",
    "bernoulli_variance_of_logit",
    "classify_orbits",
    "fixed_points",
    "fixed_points_grid",
    "h",
    "h_prime",
    "iterate",
    "iterate_logit",
    "log_abs_logit_map_slope",
    "logit_h",
    "logit_map",
    "logit_map_power",
    "logit_map_slope",
    "orbit_kind",
    "p_up_threshold",
    "prompt_beta_bound",
    "regime_map",
    "safe_betas",
    "supremum_bound",
    "unstable_prompts",
]
