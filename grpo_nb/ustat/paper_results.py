"""Further results of the U-statistic paper on the softmax bandit: prompt-only baselines (Assumption 2, Corollary 5),
the arcsin objective of reward normalisation (Proposition 13) and the off-policy bias of the k3 term (Theorem 12).

* A prompt-only (constant) baseline b gives the estimator (1/G) sum_i (r_i - b) s_i of Eq. (5). It is unbiased
  (E[s] = 0), and its MSE is

      MSE_b(G) = (E[(r - b)^2 |s|^2] - |grad V|^2) / G                     (:func:`constant_baseline_mse`),

  a parabola in b whose minimum sits at b* = E[r |s|^2] / E[|s|^2] (:func:`optimal_constant_baseline`). Assumption 2
  (r uncorrelated with |s|^2) is what makes b* = V: b* - V = Cov(r, |s|^2) / E|s|^2
  (:func:`score_reward_covariance`). Vanilla (b = 0) against the value (b = V):
  MSE_0 - MSE_V = V (2 b* - V) E|s|^2 / G, positive exactly when b* > V/2.
* Dividing the advantage by sigma = sqrt(V (1 - V)) turns the population gradient into grad V / sigma =
  grad (2 arcsin sqrt V) (:func:`arcsin_value`, :func:`arcsin_identity`). The std-normalised estimator's
  large-G constant (the delta method of :func:`grpo_nb.ustat.moments.normalised_leading_constants`) has the closed
  form tr(Sigma)/sigma^2 - (3/4)(1 - 2V)^2 |grad V|^2 / sigma^4 for any score with E[s] = 0
  (:func:`normalised_limit_closed_form`, derived with sympy in :func:`delta_method_identity`).
* Theorem 12's KL bias: the k3 loss term differentiated at the current logits but averaged over answers drawn from the
  old policy (:func:`off_policy_k3_gradient`), against the same term averaged over the current policy
  (:func:`grpo_nb.kl.expected_estimator_gradient`, placement "loss").
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy.special import softmax

from grpo_nb.symbolic.identity import Identity, check_on_open_unit, claims
from grpo_nb.tabular.policy import expected_reward
from grpo_nb.ustat.bandit import check_bandit, exact_gradient, score_norms
from grpo_nb.ustat.moments import hoeffding_constants
from grpo_nb.validation import check_logits, check_positive_int

__all__ = [
    "arcsin_identity",
    "arcsin_value",
    "constant_baseline_mse",
    "delta_method_identity",
    "normalised_limit_closed_form",
    "off_policy_k3_gradient",
    "optimal_constant_baseline",
    "score_reward_covariance",
]


def _one_prompt(logits: object, reward: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validated (pi, reward, |s|^2 per answer) of one softmax bandit."""
    logits, reward = check_bandit(logits, reward)
    if logits.ndim != 1:
        raise ValueError(f"logits has shape {logits.shape}; valid shape is (K,), one prompt")
    pi = softmax(logits)
    return pi, reward, score_norms(pi)


def constant_baseline_mse(logits: object, reward: object, baseline: object, *, G: int) -> np.ndarray | float:
    """Exact MSE of (1/G) sum_i (r_i - b) s_i around grad V, for a prompt-only baseline b (Eq. 5, Corollary 5):
    (E[(r - b)^2 |s|^2] - |grad V|^2) / G. Vectorised over ``baseline``; b = 0 is vanilla, b = V the oracle."""
    pi, reward, norms = _one_prompt(logits, reward)
    G = check_positive_int("G", G)
    b = np.asarray(baseline, dtype=float)
    if not np.all(np.isfinite(b)):
        raise ValueError(f"baseline={baseline!r} is out of range; valid range is finite numbers")
    theta = exact_gradient(logits, reward)
    second = np.sum(pi * (reward - b[..., None]) ** 2 * norms, axis=-1)
    out = (second - theta @ theta) / G
    return float(out) if out.ndim == 0 else out


def optimal_constant_baseline(logits: object, reward: object) -> float:
    """b* = E[r |s|^2] / E[|s|^2]: the prompt-only baseline of least MSE (the minimiser of
    :func:`constant_baseline_mse`; it equals V exactly when Assumption 2 holds)."""
    pi, reward, norms = _one_prompt(logits, reward)
    return float(pi @ (reward * norms) / (pi @ norms))


def score_reward_covariance(logits: object, reward: object) -> float:
    """Cov(r, |s|^2) under pi: Assumption 2 of the U-statistic paper asks for it to vanish."""
    pi, reward, norms = _one_prompt(logits, reward)
    v = float(expected_reward(pi, reward))
    return float(pi @ (reward * norms) - v * (pi @ norms))


def arcsin_value(logits: object, reward: object) -> float:
    """2 arcsin sqrt(V): the objective whose gradient is grad V / sqrt(V (1 - V)) (Proposition 13, no KL)."""
    pi, reward, _ = _one_prompt(logits, reward)
    return float(2.0 * np.arcsin(np.sqrt(expected_reward(pi, reward))))


def normalised_limit_closed_form(logits: object, reward: object) -> float:
    """tr(Sigma)/sigma^2 - (3/4)(1 - 2V)^2 |grad V|^2 / sigma^4: the large-G constant G x MSE of the std-normalised
    estimator around grad V / sigma, in closed form (see :func:`delta_method_identity`). Requires 0 < V < 1."""
    pi, reward, _ = _one_prompt(logits, reward)
    v = float(expected_reward(pi, reward))
    if not 0 < v < 1:
        raise ValueError(f"V={v!r} is out of range for a normalised estimator; valid range is 0 < V < 1")
    var = v * (1.0 - v)
    theta = exact_gradient(logits, reward)
    return hoeffding_constants(logits, reward).trace_sigma / var - 0.75 * (1 - 2 * v) ** 2 * (theta @ theta) / var**2


_V = sp.Symbol("V", positive=True)


def arcsin_identity(claimed: object = None) -> Identity:
    """d/dV (2 arcsin sqrt V) = 1 / sqrt(V (1 - V)) on 0 < V < 1, derived with sympy; ``claimed`` replaces the
    objective (key "objective") whose derivative is compared with 1/sigma."""
    objective = claims(claimed, {"objective": 2 * sp.asin(sp.sqrt(_V))}, main="objective")["objective"]
    return check_on_open_unit(
        "d/dV of the objective = 1/σ", sp.diff(objective, _V), 1 / sp.sqrt(_V * (1 - _V)), p=_V, claim="objective"
    )


def delta_method_identity(claimed: object = None) -> Identity:
    """E[d^2] for d = ((r - V)s - theta)/sigma - (1 - 2V)(r - V) theta/(2 sigma^3), with r ~ Bernoulli(V) and a score
    s (one coordinate) whose conditional means m1 = E[s | r = 1], m0 = E[s | r = 0] satisfy E[s] = 0 and
    theta = E[r s] = V m1, and conditional second moments q1, q0. The claim (key "coefficient", default 3/4) is
    E[d^2] = tr(Sigma)/sigma^2 - coefficient (1 - 2V)^2 theta^2/sigma^4, with tr(Sigma) = E[((r - V)s - theta)^2]."""
    coef = claims(claimed, {"coefficient": sp.Rational(3, 4)}, main="coefficient")["coefficient"]
    m1, q0, q1 = sp.symbols("m_1 q_0 q_1", real=True)
    m0 = -_V * m1 / (1 - _V)  # E[s] = V m1 + (1 - V) m0 = 0
    theta, sigma = _V * m1, sp.sqrt(_V * (1 - _V))

    def expect(a: dict[int, sp.Expr], c: dict[int, sp.Expr]) -> sp.Expr:
        """E[(a_r s + c_r)^2] over r, with E[s | r] = m_r and E[s^2 | r] = q_r."""
        m, q, w = {1: m1, 0: m0}, {1: q1, 0: q0}, {1: _V, 0: 1 - _V}
        return sum(w[r] * (a[r] ** 2 * q[r] + 2 * a[r] * c[r] * m[r] + c[r] ** 2) for r in (0, 1))

    centred = {1: 1 - _V, 0: -_V}
    trace = expect(centred, {r: -theta for r in (0, 1)})
    shift = {r: -(1 - 2 * _V) * centred[r] * theta / (2 * sigma**3) for r in (0, 1)}
    lhs = expect({r: centred[r] / sigma for r in (0, 1)}, {r: -theta / sigma + shift[r] for r in (0, 1)})
    rhs = trace / sigma**2 - coef * (1 - 2 * _V) ** 2 * theta**2 / sigma**4
    return check_on_open_unit("E[d²] in closed form", lhs, rhs, p=_V, claim="coefficient")


def off_policy_k3_gradient(logits: object, logits_old: object, log_ref: object) -> np.ndarray:
    """E_{o ~ pi_old}[grad_logits k3(o)] with k3 = e^d - d - 1, d = log pi_ref(o) - log pi(o), pi = softmax(logits):
    sum_o pi_old(o) (-expm1(d(o))) (e_o - pi). The k3 loss term of GRPO without an importance ratio, on answers drawn
    from the old policy (Theorem 12's second bias); at logits_old = logits it is
    ``expected_estimator_gradient(logits, log_ref, "k3", placement="loss")``."""
    logits = check_logits("logits", logits)
    logits_old = check_logits("logits_old", logits_old)
    log_ref = check_logits("log_ref", log_ref)
    if not logits.shape == logits_old.shape == log_ref.shape or logits.ndim != 1:
        raise ValueError(
            f"logits, logits_old and log_ref have shapes {logits.shape}, {logits_old.shape}, {log_ref.shape}; "
            "valid input is three arrays of one shape (K,)"
        )
    log_pi = logits - np.logaddexp.reduce(logits)
    w = softmax(logits_old) * -np.expm1(log_ref - log_pi)
    return w - np.exp(log_pi) * w.sum()
