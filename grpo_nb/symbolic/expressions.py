"""The shared starting points of every derivation: symbols, Bernoulli statistics, advantage, objective, KL, softmax.

Every check of :mod:`grpo_nb.symbolic` starts from these definitions (what the paper starts from) and lets sympy
derive the simplified form, which it then compares with the formula the paper prints, typed out literally in the
check. Nothing here is a printed result, except :func:`h_expr`, the map of Theorem 2, which
:func:`grpo_nb.symbolic.policy_dynamics.theorem2_logistic_form` derives from the objective before the later
sections differentiate it.

- the reward r ~ Bernoulli(p) of the old policy's answer, its mean and variance (sympy.stats);
- the smoothed variance Var[r] + eps of §2.2 (:func:`smoothed_variance`, the one place where eps enters);
- the whitened advantage (r - E r)/sqrt(Var r + eps) (Eq. 1, §2.2) and its two values omega^+, -omega^- (Eq. 4);
- the softmax policy, the KL divergence, the GRPO-No-Clip objective with exact expectations (§2.3), the
  objective of a GRPO iteration (Eq. 6) and Theorem 1's tilted policy.

Symbols are module constants, all declared positive, so that callers can build their own candidate expressions.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import sympy as sp
from sympy.stats import Bernoulli, E, variance

__all__ = [
    "BETA",
    "CLIP",
    "EPS",
    "OPEN_UNIT_SUBS",
    "P",
    "P_REF",
    "P_STAR",
    "advantage",
    "eq9_ratio",
    "grpo_objective",
    "h_expr",
    "iteration_objective",
    "kl_divergence",
    "omega_minus",
    "omega_plus",
    "reward_mean",
    "reward_variance",
    "sigmoid",
    "smoothed_variance",
    "softmax",
    "tilted_policy",
    "variance_term",
]

P, P_REF, BETA, EPS = sp.symbols("p p_ref beta varepsilon", positive=True)
P_STAR = sp.Symbol("p^*", positive=True)
#: the clip range of PPO/GRPO (the paper's \epsilon, distinct from the smoothing \varepsilon = EPS)
CLIP = sp.Symbol("epsilon_clip", positive=True)
# Positive reparametrisations that make 0 < p < 1 and 0 < p_ref < 1 visible to sympy's assumptions:
# p = u/(1+u) with u > 0 (u = odds of p), p_ref = 1/(1+A) with A = (1-p_ref)/p_ref > 0.
_U, _A = sp.symbols("u A", positive=True)
#: Substitution that puts p and p_ref strictly inside (0, 1), so sympy can decide signs on the open unit interval.
OPEN_UNIT_SUBS = {P: _U / (1 + _U), P_REF: 1 / (1 + _A)}


@cache
def _bernoulli_moments(p: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    r = Bernoulli("r", p)
    return sp.simplify(E(r)), sp.factor(sp.simplify(variance(r)))


def reward_mean(p: sp.Expr = P) -> sp.Expr:
    """E[r] for a 0/1 reward r ~ Bernoulli(p), computed by sympy.stats (not typed)."""
    return _bernoulli_moments(sp.sympify(p))[0]


def reward_variance(p: sp.Expr = P) -> sp.Expr:
    """Var[r] for a 0/1 reward r ~ Bernoulli(p), computed by sympy.stats (not typed)."""
    return _bernoulli_moments(sp.sympify(p))[1]


def smoothed_variance(var: sp.Expr, eps: sp.Expr = EPS) -> sp.Expr:
    """§2.2: the variance under the advantage's square root after smoothing, Var + eps (eps inside the root)."""
    return var + eps


def variance_term(p: sp.Expr = P, eps: sp.Expr = EPS) -> sp.Expr:
    """V(p) = Var[r] + eps for r ~ Bernoulli(p): the smoothed Bernoulli variance of Eq. (4)."""
    return smoothed_variance(reward_variance(p), eps)


def advantage(r: sp.Expr, mean: sp.Expr, var: sp.Expr, *, eps: sp.Expr = EPS) -> sp.Expr:
    """Eq. (1) with §2.2's smoothing: (r - mean)/sqrt(var + eps), mean and var the old policy's reward statistics."""
    return (r - mean) / sp.sqrt(smoothed_variance(var, eps))


def omega_plus(p: sp.Expr = P, eps: sp.Expr = EPS) -> sp.Expr:
    """omega^+_eps(p): the advantage of a success (r = 1) under Bernoulli(p) statistics, Eq. (4)."""
    return advantage(sp.Integer(1), reward_mean(p), reward_variance(p), eps=eps)


def omega_minus(p: sp.Expr = P, eps: sp.Expr = EPS) -> sp.Expr:
    """omega^-_eps(p): minus the advantage of a failure (r = 0) under Bernoulli(p) statistics, Eq. (4)."""
    return -advantage(sp.Integer(0), reward_mean(p), reward_variance(p), eps=eps)


def sigmoid(z: sp.Expr) -> sp.Expr:
    """The logistic function 1/(1 + e^{-z}) as a sympy expression (p = sigmoid(logit p))."""
    return 1 / (1 + sp.exp(-z))


def softmax(logits: Sequence[sp.Expr]) -> list[sp.Expr]:
    """The softmax policy pi_i = e^{theta_i} / sum_j e^{theta_j}."""
    z = sum(sp.exp(t) for t in logits)
    return [sp.exp(t) / z for t in logits]


def kl_divergence(pi: Sequence[sp.Expr], ref: Sequence[sp.Expr]) -> sp.Expr:
    """KL(pi || ref) = sum_i pi_i log(pi_i / ref_i) on a finite outcome set."""
    return sum(x * sp.log(x / q) for x, q in zip(pi, ref, strict=True))


def grpo_objective(
    pi: Sequence[sp.Expr],
    pi_old: Sequence[sp.Expr],
    rewards: Sequence[sp.Expr],
    ref: Sequence[sp.Expr] | None = None,
    beta: sp.Expr = BETA,
    eps: sp.Expr = EPS,
) -> sp.Expr:
    """GRPO-No-Clip (§2.3) for one prompt with exact expectations over the old policy's samples:

    E_{o ~ pi_old}[(pi(o)/pi_old(o)) A(o)] - beta KL(pi || ref), A = (r - mean)/sqrt(var + eps) with the mean and
    variance of the reward under pi_old (the group statistics of an infinite group). ``ref=None`` drops the KL term.
    """
    mean = sp.cancel(sum(o * r for o, r in zip(pi_old, rewards, strict=True)))
    var = sp.factor(sp.cancel(sum(o * (r - mean) ** 2 for o, r in zip(pi_old, rewards, strict=True))))
    reward_term = sum(
        o * (x / o) * advantage(r, mean, var, eps=eps) for o, x, r in zip(pi_old, pi, rewards, strict=True)
    )
    return reward_term if ref is None else reward_term - beta * kl_divergence(pi, ref)


def iteration_objective(
    pi: Sequence[sp.Expr], ref: Sequence[sp.Expr], tilts: Sequence[sp.Expr], *, beta: sp.Expr = BETA
) -> sp.Expr:
    """Eq. (6), a GRPO iteration on a finite outcome set: sum_i pi_i R_i - beta KL(pi || ref), R_i the advantage
    of outcome i at the previous policy (omega^+ for a success, -omega^- for a failure)."""
    return sum(x * t for x, t in zip(pi, tilts, strict=True)) - beta * kl_divergence(pi, ref)


def tilted_policy(ref: Sequence[sp.Expr], tilts: Sequence[sp.Expr], beta: sp.Expr = BETA) -> tuple[list, sp.Expr]:
    """Theorem 1's maximiser of :func:`iteration_objective`: pi_i = ref_i e^{R_i/beta} / Z, and Z."""
    z = sum(q * sp.exp(t / beta) for q, t in zip(ref, tilts, strict=True))
    return [q * sp.exp(t / beta) / z for q, t in zip(ref, tilts, strict=True)], z


def eq9_ratio(p: sp.Expr = P, p_ref: sp.Expr = P_REF, beta: sp.Expr = BETA, eps: sp.Expr = EPS) -> sp.Expr:
    """Eq. (9), the success mass of Theorem 1's policy,
    p_ref e^{w+/beta} / (p_ref e^{w+/beta} + (1-p_ref) e^{-w-/beta}),
    with w+- the Bernoulli advantages of :func:`omega_plus` and :func:`omega_minus` at p."""
    up = p_ref * sp.exp(omega_plus(p, eps) / beta)
    down = (1 - p_ref) * sp.exp(-omega_minus(p, eps) / beta)
    return up / (up + down)


def h_expr(p: sp.Expr = P, p_ref: sp.Expr = P_REF, beta: sp.Expr = BETA, eps: sp.Expr = EPS) -> sp.Expr:
    """Theorem 2's map in logistic form, 1/(1 + (1-p_ref)/p_ref exp(-1/(beta sqrt(V(p))))), V from
    :func:`variance_term`; :func:`grpo_nb.symbolic.policy_dynamics.theorem2_logistic_form` derives it from Eq. (9)."""
    return 1 / (1 + (1 - p_ref) / p_ref * sp.exp(-1 / (beta * sp.sqrt(variance_term(p, eps)))))
