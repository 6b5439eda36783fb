"""GRPO's success-probability dynamics (paper §3-§4): the map h, its fixed points and orbits.

Public API (DESIGN.md): ``h``, ``h_prime``, ``iterate``, ``fixed_points``, ``attractor``, ``orbit_kind``.
"""

from grpo_nb.dynamics.map import (
    bernoulli_variance_of_logit,
    h,
    h_prime,
    iterate,
    iterate_logit,
    logit_h,
    logit_map,
)

__all__ = [
    "bernoulli_variance_of_logit",
    "h",
    "h_prime",
    "iterate",
    "iterate_logit",
    "logit_h",
    "logit_map",
]
