"""What the dynamics machinery needs of a success recursion z_n = g(z_{n-1}) in logit coordinates.

:func:`~grpo_nb.dynamics.fixed_points.fixed_points`, :func:`~grpo_nb.dynamics.orbits.classify_orbits`,
:func:`~grpo_nb.dynamics.orbits.orbit_kind`, :func:`~grpo_nb.dynamics.orbits.attractor` and
:func:`~grpo_nb.dynamics.regimes.regime_map` study Theorem 2's map by default. Each takes an optional ``variant``: any
object with the :class:`LogitRecursion` interface below, for instance a GRPO variant of :mod:`grpo_nb.variants`
(another normalisation of the reward, another KL anchor). The same period detection, Lyapunov exponents, fixed-point
matching and regime labels then apply to that recursion. :data:`THEOREM2` is the default, Theorem 2's map itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from grpo_nb.dynamics.map import log_abs_logit_map_slope, logit_map

if TYPE_CHECKING:
    from grpo_nb.dynamics.fixed_points import FixedPointGrid

__all__ = ["THEOREM2", "LogitRecursion", "Theorem2Recursion"]


@runtime_checkable
class LogitRecursion(Protocol):
    """A success recursion in logit coordinates, z_n = g(z_{n-1}), z_0 = a = logit p_ref, parametrised by (beta, eps).

    ``uses_eps``: whether eps enters g (it decides the "fixed point next to 1" regime, p*(1-p*) < eps).
    ``__call__(z, a, beta, eps)``: g(z), vectorised, no validation.
    ``log_abs_slope(z, beta, eps)``: log|g'(z)| (the Lyapunov exponent is its orbit average), vectorised.
    ``fixed_points_grid(p_ref, beta, eps)``: every fixed point of g over validated broadcast arrays, as a
    :class:`~grpo_nb.dynamics.fixed_points.FixedPointGrid` (logits sorted, NaN-padded to 3, slopes g'(z*), counts).
    """

    uses_eps: bool

    def __call__(self, z: np.ndarray, a: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> np.ndarray: ...

    def log_abs_slope(self, z: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> np.ndarray: ...

    def fixed_points_grid(self, p_ref: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> FixedPointGrid: ...


class Theorem2Recursion:
    """Theorem 2's map g(z) = a + 1/(beta sqrt(v(z) + eps)) (dynamics.map), as a :class:`LogitRecursion`."""

    uses_eps = True

    def __call__(self, z: np.ndarray, a: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> np.ndarray:
        return logit_map(z, a, beta, eps)

    def log_abs_slope(self, z: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> np.ndarray:
        return log_abs_logit_map_slope(z, beta, eps)

    def fixed_points_grid(self, p_ref: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> FixedPointGrid:
        from grpo_nb.dynamics.fixed_points import fixed_points_grid

        return fixed_points_grid(p_ref, beta, eps)

    def __repr__(self) -> str:
        return "THEOREM2"


#: Theorem 2's recursion, the default of every dynamics function that takes a ``variant``.
THEOREM2 = Theorem2Recursion()
