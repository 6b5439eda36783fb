"""The analyses of the section "The book's own gaps, predicted" of Part 2 of the chapter "Group size"
(``book/group_size.md``, "Finite groups in the dynamics"), each returning its table and the values its asserts need.

* :func:`iterations_gap` and :func:`toy_lm_gap`: the seed-averaged gap of the GRPO-iterations chapter, and the sampled
  toy-LM run of the parametric chapter, against the finite-group law.
* :func:`k3_gradient_check`: the expected gradient of the k3 estimate placed in the loss against the exact gradients
  of the two KL directions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grpo_nb.chapters.group_size.finite_groups_law import _two_answer_runs
from grpo_nb.dynamics.map import iterate
from grpo_nb.kl import expected_estimator_gradient, softmax_kl_gradients
from grpo_nb.report import Table
from grpo_nb.tabular.algorithm1 import algorithm1, make_task
from grpo_nb.ustat.finite_group import StepModel, finite_group_law
from grpo_nb.validation import check_positive_int

__all__ = [
    "IterationsGap",
    "K3Gradient",
    "ToyLMGap",
    "iterations_gap",
    "k3_gradient_check",
    "toy_lm_gap",
]


def _columns(table: Table, n_columns: Sequence[int]) -> Table:
    """The columns ``n_columns`` (indices) of ``table``, as a narrower table that fits a phone's width."""
    return Table([table.headers[i] for i in n_columns], [[row[i] for i in n_columns] for row in table.rows], table.fmt)


@dataclass(frozen=True)
class IterationsGap:
    """Per prompt, the final success probability: the book's seed average (``book``, its standard error
    ``book_se``), the finite-group law's mean (``law``), the recursion (``h``), and the means of the n_seeds runs with
    eight and with two answers (``eight``, ``two``) with their standard errors."""

    table: Table
    book: np.ndarray
    book_se: np.ndarray
    law: np.ndarray
    h: np.ndarray
    eight: np.ndarray
    eight_se: np.ndarray
    two: np.ndarray
    two_se: np.ndarray

    @property
    def tables(self) -> tuple[Table, Table]:
        """:attr:`table` in two parts for the page: the prediction (h, the law, the book's seeds and their z-scores),
        and the runs with eight and with two answers next to the law."""
        return _columns(self.table, (0, 1, 2, 3, 4, 5)), _columns(self.table, (0, 2, 6, 7))


def _mean_se(a: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """The mean of ``a`` along ``axis`` and its standard error."""
    return a.mean(axis=axis), a.std(axis=axis, ddof=1) / np.sqrt(a.shape[axis])


def _eight_answer_finals(
    p_ref: np.ndarray, beta: float, eps: float, G: int, mu: int, lr: float, n: int, n_seeds: int, seed: int
) -> np.ndarray:
    """Algorithm 1 on n_seeds copies of each prompt with eight answers (make_task seed 0, one run seeded ``seed``):
    the final p_n, shape (len(p_ref), n_seeds)."""
    task = make_task(np.repeat(p_ref, n_seeds), n_outcomes=8, seed=0)
    run = algorithm1(task, beta=beta, eps=eps, G=G, mu=mu, lr=lr, n=n, seed=seed)
    return run.p_true[-1].reshape(p_ref.size, n_seeds)


def _gap_rows(
    p_ref: np.ndarray,
    rec: np.ndarray,
    law: np.ndarray,
    book: tuple[np.ndarray, np.ndarray],
    eight: tuple[np.ndarray, np.ndarray],
    two: tuple[np.ndarray, np.ndarray],
) -> list[tuple]:
    """One row per prompt: h, the law, the book's mean ± standard error and its z-scores against h and the law, the
    runs with eight and with two answers (each a (mean, standard error) pair)."""
    (b_mean, b_se), (m8, s8), (m2, s2) = book, eight, two
    return [
        (
            f"{p:g}",
            rec[i],
            law[i],
            f"{b_mean[i]:.3f} ± {b_se[i]:.3f}",
            (b_mean[i] - rec[i]) / b_se[i],
            (b_mean[i] - law[i]) / b_se[i],
            f"{m8[i]:.3f} ± {s8[i]:.3f}",
            f"{m2[i]:.3f} ± {s2[i]:.3f}",
        )
        for i, p in enumerate(p_ref)
    ]


def iterations_gap(
    p_ref: Sequence[float],
    *,
    beta: float,
    eps: float,
    G: int,
    mu: int,
    lr: float,
    n: int,
    book_seeds: int,
    n_seeds: int,
    seed: int = 0,
) -> IterationsGap:
    """Section "The book's own gaps, predicted": the GRPO-iterations chapter's run (eight answers, four correct,
    make_task seed 0) averaged over ``book_seeds`` seeds as printed there (seeds ``seed`` to ``seed + book_seeds - 1``)
    and over n_seeds more; the same prompts with two answers over n_seeds (both of these seeded ``seed + 1``); the
    finite-group law (two answers, Algorithm 1's mu and lr) and the recursion h."""
    p_ref = np.asarray(p_ref, dtype=float)
    seed = check_positive_int("seed", seed, minimum=0)
    task = make_task(p_ref, n_outcomes=8, seed=0)
    seeds = range(seed, seed + book_seeds)
    book = np.array([algorithm1(task, beta=beta, eps=eps, G=G, mu=mu, lr=lr, n=n, seed=s).p_true[-1] for s in seeds])
    many8 = _eight_answer_finals(p_ref, beta, eps, G, mu, lr, n, n_seeds, seed + 1)
    many2 = np.array([_two_answer_runs(p, beta, eps, G, mu, lr, n, n_seeds, seed + 1)[-1] for p in p_ref])
    laws = [finite_group_law(StepModel(p, beta, eps, G, rule="inner_loop", mu=mu, lr=lr), n) for p in p_ref]
    law = np.array([x.mean[-1] for x in laws])
    rec = iterate(p_ref, beta, eps, n)[-1]
    (b_mean, b_se), (m8, s8), (m2, s2) = _mean_se(book, 0), _mean_se(many8, 1), _mean_se(many2, 1)
    rows = _gap_rows(p_ref, rec, law, (b_mean, b_se), (m8, s8), (m2, s2))
    headers = [
        r"$p_{\mathrm{ref}}$",
        "$h$: $p_M$",
        r"law: $\mathbb{E}[p_M]$",
        f"book: {book_seeds} seeds",
        "$z$ vs $h$",
        "$z$ vs law",
        f"8 answers, {n_seeds} seeds",
        f"2 answers, {n_seeds} seeds",
    ]
    return IterationsGap(Table(headers, rows, ".3f"), b_mean, b_se, law, rec, m8, s8, m2, s2)


@dataclass(frozen=True)
class ToyLMGap:
    """Per iteration n, means over prompts: the law's E[mean p_n] (``law``) and its standard error for one run
    (``law_se``), the recursion (``h``) and the network's measured mean (``measured``); the iteration-to-iteration
    spread of the measured mean (``mean_spread``) and the means from iteration 2 on (``late_*``)."""

    table: Table
    law: np.ndarray
    law_se: np.ndarray
    h: np.ndarray
    measured: np.ndarray
    mean_spread: float
    late_measured: float
    late_law: float
    late_h: float


def toy_lm_gap(p_ref: np.ndarray, p_measured: np.ndarray, *, beta: float, eps: float, G: int) -> ToyLMGap:
    """Section "The book's own gaps, predicted": the toy LM's sampled run (measured p_n per prompt, shape (M+1, P))
    against the finite-group law of each prompt (two answers, maximiser: the inner problem solved, as the
    exact-estimator run does) and against h.

    The law gives E[mean_q p_n] and, for independent prompts, its standard error sqrt(sum_q Var p_n(q)) / P."""
    n = p_measured.shape[0] - 1
    laws = [finite_group_law(StepModel(p, beta, eps, G), n) for p in p_ref]
    law_mean = np.mean([x.mean for x in laws], axis=0)
    law_se = np.sqrt(np.sum([x.std**2 for x in laws], axis=0)) / p_ref.size
    rec = iterate(p_ref, beta, eps, n).mean(axis=1)
    measured = p_measured.mean(axis=1)
    step_sd = np.std(np.diff(measured[1:]), ddof=1) / np.sqrt(2.0)  # iteration-to-iteration spread of the mean
    rows = [(str(k), rec[k], law_mean[k], law_se[k], measured[k]) for k in range(n + 1)]
    headers = [
        "$n$",
        "$h$: mean $p_n$",
        r"law: $\mathbb{E}[$mean $p_n]$",
        "law: standard error",
        r"toy LM: mean $\tilde p_n$",
    ]
    late = (float(measured[2:].mean()), float(law_mean[2:].mean()), float(rec[2:].mean()))
    return ToyLMGap(Table(headers, rows, ".3f"), law_mean, law_se, rec, measured, float(step_sd), *late)


#: Which KL the k3 estimate in the loss climbs in expectation: index into :func:`softmax_kl_gradients`'s
#: (reverse KL(pi || pi_ref), forward KL(pi_ref || pi)).
K3_LOSS_DIRECTION = 1
KL_DIRECTIONS = ("KL(π‖π_ref)", "KL(π_ref‖π)")


@dataclass(frozen=True)
class K3Gradient:
    """Over random softmax policies: the largest gap between the expected gradient of the k3 estimate in the loss
    and the gradient of the KL direction ``K3_LOSS_DIRECTION`` names (``gap``), and the smallest relative distance
    to the other direction's gradient (``other``); ``direction`` names the first."""

    gap: float
    other: float
    direction: str


def k3_gradient_check(n_answers: int = 6, n_policies: int = 20, *, seed: int = 0) -> K3Gradient:
    """Section "The book's own gaps, predicted": for n_policies random softmax policies pi and references pi_ref on
    n_answers answers, E_{o~pi}[grad of k3(o)] with the sample's log pi(o) differentiated (the k3 term of the toy LM's
    loss, :func:`grpo_nb.kl.expected_estimator_gradient`, placement "loss"), against the exact gradients of both KL
    directions (:func:`grpo_nb.kl.softmax_kl_gradients`), and the same by autograd (:func:`_k3_autograd`); the worse
    of the two routes counts."""
    n_policies = check_positive_int("n_policies", n_policies)
    rng = np.random.default_rng(check_positive_int("seed", seed, minimum=0))
    gap, other = 0.0, np.inf
    for _ in range(n_policies):
        logits, ref_logits = rng.normal(size=(2, check_positive_int("n_answers", n_answers, minimum=2)))
        log_ref = ref_logits - np.logaddexp.reduce(ref_logits)
        closed = (expected_estimator_gradient(logits, log_ref, "k3", placement="loss"),
                  softmax_kl_gradients(logits, log_ref))  # fmt: skip
        for k3_grad, both in (closed, _k3_autograd(logits, log_ref)):
            target, rest = both[K3_LOSS_DIRECTION], both[1 - K3_LOSS_DIRECTION]
            gap = max(gap, float(np.abs(k3_grad - target).max()))
            other = min(other, float(np.linalg.norm(k3_grad - rest) / np.linalg.norm(rest)))
    return K3Gradient(gap, other, KL_DIRECTIONS[K3_LOSS_DIRECTION])


def _k3_autograd(logits: np.ndarray, log_ref: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The same gradients by torch's autograd on the enumerated softmax (:mod:`grpo_nb.tabular.token_policy`), no
    formula of :mod:`grpo_nb.kl` involved: (k3 term's expected gradient, (grad reverse KL, grad forward KL))."""
    import torch

    from grpo_nb.tabular.token_policy import TokenPolicy, flat_gradient, kl_term, sequence_kl

    policy = TokenPolicy((torch.tensor(logits[None, :], requires_grad=True),))
    ref = TokenPolicy((torch.tensor(log_ref[None, :]),))
    directions = tuple(flat_gradient(sequence_kl(policy, ref, d), policy) for d in ("reverse", "forward"))
    return flat_gradient(kl_term(policy, ref, "k3", placement="loss"), policy), directions
