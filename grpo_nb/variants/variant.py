"""A GRPO variant as a recursion the dynamics machinery can study: fixed points, orbits, regimes.

``Variant(normalization, alpha)`` implements :class:`grpo_nb.dynamics.recursions.LogitRecursion`, so it can be passed
as ``variant=`` to :func:`grpo_nb.dynamics.fixed_points`, :func:`~grpo_nb.dynamics.classify_orbits`,
:func:`~grpo_nb.dynamics.orbit_kind`, :func:`~grpo_nb.dynamics.attractor` and :func:`~grpo_nb.dynamics.regime_map`.

Its fixed points come from a reduction. A fixed point of g(z) = alpha a + (1 - alpha) z + s(z)/beta solves
alpha (z - a) = s(z)/beta, that is z = a + s(z)/(alpha beta) for alpha > 0:

* ``"mean_var"``: the fixed points of Theorem 2's map with beta replaced by alpha beta, found by
  :func:`grpo_nb.dynamics.fixed_points.fixed_points_grid` (all of them, the one next to 1 included);
* ``"mean"``: the single fixed point a + 1/(alpha beta);
* alpha = 0 (mirror): none, since s > 0 (every orbit increases to p = 1).

Their multipliers are the variant's own slope g'(z*) = (1 - alpha) + s'(z*)/beta
(:func:`grpo_nb.variants.map.variant_logit_map_slope`), that is 1 - alpha + alpha h'_{alpha beta}(p*).

Which prompts can flip (:meth:`Variant.flip_bound`): a fixed point z* < 0 has multiplier below -1 iff
beta < |s'(z*)|/(2 - alpha), and its prompt's logit a = z* - s(z*)/(alpha beta) grows with beta, so every prompt with a
flipped fixed point has a below sup over z < 0 of z - (2 - alpha) s(z)/(alpha |s'(z)|), whatever beta. The factor
(2 - alpha)/alpha falls as alpha grows, so this bound grows with alpha.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import expit, logit

from grpo_nb.dynamics.fixed_points import FixedPointGrid, fixed_points_grid
from grpo_nb.validation import check_alpha, check_eps, check_map_params, check_normalization, check_scalar
from grpo_nb.variants.map import (
    log_abs_variant_logit_map_slope,
    logit_increment,
    variant_logit_map,
    variant_logit_map_slope,
)

__all__ = ["MIRROR", "Variant"]

_NORMALIZATION_NAMES = {"mean_var": "mean+var", "mean": "mean-only"}


@dataclass(frozen=True)
class Variant:
    """One GRPO variant: the reward normalisation ("mean_var" or "mean") and the weight alpha of the KL to pi_ref.

    Callable as its logit map g(z, a, beta, eps); ``Variant()`` is the paper's iteration, the same map as
    :data:`grpo_nb.dynamics.THEOREM2` (the dynamics functions' default ``variant``).
    """

    normalization: str = "mean_var"
    alpha: float = 1.0

    def __post_init__(self) -> None:
        check_normalization(self.normalization)
        object.__setattr__(self, "alpha", check_scalar("alpha", check_alpha(self.alpha)))

    @property
    def uses_eps(self) -> bool:
        """eps enters the map only through the variance normalisation."""
        return self.normalization == "mean_var"

    @property
    def label(self) -> str:
        """A reader-facing name, e.g. "mean+var, alpha = 0.5"."""
        return f"{_NORMALIZATION_NAMES[self.normalization]}, α = {self.alpha:g}"

    def __call__(self, z: np.ndarray, a: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> np.ndarray:
        return variant_logit_map(z, a, beta, eps, normalization=self.normalization, alpha=self.alpha)

    def slope(self, z: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> np.ndarray:
        """g'(z) (:func:`grpo_nb.variants.map.variant_logit_map_slope`)."""
        return variant_logit_map_slope(z, beta, eps, normalization=self.normalization, alpha=self.alpha)

    def log_abs_slope(self, z: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> np.ndarray:
        """log|g'(z)| (:func:`grpo_nb.variants.map.log_abs_variant_logit_map_slope`)."""
        return log_abs_variant_logit_map_slope(z, beta, eps, normalization=self.normalization, alpha=self.alpha)

    def fixed_points_grid(self, p_ref: object, beta: object, eps: object) -> FixedPointGrid:
        """Every fixed point over broadcast (p_ref, beta, eps), by the reduction in the module docstring."""
        p_ref, beta, eps = check_map_params(p_ref, beta, eps, broadcast=True)
        shape = p_ref.shape
        if self.alpha == 0.0:
            empty = np.full((*shape, 3), np.nan)
            return FixedPointGrid(empty, empty.copy(), np.zeros(shape, dtype=int))
        damped_beta = self.alpha * beta
        if (damped_beta == 0).any():
            raise ValueError(f"alpha={self.alpha!r} times beta underflows to 0; valid: alpha * beta > 0 (or alpha = 0)")
        if self.normalization == "mean":
            logits = np.full((*shape, 3), np.nan)
            logits[..., 0] = logit(p_ref) + 1.0 / damped_beta
            counts = np.ones(shape, dtype=int)
        else:
            reduced = fixed_points_grid(p_ref, damped_beta, eps)
            logits, counts = reduced.logits, reduced.counts
        with np.errstate(invalid="ignore"):
            slopes = np.where(
                np.isnan(logits), np.nan, self.slope(np.nan_to_num(logits), beta[..., None], eps[..., None])
            )
        return FixedPointGrid(logits, slopes, counts)

    def flip_bound(self, eps: object) -> float:
        """sup over beta of the p_ref whose fixed point below 1/2 has multiplier < -1 (see the module docstring):

        expit(max over z < 0 of z + (2 - alpha) s(z) / (alpha s'(z))), s(z) = 1/sqrt(v(z) + eps) and s' < 0 there.
        No prompt above it has a flipped fixed point at any beta. 0.0 where no fixed point can flip: mean-only
        normalisation (multiplier 1 - alpha) and the mirror step (no fixed point).
        """
        eps = float(check_scalar("eps", check_eps(eps)))
        if self.normalization == "mean" or self.alpha == 0.0:
            return 0.0
        z = -np.geomspace(1e-6, 60.0, 4001)
        logits = _flip_prompt_logit(z, self.alpha, eps)
        i = int(np.argmax(logits))
        bracket = (z[min(i + 1, z.size - 1)], z[max(i - 1, 0)])
        best = minimize_scalar(
            lambda x: -float(_flip_prompt_logit(x, self.alpha, eps)),
            bounds=bracket,
            method="bounded",
            options={"xatol": 1e-12},
        )
        return float(expit(max(logits[i], -best.fun)))


def _flip_prompt_logit(z: object, alpha: float, eps: float) -> np.ndarray:
    """z + (2 - alpha) s(z)/(alpha s'(z)): the sup over flipping beta of the prompt logit whose fixed point is z < 0."""
    push = logit_increment(z, 1.0, eps)  # s(z)
    slope = variant_logit_map_slope(z, 1.0, eps, alpha=1.0)  # s'(z)
    return np.asarray(z, dtype=float) + (2.0 - alpha) * push / (alpha * slope)


#: The mirror step with the paper's normalisation: KL to the previous policy only.
MIRROR = Variant("mean_var", 0.0)
