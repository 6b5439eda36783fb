"""Section "Variance normalisation is mean-only normalisation with an adaptive beta" of the chapter "GRPO variants"
(``book/variants_effective_beta.md``): the two steps have one maximiser at beta_eff = beta sqrt(p(1-p)+eps), and how far
beta_eff falls below its value at p = 1/2, with the exact p and inside a group of G answers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import logit

from grpo_nb.advantage import group_advantage
from grpo_nb.chapters.variants.variant_set import _small, random_instance
from grpo_nb.report import Table
from grpo_nb.validation import check_positive_int
from grpo_nb.variants.map import effective_beta, variant_logit_map
from grpo_nb.variants.policy import solve_policy_step

__all__ = ["EffectiveBetaCheck", "EffectiveBetaFactors", "effective_beta_check", "effective_beta_factors"]


@dataclass(frozen=True)
class EffectiveBetaCheck:
    """mean+var at beta against mean-only at beta_eff, both maximised numerically; the sandwich of the map."""

    table: Table
    solver_gap: float
    control_gap: float
    sandwich: bool
    touches_at_half: float


def effective_beta_check(
    z: np.ndarray, eps_values: Sequence[float], alphas: Sequence[float], *, rng: np.random.Generator
) -> EffectiveBetaCheck:
    """Variance normalisation at beta is mean-only normalisation at beta_eff(p_{n-1}), from the objective.

    For each eps and alpha, three random instances: the step of "mean_var" at beta and that of "mean" at
    beta_eff = :func:`grpo_nb.variants.effective_beta` of logit p_{n-1}, each maximised numerically by
    :func:`grpo_nb.variants.solve_policy_step` (which never sees a closed form or beta_eff); solver_gap is the largest
    gap between the two maximisers. control_gap: the smallest gap when mean-only keeps beta itself (a check that
    could not tell the coefficients apart would make it tiny). The sandwich: mean-only at beta sqrt(1/4 + eps) <=
    mean+var at beta <= mean-only at beta sqrt(eps) on the logit grid ``z`` (alpha = 1, a = -3, beta = 2), with
    equality of the first at z = 0 (``touches_at_half`` is the gap there).
    """
    beta, a = 2.0, -3.0
    rows, solver_gap, control, sandwich, touch = [], 0.0, np.inf, True, 0.0
    for eps in eps_values:
        with np.errstate(over="ignore"):
            mv = variant_logit_map(z, a, beta, eps, normalization="mean_var", alpha=1.0)
        finite = np.isfinite(mv)
        lower = variant_logit_map(z, a, beta * np.sqrt(0.25 + eps), eps, normalization="mean", alpha=1.0)
        sandwich &= bool(np.all(mv[finite] >= lower[finite] - 1e-12 * np.abs(lower[finite])))
        if eps > 0:
            upper = variant_logit_map(z, a, beta * np.sqrt(eps), eps, normalization="mean", alpha=1.0)
            sandwich &= bool(np.all(mv <= upper * (1 + 1e-12) + 1e-12))
        touch = max(touch, float(abs(variant_logit_map(0.0, a, beta, eps) - lower[np.argmin(np.abs(z))])))
        for alpha in alphas:
            gap, ctrl = 0.0, np.inf
            for _ in range(3):
                pi_ref, pi_prev, reward, b = random_instance(rng)
                b_eff = float(effective_beta(logit(float(pi_prev @ reward)), b, eps))
                args = (pi_ref, pi_prev, reward)
                mean_var = solve_policy_step(*args, b, eps, normalization="mean_var", alpha=alpha)
                mean_eff = solve_policy_step(*args, b_eff, eps, normalization="mean", alpha=alpha)
                mean_same = solve_policy_step(*args, b, eps, normalization="mean", alpha=alpha)
                gap = max(gap, float(np.max(np.abs(mean_var - mean_eff))))
                ctrl = min(ctrl, float(np.max(np.abs(mean_var - mean_same))))
            solver_gap, control = max(solver_gap, gap), min(control, ctrl)
            rows.append([eps, alpha, _small(gap, 1e-8), ctrl])
    headers = [
        "ε",
        "α",
        r"max $\lvert \pi^{\text{mean+var}}_{\beta} - \pi^{\text{mean}}_{\beta_{\mathrm{eff}}}\rvert$ (solver)",
        r"control: min $\lvert \pi^{\text{mean+var}}_{\beta} - \pi^{\text{mean}}_{\beta}\rvert$",
    ]
    return EffectiveBetaCheck(Table(headers, rows, ".2g"), solver_gap, control, sandwich, touch)


@dataclass(frozen=True)
class EffectiveBetaFactors:
    """How much smaller beta_eff gets than at p = 1/2: with the exact p, and inside a group of G answers."""

    table: Table
    population_factor: float
    population_limit: float
    group_sizes: np.ndarray
    group_factors: np.ndarray
    group_bounds: np.ndarray


def effective_beta_factors(eps: float, group_sizes: Sequence[int] = (8, 16, 64)) -> EffectiveBetaFactors:
    """beta_eff(1/2) / beta_eff(p): its largest value over p, and over the success rates a group can have.

    population_factor: the largest ratio over a logit grid from -40 to 40 (the exact p of the policy), against its
    limit sqrt((1/4 + eps)/eps) as p -> 0 or 1. In a group of G sampled answers the advantage is Eq. 4's
    (:func:`grpo_nb.advantage.group_advantage`, form "paper") at the group's own rate p_hat = k/G, and it is non-zero
    only for 1 <= k <= G - 1. Its gap s = A(success) - A(failure) is 1/sqrt(p_hat(1 - p_hat) + eps), so the ratio is
    s sqrt(1/4 + eps) = s beta_eff(1/2)/beta; group_factors is its largest value over k, group_bounds the claimed
    bound G/(2 sqrt(G - 1)), which p_hat(1 - p_hat) >= (G - 1)/G^2 gives (equality at eps = 0).
    """
    z = np.linspace(-40.0, 40.0, 8001)
    half = float(effective_beta(0.0, 1.0, eps))
    population = float(np.max(half / effective_beta(z, 1.0, eps)))
    factors, where = [], []
    for G in group_sizes:
        G = check_positive_int("G", G, minimum=2)
        ratios = []
        for k in range(1, G):
            rewards = (np.arange(G) < k).astype(float)
            advantage = group_advantage(rewards, "paper", eps)
            ratios.append(float(advantage[0] - advantage[-1]) * half)
        factors.append(max(ratios))
        where.append(int(np.argmax(ratios)) + 1)
    sizes = np.array(group_sizes)
    bounds = sizes / (2.0 * np.sqrt(sizes - 1.0))
    rows = [[int(G), f"{k}/{G}", f, b] for G, k, f, b in zip(sizes, where, factors, bounds, strict=True)]
    rows.append(["exact $p$", "$p \\to 0$ or $1$", population, np.sqrt((0.25 + eps) / eps)])
    headers = ["G", r"worst $\hat p$", r"largest $\beta_{\mathrm{eff}}(1/2)/\beta_{\mathrm{eff}}$", "bound"]
    return EffectiveBetaFactors(
        Table(headers, rows, ".3g"), population, float(np.sqrt((0.25 + eps) / eps)), sizes, np.array(factors), bounds
    )
