"""Theorem 1's exact step with an entropy bonus (TRL's ``entropy_coef``), on a finite outcome set (the page "The
entropy bonus" of the chapter "The GRPO family", ``book/grpo_family_entropy.md``).

With the bonus c >= 0 one exact GRPO step maximises

    J_c(pi) = w+(p) E_pi[r] - w-(p) E_pi[1 - r] - beta KL(pi || pi_ref) + c H(pi),

p the success probability of the previous policy and (w+, w-) Eq. 4's weights. For answers of one token this is what
TRL 1.16 optimises with exact expectations: its loss subtracts ``entropy_coef`` times the mean per-token entropy, and
the entropy of a one-token answer's distribution is H(pi). Because
beta KL(pi || pi_ref) - c H(pi) = (beta + c) KL(pi || pi_ref^gamma / Z_gamma) - (beta + c) log Z_gamma with
gamma = beta/(beta + c), the maximiser is Theorem 1's step from the *tempered* reference pi_ref^gamma / Z_gamma at
the KL weight beta + c:

    pi(o) ∝ pi_ref(o)^gamma exp(A(o)/(beta + c))        (a tempered tilt),

so its success probability follows Theorem 2's recursion with p_ref replaced by the tempered success probability
P_gamma = sum_{r(o)=1} pi_ref(o)^gamma / sum_o pi_ref(o)^gamma and beta by beta + c.

- :func:`tempered_reference`: pi_ref^gamma / Z_gamma;
- :func:`entropy_bonus_step`: the tempered tilt (closed form);
- :func:`entropy_bonus_objective`: J_c by its definition, and :func:`solve_entropy_bonus_step`, which maximises it
  with scipy's BFGS over the logits without the closed form.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import logsumexp, softmax

from grpo_nb.tabular.closed_form import check_step_inputs, grpo_step
from grpo_nb.tabular.policy import expected_reward
from grpo_nb.validation import check_beta, check_policy, check_scalar
from grpo_nb.weights import stabilised_advantage

__all__ = [
    "check_coef",
    "entropy_bonus_objective",
    "entropy_bonus_step",
    "solve_entropy_bonus_step",
    "tempered_reference",
    "tempered_success",
]


def check_coef(coef: object) -> float:
    """The entropy coefficient c: a finite number >= 0; ValueError naming it and the valid range otherwise."""
    try:
        c = float(coef)
    except (TypeError, ValueError) as err:
        raise ValueError(f"coef={coef!r} is not a number; valid range is 0 <= coef < inf") from err
    if not (np.isfinite(c) and c >= 0):
        raise ValueError(f"coef={coef!r} is out of range; valid range is 0 <= coef < inf")
    return c


def tempered_reference(pi_ref: object, beta: float, *, coef: float) -> np.ndarray:
    """pi_ref^gamma / Z_gamma with gamma = beta/(beta + coef) (outcomes with pi_ref = 0 stay at 0)."""
    pi_ref = check_policy("pi_ref", pi_ref)
    beta_f, c = float(check_scalar("beta", check_beta(beta))), check_coef(coef)
    gamma = beta_f / (beta_f + c)
    with np.errstate(divide="ignore"):
        log_t = gamma * np.log(pi_ref)
    return np.exp(log_t - logsumexp(log_t))


def tempered_success(pi_ref: object, reward: object, beta: float, *, coef: float) -> float:
    """P_gamma = sum over successes of pi_ref^gamma / sum over all outcomes: the p_ref of the tempered recursion."""
    return float(expected_reward(tempered_reference(pi_ref, beta, coef=coef), np.asarray(reward, dtype=float)))


def entropy_bonus_step(
    pi_ref: object, pi_prev: object, reward: object, beta: float, eps: float, *, coef: float
) -> np.ndarray:
    """The maximiser of J_c: pi(o) ∝ pi_ref(o)^gamma exp(A(o)/(beta + c)), A Eq. 4's advantage at p = E_{pi_prev}[r]
    (Theorem 1's step from :func:`tempered_reference` at the KL weight beta + c)."""
    step = check_step_inputs(pi_ref, pi_prev, reward, beta, eps)
    c = check_coef(coef)
    tempered = tempered_reference(step.pi_ref, step.beta, coef=c)
    return grpo_step(tempered, step.pi_prev, step.reward, step.beta + c, step.eps)


def entropy_bonus_objective(
    pi: object, pi_ref: object, pi_prev: object, reward: object, beta: float, eps: float, *, coef: float
) -> float:
    """J_c(pi) = <pi, A> - beta KL(pi || pi_ref) + c H(pi), by its definition (pi > 0 on pi_ref's support)."""
    step = check_step_inputs(pi_ref, pi_prev, reward, beta, eps)
    c = check_coef(coef)
    pi = np.asarray(pi, dtype=float)
    adv = stabilised_advantage(step.reward, step.p_prev, step.eps)
    on = pi > 0
    kl = float(np.sum(pi[on] * (np.log(pi[on]) - np.log(step.pi_ref[on]))))
    entropy = -float(np.sum(pi[on] * np.log(pi[on])))
    return float(pi @ adv) - step.beta * kl + c * entropy


def solve_entropy_bonus_step(
    pi_ref: object, pi_prev: object, reward: object, beta: float, eps: float, *, coef: float
) -> np.ndarray:
    """Maximise :func:`entropy_bonus_objective` over softmax policies pi = softmax(theta) with scipy's BFGS from the
    uniform policy, with the gradient of the definition, dJ/dtheta = pi (q - <pi, q>) for
    q = dJ/dpi = A - beta (log pi - log pi_ref + 1) - c (log pi + 1): an independent check of
    :func:`entropy_bonus_step` (it never uses the tempered tilt)."""
    step = check_step_inputs(pi_ref, pi_prev, reward, beta, eps)
    c = check_coef(coef)
    adv = stabilised_advantage(step.reward, step.p_prev, step.eps)
    log_ref = np.log(step.pi_ref)

    def negative(theta: np.ndarray) -> tuple[float, np.ndarray]:
        log_pi = theta - logsumexp(theta)
        pi = np.exp(log_pi)
        q = adv - step.beta * (log_pi - log_ref + 1.0) - c * (log_pi + 1.0)
        value = pi @ adv - step.beta * pi @ (log_pi - log_ref) - c * pi @ log_pi
        return -float(value), -pi * (q - pi @ q)

    start = np.zeros_like(step.pi_ref)
    theta = minimize(negative, start, jac=True, method="BFGS", options={"gtol": 1e-13, "maxiter": 10_000}).x
    return softmax(theta)
