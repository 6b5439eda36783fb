"""Section "How many generations per prompt?" of the chapter "Questions from the trackers"
(``book/tracker_questions.md``; TRL issue 3020 and pull request 3199): the group size G at a user's success
probability p and budget N (completions per generation batch), read from the chapter "Group size", next to the
probability that a group is silent.

* :func:`trl_batch_check`: how TRL 1.16 turns a budget into groups: its ``generation_batch_size`` counts completions,
  it holds N / G prompts, and TRL accepts ``num_generations`` = G only for G >= 2 dividing it
  (:data:`BOOK_TRL_ACCEPTS`, checked by building TRL's ``GRPOConfig``).
* :func:`group_count_advice`, :func:`group_count_table`: the group-size chapter's own difficulty scan
  (:func:`~grpo_nb.chapters.group_size.u_statistic.difficulty_scan` over its levels :data:`GROUP_SIZE_LEVELS`, in one
  call, so that each level's sixteen prompts are that chapter's): the constants C1, C2, C3 of the budget MSE
  (C1 G + C2 + C3/(G-1)) / N, the printed G* (:data:`BOOK_REAL_OPTIMUM`, 1 + sqrt(C3/C1)) and best G dividing N
  (:data:`BOOK_GROUP_SIZE`), and P(silent) = :func:`grpo_nb.ustat.finite_group.silent_group_probability` there and
  at TRL's default G. The printed sizes are checked against searches that do not use them: G* against the minimiser
  of the budget MSE on a grid of real G (the group-size chapter's
  :func:`~grpo_nb.chapters.group_size.u_statistic.budget_optimum`), the best G against every G from 2 to
  ``max_group`` that TRL accepts for N (:data:`BOOK_TRL_ACCEPTS`); and the scan's G* against what the group-size
  chapter states of it (:data:`GROUP_SIZE_STATED`).

A check reads the book's side of its comparison (a module-level name of this module) when it runs, so replacing it
by a wrong statement (as the tests do) makes the check fail.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from grpo_nb.chapters.group_size.u_statistic import BUDGET_GRID_STEP, budget_optimum, difficulty_scan
from grpo_nb.report import Table
from grpo_nb.ustat.finite_group import silent_group_probability
from grpo_nb.ustat.scaling import ScalingConstants
from grpo_nb.validation import check_open_interval, check_positive_int

__all__ = [
    "BOOK_GROUP_SIZE",
    "BOOK_REAL_OPTIMUM",
    "BOOK_TRL_ACCEPTS",
    "GROUP_SIZE_LEVELS",
    "GROUP_SIZE_STATED",
    "GroupCountAdvice",
    "GroupCountTable",
    "TRLBatchCheck",
    "group_count_advice",
    "group_count_table",
    "trl_batch_check",
    "trl_default_group_size",
]

#: The levels of the group-size chapter's difficulty scan (its section "Minibatches and a fixed sampling budget"):
#: sixteen prompts around each, drawn in one call in this order, as that chapter draws them.
GROUP_SIZE_LEVELS: tuple[float, ...] = (0.5, 0.2, 0.05, 0.01, 0.001)
#: What the group-size chapter states of its scan, G* to the nearest whole answer: "about 3" for prompt sets solved
#: half the time and "about 24" for sets solved once in a thousand tries.
GROUP_SIZE_STATED: dict[float, int] = {0.5: 3, 0.001: 24}


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
    (``g_star``, :data:`BOOK_REAL_OPTIMUM`) and the minimiser of the budget MSE found on a grid of real G of step
    ``BUDGET_GRID_STEP`` (``searched_g_star``), the printed best group size (``best``, :data:`BOOK_GROUP_SIZE`) and
    the G with the smallest budget MSE among all that TRL accepts for the budget (``searched_best``), the budget
    MSE's constants, P(silent) at ``best`` and at TRL's default G (``default_G``), and the budget MSE at
    ``default_G`` over the one at ``best`` (``default_mse_ratio``)."""

    p: float
    budget: int
    g_star: float
    searched_g_star: float
    best: int
    searched_best: int
    constants: ScalingConstants
    silent_at_best: float
    default_G: int
    silent_at_default: float
    default_mse_ratio: float

    @property
    def prompts_per_step(self) -> float:
        return self.budget / self.best

    @property
    def mixed_groups_per_step(self) -> float:
        """Expected groups per generation batch that are not silent, (N / G)(1 - P(silent)), at ``best``."""
        return self.prompts_per_step * (1.0 - self.silent_at_best)

    @property
    def passed(self) -> bool:
        """The printed G* is the searched minimiser (to the grid's step) and the printed best G the searched one."""
        return abs(self.g_star - self.searched_g_star) <= BUDGET_GRID_STEP and self.best == self.searched_best


def _scan_constants(levels: Sequence[float]) -> list[ScalingConstants]:
    """C1, C2, C3 of the budget MSE at each level, from one difficulty scan over all of them (the draw of the
    group-size chapter when ``levels`` are its :data:`GROUP_SIZE_LEVELS`)."""
    table = difficulty_scan(tuple(levels), n_prompts=16).table
    columns = [table.column(f"$C_{i}$") for i in (1, 2, 3)]
    return [ScalingConstants(*(float(col[k]) for col in columns)) for k in range(len(levels))]


def _searched_best(constants: ScalingConstants, budget: int, max_group: int) -> int:
    """The G from 2 to ``max_group`` with the smallest budget MSE among those TRL accepts for ``budget``
    (:data:`BOOK_TRL_ACCEPTS`, checked against TRL's own ``GRPOConfig`` by :func:`trl_batch_check`)."""
    accepted = [G for G in range(2, max_group + 1) if BOOK_TRL_ACCEPTS(budget, G)]
    if not accepted:
        raise ValueError(f"budget={budget!r} has no divisor in 2..max_group={max_group}; valid budgets have one")
    return min(accepted, key=lambda G: float(constants.budget_mse(budget, G)))


def group_count_advice(
    p: float, budget: int, constants: ScalingConstants, *, max_group: int = 64, default_G: int = 8
) -> GroupCountAdvice:
    """Section "How many generations per prompt?": for a prompt set around ``p`` with budget-MSE ``constants``, the
    printed optima (:data:`BOOK_REAL_OPTIMUM`, :data:`BOOK_GROUP_SIZE` over the divisors of ``budget`` up to
    ``max_group``) next to the searched ones (:class:`GroupCountAdvice`), and P(silent) at the best G and at
    ``default_G`` (TRL's default)."""
    p = check_open_interval("p", p, lo=0.0, hi=1.0)
    budget = check_positive_int("budget", budget, minimum=2)
    max_group = check_positive_int("max_group", max_group, minimum=2)
    default_G = check_positive_int("default_G", default_G, minimum=2)
    if not isinstance(constants, ScalingConstants):
        raise ValueError(f"constants={constants!r} is not valid; valid: a ScalingConstants")
    searched_best = _searched_best(constants, budget, max_group)
    searched = budget_optimum(constants, (budget,), max_group=max_group).minimiser[budget]
    g_star, best = float(BOOK_REAL_OPTIMUM(constants)), int(BOOK_GROUP_SIZE(constants, budget, max_group))
    silent = (float(silent_group_probability(p, best)), float(silent_group_probability(p, default_G)))
    ratio = float(constants.budget_mse(budget, default_G) / constants.budget_mse(budget, best))
    return GroupCountAdvice(
        float(p), budget, g_star, searched, best, searched_best, constants, silent[0], default_G, silent[1], ratio
    )


@dataclass(frozen=True)
class GroupCountTable:
    """:func:`group_count_table`: the table (one row per (p, budget)), each row's :class:`GroupCountAdvice`, and per
    level of :data:`GROUP_SIZE_STATED` the printed G* to the nearest whole answer (``stated_levels``)."""

    table: Table
    rows: tuple[GroupCountAdvice, ...]
    stated_levels: dict[float, int]

    @property
    def verdicts(self) -> dict[str, bool]:
        """Each printed G* is the searched minimiser and each best G the searched one; at the levels the group-size
        chapter states, G* rounds to its stated value."""
        return {
            "searched optima": all(a.passed for a in self.rows),
            "the group-size chapter's values": all(
                self.stated_levels.get(p) == g for p, g in GROUP_SIZE_STATED.items()
            ),
        }

    @property
    def passed(self) -> bool:
        return all(self.verdicts.values())


def group_count_table(
    levels: Sequence[float] = GROUP_SIZE_LEVELS, budgets: Sequence[int] = (64, 96), *, max_group: int = 64
) -> GroupCountTable:
    """Section "How many generations per prompt?": :func:`group_count_advice` at every level of one difficulty scan
    over ``levels`` (:func:`_scan_constants`) and every budget of ``budgets``, at TRL's default G
    (:func:`trl_default_group_size`), as one table."""
    default_G = trl_default_group_size()
    constants = _scan_constants(levels)
    rows = tuple(
        group_count_advice(p, n, c, max_group=max_group, default_G=default_G)
        for p, c in zip(levels, constants, strict=True)
        for n in budgets
    )
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
    stated = {a.p: int(round(a.g_star)) for a in rows}
    return GroupCountTable(Table(headers, body), rows, stated)
