"""GRPO's success-probability dynamics (paper §3-§4): the map h, its fixed points and orbits.

Public API (DESIGN.md): ``h``, ``h_prime``, ``iterate``, ``fixed_points``, ``attractor``, ``orbit_kind``.
Submodules: ``map`` (Thm 2, Prop 1), ``fixed_points``, ``paper_bounds`` (Thm 3's condition (2),
Thm 4's bound), ``orbits`` (limit sets, Lyapunov exponents), ``regimes`` (maps over (beta, p_ref)),
``bifurcation`` and ``high_precision`` (the hard-prompts chapter).
"""

from grpo_nb.dynamics.fixed_points import FixedPoint, fixed_points, fixed_points_grid
from grpo_nb.dynamics.map import (
    bernoulli_variance_of_logit,
    h,
    h_prime,
    iterate,
    iterate_logit,
    logit_h,
    logit_map,
)
from grpo_nb.dynamics.orbits import OrbitKind, OrbitSummary, attractor, classify_orbits, orbit_kind

__all__ = [
    "FixedPoint",
    "OrbitKind",
    "OrbitSummary",
    "attractor",
    "bernoulli_variance_of_logit",
    "classify_orbits",
    "fixed_points",
    "fixed_points_grid",
    "h",
    "h_prime",
    "iterate",
    "iterate_logit",
    "logit_h",
    "logit_map",
    "orbit_kind",
]
