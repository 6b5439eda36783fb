"""Section "How many generations per prompt?" of the chapter "Questions from the trackers"
(``book/tracker_questions.md``; TRL issue 3020 and pull request 3199): the group size G at a user's success
probability p and budget N (completions per generation batch), read from the chapter "Group size", next to the
probability that a group is silent.

* :func:`trl_batch_check`: how TRL 1.16 turns a budget into groups: its ``generation_batch_size`` counts completions,
  it holds N / G prompts, and TRL accepts ``num_generations`` = G only for G >= 2 dividing it
  (:data:`BOOK_TRL_ACCEPTS`, checked by building TRL's ``GRPOConfig``).
* :func:`group_count_advice`, :func:`group_count_table`: the group-size chapter's optimum for prompt sets around p
  (its :func:`~grpo_nb.chapters.group_size.u_statistic.difficulty_scan`: the constants C1, C2, C3 of the budget MSE
  (C1 G + C2 + C3/(G-1)) / N and G* = 1 + sqrt(C3/C1)), the best divisor of N
  (:meth:`grpo_nb.ustat.scaling.ScalingConstants.best_divisor`), and P(silent) =
  :func:`grpo_nb.ustat.finite_group.silent_group_probability` there and at TRL's default G. The printed group sizes
  are the book's statements :data:`BOOK_REAL_OPTIMUM` and :data:`BOOK_GROUP_SIZE`; a row passes when they are what
  the group-size chapter's functions return and each has a smaller budget MSE than its neighbours.

A check reads the book's side of its comparison (a module-level name of this module) when it runs, so replacing it
by a wrong statement (as the tests do) makes the check fail.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from grpo_nb.chapters.group_size.u_statistic import difficulty_scan
from grpo_nb.report import Table
from grpo_nb.ustat.finite_group import silent_group_probability
from grpo_nb.ustat.scaling import ScalingConstants
from grpo_nb.validation import check_open_interval, check_positive_int

__all__ = [
    "BOOK_GROUP_SIZE",
    "BOOK_REAL_OPTIMUM",
    "BOOK_TRL_ACCEPTS",
    "REAL_STEP",
    "GroupCountAdvice",
    "GroupCountTable",
    "TRLBatchCheck",
    "group_count_advice",
    "group_count_table",
    "trl_batch_check",
    "trl_default_group_size",
]

REAL_STEP = 0.05  # the real optimum must beat G* - 0.05 and G* + 0.05


def _real_optimum(constants: ScalingConstants) -> float:
    return constants.optimal_group_size


def _best_divisor(constants: ScalingConstants, budget: int, max_group: int) -> int:
    return constants.best_divisor(budget, max_group=max_group)


def _trl_accepts(budget: int, G: int) -> bool:
    return G >= 2 and budget % G == 0


#: The book's statements of the group sizes the table prints, from the budget MSE's constants: the real minimiser
#: G* = 1 + sqrt(C3/C1), and the divisor of the budget N (2 <= G <= max_group) with the smallest budget MSE.
BOOK_REAL_OPTIMUM: Callable[[ScalingConstants], float] = _real_optimum
BOOK_GROUP_SIZE: Callable[[ScalingConstants, int, int], int] = _best_divisor
#: The book's statement: TRL 1.16 accepts ``num_generations`` = G for a generation batch of N completions exactly when
#: G >= 2 and G divides N.
BOOK_TRL_ACCEPTS: Callable[[int, int], bool] = _trl_accepts


def trl_default_group_size() -> int:
    """TRL's default ``num_generations``, read from its ``GRPOConfig``."""
    from trl import GRPOConfig

    return int({f.name: f.default for f in dataclasses.fields(GRPOConfig)}["num_generations"])


@dataclass(frozen=True)
class TRLBatchCheck:
    """:func:`trl_batch_check`: the (N, G) pairs where TRL's verdict differs from :data:`BOOK_TRL_ACCEPTS`
    (``disagreements``), the pairs tried, and the largest gap between TRL's ``generation_batch_size`` / G and N / G,
    the prompts per generation batch, where TRL accepted (``prompts_gap``)."""

    disagreements: tuple[tuple[int, int], ...]
    n_pairs: int
    prompts_gap: float

    @property
    def passed(self) -> bool:
        return not self.disagreements and self.prompts_gap == 0


def trl_batch_check(budgets: Sequence[int] = tuple(range(2, 25))) -> TRLBatchCheck:
    """Section "How many generations per prompt?": for every budget N of ``budgets`` (``per_device_train_batch_size``
    = N on one process, ``gradient_accumulation_steps`` = 1) and G = 1..N+1, whether TRL's ``GRPOConfig`` accepts
    ``num_generations`` = G (no ValueError), against :data:`BOOK_TRL_ACCEPTS`; where it does, TRL's
    ``generation_batch_size`` / G against N / G prompts."""
    from grpo_nb.chapters.trl_grpo.knobs_defaults import _default_config

    wrong, pairs, gap = [], 0, 0.0
    for budget in budgets:
        budget = check_positive_int("budget", budget, minimum=2)
        for G in range(1, budget + 2):
            pairs += 1
            try:
                config = _default_config(
                    per_device_train_batch_size=budget, num_generations=G, gradient_accumulation_steps=1
                )
            except ValueError:
                accepted = False
            else:
                accepted = True
                gap = max(gap, abs(config.generation_batch_size / G - budget / G))
            if accepted != BOOK_TRL_ACCEPTS(budget, G):
                wrong.append((budget, G))
    return TRLBatchCheck(tuple(wrong), pairs, gap)


@dataclass(frozen=True)
class GroupCountAdvice:
    """:func:`group_count_advice` at success probability ``p`` and budget ``budget``: the printed real optimum
    (``g_star``) and the group-size chapter's (``chapter_g_star``), the printed best divisor (``best``) and the
    chapter's (``chapter_best``), the budget MSE's constants, P(silent) at ``best`` and at TRL's default G
    (``default_G``), the budget MSE at ``default_G`` over the one at ``best`` (``default_mse_ratio``), and the
    budget MSE of ``best`` over each neighbouring divisor's (``neighbour_ratios``, all < 1 when ``best`` is best)."""

    p: float
    budget: int
    g_star: float
    chapter_g_star: float
    best: int
    chapter_best: int
    constants: ScalingConstants
    silent_at_best: float
    default_G: int
    silent_at_default: float
    default_mse_ratio: float
    neighbour_ratios: tuple[float, ...]
    real_neighbour_ratios: tuple[float, float]

    @property
    def prompts_per_step(self) -> float:
        return self.budget / self.best

    @property
    def mixed_groups_per_step(self) -> float:
        """Expected groups per generation batch that are not silent, (N / G)(1 - P(silent)), at ``best``."""
        return self.prompts_per_step * (1.0 - self.silent_at_best)

    @property
    def passed(self) -> bool:
        same = abs(self.g_star - self.chapter_g_star) <= 1e-12 * self.chapter_g_star and self.best == self.chapter_best
        return same and all(r < 1 for r in self.neighbour_ratios) and all(r < 1 for r in self.real_neighbour_ratios)


def _constants(scan_table: Table) -> ScalingConstants:
    """C1, C2, C3 of a one-level difficulty scan, read from its table."""
    return ScalingConstants(*(float(scan_table.column(f"$C_{i}$")[0]) for i in (1, 2, 3)))


def _divisors(budget: int, max_group: int) -> list[int]:
    return [g for g in range(2, min(budget, max_group) + 1) if budget % g == 0]


def group_count_advice(p: float, budget: int, *, max_group: int = 64, default_G: int = 8) -> GroupCountAdvice:
    """Section "How many generations per prompt?": for sixteen prompts scattered around ``p`` (the group-size
    chapter's :func:`~grpo_nb.chapters.group_size.u_statistic.difficulty_scan` at this one level: softmax bandits of
    six answers, two right, the unnormalised leave-one-out GRPO estimator), the printed optima
    (:data:`BOOK_REAL_OPTIMUM`, :data:`BOOK_GROUP_SIZE` over the divisors of ``budget`` up to ``max_group``) next to
    the chapter's, their neighbours' budget MSE, and P(silent) at the best G and at ``default_G`` (TRL's default)."""
    p = check_open_interval("p", p, lo=0.0, hi=1.0)
    budget = check_positive_int("budget", budget, minimum=2)
    max_group = check_positive_int("max_group", max_group, minimum=2)
    default_G = check_positive_int("default_G", default_G, minimum=2)
    divisors = _divisors(budget, max_group)
    if not divisors:
        raise ValueError(f"budget={budget!r} has no divisor in 2..max_group={max_group}; valid budgets have one")
    scan = difficulty_scan((p,))
    c = _constants(scan.table)
    g_star, best = float(BOOK_REAL_OPTIMUM(c)), int(BOOK_GROUP_SIZE(c, budget, max_group))
    mse = {g: float(c.budget_mse(budget, g)) for g in divisors}
    at = divisors.index(best) if best in divisors else None
    near = [] if at is None else divisors[max(at - 1, 0) : at] + divisors[at + 1 : at + 2]
    ratios = tuple(mse[best] / mse[g] for g in near) if at is not None else (float("inf"),)
    real = tuple(
        float(c.budget_mse(budget, g_star) / c.budget_mse(budget, g_star + s)) for s in (-REAL_STEP, REAL_STEP)
    )
    silent = (float(silent_group_probability(p, best)), float(silent_group_probability(p, default_G)))
    return GroupCountAdvice(
        p, budget, g_star, float(scan.optimal_group_size[0]), best, c.best_divisor(budget, max_group=max_group), c,
        silent[0], default_G, silent[1], float(c.budget_mse(budget, default_G)) / mse.get(best, np.nan), ratios, real,
    )  # fmt: skip


@dataclass(frozen=True)
class GroupCountTable:
    """:func:`group_count_table`: the table (one row per (p, budget)) and each row's :class:`GroupCountAdvice`."""

    table: Table
    rows: tuple[GroupCountAdvice, ...]

    @property
    def passed(self) -> bool:
        return all(a.passed for a in self.rows)


def group_count_table(
    ps: Sequence[float] = (0.5, 0.1, 0.01, 0.001), budgets: Sequence[int] = (64, 96), *, max_group: int = 64
) -> GroupCountTable:
    """Section "How many generations per prompt?": :func:`group_count_advice` for every p of ``ps`` and budget of
    ``budgets``, at TRL's default G (:func:`trl_default_group_size`), as one table."""
    default_G = trl_default_group_size()
    rows = tuple(group_count_advice(p, n, max_group=max_group, default_G=default_G) for p in ps for n in budgets)
    headers = [
        "$p$",
        "budget $N$",
        "$G^*$",
        "best $G$ dividing $N$",
        "prompts per step",
        "$P$(silent) at best $G$",
        "mixed groups per step",
        f"$G = {default_G}$: budget MSE / best's",
        f"$P$(silent) at $G = {default_G}$",
    ]
    body = [
        (f"{a.p:g}", str(a.budget), f"{a.g_star:.1f}", str(a.best), f"{a.prompts_per_step:g}",
         f"{a.silent_at_best:.0%}", f"{a.mixed_groups_per_step:.1f}", f"{a.default_mse_ratio:.2f}",
         f"{a.silent_at_default:.0%}")
        for a in rows
    ]  # fmt: skip
    return GroupCountTable(Table(headers, body), rows)
