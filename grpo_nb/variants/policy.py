"""The optimal policy of every GRPO variant on a finite outcome set, and the Rényi form of its success recursion.

One step of a variant (:mod:`grpo_nb.variants.map`) maximises E_pi[A] - beta [alpha KL(pi || pi_ref) + (1 - alpha)
KL(pi || pi_{n-1})]. Since alpha KL(pi || pi_ref) + (1 - alpha) KL(pi || pi_{n-1}) = KL(pi || m) - log Z_m with
m ∝ pi_ref^alpha pi_{n-1}^{1-alpha}, this is Theorem 1's problem with the anchor m in place of pi_ref, and

    pi_n(o) ∝ pi_ref(o)^alpha pi_{n-1}(o)^{1-alpha} exp(A(o)/beta)                    (:func:`policy_step`)

with A the mean + variance advantage of Eq. 4 or the mean-only r - p, at p = p_{n-1}. Summing it over successes
(S) and failures (F) gives, for any pi_{n-1} (not only one reached from pi_ref), the exact success recursion

    logit p_n = alpha logit p_ref + (1 - alpha) logit p_{n-1} + s(p_{n-1})/beta
                + (1 - alpha) [D_alpha(pi_ref^F || pi_{n-1}^F) - D_alpha(pi_ref^S || pi_{n-1}^S)],

where pi^S = pi(. | r = 1), pi^F = pi(. | r = 0) and D_alpha(P || Q) = log(sum P^alpha Q^{1-alpha})/(alpha - 1) is
the Rényi divergence of order alpha (:func:`renyi_divergence`, :func:`renyi_correction`), from
sum_S pi_ref^alpha pi_{n-1}^{1-alpha} = p_ref^alpha p_{n-1}^{1-alpha} exp(-(1 - alpha) D_alpha(pi_ref^S || pi_{n-1}^S)).

From pi_0 = pi_ref the correction vanishes at every step: if pi_{n-1} ∝ pi_ref e^{t r}, then
pi_n ∝ pi_ref e^{((1 - alpha) t + s/beta) r} is again pi_ref tilted by a function of r alone, so pi_n^S = pi_ref^S and
pi_n^F = pi_ref^F, and both divergences are 0 (induction from t = 0). The recursion is then the one-dimensional map
of :mod:`grpo_nb.variants.map`.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from grpo_nb.tabular.closed_form import StepInputs, check_step_inputs, solve_grpo_step
from grpo_nb.tabular.policy import gibbs_log_policy
from grpo_nb.validation import (
    check_alpha,
    check_binary_reward,
    check_policy,
    check_positive_int,
    check_scalar,
)
from grpo_nb.variants.map import logit_increment

__all__ = [
    "log_anchor",
    "policy_orbit",
    "policy_step",
    "renyi_correction",
    "renyi_divergence",
    "renyi_recursion_logit",
    "solve_policy_step",
    "success_logit",
]


def log_anchor(log_pi_ref: object, log_pi_prev: object, alpha: float) -> np.ndarray:
    """alpha log pi_ref + (1 - alpha) log pi_{n-1}, unnormalised; a term of weight 0 is dropped (no 0 * -inf)."""
    log_ref, log_prev = np.asarray(log_pi_ref, dtype=float), np.asarray(log_pi_prev, dtype=float)
    if alpha == 1.0:
        return log_ref
    if alpha == 0.0:
        return log_prev
    return alpha * log_ref + (1.0 - alpha) * log_prev


def success_logit(pi: object, reward: object) -> np.ndarray:
    """logit p = log(mass on successes) - log(mass on failures), over the last axis, without forming 1 - p.

    Exact where p rounds to 1.0 (a failure mass of 1e-30 keeps its logit ~69); +-inf when one set has no mass.
    """
    pi, reward = np.asarray(pi, dtype=float), np.asarray(reward, dtype=float)
    with np.errstate(divide="ignore"):
        return np.log(np.sum(pi * reward, axis=-1)) - np.log(np.sum(pi * (1.0 - reward), axis=-1))


def _validated(pi_ref, pi_prev, reward, beta, eps, normalization, alpha) -> tuple[StepInputs, float]:
    """The step's inputs checked (:func:`grpo_nb.tabular.closed_form.check_step_inputs`) and alpha checked."""
    inputs = check_step_inputs(pi_ref, pi_prev, reward, beta, eps, normalization=normalization)
    return inputs, check_scalar("alpha", check_alpha(alpha))


def policy_step(
    pi_ref: object,
    pi_prev: object,
    reward: object,
    beta: float,
    eps: float,
    *,
    normalization: str = "mean_var",
    alpha: float = 1.0,
) -> np.ndarray:
    """pi_n ∝ pi_ref^alpha pi_{n-1}^{1-alpha} exp(A/beta): the optimal policy of one variant step, in closed form.

    Theorem 1's Gibbs policy (:func:`grpo_nb.tabular.policy.gibbs_log_policy`) with the anchor of
    :func:`log_anchor`; for ``"mean_var"`` and alpha = 1 it is :func:`grpo_nb.tabular.grpo_step`. Outcomes outside
    the anchor's support keep probability 0. ValueError for bad policies, rewards, beta, eps, normalization or alpha.
    """
    step, alpha = _validated(pi_ref, pi_prev, reward, beta, eps, normalization, alpha)
    with np.errstate(divide="ignore"):
        anchor = log_anchor(np.log(step.pi_ref), np.log(step.pi_prev), alpha)
    return np.exp(
        gibbs_log_policy(anchor, step.reward, step.p_prev, step.beta, step.eps, normalization=step.normalization)
    )


#: The same step maximised numerically, without the closed form: :func:`grpo_nb.tabular.solve_grpo_step` itself,
#: whose ``normalization`` and ``alpha`` are the variant's.
solve_policy_step = solve_grpo_step


def policy_orbit(
    pi_ref: object,
    reward: object,
    beta: float,
    eps: float,
    *,
    n: int,
    normalization: str = "mean_var",
    alpha: float = 1.0,
    pi_0: object | None = None,
) -> np.ndarray:
    """The policies pi_0..pi_n of n exact variant steps (:func:`policy_step`), shape (n+1, O); default pi_0 = pi_ref."""
    pi_ref = check_policy("pi_ref", pi_ref)
    n = check_positive_int("n", n, minimum=0)
    pi = pi_ref if pi_0 is None else check_policy("pi_0", pi_0)
    out = [pi]
    for _ in range(n):
        pi = policy_step(pi_ref, pi, reward, beta, eps, normalization=normalization, alpha=alpha)
        out.append(pi)
    return np.stack(out)


def renyi_divergence(p: object, q: object, alpha: float) -> np.ndarray:
    """D_alpha(P || Q) = log(sum_o P(o)^alpha Q(o)^{1-alpha}) / (alpha - 1), 0 < alpha < 1, over the last axis.

    P and Q are (batched) probability vectors; computed with logsumexp over the outcomes where both are positive (the
    other terms are 0 for 0 < alpha < 1).
    """
    alpha = check_scalar("alpha", check_alpha(alpha))
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha={alpha!r} is out of range; valid range is 0 < alpha < 1 for a Rényi divergence")
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    with np.errstate(divide="ignore"):
        terms = np.where((p > 0) & (q > 0), alpha * np.log(p) + (1.0 - alpha) * np.log(q), -np.inf)
    return logsumexp(terms, axis=-1) / (alpha - 1.0)


def _conditional(pi: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """pi(. | mask): pi restricted to the outcomes in ``mask`` and renormalised."""
    restricted = np.where(mask, pi, 0.0)
    return restricted / restricted.sum(axis=-1, keepdims=True)


def renyi_correction(pi_ref: object, pi_prev: object, reward: object, *, alpha: float) -> float:
    """(1 - alpha) [D_alpha(pi_ref^F || pi_prev^F) - D_alpha(pi_ref^S || pi_prev^S)], the recursion's correction term.

    pi^S, pi^F: the policies conditioned on success (r = 1) and on failure (r = 0); both sets must be non-empty and
    carry mass under both policies. 0 < alpha < 1.
    """
    pi_ref, pi_prev = check_policy("pi_ref", pi_ref), check_policy("pi_prev", pi_prev)
    reward = check_binary_reward("reward", reward, shape=pi_ref.shape)
    success = reward == 1
    for name, pi in (("pi_ref", pi_ref), ("pi_prev", pi_prev)):
        masses = float(pi[success].sum()), float(pi[~success].sum())
        if min(masses) <= 0.0:
            raise ValueError(
                f"{name} puts mass {masses[0]!r} on successes and {masses[1]!r} on failures; "
                "valid: both positive (both sets carry mass)"
            )
    d_s = renyi_divergence(_conditional(pi_ref, success), _conditional(pi_prev, success), alpha)
    d_f = renyi_divergence(_conditional(pi_ref, ~success), _conditional(pi_prev, ~success), alpha)
    return float((1.0 - alpha) * (d_f - d_s))


def renyi_recursion_logit(
    pi_ref: object,
    pi_prev: object,
    reward: object,
    beta: float,
    eps: float,
    *,
    normalization: str = "mean_var",
    alpha: float = 0.5,
    corrected: bool = True,
) -> float:
    """logit p_n predicted from pi_{n-1} by the Rényi form of the recursion (module docstring), 0 < alpha < 1.

    ``corrected=False`` drops the Rényi term: the one-dimensional map, exact only when the conditional policies of
    pi_{n-1} on successes and on failures are those of pi_ref.
    """
    step, alpha = _validated(pi_ref, pi_prev, reward, beta, eps, normalization, alpha)
    z_prev = float(success_logit(step.pi_prev, step.reward))
    value = alpha * float(success_logit(step.pi_ref, step.reward)) + (1.0 - alpha) * z_prev
    value += float(logit_increment(z_prev, step.beta, step.eps, normalization=step.normalization))
    if corrected:
        value += renyi_correction(step.pi_ref, step.pi_prev, step.reward, alpha=alpha)
    return value
