"""Section "Off-policy correction: token or sequence, truncate or mask" of the chapter "Questions from the trackers"
(trl#4772, trl PR #4891): what each of TRL 1.16's corrections for a sampler that is not the trainer does to the
expected step, exactly, on the tabular policy of :mod:`grpo_nb.family.length_bias` (answers of 2 to 4 tokens).

**The set-up.** The trainer's policy pi is the section's policy after ``lag`` exact expected GRPO steps
(:func:`stale_pair`); the sampler mu is the same policy ``lag`` steps earlier, as when generation runs on stale
weights. The answers of a group of G are drawn from mu; each token carries the ratio rho_t = pi(y_t | y_<t) /
mu(y_t | y_<t), and the answer the ratio rho = prod_t rho_t. With ``loss_type="dr_grpo"`` (an answer's weight does
not depend on its length, so that nothing but the correction moves lengths), one optimiser step per batch and
beta = 0, minus the gradient of TRL's loss on a group is

    g = 1/(G L_max) sum_i A_i sum_t w_{i,t} grad log pi(y_{i,t} | y_{i,<t}),

A_i TRL's group advantage and w the correction (:data:`BOOK_WEIGHTS`, one per :data:`MODES` entry): 1 without
correction; min(rho_t, C) (``token_truncate``); rho_t, or 0 where rho_t > C (``token_mask``); min(rho, C) or rho
masked above C on every token of the answer (``sequence_truncate``, ``sequence_mask``, TRL's default), C = 3 TRL's
``vllm_importance_sampling_clip_max``; rho with no bound; and DeepSeek-V3.2's mask (``off_policy_mask_threshold``
delta, no ratio): 0 for an answer with A < 0 whose mean over its tokens of log mu - log pi exceeds delta, else 1.

**The measures** (:func:`mode_survey`), each exact over all N^G groups: the mean step E_mu[g] against the on-policy
step (fresh answers from pi, w = 1), which for ``dr_grpo`` points along grad p; its angle to that step; the rate at
which it raises p, grad p . E[g], as a share of the on-policy rate; its variance E|g - E g|^2 (parameter
coordinates of the table) as a multiple of the on-policy variance; and the first-order drift of E[L | wrong] and
E[L | right] along it (zero on-policy for ``dr_grpo``). The unbounded sequence ratio points exactly along grad p
(E_mu[rho A grad log pi] = E_pi[A grad log pi]); only the size of its step differs, through the advantage, whose
baseline comes from mu's answers.

:func:`trl_check` runs TRL's own code: a ``rollout_func`` returns every answer with mu's log-probabilities, TRL's
``_generate_and_score_completions`` computes its importance-sampling ratio for each mode, and TRL's ``compute_loss``
(the trainer's log-probabilities those of the table) gives a gradient that must equal the book's.

Scope: one prompt, a tabular policy, G = 4, ``dr_grpo``, beta = 0, one optimiser step per batch (the ratio to
pi_old is 1), a sampler that lags by exact expected steps, exact expectations over groups, first order in the
learning rate.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import torch

from grpo_nb.advantage import group_advantage
from grpo_nb.chapters.tracker_questions.length_bias import POLICY, encode_answers, tabular_token_logps
from grpo_nb.chapters.trl_grpo.advantage_probe import TOL, Probe
from grpo_nb.family.length_bias import (
    TRL_ANSWER_WEIGHTS,
    Batching,
    LengthPolicy,
    answers,
    conditional_mean_length_gradient,
    expected_ascent,
    success_gradient,
)
from grpo_nb.report import Table, bound
from grpo_nb.validation import check_positive_int

__all__ = [
    "ANGLE_TOL",
    "BOOK_WEIGHTS",
    "GROUP_SIZE",
    "IS_CAP",
    "LAGS",
    "LAG_LR",
    "MODES",
    "OPSM_DELTA",
    "TABLE_LAG",
    "TOL",
    "ZERO_DRIFT",
    "CorrectionMode",
    "LengthMasks",
    "ModeStep",
    "Survey",
    "TRLCheck",
    "CHECK_ADVANTAGES",
    "CHECK_LAGS",
    "length_masks",
    "mode_survey",
    "stale_pair",
    "token_scores",
    "trl_check",
]

#: TRL 1.16's default ``vllm_importance_sampling_clip_max`` C (``clip_min`` defaults to None: no lower bound).
IS_CAP = 3.0
#: The threshold delta of ``off_policy_mask_threshold`` used here (the value TRL's documentation gives as an example).
OPSM_DELTA = 0.5
#: G: answers per group (one group per step).
GROUP_SIZE = 4
#: The learning rate of the exact expected ``loss_type="grpo"`` steps by which the sampler lags the trainer.
LAG_LR = 2.0
#: The lags of the figure (steps the sampler is behind), and the lag of the table.
LAGS: tuple[int, ...] = (1, 2, 3, 4, 6, 8, 12, 16)
TABLE_LAG = 4


@dataclass(frozen=True)
class CorrectionMode:
    """One correction as TRL 1.16 is set for it: its ``label`` (the key of :data:`BOOK_WEIGHTS`) and the trainer
    attributes ``trl`` it sets (``vllm_importance_sampling_*``, ``off_policy_mask_threshold``)."""

    label: str
    trl: dict = field(hash=False)


_OFF = {"vllm_importance_sampling_correction": False, "off_policy_mask_threshold": None}


def _is(mode: str, cap: float | None = IS_CAP) -> dict:
    return {
        "vllm_importance_sampling_correction": True,
        "vllm_importance_sampling_mode": mode,
        "vllm_importance_sampling_clip_max": cap,
        "vllm_importance_sampling_clip_min": None,
        "off_policy_mask_threshold": None,
    }


#: The corrections compared, in the table's order.
MODES: tuple[CorrectionMode, ...] = (
    CorrectionMode("no correction", dict(_OFF)),
    CorrectionMode("token_truncate", _is("token_truncate")),
    CorrectionMode("token_mask", _is("token_mask")),
    CorrectionMode("sequence_truncate", _is("sequence_truncate")),
    CorrectionMode("sequence_mask (TRL's default)", _is("sequence_mask")),
    CorrectionMode("sequence ratio, no bound", _is("sequence_mask", None)),
    CorrectionMode(f"off_policy_mask_threshold = {OPSM_DELTA:g}", _OFF | {"off_policy_mask_threshold": OPSM_DELTA}),
)

Weights = Callable[[np.ndarray, np.ndarray, bool], np.ndarray]


def _sequence(log_ratio: np.ndarray) -> np.ndarray:
    return np.broadcast_to(np.exp(log_ratio.sum(axis=1, keepdims=True)), log_ratio.shape)


def _opsm(log_ratio: np.ndarray, mask: np.ndarray, negative: bool) -> np.ndarray:
    mean_kl = (-log_ratio * mask).sum(axis=1, keepdims=True) / mask.sum(axis=1, keepdims=True)
    keep = (not negative) | (mean_kl <= OPSM_DELTA)
    return np.broadcast_to(keep.astype(float), log_ratio.shape)


#: The book's statement of each correction's token weight w (module docstring), from the tokens' log-ratios
#: log pi - log mu (N, T), the completion mask (N, T) and whether the answer's advantage is negative.
BOOK_WEIGHTS: dict[str, Weights] = {
    "no correction": lambda lr, m, neg: np.ones_like(lr),
    "token_truncate": lambda lr, m, neg: np.minimum(np.exp(lr), IS_CAP),
    "token_mask": lambda lr, m, neg: np.where(np.exp(lr) <= IS_CAP, np.exp(lr), 0.0),
    "sequence_truncate": lambda lr, m, neg: np.minimum(_sequence(lr), IS_CAP),
    "sequence_mask (TRL's default)": lambda lr, m, neg: np.where(_sequence(lr) <= IS_CAP, _sequence(lr), 0.0),
    "sequence ratio, no bound": lambda lr, m, neg: _sequence(lr),
    MODES[-1].label: _opsm,
}


def stale_pair(lag: int, lr: float = LAG_LR) -> tuple[LengthPolicy, LengthPolicy]:
    """(trainer pi, sampler mu): mu is the section's policy (:data:`~.length_bias.POLICY`), pi the policy ``lag``
    exact expected ``loss_type="grpo"`` steps of learning rate ``lr`` later (G = :data:`GROUP_SIZE`)."""
    check_positive_int("lag", lag)
    params, policy = POLICY.params.copy(), POLICY
    for _ in range(lag):
        params = params + lr * expected_ascent(policy, Batching(GROUP_SIZE), TRL_ANSWER_WEIGHTS["grpo"])
        policy = POLICY.with_params(params)
    return policy, POLICY


def _token_logps(policy: LengthPolicy) -> np.ndarray:
    ids, mask = encode_answers(policy)
    logp = tabular_token_logps(torch.tensor(policy.params), ids, policy=policy).numpy()
    return logp * mask.numpy()


def token_scores(policy: LengthPolicy) -> np.ndarray:
    """grad log pi(y_t | y_<t) of every token of every answer (in the order of :func:`answers`) with respect to
    ``policy.params``, shape (N, T, P); 0 at padding."""
    ids, mask = encode_answers(policy)
    jac = torch.func.jacrev(lambda p: tabular_token_logps(p, ids, policy=policy))(torch.tensor(policy.params))
    return jac.numpy() * mask.numpy()[..., None]


def _answer_vectors(trainer: LengthPolicy, sampler: LengthPolicy, weights: Weights) -> tuple[np.ndarray, np.ndarray]:
    """sum_t w_t grad log pi(y_t | y_<t) per answer, for a non-negative and a negative advantage, (N, P) each."""
    mask = encode_answers(trainer)[1].numpy().astype(float)
    log_ratio = (_token_logps(trainer) - _token_logps(sampler)) * mask
    scores = token_scores(trainer)
    return tuple(np.einsum("nt,ntp->np", weights(log_ratio, mask, neg) * mask, scores) for neg in (False, True))


def _group_moments(trainer: LengthPolicy, sampler: LengthPolicy, weights: Weights) -> tuple[np.ndarray, float]:
    """E[g] and E|g - E g|^2 over all groups of G answers drawn from ``sampler`` (module docstring)."""
    N, G = answers(trainer).prob.size, GROUP_SIZE
    groups = np.array(list(itertools.product(range(N), repeat=G)))
    adv = group_advantage(answers(trainer).reward[groups], "trl")
    prob = answers(sampler).prob[groups].prod(axis=1)
    pos, neg = _answer_vectors(trainer, sampler, weights)
    vectors = np.where((adv < 0)[..., None], neg[groups], pos[groups])
    g = np.einsum("mg,mgp->mp", adv, vectors) / (G * trainer.max_len)
    mean = prob @ g
    return mean, float(prob @ (g**2).sum(axis=1) - mean @ mean)


@dataclass(frozen=True)
class ModeStep:
    """One correction at one lag: the angle (degrees) of its mean step to the on-policy step, its rate of raising p
    as a share of the on-policy rate, its variance as a multiple of the on-policy variance, and the first-order
    drift of E[L | wrong] and E[L | right] along its mean step (tokens per unit learning rate)."""

    label: str
    angle: float
    gain: float
    variance: float
    wrong_drift: float
    right_drift: float


@dataclass(frozen=True, eq=False)
class Survey:
    """Every mode of :data:`MODES` at one ``lag``: ``steps`` (one :class:`ModeStep` each), the success probability of
    the sampler and of the trainer, and the section's table."""

    lag: int
    sampler_success: float
    trainer_success: float
    steps: tuple[ModeStep, ...]
    table: Table


#: An angle below this (degrees) is zero: the orthogonal part of two float64 vectors that agree in direction.
ANGLE_TOL = 1e-6


def _angle(a: np.ndarray, b: np.ndarray) -> float:
    """The angle between a and b in degrees, from the part of a orthogonal to b (exact near 0, unlike arccos)."""
    unit = b / np.linalg.norm(b)
    along = a @ unit
    return float(np.degrees(np.arctan2(np.linalg.norm(a - along * unit), along)))


#: A drift below this is zero: float64 sums of O(1e-2) terms (a correction without length bias gives ~1e-17).
ZERO_DRIFT = 1e-12


def _drift(x: float) -> str:
    """A drift in units of 1e-3 tokens, 0 where it is below :data:`ZERO_DRIFT` (its digits then rounding noise)."""
    return "0" if abs(x) < ZERO_DRIFT else f"{x * 1e3:+.2f}"


def mode_survey(lag: int = TABLE_LAG) -> Survey:
    """Each correction of :data:`MODES` (its :data:`BOOK_WEIGHTS` entry) with the sampler ``lag`` steps behind: the
    measures of the module docstring, exact over all groups."""
    trainer, sampler = stale_pair(lag)
    on_mean, on_var = _group_moments(trainer, trainer, BOOK_WEIGHTS["no correction"])
    grad_p = success_gradient(trainer)
    drifts = [conditional_mean_length_gradient(trainer, r) for r in (0, 1)]
    steps, rows = [], []
    for mode in MODES:
        mean, var = _group_moments(trainer, sampler, BOOK_WEIGHTS[mode.label])
        step = ModeStep(
            mode.label, _angle(mean, on_mean), float(grad_p @ mean / (grad_p @ on_mean)), var / on_var,
            float(drifts[0] @ mean), float(drifts[1] @ mean),
        )  # fmt: skip
        steps.append(step)
        rows.append([mode.label, f"{step.angle:.1f}°", f"{step.gain:.2f}", f"{step.variance:.2f}",
                     _drift(step.wrong_drift), _drift(step.right_drift)])  # fmt: skip
    headers = ["correction", "angle to the on-policy step", "rise of $p$ (share of on-policy)",
               "variance (× on-policy)", "drift of $E[L \\mid \\text{wrong}]$ (×10⁻³)",
               "drift of $E[L \\mid \\text{right}]$ (×10⁻³)"]  # fmt: skip
    p = [float(answers(pol).prob @ answers(pol).reward) for pol in (sampler, trainer)]
    return Survey(lag, p[0], p[1], tuple(steps), Table(headers, rows))


# ---- TRL's own code -------------------------------------------------------------------------------------------------

#: The advantages given to the TRL batch's rows (every answer once, then the first two again): distinct, both signs.
CHECK_ADVANTAGES = (-1.5, 0.7, -0.4, 1.2, -0.9, 0.3, 0.5, -0.2)


@contextlib.contextmanager
def _stale_trainer(probe: Probe, trainer: LengthPolicy, sampler: LengthPolicy, mode: CorrectionMode) -> Iterator:
    """The probe's trainer as a vLLM-fed trainer whose engine is the stale sampler: its log-probabilities those of
    the table at ``trainer`` (float32, autograd to the yielded parameters), a ``rollout_func`` that returns every
    answer with the sampler's per-token log-probabilities, ``loss_type="dr_grpo"``, and ``mode``'s attributes."""
    tr = probe.trainer
    params = torch.tensor(trainer.params, dtype=torch.float32, requires_grad=True)
    ids, mask = encode_answers(trainer)
    sampler_logp = _token_logps(sampler)
    pad = trainer.n_contents + 2

    def logps(model, input_ids, attention_mask, logits_to_keep, **kwargs):
        tokens = input_ids[:, -logits_to_keep:].clamp(max=pad)
        return tabular_token_logps(params, tokens, policy=trainer), torch.zeros(tokens.shape), None

    def rollout(prompts, _trainer):
        rows = [i % len(ids) for i in range(len(prompts))]
        lengths = mask.sum(dim=1)
        return {
            "prompt_ids": [[0] for _ in rows],
            "completion_ids": [ids[i, : lengths[i]].tolist() for i in rows],
            "logprobs": [sampler_logp[i, : lengths[i]].tolist() for i in rows],
        }

    names = ("use_vllm", "rollout_func", "loss_type", "max_completion_length", *mode.trl)
    saved = {name: getattr(tr, name) for name in names}
    saved_accumulation = getattr(tr, "current_gradient_accumulation_steps", None)
    tr._get_per_token_logps_and_entropies = logps
    tr.use_vllm, tr.rollout_func, tr.loss_type, tr.max_completion_length = True, rollout, "dr_grpo", trainer.max_len
    tr._last_loaded_step = tr.state.global_step  # no weights to sync: the "engine" is the table
    for name, value in mode.trl.items():
        setattr(tr, name, value)
    tr.current_gradient_accumulation_steps = 1
    try:
        yield params
    finally:
        del tr._get_per_token_logps_and_entropies  # the class's method again
        for name, value in saved.items():
            setattr(tr, name, value)
        tr.current_gradient_accumulation_steps = saved_accumulation
        tr.model.eval()


def _trl_ascent(probe: Probe, trainer: LengthPolicy, sampler: LengthPolicy, mode: CorrectionMode) -> np.ndarray:
    """Minus the gradient of TRL's loss on one batch of every answer (rows as :data:`CHECK_ADVANTAGES`), the
    importance-sampling ratio computed by TRL's ``_generate_and_score_completions`` from the sampler's
    log-probabilities."""
    with _stale_trainer(probe, trainer, sampler, mode) as params:
        tr = probe.trainer
        examples = [{"prompt": "0+0=", "index": 0} for _ in CHECK_ADVANTAGES]
        tr.model.eval()
        inputs = tr._generate_and_score_completions(examples)
        inputs["advantages"] = torch.tensor(CHECK_ADVANTAGES, dtype=torch.float32)
        tr.model.train()
        params.grad = None
        tr.compute_loss(tr.model, inputs).backward()
        return -params.grad.double().numpy()


def _book_ascent(trainer: LengthPolicy, sampler: LengthPolicy, weights: Weights) -> np.ndarray:
    """The book's minus gradient on the same batch: 1/(B L_max) sum_i A_i (sum_t w_{i,t} grad log pi)."""
    pos, neg = _answer_vectors(trainer, sampler, weights)
    rows = np.arange(len(CHECK_ADVANTAGES)) % pos.shape[0]
    adv = np.asarray(CHECK_ADVANTAGES)
    vectors = np.where((adv < 0)[:, None], neg[rows], pos[rows])
    return adv @ vectors / (adv.size * trainer.max_len)


@dataclass(frozen=True, eq=False)
class TRLCheck:
    """TRL's gradient against the book's for every mode of :data:`MODES` at each of ``lags``: the largest gap per
    (mode, lag) (``gaps``, mode-major), the table, and whether all are below :data:`TOL` (float32 arithmetic)."""

    lags: tuple[int, ...]
    gaps: tuple[float, ...]
    table: Table
    passed: bool


#: The lags of the TRL check: the table's, and one where the off-policy mask drops answers too.
CHECK_LAGS: tuple[int, ...] = (TABLE_LAG, 6)


def trl_check(probe: Probe, lags: tuple[int, ...] = CHECK_LAGS) -> TRLCheck:
    """max |TRL's gradient - the book's| (:data:`BOOK_WEIGHTS`) per mode and lag, on a batch of every answer drawn
    by the sampler ``lag`` steps behind (:func:`stale_pair`); the book's side is read when the check runs."""
    pairs = [stale_pair(lag) for lag in lags]
    gaps, rows = [], []
    for mode in MODES:
        row = [mode.label]
        for trainer, sampler in pairs:
            trl = _trl_ascent(probe, trainer, sampler, mode)
            book = _book_ascent(trainer, sampler, BOOK_WEIGHTS[mode.label])
            gaps.append(float(np.abs(trl - book).max()))
            row.append(bound(gaps[-1], TOL))
        rows.append(row)
    table = Table(["correction", *(f"largest gap, TRL to book, lag {lag}" for lag in lags)], rows)
    return TRLCheck(tuple(lags), tuple(gaps), table, max(gaps) < TOL)


# ---- which answers a bound drops ------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class LengthMasks:
    """Every answer at one ``lag``: its reward, length, sequence ratio rho, largest and first token ratio, and the
    mean over its tokens of log mu - log pi (``mean_log_ratio``, what the off-policy mask compares with delta); whether
    TRL's ``sequence_mask`` zeroes it (``sequence_masked``) and whether ``token_mask`` zeroes one of its tokens
    (``token_masked``), bound C = :data:`IS_CAP`; and the table (with the sampler's and trainer's probabilities)."""

    reward: np.ndarray
    length: np.ndarray
    sequence_ratio: np.ndarray
    largest_token_ratio: np.ndarray
    first_token_ratio: np.ndarray
    mean_log_ratio: np.ndarray
    sequence_masked: np.ndarray
    token_masked: np.ndarray
    table: Table


def length_masks(lag: int = TABLE_LAG) -> LengthMasks:
    """Which answers the masks drop with the sampler ``lag`` steps behind, read off :data:`BOOK_WEIGHTS`."""
    trainer, sampler = stale_pair(lag)
    mask = encode_answers(trainer)[1].numpy().astype(float)
    log_ratio = (_token_logps(trainer) - _token_logps(sampler)) * mask
    seq = np.exp(log_ratio.sum(axis=1))
    seq_w = BOOK_WEIGHTS[MODES[4].label](log_ratio, mask, False)
    tok_w = BOOK_WEIGHTS["token_mask"](log_ratio, mask, False)
    seq_masked = (seq_w * mask).sum(axis=1) == 0
    tok_masked = ((tok_w == 0) & (mask > 0)).any(axis=1)
    a_pi, a_mu = answers(trainer), answers(sampler)
    largest = np.exp(log_ratio).max(axis=1)
    rows = [
        ["right" if a_pi.reward[i] else "wrong", int(a_pi.length[i]), f"{a_mu.prob[i]:.3f}", f"{a_pi.prob[i]:.3f}",
         f"{seq[i]:.2f}", f"{largest[i]:.2f}", "dropped" if seq_masked[i] else "kept",
         "a token dropped" if tok_masked[i] else "kept"]
        for i in range(seq.size)
    ]  # fmt: skip
    headers = ["answer", "tokens $L$", "$\\mu(y)$", "$\\pi(y)$", "sequence ratio $\\rho$",
               "largest token ratio", "`sequence_mask`", "`token_mask`"]  # fmt: skip
    mean_kl = -log_ratio.sum(axis=1) / mask.sum(axis=1)
    return LengthMasks(a_pi.reward, a_pi.length, seq, largest, np.exp(log_ratio[:, 0]), mean_kl,
                       seq_masked, tok_masked, Table(headers, rows))  # fmt: skip
