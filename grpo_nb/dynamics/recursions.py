"""What the dynamics machinery needs of a success recursion z_n = g(z_{n-1}) in logit coordinates.

:func:`~grpo_nb.dynamics.fixed_points.fixed_points`, :func:`~grpo_nb.dynamics.orbits.classify_orbits`,
:func:`~grpo_nb.dynamics.orbits.orbit_kind`, :func:`~grpo_nb.dynamics.orbits.attractor` and
:func:`~grpo_nb.dynamics.regimes.regime_map` study Theorem 2's map by default. Each takes an optional ``variant``: any
object with the :class:`LogitRecursion` interface below, for instance a GRPO variant of :mod:`grpo_nb.variants`
(another normalisation of the reward, another KL anchor). The same period detection, Lyapunov exponents, fixed-point
matching and regime labels then apply to that recursion. The default, Theorem 2's map itself, is
:data:`grpo_nb.dynamics.fixed_points.THEOREM2`. This module holds the interface only (and the fixed points' grid
type it returns), so that every dynamics module can depend on it.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np
from scipy.special import expit

__all__ = ["FixedPointGrid", "LogitRecursion"]


class FixedPointGrid(NamedTuple):
    """Fixed points over a broadcast grid: ``logits``/``slopes`` of shape (..., 3) padded with NaN, ``counts``."""

    logits: np.ndarray
    slopes: np.ndarray
    counts: np.ndarray

    @property
    def p(self) -> np.ndarray:
        """The fixed points as probabilities (NaN padding kept)."""
        return expit(self.logits)

    @property
    def stable(self) -> np.ndarray:
        """|h'(p*)| < 1 (Theorem 4's condition); False on the NaN padding."""
        with np.errstate(invalid="ignore"):
            return np.abs(self.slopes) < 1.0


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
