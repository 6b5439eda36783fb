"""The analyses of the chapter "A real language model against the recursion" (``book/smollm_grpo.md``): SmolLM2-135M-
Instruct trained with GRPO, each prompt's exact success probability beside the paper's recursion.

* :func:`live_model` (section "The model and the task"): the model as loaded here, its p_ref on the record's prompts
  and, when it is the record's own model, the prompt rule re-run.
* :func:`first_step_check` (section "The first step, predicted"): the effective loss's prediction of the first
  step against the measured change, at two step sizes, and the same with wrong weights.
* :func:`recursion_table` and :func:`run_claims` (section "GRPO runs against the recursion"):
  the cached runs beside Theorem 2, the orbit from p_ref and the finite-group expectation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grpo_nb.report import Table, Verdicts
from grpo_nb.smollm import (
    FirstStep,
    LoadedModel,
    SmolRecord,
    SplitModel,
    build_task,
    compare_with_recursion,
    first_step,
    load_smollm,
    prompt_set,
    success_probability,
)
from grpo_nb.weights import weight_scale

__all__ = [
    "FIRST_STEP_LRS",
    "FirstStepCheck",
    "LiveModel",
    "RunClaims",
    "first_step_check",
    "live_model",
    "prompt_table",
    "recursion_table",
    "run_claims",
]

FIRST_STEP_LRS = (0.01, 0.005)
RESIDUAL_TOL = 0.1  # the first-order prediction's largest error, relative to its largest change
P_REF_RTOL = 1e-3  # the live p_ref against the record's, with the record's own model


@dataclass(frozen=True)
class LiveModel(Verdicts):
    """The model loaded here, its exact p_ref on the record's prompts, and what agrees with the record."""

    lm: LoadedModel
    p_ref: np.ndarray
    verdicts: dict[str, bool]

    @property
    def same_model(self) -> bool:
        """Whether the model loaded here is the one the record was made with (the wheel's GGUF, say)."""
        return "same model" in self.verdicts


def live_model(record: SmolRecord, *, source: str = "auto") -> LiveModel:
    """Load the model, compute p_ref of the record's prompts exactly and, when the source is the record's, check that
    they agree with the record's to ``P_REF_RTOL`` and that the prompt rule picks the record's prompts again."""
    lm = load_smollm(source)
    p_ref = success_probability(lm.model, build_task(lm.tokenizer, record.pairs))
    verdicts: dict[str, bool] = {}
    if lm.source == record.model["source"]:
        verdicts["same model"] = True
        verdicts["p_ref as recorded"] = bool(np.allclose(p_ref, record.p_ref, rtol=P_REF_RTOL, atol=0))
        verdicts["the rule picks the recorded prompts"] = prompt_set(lm)[0] == list(record.pairs)
    return LiveModel(lm=lm, p_ref=p_ref, verdicts=verdicts)


def prompt_table(record: SmolRecord, columns: int = 2) -> Table:
    """The record's prompts and their p_ref (two significant figures), ``columns`` prompts to a row."""
    cells = [(f"{a}+{b}", f"{p:.2g}") for (a, b), p in zip(record.pairs, record.p_ref, strict=True)]
    rows = []
    for start in range(0, len(cells), columns):
        rows.append([x for cell in cells[start : start + columns] for x in cell])
    headers = ["prompt", "$p_{\\mathrm{ref}}$"] * columns
    return Table(headers, rows)


@dataclass(frozen=True)
class FirstStepCheck(Verdicts):
    """The first step at each of ``FIRST_STEP_LRS``, the residual of a wrong prediction, and the verdicts."""

    steps: list[FirstStep]
    wrong_residual: float
    n_parameters: tuple[int, int]
    verdicts: dict[str, bool]

    @property
    def small(self) -> FirstStep:
        return self.steps[-1]

    def interference(self) -> tuple[int, int]:
        """(prompts whose own term makes less than half of their predicted change, prompts)."""
        share = self.small.own_share
        return int(np.sum(share < 0.5)), share.size


def first_step_check(live: LiveModel, record: SmolRecord, *, trained_blocks: int) -> FirstStepCheck:
    """:func:`grpo_nb.smollm.first_step` on the live model at ``FIRST_STEP_LRS``; the prediction with the weights'
    difference omega^+ - omega^- (a wrong effective loss) in place of their sum as the negative case."""
    import copy

    split = SplitModel(copy.deepcopy(live.lm.model), trained_blocks)
    eps = float(record.config["eps"])
    steps = first_step(split, build_task(live.lm.tokenizer, record.pairs), lrs=FIRST_STEP_LRS, eps=eps)
    small = steps[-1]
    wrong = small.lr / small.p.size * small.kernel @ (weight_scale(small.p, eps) * (1.0 - 2.0 * small.p))
    wrong_residual = float(np.max(np.abs(small.measured - wrong)) / np.max(np.abs(wrong)))
    verdicts = {
        f"the prediction is within {RESIDUAL_TOL:.0%} at the smaller step": small.relative_residual < RESIDUAL_TOL,
        "its error shrinks with the step (second order)": small.relative_residual < 0.7 * steps[0].relative_residual,
        "wrong weights are rejected": wrong_residual > RESIDUAL_TOL,
    }
    return FirstStepCheck(
        steps=steps, wrong_residual=wrong_residual, n_parameters=split.n_parameters(), verdicts=verdicts
    )


PREDICTIONS = {
    "from_previous": "Theorem 2 from the measured $p_{n-1}$",
    "finite_group": "finite group, from the measured $p_{n-1}$",
    "orbit": "the orbit from $p_{\\mathrm{ref}}$",
}


def recursion_table(record: SmolRecord) -> Table:
    """Per seed: the mean p before and after training and, per prediction, the mean and the largest gap."""
    rows = []
    for seed in record.seeds:
        cmp = compare_with_recursion(record, seed)
        row = [seed, f"{cmp.measured[0].mean():.2f}", f"{cmp.measured[-1].mean():.2f}"]
        for key in PREDICTIONS:
            gap = np.abs(cmp.measured[1:] - getattr(cmp, key))
            row.append(f"{gap.mean():.2f} / {gap.max():.2f}")
        rows.append(row)
    headers = ["seed", "mean $p_0$", "mean $p_N$", *[f"{v}: mean / largest gap" for v in PREDICTIONS.values()]]
    return Table(headers, rows)


HARD, EASY = 0.15, 0.4  # p_{n-1} below HARD: a group of 16 holds few successes; at or above EASY: many


@dataclass(frozen=True)
class RunClaims:
    """Per seed of the record: the mean's rise, its end against the orbit's, the mean gaps to Theorem 2 from the
    measured p_{n-1} and to the orbit, and the gaps where p_{n-1} is low (below ``HARD``) or high (``EASY`` or more)."""

    seeds: list[int]
    mean_start: np.ndarray
    mean_end: np.ndarray
    orbit_end: np.ndarray
    rise: np.ndarray
    end_below_orbit: np.ndarray
    gap_previous: np.ndarray
    gap_orbit: np.ndarray
    gap_finite: np.ndarray
    hard_abs_gap: np.ndarray
    easy_abs_gap: np.ndarray
    easy_signed_gap: np.ndarray

    def within(self, name: str, low: float, high: float) -> bool:
        """Whether every seed's value of ``name`` lies in [low, high) (the range a sentence states, rounded)."""
        values = getattr(self, name)
        return bool(np.all((values >= low) & (values < high)))

    def count(self, holds: np.ndarray) -> str:
        """ "k of n seeds"."""
        return f"{int(np.sum(holds))} of {len(self.seeds)}"


def run_claims(record: SmolRecord) -> RunClaims:
    """The numbers the section's sentences state, one value per seed of the record."""
    rows = []
    for seed in record.seeds:
        cmp = compare_with_recursion(record, seed)
        prev, gap = cmp.measured[:-1], cmp.measured[1:] - cmp.from_previous
        hard, easy = prev < HARD, prev >= EASY
        rows.append(
            (
                cmp.measured[0].mean(),
                cmp.measured[-1].mean(),
                cmp.orbit[-1].mean(),
                cmp.measured[-1].mean() - cmp.measured[0].mean(),
                cmp.orbit[-1].mean() - cmp.measured[-1].mean(),
                np.abs(gap).mean(),
                np.abs(cmp.measured[1:] - cmp.orbit).mean(),
                np.abs(cmp.measured[1:] - cmp.finite_group).mean(),
                np.abs(gap[hard]).mean(),
                np.abs(gap[easy]).mean(),
                gap[easy].mean(),
            )
        )
    cols = np.asarray(rows).T
    return RunClaims(record.seeds, *cols)
