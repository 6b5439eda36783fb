"""Section "Long, wrong answers get longer" of the chapter "Questions from the trackers" (trl#3178, verl#2776,
verl#957): the length bias of each TRL 1.16 ``loss_type``, exactly, on the tabular policy of
:mod:`grpo_nb.family.length_bias` (answers of 2 to K + 1 tokens).

- :func:`trl_check`: TRL's own ``compute_loss`` runs on the tabular policy (the trainer's
  ``_get_per_token_logps_and_entropies`` returns the table's log-probabilities, with autograd to its logits), on every
  generation batch of answers, cut into micro-batches and accumulated as TRL does, with TRL's own advantages; the
  probability-weighted sum of its gradients is TRL's exact expected gradient, compared with the book's
  (:func:`grpo_nb.family.length_bias.expected_ascent` with :data:`BOOK_WEIGHTS` and :data:`BOOK_ADVANTAGE_FORM`).
- :func:`drift_check`: the drift of E[L | wrong] and E[L | right] per loss type against :data:`BOOK_CLAIMS`: its sign,
  and the batch size it shrinks with (the micro-batch for bnpo, the generation batch for dapo).
- :func:`mechanism_check`: grpo's stop-logit ascent against :data:`BOOK_STOP_ASCENT`, pi(c) a(r_c) grad E[1/L | c].

Each check reads its book side (a module-level name of this module) when it runs, so replacing it by a wrong
statement (as the tests do) makes the check fail. Scope: one prompt, a tabular policy, on-policy (mu = 1, beta = 0),
exact expectations over groups.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import numpy as np
import torch

from grpo_nb.chapters.trl_grpo.advantage_probe import TOL, Probe, trl_advantages
from grpo_nb.family.length_bias import (
    LOSS_TYPES,
    TRL_ANSWER_WEIGHTS,
    AnswerWeight,
    Batching,
    LengthDrift,
    LengthPolicy,
    Trajectory,
    advantage_given_reward,
    answers,
    batch_orders,
    expected_ascent,
    expected_trajectory,
    length_drift,
    length_moment,
)
from grpo_nb.report import Table, bound
from grpo_nb.validation import check_choice

__all__ = [
    "BOOK_ADVANTAGE_FORM",
    "BOOK_CLAIMS",
    "BOOK_STOP_ASCENT",
    "BOOK_WEIGHTS",
    "DRIFT_BATCHING",
    "DRIFT_HEADERS",
    "LADDERS",
    "MAX_TRL_BATCHES",
    "POLICY",
    "TOL",
    "TRL_CASES",
    "ZERO_TOL",
    "DriftCheck",
    "LengthClaim",
    "MechanismCheck",
    "TRAJECTORY_STEPS",
    "TRLCheck",
    "TrajectoryCheck",
    "book_stop_ascent",
    "drift_check",
    "encode_answers",
    "mechanism_check",
    "tabular_token_logps",
    "trl_check",
    "trl_expected_ascent",
    "trl_symptom",
    "trajectory_check",
]

#: A drift below this is zero: float64 sums of O(1) terms (an aggregation without bias gives ~1e-17).
ZERO_TOL = 1e-12
#: The section's policy: 2 contents (content 1 right, p = 0.2), K = 3 (answers of 2, 3 or 4 tokens); right answers
#: a little shorter than wrong ones, so that the others' tokens and the advantage are correlated.
POLICY = LengthPolicy(np.array([0.0, np.log(0.25)]), np.array([[0.0, 0.0], [0.5, 0.5]]), correct=1)
#: The book's statement of each loss type's answer weight (:data:`grpo_nb.family.length_bias.TRL_ANSWER_WEIGHTS`),
#: read by every check and table of the section.
BOOK_WEIGHTS: dict[str, AnswerWeight] = dict(TRL_ANSWER_WEIGHTS)
#: The book's statement of TRL's advantage with ``scale_rewards="group"``: (r - mean)/(std_Bessel + 1e-4).
BOOK_ADVANTAGE_FORM = "trl"
#: The most (ordered batch, shuffle) pairs :func:`trl_expected_ascent` sums over.
MAX_TRL_BATCHES = 20_000
#: (loss_type, batching) of the TRL check: groups of 4, one micro-batch or several.
TRL_CASES: tuple[tuple[str, Batching], ...] = tuple(
    (lt, Batching(4, m)) for lt in LOSS_TYPES for m in ((4, 2, 1) if lt == "bnpo" else (4, 2))
)


# ---- TRL's compute_loss on the tabular policy ----------------------------------------------------------------------


def encode_answers(policy: LengthPolicy) -> tuple[torch.Tensor, torch.Tensor]:
    """(completion_ids, completion_mask), shape (C K, K + 1), of every answer of :func:`answers` in its order: the
    content c is token c, a filler C, the end C + 1, padding C + 2 (masked)."""
    ans, C = answers(policy), policy.n_contents
    T = np.arange(policy.max_len)
    k = ans.fillers[:, None]
    ids = np.where(T == 0, ans.content[:, None], np.where(T <= k, C, np.where(T == k + 1, C + 1, C + 2)))
    return torch.as_tensor(ids), torch.as_tensor((T < k + 2).astype(np.int64))


def tabular_token_logps(params: torch.Tensor, completion_ids: torch.Tensor, *, policy: LengthPolicy) -> torch.Tensor:
    """log pi of each completion token (B, K + 1) under the tabular policy at ``params`` (the layout of
    ``policy.params``), differentiable in ``params``: the content's log-softmax, a filler's log(1 - sigmoid(s_{c,j}))
    and the end's log sigmoid(s_{c,j}) after j fillers (0 where the end is forced, and at padding)."""
    C, K = policy.n_contents, policy.n_lengths
    stop = torch.cat([params[C:].view(C, K - 1), torch.full((C, 1), torch.inf, dtype=params.dtype)], dim=1)
    c = completion_ids[:, 0]
    j = torch.arange(completion_ids.shape[1] - 1).clamp(max=K - 1)
    s = stop[c][:, j]
    tok = completion_ids[:, 1:]
    rest = torch.where(tok == C, torch.nn.functional.logsigmoid(-s), torch.zeros_like(s))
    rest = torch.where(tok == C + 1, torch.nn.functional.logsigmoid(s), rest)
    return torch.cat([torch.log_softmax(params[:C], 0)[c][:, None], rest], dim=1)


@contextlib.contextmanager
def _tabular_trainer(probe: Probe, policy: LengthPolicy, batching: Batching, loss_type: str) -> Iterator[torch.Tensor]:
    """The probe's trainer set for one loss type in train mode, gradient accumulation over B/m micro-batches
    (``steps_per_generation`` = ``gradient_accumulation_steps`` = B/m), ``max_completion_length`` = K + 1, its
    log-probabilities those of the tabular policy; yields the parameter tensor (float32, as TRL computes)."""
    trainer, params = probe.trainer, torch.tensor(policy.params, dtype=torch.float32, requires_grad=True)
    saved = (trainer.loss_type, trainer.importance_sampling_level, trainer.max_completion_length)
    saved_args = (trainer.args.steps_per_generation, trainer.args.gradient_accumulation_steps)
    saved_accumulation = getattr(trainer, "current_gradient_accumulation_steps", None)

    def logps(model, input_ids, attention_mask, logits_to_keep, **kwargs):
        ids = input_ids[:, -logits_to_keep:]
        return tabular_token_logps(params, ids, policy=policy), torch.zeros(ids.shape), None

    trainer.loss_type, trainer.max_completion_length = loss_type, policy.max_len
    trainer.importance_sampling_level = "sequence" if loss_type == "luspo" else "token"
    trainer.current_gradient_accumulation_steps = batching.accumulation_steps
    trainer.args.steps_per_generation = trainer.args.gradient_accumulation_steps = batching.accumulation_steps
    trainer._get_per_token_logps_and_entropies = logps
    trainer.model.train()
    try:
        yield params
    finally:
        trainer.model.eval()
        del trainer._get_per_token_logps_and_entropies  # the class's method again
        trainer.current_gradient_accumulation_steps = saved_accumulation
        trainer.loss_type, trainer.importance_sampling_level, trainer.max_completion_length = saved
        trainer.args.steps_per_generation, trainer.args.gradient_accumulation_steps = saved_args


def _trl_advantage_rows(probe: Probe, group_size: int) -> dict[tuple[int, ...], np.ndarray]:
    """TRL's advantages (``scale_rewards="group"``, float32) for every 0/1 reward pattern of a group, by TRL's own
    code (:func:`~grpo_nb.chapters.trl_grpo.advantage_probe.trl_advantages`)."""
    trainer = probe.trainer
    patterns = np.array(list(itertools.product((0.0, 1.0), repeat=group_size)))
    saved = (trainer.num_generations, trainer.num_generations_eval, trainer.scale_rewards)
    trainer.num_generations = trainer.num_generations_eval = group_size
    trainer.scale_rewards = "group"
    try:
        adv = trl_advantages(replace(probe, rewards=patterns)).astype(np.float32)
    finally:
        trainer.num_generations, trainer.num_generations_eval, trainer.scale_rewards = saved
    return {tuple(int(r) for r in row): a for row, a in zip(patterns, adv, strict=True)}


def _micro_batch_ascent(probe: Probe, params: torch.Tensor, codes: tuple, rows: tuple, n_items: int) -> np.ndarray:
    """Minus the gradient of TRL's ``compute_loss`` on one micro-batch ``rows`` of (answer, advantage) pairs (answers
    coded by ``codes``, :func:`encode_answers`), the generation batch holding ``n_items`` completion tokens (TRL's
    ``num_items_in_batch``)."""
    index, adv = (list(x) for x in zip(*rows, strict=True))
    inputs = {
        "prompt_ids": torch.zeros((len(rows), 1), dtype=torch.long),
        "prompt_mask": torch.ones((len(rows), 1), dtype=torch.long),
        "completion_ids": codes[0][index],
        "completion_mask": codes[1][index],
        "advantages": torch.tensor(adv, dtype=torch.float32),
        "num_items_in_batch": torch.tensor(n_items),
    }
    params.grad = None
    probe.trainer.compute_loss(probe.trainer.model, inputs).backward()
    return -params.grad.double().numpy()


def trl_expected_ascent(
    probe: Probe, loss_type: str, batching: Batching, *, policy: LengthPolicy = POLICY
) -> np.ndarray:
    """TRL's exact expected step direction: the sum over every ordered generation batch of answers (and, where the
    micro-batches could mix groups, every shuffle of it) of its probability times minus TRL's gradient accumulated
    over its micro-batches (TRL shuffles the batch, cuts it into consecutive chunks of m, and divides each chunk's
    loss for the accumulation). A micro-batch's gradient depends on its rows, not their order (a sum over rows; the
    tests check it), so each distinct micro-batch is run once."""
    check_choice("loss_type", loss_type, LOSS_TYPES)
    ans = answers(policy)
    N, B, G, m = ans.prob.size, batching.generation_batch, batching.group_size, batching.micro_batch
    adv_rows = _trl_advantage_rows(probe, G)
    orders = batch_orders(batching, N, limit=MAX_TRL_BATCHES, remedy="TRL's loss runs in Python on each")
    cache: dict[tuple, np.ndarray] = {}
    codes = encode_answers(policy)
    total = np.zeros(policy.params.size)
    with _tabular_trainer(probe, policy, batching, loss_type) as params:
        for batch in itertools.product(range(N), repeat=B):
            rewards = ans.reward[list(batch)].astype(int)
            adv = np.concatenate([adv_rows[tuple(rewards[g : g + G])] for g in range(0, B, G)])
            n_items = int(ans.length[list(batch)].sum())
            weight = ans.prob[list(batch)].prod() / len(orders)
            for order in orders:
                for start in range(0, B, m):
                    rows = tuple(sorted((batch[i], float(adv[i])) for i in order[start : start + m]))
                    if (rows, n_items) not in cache:
                        cache[rows, n_items] = _micro_batch_ascent(probe, params, codes, rows, n_items)
                    total += weight * cache[rows, n_items]
    return total


@dataclass(frozen=True, eq=False)
class TRLCheck:
    """TRL's exact expected gradient against the book's per (loss_type, batching) case of ``cases``: TRL's expected
    step direction (``trl``, one array per case), the table, the largest residual of each case (``residuals``) and
    whether all are below :data:`TOL`; ``policy`` is the policy they were taken at."""

    policy: LengthPolicy
    cases: tuple[tuple[str, Batching], ...]
    trl: tuple[np.ndarray, ...]
    table: Table
    residuals: tuple[float, ...]
    passed: bool


def trl_check(probe: Probe, policy: LengthPolicy = POLICY, cases: tuple = TRL_CASES) -> TRLCheck:
    """max |TRL's expected step direction (:func:`trl_expected_ascent`) - the book's| per case of ``cases``, the book's
    being :func:`~grpo_nb.family.length_bias.expected_ascent` with :data:`BOOK_WEIGHTS` [loss_type] and
    :data:`BOOK_ADVANTAGE_FORM` (a dynamic programme over the other answers, not an enumeration)."""
    rows, residuals, trl_steps = [], [], []
    for loss_type, batching in cases:
        trl_steps.append(trl_expected_ascent(probe, loss_type, batching, policy=policy))
        book = expected_ascent(policy, batching, BOOK_WEIGHTS[loss_type], form=BOOK_ADVANTAGE_FORM)
        residuals.append(float(np.abs(trl_steps[-1] - book).max()))
        scale = float(np.abs(book).max())
        rows.append([loss_type, batching.group_size, batching.micro_batch, f"{scale:.3f}", bound(residuals[-1], TOL)])
    headers = ["loss_type", "$G$", "micro-batch $m$", "largest entry of $E[g]$", "largest gap, TRL to book"]
    table = Table(headers, rows)
    return TRLCheck(policy, tuple(cases), tuple(trl_steps), table, tuple(residuals), max(residuals) < TOL)


def trl_symptom(check: TRLCheck) -> Table:
    """The drift of E[L | wrong], E[L | right] and p along TRL's own exact expected step (first order, per unit
    learning rate), one row per loss type of ``check`` with one micro-batch per generation batch; TRL computes in
    float32, so a drift below :data:`TOL` is shown as that bound."""
    rows = []
    for (loss_type, batching), step in zip(check.cases, check.trl, strict=True):
        if batching.micro_batch == batching.generation_batch:
            d = length_drift(check.policy, step)
            rows.append([loss_type, _fmt(d.wrong, TOL), _fmt(d.right, TOL), f"{d.success:+.3g}"])
    return Table(["loss_type", *DRIFT_HEADERS[:3]], rows)


# ---- the drift per loss type ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LengthClaim:
    """What a loss type does to lengths: the drift of wrong and right answers' mean length ("longer", "shorter" or
    "none") and the batch size its drift shrinks with ("micro_batch", "generation_batch" or None)."""

    wrong: str
    right: str
    shrinks_with: str | None


#: The book's claims per loss type (the section's text).
BOOK_CLAIMS: dict[str, LengthClaim] = {
    "grpo": LengthClaim("longer", "shorter", None),
    "bnpo": LengthClaim("longer", "shorter", "micro_batch"),
    "dr_grpo": LengthClaim("none", "none", None),
    "dapo": LengthClaim("longer", "shorter", "generation_batch"),
    "luspo": LengthClaim("none", "none", None),
}
#: The batching of the drift table: one generation batch of one group of 8, micro-batches of 2.
DRIFT_BATCHING = Batching(8, 2)
#: The two ladders of batch sizes: micro-batches of 1, 2, 4, 8 in one group of 8; generation batches of 1, 2, 4
#: groups of 8 in micro-batches of 8.
LADDERS: dict[str, tuple[Batching, ...]] = {
    "micro_batch": tuple(Batching(8, m) for m in (1, 2, 4, 8)),
    "generation_batch": tuple(Batching(8, 8, n) for n in (1, 2, 4)),
}
#: A ladder "halves" the drift where each doubling multiplies it by a factor in this range, and leaves it "flat"
#: where every factor is within 5 % of 1 (or the drift is zero).
HALVING, FLAT = (0.4, 0.6), (0.95, 1.05)


#: The drift columns: d/d(eta) of E[L | wrong], E[L | right], p, and the first over the third.
DRIFT_HEADERS = (
    "$\\dot E[L \\mid \\text{wrong}]$",
    "$\\dot E[L \\mid \\text{right}]$",
    "$\\dot p$",
    "wrong-length drift per unit of $p$",
)


def _sign(x: float) -> str:
    return "none" if abs(x) < ZERO_TOL else ("longer" if x > 0 else "shorter")


def _ladder_trend(values: list[float]) -> str:
    """ "halves", "flat" or "other" (see :data:`HALVING`, :data:`FLAT`) for a ladder of drifts."""
    if all(abs(v) < ZERO_TOL for v in values):
        return "flat"
    factors = [b / a for a, b in itertools.pairwise(values)]
    for name, (lo, hi) in (("halves", HALVING), ("flat", FLAT)):
        if all(lo <= f <= hi for f in factors):
            return name
    return "other"


def _shrinks_with(trends: dict[str, str]) -> str | None:
    """The one ladder that halves the drift while the other leaves it flat; None if both are flat; "unclear" else."""
    halves = [k for k, t in trends.items() if t == "halves"]
    if all(t == "flat" for t in trends.values()):
        return None
    return halves[0] if len(halves) == 1 and "other" not in trends.values() else "unclear"


def _drift(policy: LengthPolicy, batching: Batching, loss_type: str) -> LengthDrift:
    return length_drift(policy, expected_ascent(policy, batching, BOOK_WEIGHTS[loss_type], form=BOOK_ADVANTAGE_FORM))


def _fmt(x: float, zero: float = ZERO_TOL) -> str:
    """A drift with three digits, or the bound it is below where it is zero to ``zero`` (rounding)."""
    return bound(abs(x), zero) if abs(x) < zero else f"{x:+.3g}"


@dataclass(frozen=True)
class DriftCheck:
    """The drift table (per loss type at :data:`DRIFT_BATCHING`), the ladder table (wrong-answer drift per unit of
    success gained along :data:`LADDERS`), the measured :class:`LengthClaim` per loss type, the loss types whose
    measurement differs from :data:`BOOK_CLAIMS` (``failed``), and per loss type the ladder's values (the
    micro-batch ladder, then the generation-batch ladder)."""

    table: Table
    ladder_table: Table
    measured: dict[str, LengthClaim]
    failed: tuple[str, ...]
    ladder_values: dict[str, tuple[float, ...]]

    @property
    def passed(self) -> bool:
        return not self.failed


def drift_check(policy: LengthPolicy = POLICY) -> DriftCheck:
    """Per loss type: d/d(eta) of E[L | wrong], E[L | right] and p along the exact expected step (first order, per
    unit learning rate) at :data:`DRIFT_BATCHING`, and the trend of the wrong-answer drift per unit of success
    gained (``wrong_per_success``, free of the loss type's overall scale) along each of :data:`LADDERS`; the
    measured claim against :data:`BOOK_CLAIMS`."""
    rows, ladder_rows, measured, values = [], [], {}, {}
    for lt in LOSS_TYPES:
        d = _drift(policy, DRIFT_BATCHING, lt)
        ladders = {k: [_drift(policy, b, lt).wrong_per_success for b in v] for k, v in LADDERS.items()}
        shrinks = _shrinks_with({k: _ladder_trend(v) for k, v in ladders.items()})
        values[lt] = tuple(itertools.chain(*ladders.values()))
        measured[lt] = LengthClaim(_sign(d.wrong), _sign(d.right), shrinks)
        verdict = "passes" if measured[lt] == BOOK_CLAIMS[lt] else "FAILS"
        rows.append([lt, _fmt(d.wrong), _fmt(d.right), f"{d.success:+.3g}", _fmt(d.wrong_per_success), verdict])
        shown = {None: "neither", "micro_batch": "micro-batch", "generation_batch": "generation batch"}
        ladder_rows.append([lt, *(_fmt(v) for v in values[lt]), shown.get(shrinks, shrinks)])
    headers = ["loss_type", *DRIFT_HEADERS, "claim"]
    sizes = [f"$m = {b.micro_batch}$" for b in LADDERS["micro_batch"]]
    sizes += [f"$B = {b.generation_batch}$" for b in LADDERS["generation_batch"]]
    ladder = Table(["loss_type", *sizes, "shrinks with"], ladder_rows)
    failed = tuple(lt for lt in LOSS_TYPES if measured[lt] != BOOK_CLAIMS[lt])
    return DriftCheck(Table(headers, rows), ladder, measured, failed, values)


# ---- why grpo drifts -----------------------------------------------------------------------------------------------


def book_stop_ascent(policy: LengthPolicy, group_size: int, *, step: float = 1e-6) -> np.ndarray:
    """The book's statement of grpo's expected ascent on the stop logits, (C, K - 1): pi(c) a(r_c) grad_{s_c}
    E[1/L | c], with a(r) = E[A | r] over the G - 1 group mates (Bernoulli statistics,
    :func:`~grpo_nb.family.length_bias.advantage_given_reward`) and the gradient of E[1/L | c] (computed from the
    length law, :func:`~grpo_nb.family.length_bias.length_moment`) by central differences of ``step``."""
    probs = np.exp(policy.content_logits - np.logaddexp.reduce(policy.content_logits))
    a = [advantage_given_reward(policy, group_size, r, form=BOOK_ADVANTAGE_FORM) for r in (0, 1)]
    out = np.zeros(policy.stop_logits.shape)
    for c, j in np.ndindex(out.shape):
        bump = np.zeros(policy.stop_logits.shape)
        bump[c, j] = step
        up, down = (replace(policy, stop_logits=policy.stop_logits + s * bump) for s in (1, -1))
        slope = (length_moment(up, c, -1) - length_moment(down, c, -1)) / (2 * step)
        out[c, j] = probs[c] * a[int(c == policy.correct)] * slope
    return out


#: The book's side of :func:`mechanism_check`.
BOOK_STOP_ASCENT: Callable[[LengthPolicy, int], np.ndarray] = book_stop_ascent


@dataclass(frozen=True)
class MechanismCheck:
    """grpo's stop-logit ascent against :data:`BOOK_STOP_ASCENT` (``residual``, below ``tol`` to pass), and the mean
    advantages a(0), a(1) of wrong and right answers."""

    residual: float
    tol: float
    mean_advantage: tuple[float, float]

    @property
    def passed(self) -> bool:
        return self.residual < self.tol and self.mean_advantage[0] < 0 < self.mean_advantage[1]


def mechanism_check(policy: LengthPolicy = POLICY, batching: Batching = DRIFT_BATCHING) -> MechanismCheck:
    """max |stop-logit block of grpo's exact expected ascent - :data:`BOOK_STOP_ASCENT`| (the score-function identity
    E[(1/L) grad log pi] = grad E[1/L]); tolerance 1e-8, the accuracy of the central differences."""
    ascent = expected_ascent(policy, batching, BOOK_WEIGHTS["grpo"], form=BOOK_ADVANTAGE_FORM)
    stop_block = ascent[policy.n_contents :].reshape(policy.stop_logits.shape)
    residual = float(np.abs(stop_block - BOOK_STOP_ASCENT(policy, batching.group_size)).max())
    a = tuple(advantage_given_reward(policy, batching.group_size, r, form=BOOK_ADVANTAGE_FORM) for r in (0, 1))
    return MechanismCheck(residual, 1e-8, a)


# ---- many steps ----------------------------------------------------------------------------------------------------

#: (learning rate, GRPO iterations) of :func:`trajectory_check`: from p = 0.2 to a prompt solved almost always.
TRAJECTORY_STEPS = (0.5, 200)


@dataclass(frozen=True, eq=False)
class TrajectoryCheck:
    """Exact expected steps per loss type (``trajectories``, :class:`~grpo_nb.family.length_bias.Trajectory`) and the
    loss types whose total change of E[L | wrong] or E[L | right] has another sign than :data:`BOOK_CLAIMS` says
    (``failed``; "none" is a change below 1e-9)."""

    trajectories: dict[str, Trajectory]
    failed: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.failed


def _change(x: np.ndarray) -> str:
    """The sign of a path's change from start to end, "none" below 1e-9."""
    return "none" if abs(x[-1] - x[0]) < 1e-9 else ("longer" if x[-1] > x[0] else "shorter")


def trajectory_check(policy: LengthPolicy = POLICY, batching: Batching = DRIFT_BATCHING) -> TrajectoryCheck:
    """:data:`TRAJECTORY_STEPS` exact expected steps of each loss type (:data:`BOOK_WEIGHTS`) from ``policy``
    (:func:`~grpo_nb.family.length_bias.expected_trajectory`): whether the claims of :data:`BOOK_CLAIMS`, made at
    first order, hold for the whole path (the sign of the change of each length, start to end)."""
    lr, n = TRAJECTORY_STEPS
    paths = {
        lt: expected_trajectory(policy, batching, BOOK_WEIGHTS[lt], lr=lr, n=n, form=BOOK_ADVANTAGE_FORM)
        for lt in LOSS_TYPES
    }

    failed = tuple(
        lt
        for lt, path in paths.items()
        if (_change(path.wrong_length), _change(path.right_length)) != (BOOK_CLAIMS[lt].wrong, BOOK_CLAIMS[lt].right)
    )
    return TrajectoryCheck(paths, failed)
