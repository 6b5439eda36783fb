"""Algorithm 1 of Mroueh (2025) (iterative GRPO with verifiable rewards) on tabular softmax policies.

The task: Q prompts, each with the same finite set of O outcomes, a binary reward table r[q, o] and a
reference policy pi_ref(.|q) = softmax(ref_logits[q]). The policy is pi_theta(.|q) = softmax(theta[q]),
one free logit per (prompt, outcome). One outer iteration n (Algorithm 1, lines 4-10):

1. pi_old <- pi_theta                                              (line 5)
2. sample G outcomes o_1..o_G ~ pi_old(.|q) per prompt, rewards r_i   (lines 6-7)
3. p_hat = k/G and the stabilised advantage A_i = omega^+(p_hat) if r_i = 1, -omega^-(p_hat) if r_i = 0
   (Eq. 3 with eps inside the root, i.e. Eq. 4; line 8)
4. mu gradient-ascent steps on theta of                             (lines 9-10, GRPO-No-Clip / GRPO-Clip)
       J(theta) = (1/G) sum_i f(pi_theta(o_i)/pi_old(o_i), A_i) - beta KL(pi_theta || pi_ref),
   with f(x, A) = x A (no clipping) or min(xA, clip(x, 1-c, 1+c)A), and the KL exact over the outcomes.

``exact=True`` replaces the G samples by the exact expectation under pi_old (weights pi_old(o) on every
outcome, p_hat = the true p): then J is the objective of Eq. (6) estimated without noise, and with enough
inner steps pi_theta approaches the maximiser over policies, Theorem 1's pi_n, whose success probability is
h(p_{n-1}) (Theorem 2). Everything is numpy and seeded (``numpy.random.Generator``).

The softmax policy's success probability ``logits_expected_reward`` and its on-policy gradient ``reinforce_gradient``
are :mod:`grpo_nb.tabular.softmax_policy`'s, importable from here too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import log_softmax, softmax
from tqdm.auto import tqdm

from grpo_nb.clipping import clipped_term, clipped_term_slope
from grpo_nb.kl import categorical_kl
from grpo_nb.tabular.policy import expected_reward
from grpo_nb.tabular.softmax_policy import logits_expected_reward, reinforce_gradient
from grpo_nb.validation import (
    check_beta,
    check_binary_reward,
    check_choice,
    check_clip_eps,
    check_eps,
    check_p_ref,
    check_positive_int,
)
from grpo_nb.weights import stabilised_advantage

__all__ = [
    "Algorithm1Run",
    "TabularTask",
    "algorithm1",
    "grpo_surrogate",
    "kl_to_reference",
    "make_task",
    "reinforce_gradient",
    "sample_counts",
    "sample_outcomes",
    "logits_expected_reward",
]


@dataclass(frozen=True)
class TabularTask:
    """Q prompts x O outcomes: reference logits and the binary reward table, both of shape (Q, O)."""

    ref_logits: np.ndarray
    reward: np.ndarray

    def __post_init__(self) -> None:
        ref = np.asarray(self.ref_logits, dtype=float)
        rew = np.asarray(self.reward, dtype=float)
        if ref.ndim != 2 or ref.shape[1] < 2 or ref.shape[0] < 1:
            raise ValueError(f"ref_logits has shape {ref.shape}; valid shape is (Q, O) with Q >= 1 and O >= 2")
        if not np.isfinite(ref).all():
            raise ValueError("ref_logits contains a non-finite entry; valid range is finite real logits")
        rew = check_binary_reward("reward", rew, shape=ref.shape)
        object.__setattr__(self, "ref_logits", ref)
        object.__setattr__(self, "reward", rew)

    @property
    def pi_ref(self) -> np.ndarray:
        """pi_ref(o|q), shape (Q, O)."""
        return softmax(self.ref_logits, axis=-1)

    @property
    def p_ref(self) -> np.ndarray:
        """Success probability of pi_ref per prompt, shape (Q,)."""
        return logits_expected_reward(self.ref_logits, self.reward)


def make_task(p_ref: object, n_outcomes: int = 8, n_success: int | None = None, *, seed: int = 0) -> TabularTask:
    """A task whose reference policy has success probability exactly ``p_ref[q]`` on prompt q.

    Each prompt has ``n_success`` successful outcomes (default: half of them, at least 1) out of
    ``n_outcomes``; within successes and within failures pi_ref is a seeded random split (Dirichlet(1)),
    scaled to total mass p_ref and 1 - p_ref.
    """
    p_ref = np.atleast_1d(check_p_ref(p_ref))
    if p_ref.ndim != 1:
        raise ValueError(f"p_ref has shape {p_ref.shape}; valid shape is (Q,)")
    n_outcomes = check_positive_int("n_outcomes", n_outcomes, minimum=2)
    n_success = max(1, n_outcomes // 2) if n_success is None else n_success
    if not isinstance(n_success, (int, np.integer)) or not 1 <= n_success <= n_outcomes - 1:
        raise ValueError(f"n_success={n_success!r} is out of range; valid range is integers 1 <= n_success <= O - 1")
    rng = np.random.default_rng(seed)
    q = p_ref.size
    reward = np.zeros((q, n_outcomes))
    reward[:, :n_success] = 1.0
    split_s = rng.dirichlet(np.ones(n_success), size=q)
    split_f = rng.dirichlet(np.ones(n_outcomes - n_success), size=q)
    pi = np.concatenate([p_ref[:, None] * split_s, (1.0 - p_ref)[:, None] * split_f], axis=1)
    return TabularTask(ref_logits=np.log(pi), reward=reward)


def kl_to_reference(logits: np.ndarray, ref_logits: np.ndarray) -> np.ndarray:
    """KL(pi_theta(.|q) || pi_ref(.|q)) per prompt, exact over the outcome set; shape (Q,)."""
    return categorical_kl(log_softmax(logits, axis=-1), log_softmax(ref_logits, axis=-1))


def sample_outcomes(logits: np.ndarray, G: int, rng: np.random.Generator) -> np.ndarray:
    """G outcome indices per prompt drawn from softmax(logits) by inverse CDF; shape (Q, G)."""
    G = check_positive_int("G", G)
    cdf = np.cumsum(softmax(logits, axis=-1), axis=-1)
    u = rng.random((logits.shape[0], G)) * cdf[:, -1:]
    return np.minimum((u[:, :, None] >= cdf[:, None, :]).sum(axis=-1), logits.shape[1] - 1)


def sample_counts(outcomes: np.ndarray, n_outcomes: int) -> np.ndarray:
    """How often each outcome was drawn per prompt: shape (Q, O), rows summing to G."""
    q = outcomes.shape[0]
    counts = np.zeros((q, n_outcomes))
    np.add.at(counts, (np.broadcast_to(np.arange(q)[:, None], outcomes.shape), outcomes), 1.0)
    return counts


def grpo_surrogate(
    logits: np.ndarray,
    old_logits: np.ndarray,
    ref_logits: np.ndarray,
    *,
    outcomes: np.ndarray,
    weights: np.ndarray,
    advantages: np.ndarray,
    beta: float,
    clip_eps: float = np.inf,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-prompt objective sum_i w_i f(pi_theta(o_i)/pi_old(o_i), A_i) - beta KL(pi_theta || pi_ref) and its
    gradient in the logits (GRPO-Clip; GRPO-No-Clip for clip_eps = inf).

    ``outcomes``, ``weights``, ``advantages`` have shape (Q, S): S = G samples with weights 1/G, or all O
    outcomes with weights pi_old (exact expectation). Gradient of the softmax: d pi_o/d theta_k = pi_o (delta_ok
    - pi_k); of the KL: pi_k (log(pi_k/pi_ref_k) - KL). Returns (objective (Q,), gradient (Q, O)).
    """
    log_pi, log_old, log_ref = (log_softmax(x, axis=-1) for x in (logits, old_logits, ref_logits))
    pi = np.exp(log_pi)
    rows = np.arange(logits.shape[0])[:, None]
    ratio = np.exp(log_pi[rows, outcomes] - log_old[rows, outcomes])
    value = np.sum(weights * clipped_term(ratio, advantages, clip_eps), axis=-1)
    coef = weights * clipped_term_slope(ratio, advantages, clip_eps) * ratio  # d/d log pi(o_i)
    if outcomes.shape == pi.shape and (outcomes == np.arange(pi.shape[1])).all():
        grad = coef.copy()  # one term per outcome, in order (exact expectations or per-outcome counts)
    else:
        grad = np.zeros_like(pi)
        np.add.at(grad, (np.broadcast_to(rows, outcomes.shape), outcomes), coef)
    grad -= pi * coef.sum(axis=-1, keepdims=True)
    kl = categorical_kl(log_pi, log_ref)
    value = value - beta * kl
    grad -= beta * pi * (log_pi - log_ref - kl[:, None])
    return value, grad


@dataclass(frozen=True)
class Algorithm1Run:
    """History of one run: logits (M+1, Q, O), true success probabilities p (M+1, Q), the group estimates
    p_hat (M, Q) used at each outer iteration, KL to pi_ref (M+1, Q), and the final inner-loop gradient norm
    per outer iteration (M, Q)."""

    logits: np.ndarray
    p_true: np.ndarray
    p_hat: np.ndarray
    kl: np.ndarray
    final_grad_norm: np.ndarray

    @property
    def policies(self) -> np.ndarray:
        return softmax(self.logits, axis=-1)


@dataclass(frozen=True)
class _Options:
    """The checked options of one run of :func:`algorithm1` (its docstring names each)."""

    beta: float
    eps: float
    G: int
    mu: int
    n: int
    lr: np.ndarray
    clip_eps: float
    no_signal: str
    max_draws: int


def _checked_options(
    beta: float,
    eps: float,
    *,
    G: int,
    mu: int,
    lr: float | None,
    n: int,
    clip_eps: float | None,
    no_signal: str,
    max_draws: int,
) -> _Options:
    """Validate :func:`algorithm1`'s options: ValueError naming the first bad one, its value and the valid range.

    The default step size is lr = 0.5/max(1, beta); a step above 2/beta makes gradient ascent on the KL term diverge.
    """
    beta_f, eps_f = float(check_beta(beta)), float(check_eps(eps))
    if eps_f == 0:
        raise ValueError(
            "eps=0.0 is out of range for Algorithm 1 (p_hat, or in float64 even the exact p, can be 0 or 1, "
            "where the unsmoothed weights are undefined); valid range is eps > 0"
        )
    G = check_positive_int("G", G)
    mu = check_positive_int("mu", mu)
    n = check_positive_int("n", n, minimum=0)
    lr_arr = np.asarray(0.5 / max(1.0, beta_f) if lr is None else lr, dtype=float)
    if lr_arr.ndim or not (np.isfinite(lr_arr) and lr_arr > 0):
        raise ValueError(f"lr={lr!r} is out of range; valid range is 0 < lr <= 2/beta")
    if lr_arr * beta_f > 2.0:
        raise ValueError(
            f"lr={lr!r} is out of range for beta={beta_f!r}: gradient ascent on the KL term (curvature up to beta "
            f"in the logits) would diverge; valid range is 0 < lr <= 2/beta = {2.0 / beta_f:.4g}"
        )
    clip = np.inf if clip_eps is None else float(check_clip_eps(clip_eps))
    check_choice("no_signal", no_signal, ("keep", "drop", "resample"))
    max_draws = check_positive_int("max_draws", max_draws)
    return _Options(beta_f, eps_f, G, mu, n, lr_arr, clip, no_signal, max_draws)


def _outer_batch(
    old: np.ndarray, task: TabularTask, opts: _Options, rng: np.random.Generator, *, exact: bool
) -> tuple[dict, np.ndarray, np.ndarray]:
    """Lines 6-8 of Algorithm 1 at pi_old = softmax(``old``): the outcomes and weights of the objective (G samples
    as per-outcome counts / G, or pi_old itself when ``exact``), p_hat and the stabilised advantages (Eq. 4).

    Returns (the keyword arguments of :func:`grpo_surrogate` but the logits, p_hat per prompt, the prompts frozen
    by dynamic sampling)."""
    q, o = task.ref_logits.shape
    frozen = np.zeros(q, dtype=bool)  # prompts left out of this iteration's update (dropped groups)
    if exact:
        outcomes = np.broadcast_to(np.arange(o), (q, o))
        weights = softmax(old, axis=-1)
        p_est = logits_expected_reward(old, task.reward)
    else:
        # the G-sample average (1/G) sum_i f(x_{o_i}, A_i) depends on a sample only through its outcome,
        # so it is kept as per-outcome weights count_o / G (same objective, O terms instead of G)
        counts = sample_counts(sample_outcomes(old, opts.G, rng), o)
        if opts.no_signal != "keep":
            counts, frozen = _groups_with_signal(counts, old, task.reward, opts.G, rng, opts.no_signal, opts.max_draws)
        outcomes = np.broadcast_to(np.arange(o), (q, o))
        weights = counts / opts.G
        p_est = expected_reward(weights, task.reward)
    sample_rewards = task.reward[np.arange(q)[:, None], outcomes]
    adv = stabilised_advantage(sample_rewards, p_est[:, None], opts.eps)
    batch = {"outcomes": outcomes, "weights": weights, "advantages": adv, "beta": opts.beta, "clip_eps": opts.clip_eps}
    return batch, p_est, frozen


def _inner_steps(
    theta: np.ndarray, old: np.ndarray, task: TabularTask, batch: dict, frozen: np.ndarray, opts: _Options
) -> np.ndarray:
    """Lines 9-10 of Algorithm 1: ``mu`` gradient-ascent steps of size ``lr`` on the surrogate; frozen prompts stay."""
    for _ in range(opts.mu):
        _, grad = grpo_surrogate(theta, old, task.ref_logits, **batch)
        theta = theta + opts.lr * np.where(frozen[:, None], 0.0, grad)
    return theta


def algorithm1(
    task: TabularTask,
    *,
    beta: float,
    eps: float,
    G: int = 8,
    mu: int = 10,
    lr: float | None = None,
    n: int = 5,
    clip_eps: float | None = None,
    exact: bool = False,
    seed: int = 0,
    progress: bool = False,
    no_signal: str = "keep",
    max_draws: int = 64,
) -> Algorithm1Run:
    """Run Algorithm 1 for ``n`` outer steps from pi_theta = pi_ref (lines 1-2).

    ``G`` samples per prompt (ignored when ``exact``); ``mu`` inner gradient-ascent steps of size ``lr`` on the
    logits (default 0.5/max(1, beta); at most 2/beta, beyond which the KL term alone makes the steps diverge);
    KL coefficient ``beta``; variance smoothing ``eps > 0`` (Eq. 4); clip range ``clip_eps`` (None: no
    clipping: the paper's GRPO-No-Clip objective; TRL itself clips). Seeded by ``seed``.

    ``no_signal`` says what happens to a prompt whose group has all rewards equal (k = 0 or k = G): "keep" (the
    algorithm as written: its advantages are 0 and only the KL term acts), "drop" (the prompt is not updated in that
    iteration; for one prompt, what DAPO's dynamic sampling does) or "resample" (the book's own rule: new groups are
    drawn for the same prompt, at most ``max_draws`` groups in all, after which it is dropped). Ignored when ``exact``.
    """
    if not isinstance(task, TabularTask):
        raise ValueError(f"task={task!r} is not a TabularTask; build one with make_task or TabularTask(...)")
    opts = _checked_options(
        beta, eps, G=G, mu=mu, lr=lr, n=n, clip_eps=clip_eps, no_signal=no_signal, max_draws=max_draws
    )
    rng = np.random.default_rng(seed)
    theta = task.ref_logits.copy()
    logits, p_true, p_hat, kls, gnorms = [theta.copy()], [], [], [], []
    p_true.append(logits_expected_reward(theta, task.reward))
    kls.append(kl_to_reference(theta, task.ref_logits))
    for _ in tqdm(range(opts.n), desc="Algorithm 1", disable=not progress):
        old = theta.copy()
        batch, p_est, frozen = _outer_batch(old, task, opts, rng, exact=exact)
        theta = _inner_steps(theta, old, task, batch, frozen, opts)
        _, grad = grpo_surrogate(theta, old, task.ref_logits, **batch)
        logits.append(theta.copy())
        p_hat.append(p_est)
        p_true.append(logits_expected_reward(theta, task.reward))
        kls.append(kl_to_reference(theta, task.ref_logits))
        gnorms.append(np.linalg.norm(grad, axis=-1))
    empty = np.empty((0, task.ref_logits.shape[0]))
    return Algorithm1Run(
        logits=np.array(logits),
        p_true=np.array(p_true),
        p_hat=np.array(p_hat) if p_hat else empty,
        kl=np.array(kls),
        final_grad_norm=np.array(gnorms) if gnorms else empty,
    )


def _groups_with_signal(
    counts: np.ndarray, logits: np.ndarray, reward: np.ndarray, G: int, rng: np.random.Generator, rule: str, draws: int
) -> tuple[np.ndarray, np.ndarray]:
    """Dynamic sampling: redraw the groups whose rewards are all equal ("resample", up to ``draws`` groups in all);
    the prompts still without signal are frozen (not updated). Returns (counts, frozen)."""
    counts = counts.copy()
    empty = np.isin(np.rint(np.sum(counts * reward, axis=1)), (0, G))
    for _ in range(draws - 1 if rule == "resample" else 0):
        if not empty.any():
            break
        counts[empty] = sample_counts(sample_outcomes(logits[empty], G, rng), logits.shape[1])
        empty[empty] = np.isin(np.rint(np.sum(counts[empty] * reward[empty], axis=1)), (0, G))
    return counts, empty
