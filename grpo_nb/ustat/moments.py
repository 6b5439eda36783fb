"""Exact bias and mean squared error of the group estimators, for every G, by summing over the success count.

Given the number k of successes in a group, its successful answers are i.i.d. draws from pi restricted to the
successes (renormalised), its failed answers i.i.d. draws from pi restricted to the failures, and every
estimator of :mod:`grpo_nb.ustat.estimators` is (1/G)(A_plus(k) sum_{succ} s_i + A_minus(k) sum_{fail} s_i).
With m_S = E[s | success], m_F = E[s | failure] and the conditional covariances, the conditional mean and
variance are closed forms, and k ~ Binomial(G, V) is summed out: O(G K) work, exact for any G.

Two further exact routes check it:

* :func:`enumerate_moments`: every one of the K^G ordered groups, with its probability (small K^G only);
* :func:`hoeffding_constants`: the Hoeffding decomposition of Lemma 1's U-statistic (Theorem 2 of the U-statistic
  paper, as an equality). With the kernel k(x, y) = (r_x - r_y)(s_x - s_y)/2, its mean theta = grad V, its
  first-order projection k_1(x) = ((r_x - V) s_x - theta)/2 and the degenerate remainder
  k_2(x, y) = k(x, y) - k_1(x) - k_1(y) - theta,

      MSE_grpo(G) = 4 E|k_1|^2 / G + E|k_2|^2 / C(G, 2) = tr(Sigma) / G + 2 zeta / (G (G - 1)),

  where tr(Sigma) = E|(r - V) s - theta|^2 is the oracle estimator's per-sample variance (its MSE is
  tr(Sigma)/G) and zeta = E|k_2|^2. The first term is the 1/G leading term, the second the 1/G^2 residual.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import softmax
from scipy.stats import binom

from grpo_nb.tabular.policy import expected_reward
from grpo_nb.ustat.bandit import check_bandit, exact_gradient, score_norms
from grpo_nb.ustat.estimators import (
    ALL_ESTIMATORS,
    advantage_table,
    estimates_from_outcomes,
    limit_scale,
)
from grpo_nb.validation import check_choice, check_positive_int

__all__ = [
    "EstimatorMoments",
    "HoeffdingConstants",
    "class_moments",
    "enumerate_moments",
    "exact_moments",
    "expected_step_factor",
    "hoeffding_constants",
    "normalised_leading_constants",
]


#: The kernels of this module: public, vectorised and fast, they do not validate their input (their callers do).
KERNELS = ("class_moments",)


@dataclass(frozen=True)
class EstimatorMoments:
    """Exact moments of one estimator at one G: its mean (K,), the G -> infinity limit of the mean ``target``
    (grad V, or grad V scaled for the normalised forms), bias = mean - target, the total variance
    E|est - mean|^2 and mse = E|est - target|^2 = variance + |bias|^2."""

    mean: np.ndarray
    target: np.ndarray
    variance: float

    @property
    def bias(self) -> np.ndarray:
        return self.mean - self.target

    @property
    def mse(self) -> float:
        return float(self.variance + np.sum(self.bias**2))

    @property
    def relative_bias(self) -> float:
        """|bias| / |target|: how far the estimator's mean is from its limit, as a share of the limit's length."""
        return float(np.linalg.norm(self.bias) / np.linalg.norm(self.target))


def _one_prompt(logits: object, reward: object) -> tuple[np.ndarray, np.ndarray]:
    logits, reward = check_bandit(logits, reward)
    if logits.ndim != 1:
        raise ValueError(f"logits has shape {logits.shape}; valid shape is (K,), one prompt")
    return logits, reward


def class_moments(pi: np.ndarray, reward: np.ndarray) -> dict[str, np.ndarray | float]:
    """Per reward class c in {S (successes), F (failures)}: the class probability, m_c = E[s | c] and
    tr Cov(s | c) = E[|s|^2 | c] - |m_c|^2 (zero for an empty class). No validation."""
    out: dict[str, np.ndarray | float] = {}
    norms = score_norms(pi)
    for name, mask in (("S", reward == 1.0), ("F", reward == 0.0)):
        mass = float(np.sum(pi[mask]))
        if mass > 0:
            cond = np.where(mask, pi, 0.0) / mass
            m = cond - pi
            out[f"m_{name}"], out[f"var_{name}"] = m, float(np.sum(cond * norms) - m @ m)
        else:
            out[f"m_{name}"], out[f"var_{name}"] = np.zeros_like(pi), 0.0
        out[f"mass_{name}"] = mass
    return out


def exact_moments(logits: object, reward: object, G: int, *, estimator: str) -> EstimatorMoments:
    """Mean, bias, variance and MSE of ``estimator`` with groups of G, exactly (sum over k ~ Binomial(G, V))."""
    logits, reward = _one_prompt(logits, reward)
    G = check_positive_int("G", G, minimum=2)
    check_choice("estimator", estimator, ALL_ESTIMATORS)
    pi = softmax(logits)
    v = float(expected_reward(pi, reward))
    c = class_moments(pi, reward)
    k = np.arange(G + 1, dtype=float)
    w = binom.pmf(k, G, v)
    a_plus, a_minus = advantage_table(estimator, G, v)
    cond_mean = (k * a_plus)[:, None] * c["m_S"] + ((G - k) * a_minus)[:, None] * c["m_F"]
    cond_mean /= G
    cond_var = (k * a_plus**2 * c["var_S"] + (G - k) * a_minus**2 * c["var_F"]) / G**2
    mean = w @ cond_mean
    spread = np.sum((cond_mean - mean) ** 2, axis=1)
    target = limit_scale(estimator, v) * exact_gradient(logits, reward)
    return EstimatorMoments(mean=mean, target=target, variance=float(w @ (cond_var + spread)))


def expected_step_factor(p: object, G: int, estimator: str) -> np.ndarray | float:
    """c_G(p) with E[estimate] = c_G(p) grad p, for any parametrised policy and a 0/1 reward:

        c_G(p) = E_k[ (k/G) A_plus(k) / p - (1 - k/G) A_minus(k) / (1 - p) ],   k ~ Binomial(G, p).

    (Given k, the successes' scores average to E[s | success] = grad p / p and the failures' to
    -grad p / (1 - p).) It is 1 for "vanilla", "grpo" and "oracle" (unbiased), (G-1)/G for "grpo_full_mean",
    and tends to limit_scale(estimator, p) as G grows. Vectorised over p in (0, 1).
    """
    p_arr = np.asarray(p, dtype=float)
    if np.isnan(p_arr).any() or ((p_arr <= 0) | (p_arr >= 1)).any():
        raise ValueError(f"p={p!r} is out of range; valid range is 0 < p < 1")
    G = check_positive_int("G", G, minimum=2)
    check_choice("estimator", estimator, ALL_ESTIMATORS)
    k = np.arange(G + 1, dtype=float)
    pp = p_arr[..., None]
    a_plus, a_minus = advantage_table(estimator, G, p_arr)
    tilt = (k / G) * a_plus / pp - (1.0 - k / G) * a_minus / (1.0 - pp)
    out = np.sum(binom.pmf(k, G, pp) * tilt, axis=-1)
    return float(out) if out.ndim == 0 else out


def enumerate_moments(logits: object, reward: object, G: int, *, estimator: str, max_groups: int = 300_000):
    """The same moments by brute force: every ordered group of G answers (K^G of them, at most ``max_groups``),
    weighted by its probability, each estimate computed sample by sample (:func:`estimates_from_outcomes`)."""
    logits, reward = _one_prompt(logits, reward)
    G = check_positive_int("G", G, minimum=2)
    n_out = logits.size
    if n_out**G > max_groups:
        raise ValueError(f"G={G!r} gives K^G = {n_out}^{G} groups; valid range is K^G <= max_groups = {max_groups}")
    groups = np.indices((n_out,) * G).reshape(G, -1).T
    prob = np.prod(softmax(logits)[groups], axis=1)
    est = estimates_from_outcomes(logits, reward, groups, estimator=estimator)
    mean = prob @ est
    target = limit_scale(estimator, float(expected_reward(softmax(logits), reward))) * exact_gradient(logits, reward)
    return EstimatorMoments(mean=mean, target=target, variance=float(prob @ np.sum((est - mean) ** 2, axis=1)))


@dataclass(frozen=True)
class HoeffdingConstants:
    """trace_sigma = tr Cov((r - V) s) (the oracle's per-sample variance, Theorem 2's leading constant) and
    zeta = E|k_2(X, Y)|^2 (the degenerate part of Lemma 1's kernel); MSE_grpo(G) = trace_sigma/G + 2 zeta/(G(G-1))."""

    trace_sigma: float
    zeta: float

    def grpo_mse(self, G: object) -> np.ndarray:
        g = np.asarray(G, dtype=float)
        return self.trace_sigma / g + 2.0 * self.zeta / (g * (g - 1.0))

    @property
    def residual_coefficient(self) -> float:
        """2 zeta: the coefficient of 1/G^2 in MSE_grpo(G) for large G."""
        return 2.0 * self.zeta


def hoeffding_constants(logits: object, reward: object) -> HoeffdingConstants:
    """The Hoeffding decomposition of Lemma 1's kernel, summed exactly over all K^2 pairs of answers."""
    logits, reward = _one_prompt(logits, reward)
    pi = softmax(logits)
    v = float(expected_reward(pi, reward))
    theta = exact_gradient(logits, reward)
    s = np.eye(pi.size) - pi  # s[o] = e_o - pi
    k1 = 0.5 * ((reward - v)[:, None] * s - theta)
    kernel = 0.5 * (reward[:, None] - reward[None, :])[..., None] * (s[:, None, :] - s[None, :, :])
    k2 = kernel - k1[:, None, :] - k1[None, :, :] - theta
    pair = pi[:, None] * pi[None, :]
    return HoeffdingConstants(
        trace_sigma=float(4.0 * pi @ np.sum(k1**2, axis=1)), zeta=float(np.sum(pair * np.sum(k2**2, axis=-1)))
    )


def normalised_leading_constants(logits: object, reward: object) -> tuple[float, float]:
    """lim_{G -> inf} G MSE of "grpo_std" around its limit grad V / sigma, against the U-statistic's tr(Sigma)/sigma^2.

    Dividing by the group's std sigma_hat instead of sigma = sqrt(V(1-V)) adds a first-order term: by the delta
    method sigma_hat - sigma ~ (1 - 2V)(r_bar - V)/(2 sigma), so to first order in 1/sqrt(G)

        est - theta/sigma ~ (1/G) sum_i d_i,   d = ((r - V) s - theta)/sigma - (1 - 2V)(r - V) theta / (2 sigma^3),

    and G MSE -> E|d|^2. The second value is tr(Sigma)/sigma^2, the limit for the U-statistic divided by the true
    sigma (what Lemma 11 compares it with); the two agree only at V = 1/2. Requires 0 < V < 1.
    """
    logits, reward = _one_prompt(logits, reward)
    pi = softmax(logits)
    v = float(expected_reward(pi, reward))
    if not 0 < v < 1:
        raise ValueError(f"V={v!r} is out of range for a normalised estimator; valid range is 0 < V < 1")
    sigma = np.sqrt(v * (1.0 - v))
    theta = exact_gradient(logits, reward)
    s = np.eye(pi.size) - pi
    centred = (reward - v)[:, None]
    d = (centred * s - theta) / sigma - (1.0 - 2.0 * v) / (2.0 * sigma**3) * centred * theta
    return float(pi @ np.sum(d**2, axis=1)), hoeffding_constants(logits, reward).trace_sigma / sigma**2
