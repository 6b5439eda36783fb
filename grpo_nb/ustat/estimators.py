"""Group gradient estimators of grad V on the softmax bandit (the U-statistic paper, §4.1, Eq. 5 and Table 1).

A group is G answers o_1..o_G drawn i.i.d. from pi, with rewards r_i and scores s_i = e_{o_i} - pi. Every estimator
here has the form (1/G) sum_i A_i s_i, and differs only in the advantage A_i:

- ``"vanilla"``   A_i = r_i                                   (REINFORCE averaged over the group, no baseline);
- ``"grpo"``      A_i = r_i - mean_{j != i} r_j               (the leave-one-out group mean as baseline, Eq. 4);
- ``"oracle"``    A_i = r_i - V                               (the true value as baseline: not implementable);
- ``"grpo_std"``  A_i = (r_i - mean_j r_j) / (std_j r_j + 1e-4)  (the practical GRPO advantage: full group mean,
                  group std with Bessel's correction, 1e-4 outside the root, as TRL computes it;
                  :func:`grpo_nb.advantage.group_advantage` with ``form="trl"``).

Two more forms are used by the group-size chapter: ``"grpo_full_mean"`` (A_i = r_i - mean_j r_j, the Dr. GRPO advantage,
equal to (G-1)/G times the leave-one-out one) and ``"grpo_paper"`` (Mroueh's stabilised advantage, Eq. 4 with
eps = 1e-5 inside the root). Each A_i depends on the sample only through r_i and the number k of successes in the
group, so an estimate is a function of the answer counts: :func:`gradient_estimates` draws the counts
(multinomial, one row per group) and never loops over groups. :func:`estimates_from_outcomes` computes the same
estimators sample by sample from explicit answers, and :func:`pairwise_kernel_average` the U-statistic of Lemma 1.
"""

from __future__ import annotations

import numpy as np
from scipy.special import softmax

from grpo_nb.advantage import group_advantage, group_rewards
from grpo_nb.constants import PAPER_EPS, TRL_STD_EPS
from grpo_nb.tabular.policy import expected_reward
from grpo_nb.ustat.bandit import check_bandit
from grpo_nb.validation import check_choice, check_logits, check_positive_int

__all__ = [
    "ALL_ESTIMATORS",
    "ESTIMATORS",
    "advantage_table",
    "estimates_from_counts",
    "estimates_from_outcomes",
    "gradient_estimates",
    "limit_scale",
    "pairwise_kernel_average",
    "sample_outcomes",
]


#: The kernels of this module: public, vectorised and fast, they do not validate their input (their callers do).
KERNELS = ("estimates_from_counts",)

ESTIMATORS: tuple[str, ...] = ("vanilla", "grpo", "oracle", "grpo_std")
ALL_ESTIMATORS: tuple[str, ...] = (*ESTIMATORS, "grpo_full_mean", "grpo_paper")
#: The group-advantage form of each normalised estimator; "grpo_paper" smooths with the paper's eps (Fig. 2).
_FORMS = {"grpo_std": ("trl", None), "grpo_full_mean": ("mean_only", None), "grpo_paper": ("paper", PAPER_EPS)}


def _group_size(G: object) -> int:
    return check_positive_int("G", G, minimum=2)


def advantage_table(estimator: str, G: int, value: object = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """(A_plus, A_minus): the advantage of a success and of a failure in a group with k = 0..G successes.

    Shapes (*value.shape, G + 1); ``value`` is V, used only by ``"oracle"``. Entries that no sample can take
    (a success when k = 0, a failure when k = G) are 0.
    """
    check_choice("estimator", estimator, ALL_ESTIMATORS)
    G = _group_size(G)
    v = np.asarray(value, dtype=float)[..., None]
    k = np.arange(G + 1, dtype=float)
    if estimator == "vanilla":
        a_plus, a_minus = np.ones_like(k), np.zeros_like(k)
    elif estimator == "grpo":
        a_plus, a_minus = 1.0 - (k - 1.0) / (G - 1.0), -k / (G - 1.0)
    elif estimator == "oracle":
        a_plus, a_minus = 1.0 - v + 0.0 * k, -v + 0.0 * k
    else:
        form, eps = _FORMS[estimator]
        adv = group_advantage(group_rewards(np.arange(G + 1), G), form, eps)  # row k: the first k rewards are 1
        a_plus, a_minus = adv[:, 0], adv[:, -1]
    a_plus = np.where(k >= 1, a_plus, 0.0)
    a_minus = np.where(k <= G - 1, a_minus, 0.0)
    shape = np.broadcast_shapes(v.shape, k.shape)
    return np.broadcast_to(a_plus, shape).copy(), np.broadcast_to(a_minus, shape).copy()


def limit_scale(estimator: str, value: object) -> np.ndarray | float:
    """c with E[estimate] -> c grad V as G -> infinity: 1, except 1/(sigma + 1e-4) for ``"grpo_std"`` and
    1/sqrt(V(1-V) + eps) for ``"grpo_paper"`` (sigma = sqrt(V(1-V)), the reward's standard deviation)."""
    check_choice("estimator", estimator, ALL_ESTIMATORS)
    v = np.asarray(value, dtype=float)
    var = v * (1.0 - v)
    if estimator == "grpo_std":
        out = 1.0 / (np.sqrt(var) + TRL_STD_EPS)
    elif estimator == "grpo_paper":
        out = 1.0 / np.sqrt(var + PAPER_EPS)
    else:
        out = np.ones_like(v)
    return float(out) if out.ndim == 0 else out


def estimates_from_counts(
    pi: np.ndarray, reward: np.ndarray, counts: np.ndarray, *, G: int, estimator: str
) -> np.ndarray:
    """(1/G) sum_i A_i (e_{o_i} - pi) from the answer counts (..., K) of groups of G (rows summing to G).

    ``pi`` and ``reward`` broadcast against ``counts`` (one prompt, or one row per prompt). No validation: the
    vectorised core of :func:`gradient_estimates` and of the minibatch sampler.
    """
    k = np.rint(np.sum(counts * reward, axis=-1)).astype(int)
    a_plus, a_minus = advantage_table(estimator, G, expected_reward(pi, reward))
    if a_plus.ndim == 1:
        ap, am = a_plus[k], a_minus[k]
    else:  # one table per prompt (the oracle's depends on V)
        ap, am = (
            np.take_along_axis(a_plus, k[..., None], -1)[..., 0],
            np.take_along_axis(a_minus, k[..., None], -1)[..., 0],
        )
    weighted = counts * np.where(reward == 1.0, ap[..., None], am[..., None])
    return (weighted - pi * weighted.sum(axis=-1, keepdims=True)) / G


def gradient_estimates(
    logits: object, reward: object, G: int, n_groups: int, estimator: str, *, seed: int = 0
) -> np.ndarray:
    """One estimate of grad V per independent group of G answers: shape (n_groups, K).

    ``estimator`` is "vanilla", "grpo", "oracle" or "grpo_std" (module docstring; "grpo_full_mean" and
    "grpo_paper" are accepted too). The groups' answer counts are drawn at once (numpy ``default_rng(seed)``,
    multinomial), so the cost is O(n_groups K) whatever G. Bad input raises ValueError naming the parameter:
    G < 2, rewards not in {0, 1}, logits and reward of different shapes, an unknown estimator.
    """
    logits, reward = check_bandit(logits, reward)
    if logits.ndim != 1:
        raise ValueError(f"logits has shape {logits.shape}; valid shape is (K,), one prompt")
    G = _group_size(G)
    n_groups = check_positive_int("n_groups", n_groups)
    check_choice("estimator", estimator, ALL_ESTIMATORS)
    seed = check_positive_int("seed", seed, minimum=0)
    pi = softmax(logits)
    counts = np.random.default_rng(seed).multinomial(G, pi, size=n_groups).astype(float)
    return estimates_from_counts(pi, reward, counts, G=G, estimator=estimator)


def sample_outcomes(logits: object, G: int, n_groups: int, *, seed: int = 0) -> np.ndarray:
    """Explicit answers: n_groups groups of G i.i.d. draws from softmax(logits), shape (n_groups, G), seeded."""
    logits = check_logits("logits", logits)
    G = _group_size(G)
    n_groups = check_positive_int("n_groups", n_groups)
    pi = softmax(logits)
    return np.random.default_rng(check_positive_int("seed", seed, minimum=0)).choice(pi.size, size=(n_groups, G), p=pi)


def _explicit_groups(logits: object, reward: object, outcomes: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    logits, reward = check_bandit(logits, reward)
    if logits.ndim != 1:
        raise ValueError(f"logits has shape {logits.shape}; valid shape is (K,), one prompt")
    o = np.asarray(outcomes)
    if o.ndim != 2 or not np.issubdtype(o.dtype, np.integer) or ((o < 0) | (o >= logits.size)).any():
        raise ValueError(f"outcomes has shape {o.shape}; valid input is integer answers 0..K-1 of shape (n, G)")
    _group_size(o.shape[1])
    pi = softmax(logits)
    scores = np.eye(logits.size)[o] - pi  # s_i = e_{o_i} - pi, shape (n, G, K)
    return pi, reward[o], scores


def estimates_from_outcomes(logits: object, reward: object, outcomes: object, *, estimator: str) -> np.ndarray:
    """The estimator computed sample by sample, (1/G) sum_i A_i s_i, from explicit answers ``outcomes`` (n, G).

    An independent implementation of what :func:`gradient_estimates` computes from counts: each advantage is
    written out per sample (leave-one-out baselines, the group's own standard deviation). Shape (n, K).
    """
    check_choice("estimator", estimator, ALL_ESTIMATORS)
    pi, r, scores = _explicit_groups(logits, reward, outcomes)
    G = r.shape[1]
    if estimator == "vanilla":
        adv = r
    elif estimator == "grpo":
        adv = r - (r.sum(axis=1, keepdims=True) - r) / (G - 1)
    elif estimator == "oracle":
        adv = r - float(expected_reward(pi, np.asarray(reward, dtype=float)))
    else:
        form, eps = _FORMS[estimator]
        adv = group_advantage(r, form, eps)
    return np.mean(adv[..., None] * scores, axis=1)


def pairwise_kernel_average(logits: object, reward: object, outcomes: object) -> np.ndarray:
    """Lemma 1's U-statistic: the average over all pairs i < j of the symmetric kernel
    k(i, j) = (r_i - r_j)(s_i - s_j) / 2, summed pair by pair. Shape (n, K)."""
    _, r, scores = _explicit_groups(logits, reward, outcomes)
    i, j = np.triu_indices(r.shape[1], k=1)
    kernel = 0.5 * (r[:, i] - r[:, j])[..., None] * (scores[:, i] - scores[:, j])
    return kernel.mean(axis=1)
