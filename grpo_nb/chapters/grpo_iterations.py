"""The analyses of the chapter "GRPO iterations" (``book/grpo_iterations.md``, paper §2.4): how far a tabular
Algorithm 1 run is from the exact recursion (Thm 1's policies, Thm 2's map h), per step.

* :func:`expected_group_gradient` (section "A run with groups of eight"): the expected gradient of Algorithm 1's
  sampled objective at theta_old (a sum over the binomial success count) against the exact-expectation gradient,
  per p and G; :func:`retention_symmetry` (same section): the signal retention rho_G at p and at 1 - p, and the share
  of groups without signal.
* :func:`one_step_gaps` (section "From parameters to policies"): the largest |p_n - h(p_{n-1})| and the largest
  TV(pi_n, Thm 1's step from pi_{n-1}) over iterations and prompts: how well each outer step solved its inner
  problem; :func:`mean_one_step_gap` (same section): the mean |p_n - h(p_{n-1})|, for comparing group sizes.
* :func:`clip_ratios` (section "Clipping slows each outer step"): the probability ratios pi_1/pi_0 after one
  clipped outer step, and which outcomes crossed the clip band although their own clipped term had no gradient left.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import binom

from grpo_nb.dynamics.map import h
from grpo_nb.report import Table
from grpo_nb.tabular.algorithm1 import Algorithm1Run, TabularTask, grpo_surrogate, make_task
from grpo_nb.tabular.closed_form import grpo_step
from grpo_nb.tabular.policy import total_variation
from grpo_nb.ustat.finite_group import signal_retention
from grpo_nb.validation import check_positive_int
from grpo_nb.weights import stabilised_advantage

__all__ = [
    "ClipRatios",
    "GroupGradient",
    "OneStepGaps",
    "RetentionSymmetry",
    "clip_ratios",
    "expected_group_gradient",
    "mean_one_step_gap",
    "one_step_gaps",
    "retention_symmetry",
]


def _p_gaps(run: Algorithm1Run, p_ref: object, beta: float, eps: float) -> np.ndarray:
    return np.abs(run.p_true[1:] - h(run.p_true[:-1], p_ref, beta, eps))


@dataclass(frozen=True)
class OneStepGaps:
    """:func:`one_step_gaps`: a run's largest one-step gap to the recursion, max_n,q |p_n - h(p_{n-1})|, and to
    Theorem 1's policy, max_n,q TV(pi_n, grpo_step(pi_ref, pi_{n-1}))."""

    p_gap: float
    tv: float


def one_step_gaps(run: Algorithm1Run, task: TabularTask, p_ref: object, beta: float, eps: float) -> OneStepGaps:
    """A run's one-step gaps on ``task`` (section "From parameters to policies").

    ``p_ref`` is the reference success probability per prompt used in h (the task's, as the chapter states it).
    """
    pol = run.policies
    tv = max(
        float(total_variation(grpo_step(task.pi_ref[q], pol[n, q], task.reward[q], beta, eps), pol[n + 1, q]))
        for n in range(pol.shape[0] - 1)
        for q in range(pol.shape[1])
    )
    return OneStepGaps(float(_p_gaps(run, p_ref, beta, eps).max()), tv)


def mean_one_step_gap(run: Algorithm1Run, p_ref: object, beta: float, eps: float) -> float:
    """The mean over iterations and prompts of |p_n - h(p_{n-1})|."""
    return float(_p_gaps(run, p_ref, beta, eps).mean())


@dataclass(frozen=True)
class ClipRatios:
    """:func:`clip_ratios`' table, the ratios pi_1/pi_0 (Q, O), and which outcomes ended beyond the band (Q, O)."""

    table: Table
    ratio: np.ndarray
    beyond: np.ndarray


@dataclass(frozen=True)
class GroupGradient:
    """:func:`expected_group_gradient`'s table, the ratio |E grad| / |exact grad| per (p, G), shape
    (len(ps), len(groups)), and the largest |E grad - ratio x exact grad| (zero up to rounding when parallel)."""

    table: Table
    ratio: np.ndarray
    residual: float


def clip_ratios(run: Algorithm1Run, task: TabularTask, eps: float, *, clip_eps: float) -> ClipRatios:
    """After the first outer step of a clipped exact-expectation run: per prompt the largest ratio pi_1/pi_0 of a
    success, the smallest of a failure, how many outcomes ended beyond the band on their advantage's side (where
    GRPO-Clip's own term for them has no gradient left), and p_1/p_0.

    Returns a :class:`ClipRatios`."""
    pol = run.policies
    ratio = pol[1] / pol[0]
    adv = stabilised_advantage(task.reward, run.p_true[0][:, None], eps)
    beyond = ((adv > 0) & (ratio > 1 + clip_eps)) | ((adv < 0) & (ratio < 1 - clip_eps))
    win, lose = task.reward == 1, task.reward == 0
    rows = [
        (f"{p:g}", ratio[q][win[q]].max(), ratio[q][lose[q]].min(), str(int(beyond[q].sum())), run.p_true[1, q] / p)
        for q, p in enumerate(run.p_true[0])
    ]
    headers = [r"$p_{\mathrm{ref}}$", "largest ratio of a success", "smallest ratio of a failure",
               f"outcomes beyond $1 \\pm {clip_eps:g}$", "$p_1 / p_0$"]  # fmt: skip
    return ClipRatios(Table(headers, rows, ".3f"), ratio, beyond)


def expected_group_gradient(ps: Sequence[float], groups: Sequence[int], eps: float) -> GroupGradient:
    """E[grad of Algorithm 1's G-sample objective at theta_old] against its exact-expectation gradient (Eq. 6).

    For each p a tabular prompt (eight outcomes, four correct, ``make_task`` seed 0). At theta = theta_old the sampled
    objective's gradient is linear in the per-outcome weights count_o / G, and its advantages depend on the group only
    through its success count k; given k the successes are i.i.d. from pi_old restricted to the successes, so
    E[count_o / G | k] = (k/G) pi(o)/p on a success and (1 - k/G) pi(o)/(1-p) on a failure. Summing
    ``grpo_surrogate``'s gradient (beta = 0) over k ~ Binomial(G, p) gives the expected gradient exactly. Both
    gradients are multiples of grad p, so their ratio is one number per (p, G) (a :class:`GroupGradient`).
    """
    eps = float(eps)
    ps = [float(p) for p in ps]
    groups = [check_positive_int("G", G, minimum=2) for G in groups]
    task = make_task(np.array(ps), n_outcomes=8, seed=0)
    q, o = task.ref_logits.shape
    pi, rew = task.pi_ref, task.reward
    p = task.p_ref
    outcomes = np.broadcast_to(np.arange(o), (q, o))

    def gradient_at_ref(weights: np.ndarray, adv: np.ndarray) -> np.ndarray:
        """``grpo_surrogate``'s gradient at pi = pi_old = pi_ref, beta = 0, with these weights and advantages."""
        logits = task.ref_logits
        return grpo_surrogate(logits, logits, logits, outcomes=outcomes, weights=weights, advantages=adv, beta=0.0)[1]

    grad = {}
    for name, G in [("exact", None), *((str(G), G) for G in groups)]:
        if G is None:
            grad[name] = gradient_at_ref(pi, stabilised_advantage(rew, p[:, None], eps))
            continue
        total = np.zeros((q, o))
        for k in range(G + 1):
            w = np.where(rew == 1, (k / G) * pi / p[:, None], (1 - k / G) * pi / (1 - p[:, None]))
            g = gradient_at_ref(w, stabilised_advantage(rew, np.full((q, 1), k / G), eps))
            total += binom.pmf(k, G, p)[:, None] * g
        grad[name] = total
    exact = grad["exact"]
    ratio = np.array([[np.sum(grad[str(G)][i] * exact[i]) / np.sum(exact[i] ** 2) for G in groups] for i in range(q)])
    residual = max(
        float(np.abs(grad[str(G)][i] - ratio[i, j] * exact[i]).max()) for j, G in enumerate(groups) for i in range(q)
    )
    rows = [(f"{pp:g}", *ratio[i], (1 - pp) ** 8 + pp**8) for i, pp in enumerate(ps)]
    headers = ["$p$", *(f"$G = {G}$" for G in groups), r"$\mathbb P(\text{no signal})$, $G = 8$"]
    return GroupGradient(Table(headers, rows, ".3f"), ratio, residual)


@dataclass(frozen=True)
class RetentionSymmetry:
    """:func:`retention_symmetry`: the signal retention rho_G(p) and rho_G(1 - p), shape (len(ps), len(groups)), their
    largest gap, and the probability that a group has all rewards equal (no signal), same shape."""

    retention: np.ndarray
    mirrored: np.ndarray
    asymmetry: float
    no_signal: np.ndarray


def retention_symmetry(ps: Sequence[float], groups: Sequence[int], eps: float) -> RetentionSymmetry:
    """Is the finite group's loss of signal one-sided (section "A run with groups of eight")? rho_G(p) of
    :func:`grpo_nb.ustat.finite_group.signal_retention` at p and at 1 - p, and P(k = 0) + P(k = G) for
    k ~ Binomial(G, p). Exchanging successes and failures maps k to G - k and leaves p_hat(1 - p_hat), hence the tilt
    C(k), unchanged, so rho_G(p) = rho_G(1 - p) is expected (a :class:`RetentionSymmetry`)."""
    p = np.asarray(ps, dtype=float)
    groups = [check_positive_int("G", G, minimum=2) for G in groups]
    ret = np.array([[signal_retention(x, G, eps) for G in groups] for x in p])
    mirrored = np.array([[signal_retention(1 - x, G, eps) for G in groups] for x in p])
    no_signal = np.array([[binom.pmf(0, G, x) + binom.pmf(G, G, x) for G in groups] for x in p])
    return RetentionSymmetry(ret, mirrored, float(np.abs(ret - mirrored).max()), no_signal)
