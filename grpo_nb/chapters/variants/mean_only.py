"""Section "Mean-only normalisation with KL to pi_ref: one step" of the chapter "GRPO variants"
(``book/variants_recursions.md``): the numerically maximised step forgets pi_{n-1}, and with both KLs the affine map
approaches its fixed point geometrically."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logit

from grpo_nb.chapters.variants.variant_set import _P_REF, random_instance
from grpo_nb.constants import PAPER_EPS
from grpo_nb.report import Table
from grpo_nb.validation import check_map_params, check_positive_int
from grpo_nb.variants.map import iterate_logit, variant_logit_map
from grpo_nb.variants.policy import solve_policy_step, success_logit

__all__ = ["MeanOnlyCheck", "mean_only_fixed_point"]


@dataclass(frozen=True)
class MeanOnlyCheck:
    """Mean-only normalisation: one step with KL to pi_ref forgets pi_{n-1} (by the numerical solver), and the affine
    map of 0 < alpha < 1 approaches a + 1/(alpha beta) geometrically with ratio 1 - alpha."""

    table: Table
    policy_spread: float
    logit_error: float
    mean_var_spread: float
    affine_error: float
    affine_monotone: bool


def _solved_steps(pi_ref, pi_prevs, reward, beta, normalization) -> np.ndarray:
    """The numerically maximised step (:func:`grpo_nb.variants.solve_policy_step`, alpha = 1) from each pi_{n-1}."""
    return np.stack(
        [
            solve_policy_step(pi_ref, q, reward, beta, PAPER_EPS, normalization=normalization, alpha=1.0)
            for q in pi_prevs
        ]
    )


def mean_only_fixed_point(
    p_ref: np.ndarray,
    beta: np.ndarray,
    *,
    rng: np.random.Generator,
    alphas: Sequence[float] = (0.3, 0.5, 0.7),
    n: int = 20,
    n_instances: int = 4,
    n_prev: int = 3,
) -> MeanOnlyCheck:
    """Section "Mean-only normalisation with KL to pi_ref: one step", from the objective rather than from the map.

    For ``n_instances`` random instances, the step of "mean", alpha = 1 is maximised numerically (never the closed
    form) from ``n_prev`` random previous policies: policy_spread is the largest gap between those maximisers (0 if the
    step forgets pi_{n-1}), logit_error the largest |logit p_n - g(logit p_{n-1})| with g the variant's map
    (:func:`grpo_nb.variants.map.variant_logit_map`), relative to max(1, |logit p_n|). As a control,
    mean_var_spread is the smallest spread of logit p_n with Eq. 4's normalisation, whose step does depend on
    p_{n-1}. affine_error: for each 0 < alpha < 1 over broadcast (p_ref, beta), the largest
    |z_n - (z* - (1 - alpha)^n (z* - a))| relative to max(1, |z*|) along the orbit of
    :func:`grpo_nb.variants.iterate_logit`, z* = a + 1/(alpha beta); affine_monotone: z_n never falls.
    """
    check_map_params(p_ref, beta, 0.0)
    n_prev = check_positive_int("n_prev", n_prev, minimum=2)
    rows, spread, logit_err, control = [], 0.0, 0.0, np.inf
    for _ in range(check_positive_int("n_instances", n_instances)):
        pi_ref, _, reward, b = random_instance(rng)
        pi_prevs = [random_instance(rng)[0] for _ in range(n_prev)]  # Dirichlet(1/2): p_{n-1} spread out
        steps = _solved_steps(pi_ref, pi_prevs, reward, b, "mean")
        spread = max(spread, float(np.max(np.ptp(steps, axis=0))))
        z_prev = np.array([success_logit(q, reward) for q in pi_prevs])
        z_next = success_logit(steps, reward)
        predicted = variant_logit_map(z_prev, logit(float(pi_ref @ reward)), b, 0.0, normalization="mean", alpha=1.0)
        logit_err = max(logit_err, float(np.max(np.abs(z_next - predicted) / np.maximum(1.0, np.abs(z_next)))))
        z_mean_var = success_logit(_solved_steps(pi_ref, pi_prevs, reward, b, "mean_var"), reward)
        control = min(control, float(np.ptp(z_mean_var)))
        shown = ", ".join(f"{p:.4f}" for p in expit(z_prev))
        rows.append([float(pi_ref @ reward), b, shown, ", ".join(f"{p:.6f}" for p in expit(z_next))])
    a = logit(p_ref)
    affine_err, monotone = 0.0, True
    for alpha in alphas:
        z = iterate_logit(p_ref, beta, 0.0, n=n, normalization="mean", alpha=alpha)
        z_star = a + 1.0 / (alpha * beta)
        k = np.arange(n + 1).reshape(-1, *([1] * np.ndim(z_star)))
        predicted = z_star - (1.0 - alpha) ** k * (z_star - a)
        affine_err = max(affine_err, float(np.max(np.abs(z - predicted) / np.maximum(1.0, np.abs(z_star)))))
        monotone &= bool(np.all(np.diff(z, axis=0) >= 0))
    headers = [_P_REF, "β", r"$p_{n-1}$ of three random $\pi_{n-1}$", "$p_n$ from each (solver)"]
    return MeanOnlyCheck(Table(headers, rows, ".3g"), spread, logit_err, control, affine_err, monotone)
