"""Theorem 1's closed-form GRPO step on a finite outcome set, and an independent numerical solver of it.

One exact GRPO iteration (paper Eq. "GRPO Iterations") maximises over policies pi on the outcomes

    J(pi) = w+(p) E_pi[r] - w-(p) E_pi[1 - r] - beta KL(pi || pi_ref),
    w+(p) = (1 - p)/sqrt(p(1-p) + eps),   w-(p) = p/sqrt(p(1-p) + eps)   (Eq. 4),

with p the success probability of the previous policy. Theorem 1: the maximiser is the Gibbs policy
pi(o) ∝ pi_ref(o) exp((w+(p) r(o) - w-(p) (1 - r(o))) / beta). ``grpo_step`` evaluates it in log space (with
:func:`grpo_nb.tabular.policy.gibbs_log_policy`); ``solve_grpo_step`` maximises J numerically (exponentiated
gradient, then Newton) without using the closed form, so the two can be compared (Thm 1), and ``success_orbit``
iterates the step (Thm 2's recursion).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from grpo_nb.tabular.policy import expected_reward, gibbs_log_policy
from grpo_nb.validation import (
    check_alpha,
    check_beta,
    check_binary_reward,
    check_eps,
    check_normalization,
    check_p,
    check_policy,
    check_positive_int,
    check_scalar,
)
from grpo_nb.weights import mean_only_advantage, stabilised_advantage

__all__ = [
    "StepInputs",
    "check_step_inputs",
    "grpo_objective",
    "grpo_step",
    "solve_grpo_step",
    "success_orbit",
    "policy_expected_reward",
]


def policy_expected_reward(pi: object, reward: object) -> float:
    """p = E_{o ~ pi}[r(o)] (Eq. 7) of one validated policy."""
    pi = check_policy("pi", pi)
    reward = check_binary_reward("reward", reward, shape=pi.shape)
    return float(expected_reward(pi, reward))


@dataclass(frozen=True)
class StepInputs:
    """The checked inputs of one tabular GRPO step (Theorem 1 and its variants), read by name.

    pi_ref, pi_prev: the reference and the previous policy over the outcomes; reward: the 0/1 reward per outcome;
    beta, eps: the KL weight and the variance smoothing (scalars); normalization: the advantage's form
    (``"mean_var"``, Eq. 4, or ``"mean"``); p_prev: E_{pi_prev}[r], the success probability the step's weights use.
    """

    pi_ref: np.ndarray
    pi_prev: np.ndarray
    reward: np.ndarray
    beta: float
    eps: float
    normalization: str
    p_prev: float


def check_step_inputs(
    pi_ref: object, pi_prev: object, reward: object, beta: object, eps: object, *, normalization: str = "mean_var"
) -> StepInputs:
    """The inputs of one tabular GRPO step (Theorem 1 and its variants), checked, as a :class:`StepInputs`.

    ValueError for bad policies, policies of different shapes, a non-binary reward, beta or eps out of range or not
    scalar, an unknown normalization, and, for Eq. 4's ``"mean_var"`` advantage, a p_prev = E_{pi_prev}[r] the
    smoothing leaves undefined (0 or 1 at eps = 0, Remark 1); the mean-only centring needs no variance.
    """
    pi_ref = check_policy("pi_ref", pi_ref)
    pi_prev = check_policy("pi_prev", pi_prev)
    if pi_prev.shape != pi_ref.shape:
        raise ValueError(f"pi_prev has shape {pi_prev.shape}; valid: the shape of pi_ref, {pi_ref.shape}")
    reward = check_binary_reward("reward", reward, shape=pi_ref.shape)
    beta, eps = check_scalar("beta", check_beta(beta)), check_scalar("eps", check_eps(eps))
    normalization = check_normalization(normalization)
    p_prev = float(expected_reward(pi_prev, reward))
    if normalization == "mean_var":
        check_p(p_prev, np.float64(eps), name="p_prev (success probability of pi_prev)")
    return StepInputs(pi_ref, pi_prev, reward, beta, eps, normalization, p_prev)


def _scores(reward: np.ndarray, p_prev: float, eps: float, normalization: str = "mean_var") -> np.ndarray:
    if normalization == "mean":
        return np.asarray(mean_only_advantage(reward, p_prev))
    return np.asarray(stabilised_advantage(reward, p_prev, eps))


def _kl_weights(alpha: object) -> tuple[float, float]:
    """(alpha, 1 - alpha): the weights of KL(pi || pi_ref) and KL(pi || pi_prev) in the regulariser."""
    alpha = check_scalar("alpha", check_alpha(alpha))
    return alpha, 1.0 - alpha


def grpo_objective(pi: object, pi_ref: object, pi_prev: object, reward: object, beta: float, eps: float) -> float:
    """J(pi) = w+ E_pi[r] - w- E_pi[1-r] - beta KL(pi || pi_ref) (GRPO Iterations); -inf off pi_ref's support."""
    step = check_step_inputs(pi_ref, pi_prev, reward, beta, eps)
    pi = check_policy("pi", pi)
    if pi.shape != step.pi_ref.shape:
        raise ValueError(f"pi has shape {pi.shape}; valid: the shape of pi_ref, {step.pi_ref.shape}")
    if ((pi > 0) & (step.pi_ref == 0)).any():
        return -np.inf
    on = pi > 0
    kl = float(np.sum(pi[on] * (np.log(pi[on]) - np.log(step.pi_ref[on]))))
    return float(pi @ _scores(step.reward, step.p_prev, step.eps)) - step.beta * kl


def grpo_step(pi_ref: object, pi_prev: object, reward: object, beta: float, eps: float) -> np.ndarray:
    """Theorem 1: pi_n(o) = pi_ref(o) exp((w+(p_{n-1}) r(o) - w-(p_{n-1})(1 - r(o)))/beta) / Z_{n-1}.

    Arrays over a finite outcome set; p_{n-1} = E_{pi_prev}[r]. Computed with logsumexp (no overflow for small
    beta); outcomes with pi_ref(o) = 0 keep probability 0. With eps = 0 a previous success probability of
    exactly 0 or 1 is undefined (Remark 1) and raises ValueError.
    """
    step = check_step_inputs(pi_ref, pi_prev, reward, beta, eps)
    with np.errstate(divide="ignore"):
        log_ref = np.log(step.pi_ref)
    return np.exp(gibbs_log_policy(log_ref, step.reward, step.p_prev, step.beta, step.eps))


def _objective_gradient(log_pi: np.ndarray, c: np.ndarray, log_ref: np.ndarray, beta: float) -> np.ndarray:
    """q = dJ/dpi = c - beta (log pi - log_ref + 1): the scores minus the gradient of the KL term."""
    return c - beta * (log_pi - log_ref + 1.0)


def _objective(pi: np.ndarray, c: np.ndarray, log_ref: np.ndarray, beta: float) -> float:
    """J(pi) = <pi, c> - beta <pi, log pi - log_ref>, the objective :func:`solve_grpo_step` maximises."""
    return float(pi @ c - beta * pi @ (np.log(pi) - log_ref))


def _mirror_ascent(
    log_pi: np.ndarray, c: np.ndarray, log_ref: np.ndarray, beta: float, *, step_size: float, max_iter: int
) -> np.ndarray:
    """Exponentiated-gradient ascent from ``log_pi``: log pi <- log pi + (step_size/beta) q, renormalised, until the
    update is below 1e-15 or after ``max_iter`` steps."""
    eta = step_size / beta
    for _ in range(max_iter):
        new = log_pi + eta * _objective_gradient(log_pi, c, log_ref, beta)
        new -= logsumexp(new)
        done = np.max(np.abs(new - log_pi)) < 1e-15
        log_pi = new
        if done:
            break
    return log_pi


def _newton_polish(pi: np.ndarray, c: np.ndarray, log_ref: np.ndarray, beta: float, *, newton_steps: int) -> np.ndarray:
    """Equality-constrained Newton steps on the simplex: step (pi/beta)(q - <pi, q>) (Hessian diag(-beta/pi)),
    halved until pi stays positive and J does not drop; stops when a step moves pi by less than 1e-17."""
    for _ in range(newton_steps):
        q = _objective_gradient(np.log(pi), c, log_ref, beta)
        step = pi / beta * (q - pi @ q)
        t, value = 1.0, _objective(pi, c, log_ref, beta)
        while t > 1e-12:
            trial = pi + t * step
            if (trial > 0).all() and _objective(trial / trial.sum(), c, log_ref, beta) >= value - 1e-15 * abs(value):
                break
            t *= 0.5
        new = trial / trial.sum()
        done = np.max(np.abs(new - pi)) < 1e-17
        pi = new
        if done:
            break
    return pi


def solve_grpo_step(
    pi_ref: object,
    pi_prev: object,
    reward: object,
    beta: float,
    eps: float,
    *,
    step_size: float = 0.3,
    max_iter: int = 2000,
    newton_steps: int = 20,
    normalization: str = "mean_var",
    alpha: float = 1.0,
) -> np.ndarray:
    """Maximise J(pi) over the simplex numerically, independently of Theorem 1's formula.

    Exponentiated-gradient (mirror) ascent from the uniform policy on the support of pi_ref (KL is infinite
    elsewhere): log pi <- log pi + eta q, renormalised, with q = dJ/dpi = c - beta (log pi/pi_ref + 1), c the
    per-outcome score w+ r - w- (1 - r), and eta = step_size / beta (0 < step_size < 1, a contraction with
    factor 1 - step_size per step), until the update is below 1e-15; then equality-constrained Newton steps on
    the simplex (Hessian diag(-beta/pi), step (pi/beta)(q - <pi, q>), halved until pi stays positive and J
    does not drop). Only the gradient and Hessian of J are used, never the Gibbs formula.

    The GRPO variants (:mod:`grpo_nb.variants`) change J in two places, and the solver follows: ``normalization="mean"``
    scores outcomes with the mean-only advantage r - p instead of Eq. 4's, and ``alpha`` < 1 regularises with
    beta [alpha KL(pi || pi_ref) + (1 - alpha) KL(pi || pi_prev)], whose gradient
    beta (log pi + 1 - alpha log pi_ref - (1 - alpha) log pi_prev) replaces beta (log pi + 1 - log pi_ref) above
    (the support is then where every KL term with a positive weight is finite).
    """
    inputs = check_step_inputs(pi_ref, pi_prev, reward, beta, eps, normalization=normalization)
    pi_ref, pi_prev, beta = inputs.pi_ref, inputs.pi_prev, inputs.beta
    w_ref, w_prev = _kl_weights(alpha)
    if not (isinstance(step_size, float) and 0 < step_size < 1):
        raise ValueError(f"step_size={step_size!r} is out of range; valid range is 0 < step_size < 1")
    max_iter = check_positive_int("max_iter", max_iter)
    newton_steps = check_positive_int("newton_steps", newton_steps, minimum=0)
    # a KL term with a positive weight is infinite off its reference's support
    support = ((pi_ref > 0) | (w_ref == 0)) & ((pi_prev > 0) | (w_prev == 0))
    # the gradient of beta [w_ref KL(pi || pi_ref) + w_prev KL(pi || pi_prev)] is beta (log pi + 1 - log_ref) with
    # log_ref = w_ref log pi_ref + w_prev log pi_prev (a term of weight 0 drops out); w_ref = 1 is the paper's case
    log_ref = sum(w * np.log(q[support]) for w, q in ((w_ref, pi_ref), (w_prev, pi_prev)) if w > 0)
    c = _scores(inputs.reward, inputs.p_prev, inputs.eps, inputs.normalization)[support]
    log_pi = np.full(int(support.sum()), -np.log(support.sum()))
    log_pi = _mirror_ascent(log_pi, c, log_ref, beta, step_size=step_size, max_iter=max_iter)
    pi = _newton_polish(np.exp(log_pi), c, log_ref, beta, newton_steps=newton_steps)
    out = np.zeros_like(pi_ref)
    out[support] = pi
    return out


def success_orbit(pi_ref: object, reward: object, beta: float, eps: float, *, n: int) -> np.ndarray:
    """p_0..p_n along n exact GRPO steps from pi_0 = pi_ref (the success probabilities of Thm 2's recursion)."""
    pi_ref = check_policy("pi_ref", pi_ref)
    reward = check_binary_reward("reward", reward, shape=pi_ref.shape)
    n = check_positive_int("n", n, minimum=0)
    pi = pi_ref
    out = [float(expected_reward(pi, reward))]
    for _ in range(n):
        pi = grpo_step(pi_ref, pi, reward, beta, eps)
        out.append(float(expected_reward(pi, reward)))
    return np.array(out)
