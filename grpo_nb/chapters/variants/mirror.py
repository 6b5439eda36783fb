"""Section "Mirror (alpha = 0): no interior fixed point" of the chapter "GRPO variants"
(``book/variants_recursions.md``): alpha = 0 has no fixed point, its orbits increase, and they run to p = 1."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import logit

from grpo_nb.chapters.variants.variant_set import _NAMES, NORMALIZATIONS, random_instance
from grpo_nb.constants import PAPER_EPS
from grpo_nb.dynamics.fixed_points import fixed_points_grid
from grpo_nb.dynamics.map import logit_map_cap, logit_map_margin
from grpo_nb.dynamics.orbits import classify_orbits
from grpo_nb.report import Table
from grpo_nb.tabular.policy import expected_reward
from grpo_nb.validation import check_map_params
from grpo_nb.variants.map import iterate_logit
from grpo_nb.variants.policy import policy_orbit, success_logit
from grpo_nb.variants.variant import Variant

__all__ = ["MirrorSurvey", "mirror_survey"]

_BETAS = (1.0, 10.0)  # the table's betas: steps from p_ref = 0.001 to p > 0.99
_CLASSIFY = {"transient": 200, "n_keep": 64, "n_lyapunov": 128, "max_period": 16}  # classify_orbits' options


@dataclass(frozen=True)
class MirrorSurvey:
    """alpha = 0 over a grid, per normalisation and eps: fixed points, monotonicity, the increments' bounds, p -> 1."""

    table: Table
    any_fixed_point: bool
    increments_within_bounds: bool
    all_escape: bool
    tabular_monotone: bool
    tabular_recursion_error: float
    eps_values: np.ndarray
    mean_var_steps: np.ndarray
    mean_only_steps: np.ndarray
    mean_only_predicted: np.ndarray


def _steps_to(p_ref: float, beta: float, eps: float, normalization: str, target: float, n_max: int = 2000) -> int:
    """The first n with p_n > target along the mirror orbit (-1 if not within n_max steps)."""
    with np.errstate(over="ignore"):
        z = iterate_logit(p_ref, beta, eps, n=n_max, normalization=normalization, alpha=0.0)
    above = z > logit(target)
    return int(np.argmax(above)) if above.any() else -1


def _increments_within_bounds(z: np.ndarray, steps: np.ndarray, beta, eps: float, normalization: str) -> bool:
    """Whether every finite increment z_n - z_{n-1} of a mirror orbit lies between 1/(beta sqrt(1/4 + eps)) and
    1/(beta sqrt(eps)) ("mean": exactly 1/beta), up to the rounding of z_n (4 ulp), and every non-finite z_n is +inf."""
    lo = logit_map_margin(beta, eps) if normalization == "mean_var" else 1.0 / beta
    hi = lo if normalization == "mean" else logit_map_cap(0.0, beta, eps)
    finite = np.isfinite(steps)
    slack = 4 * np.finfo(float).eps * np.maximum(1.0, np.abs(z[1:]))
    lo_b, hi_b = np.broadcast_to(lo, steps.shape), np.broadcast_to(hi, steps.shape)
    above = bool(np.all(steps[finite] >= lo_b[finite] * (1 - 1e-12) - slack[finite]))
    below = bool(np.all(steps[finite] <= hi_b[finite] * (1 + 1e-12) + slack[finite]))
    return above & below & bool(np.all(np.isposinf(z[1:][~np.isfinite(z[1:])])))


def _mirror_orbits(p_ref, beta, eps: float, normalization: str, n: int) -> tuple[bool, bool, bool]:
    """The mirror step of one normalisation and eps over broadcast (p_ref, beta): whether some grid point has a fixed
    point, whether the increments of the orbits stay within their bounds, and whether every orbit runs to p = 1."""
    variant = Variant(normalization, 0.0)
    any_fp = bool(np.any(fixed_points_grid(p_ref, beta, eps, variant=variant).counts))
    with np.errstate(over="ignore", invalid="ignore"):
        z = iterate_logit(p_ref, beta, eps, n=n, normalization=normalization, alpha=0.0)
        steps = np.diff(z, axis=0)
    within = _increments_within_bounds(z, steps, beta, eps, normalization)
    summary = classify_orbits(p_ref, beta, eps, variant=variant, **_CLASSIFY)
    return any_fp, within, bool(np.all(np.isposinf(summary.limit_logits[..., -1])))


def _tabular_mirror_runs(rng: np.random.Generator) -> tuple[bool, float]:
    """Exact tabular mirror runs from a random pi_0, one per normalisation: whether p_n increases, and the largest
    |logit p_n - the recursion from logit p_0| relative to max(1, |logit p_n|) of the recursion."""
    monotone, recursion_err = True, 0.0
    for normalization in NORMALIZATIONS:
        pi_ref, pi_0, reward, b = random_instance(rng)
        run = policy_orbit(pi_ref, reward, b, PAPER_EPS, n=30, normalization=normalization, alpha=0.0, pi_0=pi_0)
        p = expected_reward(run, reward)
        monotone &= bool(np.all(np.diff(p) >= 0) and p[-1] > p[0])
        z = success_logit(run, reward)
        with np.errstate(over="ignore"):
            z_map = iterate_logit(float(pi_0 @ reward), b, PAPER_EPS, n=30, normalization=normalization, alpha=0.0)
        kept = np.isfinite(z) & (np.abs(z) < 30)  # past |logit| 30 one outcome set's mass underflows in the table
        gap = np.abs(z - z_map)[kept] / np.maximum(1.0, np.abs(z_map[kept]))
        recursion_err = max(recursion_err, float(np.max(gap)) if kept.sum() > 2 else np.inf)
    return monotone, recursion_err


def mirror_survey(
    p_ref: np.ndarray,
    beta: np.ndarray,
    eps_values: Sequence[float],
    *,
    rng: np.random.Generator,
    n: int = 200,
) -> MirrorSurvey:
    """The mirror step (alpha = 0) over broadcast (p_ref, beta), for both normalisations and each eps.

    The increments z_n - z_{n-1} = s(z_{n-1})/beta are checked against 1/(beta sqrt(1/4 + eps)) <= s/beta <=
    1/(beta sqrt(eps)) ("mean": exactly 1/beta), up to the rounding of z_n (4 ulp); the orbits are classified by the
    dynamics machinery; exact tabular mirror runs from random pi_0 are checked to increase p_n. The table gives the
    number of steps from p_ref = 0.001 to p > 0.99 for beta = 1 and 10; mean_var_steps (one row per eps) and
    mean_only_steps hold them, mean_only_predicted is ceil(beta (logit 0.99 - logit 0.001)) for mean-only.
    tabular_recursion_error: |logit p_n - the recursion from logit p_0| along the tabular runs from random pi_0.
    """
    check_map_params(p_ref, beta, 0.0)
    rows, any_fp, within, escape = [], False, True, True
    for normalization in NORMALIZATIONS:
        for eps in eps_values if normalization == "mean_var" else eps_values[:1]:
            has_fp, ok, escaped = _mirror_orbits(p_ref, beta, eps, normalization, n)
            any_fp, within, escape = any_fp | has_fp, within & ok, escape & escaped
            label = eps if normalization == "mean_var" else "any"
            rows.append([_NAMES[normalization], label, *(_steps_to(1e-3, b, eps, normalization, 0.99) for b in _BETAS)])
    monotone, recursion_err = _tabular_mirror_runs(rng)
    headers = ["normalisation", "ε", "steps 0.001 → 0.99, β = 1", "steps 0.001 → 0.99, β = 10"]
    counts = np.array([row[2:] for row in rows], dtype=int)
    predicted = np.ceil(np.array(_BETAS) * (logit(0.99) - logit(1e-3))).astype(int)
    return MirrorSurvey(
        Table(headers, rows, ".3g"),
        any_fp,
        within,
        escape,
        monotone,
        recursion_err,
        np.asarray(eps_values, dtype=float),
        counts[:-1],
        counts[-1],
        predicted,
    )
