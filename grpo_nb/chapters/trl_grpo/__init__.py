"""The analyses of the chapter "GRPO in TRL" (``book/trl_grpo.md``): TRL's GRPO knobs against the book's formulas,
each checked by running TRL's own code.

* :func:`make_probe` and :func:`trl_advantages` (section "TRL's advantage, read from a real step"): a probe and TRL's
  advantages for its rewards.
* :func:`knob_table` (section "Every knob, checked by TRL's own code"): every row of the knob map, each from one of
  the checks below (:func:`defaults_check`, :func:`beta_default_check`, :func:`kl_check`, :func:`advantage_check`,
  :func:`mu_check`, :func:`old_logps_check`, :func:`clip_check`, :func:`ref_sync_check`, :func:`loss_type_check`,
  :func:`sequence_ratio_check`); :func:`kl_direction_check` (which KL's gradient k3 gives, with and without the
  ratio).

A *probe* is TRL's GRPOTrainer on four prompts of the toy task (pi_ref after SFT, G = 8) and one real generation
batch of it (``GRPOTrainer._generate_and_score_completions``: sampling, the reward, TRL's advantages, the
reference log-probabilities). Each check then runs TRL's ``compute_loss`` (or reads what TRL computed) on inputs
whose importance ratio, reference log-probabilities or advantages it sets, and compares with the book's formula:

- advantages (``scale_rewards`` = group / batch / none) against :func:`grpo_nb.advantage.group_advantage`
  (Eq. 3 with TRL's Bessel std + 1e-4; the mean-only form for ``none``);
- the KL estimator against Schulman's k3 (:func:`grpo_nb.toylm.grpo.k3_kl`), with and without
  ``use_bias_correction_kl`` (k3 times the importance ratio);
- the loss aggregation (``loss_type``) against :func:`aggregate`;
- the clip range (``epsilon``, ``epsilon_high``) against :func:`grpo_nb.clipping.clipped_term`;
- ``importance_sampling_level`` = sequence (the ratio exp(mean_t log ratio_t)) against token;
- ``num_iterations`` = 1 (no stored old log-probabilities: the ratio is identically 1, the clip never acts) against
  ``num_iterations`` > 1 in real training steps, and TRL's rule for storing them (``steps_per_generation``,
  ``gradient_accumulation_steps``) against :func:`book_stores_old_logps`;
- ``delta`` against :func:`book_delta_ratio`, ``sync_ref_model`` against :func:`book_ref_sync`;
- ``beta``'s default 0 (no reference model, no KL in the loss).

The book's side of each check is a module-level name: :data:`BOOK_ADVANTAGES`, :func:`book_kl`, :func:`aggregate`,
:func:`book_clipped_term`, :func:`book_log_ratio`, :func:`book_stores_old_logps`, :func:`book_delta_ratio`,
:func:`book_ref_sync`, :data:`KL_GRADIENT_DIRECTION` and :data:`BOOK_DEFAULTS`. A check reads it when it runs, so
replacing one by a wrong statement (as the tests do) makes its check fail.

The cached full runs (``grpo_nb/data/trl_full.json``) are read by :func:`load_result` and shown by
:func:`per_prompt_table`, :func:`trajectories`, :func:`prediction_gaps`, :func:`gap_difference`,
:func:`amplification_facts`, :func:`beta_zero_facts` (section "The same prompts under TRL: β > 0 and the default
β = 0"), :func:`follow_check` (section "When TRL follows the recursion") and :func:`timing_table` (section "Time and
hardware"). :func:`adam_zero_gradient_step` checks that AdamW moves a weight whose gradient is 0, and
:func:`practice_numbers` recomputes the numbers section "In practice" quotes from other chapters.

The ablation ladder (section "Why TRL leaves the recursion": TRL's trainer moved toward the theory one knob per rung,
``grpo_nb/data/trl_ladder.json``) is summarised by the submodule :mod:`~grpo_nb.chapters.trl_grpo.ladder`, which the
chapter reads as ``checks.ladder``.
"""

from __future__ import annotations

import functools
import json
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from importlib import resources
from pathlib import Path

import numpy as np
import torch

from grpo_nb.advantage import group_advantage
from grpo_nb.chapters.trl_grpo import ladder
from grpo_nb.clipping import clipped_term
from grpo_nb.report import Table, bound
from grpo_nb.toylm.grpo import k3_kl
from grpo_nb.toylm.report import regime_picks
from grpo_nb.toylm.trl_trainer import TRL_CONFIGS, TRLRun, TRLSetup, make_trainer, prepare_trl
from grpo_nb.validation import check_choice

__all__ = [
    "AdamCarry",
    "AmplificationFacts",
    "BOOK_ADVANTAGES",
    "BOOK_DEFAULTS",
    "BetaDefault",
    "BetaZeroFacts",
    "FollowCheck",
    "GapDifference",
    "KL_GRADIENT_DIRECTION",
    "KnobCheck",
    "KnobTable",
    "ladder",
    "LOSS_TYPES",
    "MuCheck",
    "OLD_LOGPS_CASES",
    "OldLogpsCheck",
    "PerPromptTable",
    "PracticeNumbers",
    "PredictionGaps",
    "Probe",
    "RefSyncCheck",
    "adam_zero_gradient_step",
    "advantage_check",
    "aggregate",
    "amplification_facts",
    "beta_default_check",
    "beta_zero_facts",
    "book_clipped_term",
    "book_delta_ratio",
    "book_kl",
    "book_log_ratio",
    "book_ref_sync",
    "book_stores_old_logps",
    "clip_check",
    "defaults_check",
    "follow_check",
    "gap_difference",
    "kl_check",
    "kl_direction_check",
    "knob_table",
    "load_result",
    "loss_type_check",
    "make_probe",
    "mu_check",
    "old_logps_check",
    "per_prompt_table",
    "practice_numbers",
    "prediction_gaps",
    "ref_sync_check",
    "run_label",
    "sequence_ratio_check",
    "timing_table",
    "trajectories",
    "trl_advantages",
]

LOSS_TYPES: tuple[str, ...] = ("grpo", "bnpo", "dr_grpo", "dapo")
PROBE_CONFIG = replace(TRL_CONFIGS["tiny"], name="probe", G=8, mu=1, n=1)
TOL = 1e-5  # float32 arithmetic on O(1) numbers


@functools.lru_cache(maxsize=1)
def _probe_setup() -> TRLSetup:
    return prepare_trl(PROBE_CONFIG)


@dataclass
class Probe:
    """A GRPOTrainer, one generation batch of it (``inputs``), that batch's rewards (P, G), and the policy's
    per-token log-probabilities of the sampled completions (``logp``, computed by TRL)."""

    trainer: object
    inputs: dict
    rewards: np.ndarray
    logp: torch.Tensor

    def loss(self, **changes) -> float:
        """TRL's ``compute_loss`` on the batch with ``changes`` (tensors) in place of its entries (eval mode)."""
        inputs = dict(self.inputs) | changes
        with torch.no_grad():
            return float(self.trainer.compute_loss(self.trainer.model, inputs))

    def logged(self, name: str) -> float:
        """The last value TRL logged for metric ``name`` (eval mode)."""
        return float(self.trainer._metrics["eval"][name][-1])


def make_probe(beta: float = 0.0, seed: int = 0, **overrides) -> Probe:
    """TRL's trainer on the probe task (``overrides`` go to ``trl.GRPOConfig``) and one generation batch of it: the
    draw of section "TRL's advantage, read from a real step", and the batch every check of :func:`knob_table`
    (section "Every knob, checked by TRL's own code") runs TRL on."""
    setup = _probe_setup()
    log: list = []
    trainer = make_trainer(setup, TRLRun("probe", beta, overrides.pop("epsilon", 0.2)), reward_log=log, **overrides)
    torch.manual_seed(seed)
    g = trainer.num_generations
    examples = [{"prompt": q, "index": i} for i, q in enumerate(setup.task.prompts_text) for _ in range(g)]
    trainer.model.eval()
    inputs = trainer._generate_and_score_completions(examples)
    ids = torch.cat([inputs["prompt_ids"], inputs["completion_ids"]], dim=1)
    mask = torch.cat([inputs["prompt_mask"], inputs["completion_mask"]], dim=1)
    with torch.no_grad():
        logp = trainer._get_per_token_logps_and_entropies(trainer.model, ids, mask, inputs["completion_ids"].size(1))[0]
    return Probe(trainer, inputs, log[-1][1].reshape(-1, g), logp)


def aggregate(
    per_token: np.ndarray, mask: np.ndarray, loss_type: str, *, max_len: int, n_generated: float | None = None
) -> float:
    """The book's statement of TRL's loss aggregation, per ``loss_type``, of a (B, T) per-token loss (eval mode, one
    process):

    grpo: mean over completions of their own token mean; bnpo: sum over the masked tokens / their number; dr_grpo:
    sum / (B max_completion_length), ``max_len`` being ``max_completion_length`` (not the batch's longest answer and
    not an answer's own length); dapo: sum / ``n_generated``, the number of completion tokens TRL generated for the
    batch (counted at generation, before any change of the mask)."""
    check_choice("loss_type", loss_type, LOSS_TYPES)
    x = per_token * mask
    if loss_type == "grpo":
        return float((x.sum(1) / np.maximum(mask.sum(1), 1)).mean())
    if loss_type == "dr_grpo":
        return float(x.sum() / (x.shape[0] * max_len))
    if loss_type == "dapo":
        if n_generated is None or not n_generated > 0:
            raise ValueError(f"n_generated={n_generated!r} is out of range; dapo needs a token count > 0")
        return float(x.sum() / n_generated)
    return float(x.sum() / max(mask.sum(), 1))


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().double().numpy()


def _batch_advantage(rewards: np.ndarray) -> np.ndarray:
    """``scale_rewards`` = batch: r minus its group's mean, over (the whole batch's Bessel std + 1e-4)."""
    return group_advantage(rewards, "mean_only") / (rewards.std(ddof=1) + 1e-4)


#: The book's advantage of a (prompts, G) reward array for each ``scale_rewards``: group = ``group_advantage(r,
#: "trl")`` ((r - mean)/(Bessel std + 1e-4)); batch = r minus the group mean over (the whole batch's Bessel std +
#: 1e-4); none = ``group_advantage(r, "mean_only")`` (Dr. GRPO).
BOOK_ADVANTAGES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "group": functools.partial(group_advantage, form="trl"),
    "batch": _batch_advantage,
    "none": functools.partial(group_advantage, form="mean_only"),
}


def book_kl(
    logp: torch.Tensor, logp_ref: torch.Tensor, log_ratio: torch.Tensor, *, bias_correction: bool
) -> np.ndarray:
    """The book's per-token KL term of TRL's loss: Schulman's k3, exp(d) - d - 1 with d = log pi_ref - log pi_theta
    (:func:`grpo_nb.toylm.grpo.k3_kl`), times the importance ratio pi_theta/pi_old = exp(``log_ratio``) when
    ``use_bias_correction_kl`` (``bias_correction``) is on; without the flag the KL term carries no ratio."""
    k3 = _np(k3_kl(logp, logp_ref))
    return k3 * np.exp(_np(log_ratio)) if bias_correction else k3


def book_clipped_term(ratio: np.ndarray, advantage: np.ndarray, clip_eps: float, *, clip_eps_high: float) -> np.ndarray:
    """The book's clipped term with TRL's two ranges, f(x, A) = min(x A, clip(x, 1 - clip_eps, 1 + clip_eps_high) A):
    :func:`grpo_nb.clipping.clipped_term` with ``clip_eps_high`` where A >= 0 and ``clip_eps`` where A < 0 (only one
    side of the clip acts for each sign)."""
    return np.where(
        advantage >= 0, clipped_term(ratio, advantage, clip_eps_high), clipped_term(ratio, advantage, clip_eps)
    )


def book_log_ratio(log_ratio: np.ndarray, mask: np.ndarray, level: str) -> np.ndarray:
    """The book's log importance ratio per token, (B, T), at ``importance_sampling_level`` = ``level``: token, the
    token's own log pi_theta - log pi_old; sequence (GSPO), the mean over the completion's tokens (``mask``), shared
    by them."""
    check_choice("level", level, ("token", "sequence"))
    if level == "token":
        return log_ratio
    return np.broadcast_to(((log_ratio * mask).sum(1) / mask.sum(1))[:, None], log_ratio.shape)


def advantage_check(probe: Probe, scale_rewards: str = "group") -> float:
    """max |TRL's advantages - the book's (:data:`BOOK_ADVANTAGES`)| on the probe's batch, TRL run with
    ``scale_rewards``; a row of :func:`knob_table` (section "Every knob, checked by TRL's own code")."""
    check_choice("scale_rewards", scale_rewards, tuple(BOOK_ADVANTAGES))
    probe.trainer.scale_rewards = scale_rewards
    trl_adv = _np(_readvantage(probe))
    book = BOOK_ADVANTAGES[scale_rewards](probe.rewards)
    return float(np.abs(trl_adv - book.reshape(-1)).max())


def trl_advantages(probe: Probe) -> np.ndarray:
    """TRL's advantages for the probe's rewards, computed by TRL's own code, as a (prompts, G) array (section "TRL's
    advantage, read from a real step")."""
    return _np(_readvantage(probe)).reshape(probe.rewards.shape)


def _readvantage(probe: Probe) -> torch.Tensor:
    """TRL's advantages for the probe's own rewards under the trainer's current ``scale_rewards``: TRL generates a
    new batch and scores it with a reward function that returns the probe's rewards, so TRL's own advantage code
    runs on the probe's rewards."""
    trainer = probe.trainer
    g = trainer.num_generations
    n = probe.rewards.shape[0]
    fixed = probe.rewards.reshape(-1).tolist()
    saved = trainer.reward_funcs
    trainer.reward_funcs = [functools.update_wrapper(_FixedReward(fixed), saved[0])]
    try:
        examples = [{"prompt": "0+0=", "index": i} for i in range(n) for _ in range(g)]
        return trainer._generate_and_score_completions(examples)["advantages"]
    finally:
        trainer.reward_funcs = saved


class _FixedReward:
    """A reward function that returns given rewards (the probe's), whatever was sampled."""

    def __init__(self, rewards: list[float]) -> None:
        self.rewards = rewards

    def __call__(self, prompts, completions, **kwargs) -> list[float]:
        return list(self.rewards)


def kl_check(probe: Probe, *, bias_correction: bool = False, seed: int = 0) -> float:
    """|TRL's logged KL - the book's (:func:`book_kl`)| with log pi_ref - log pi_theta = d set per token
    (d ~ U(-1, 1)) and the ratio pi_theta/pi_old set to exp(u), u ~ U(0, 0.5), TRL's ``use_bias_correction_kl`` =
    ``bias_correction``; a row of :func:`knob_table` (section "Every knob, checked by TRL's own code")."""
    dev = probe.logp.device
    gen = torch.Generator(device=dev).manual_seed(seed)
    d = torch.rand(probe.logp.shape, generator=gen, device=dev) * 2 - 1
    u = torch.rand(probe.logp.shape, generator=gen, device=dev) * 0.5
    probe.trainer.args.use_bias_correction_kl = bias_correction
    probe.loss(
        ref_per_token_logps=probe.logp + d,
        old_per_token_logps=probe.logp - u,
        advantages=torch.zeros(probe.logp.shape[0], device=probe.logp.device),
    )
    mask = _np(probe.inputs["completion_mask"])
    per_token = book_kl(probe.logp, probe.logp + d, u, bias_correction=bias_correction)
    book = float((per_token * mask).sum() / mask.sum())
    return abs(probe.logged("kl") - book)


def loss_type_check(probe: Probe, loss_type: str, seed: int = 0) -> float:
    """|TRL's loss - aggregate(-A, mask, loss_type)| with beta = 0, ratio 1, advantages A ~ N(0, 1) and completions
    cut to random lengths 1..T (so that the aggregations differ); a row of :func:`knob_table` (section "Every knob,
    checked by TRL's own code").

    TRL's own normalisers run: ``dapo`` divides by the ``num_items_in_batch`` TRL counted when it generated the batch
    (the cut mask is not recounted, so dapo differs from bnpo here), and ``dr_grpo`` by the batch size times TRL's
    ``max_completion_length``, set for this check to two more than the padded width T so that L_max, T and an
    answer's own length differ. The book's side is :func:`aggregate` with the token count of the generated mask."""
    check_choice("loss_type", loss_type, LOSS_TYPES)
    dev = probe.logp.device
    gen = torch.Generator(device=dev).manual_seed(seed)
    b, t = probe.logp.shape
    adv = torch.randn(b, generator=gen, device=dev)
    lengths = torch.randint(1, t + 1, (b,), generator=gen, device=dev)
    mask = (torch.arange(t, device=dev)[None, :] < lengths[:, None]).long()
    trainer = probe.trainer
    saved = trainer.max_completion_length
    trainer.loss_type, trainer.max_completion_length = loss_type, t + 2
    try:
        loss = probe.loss(advantages=adv, completion_mask=mask, old_per_token_logps=probe.logp)
    finally:
        trainer.max_completion_length = saved
    generated = float(_np(probe.inputs["completion_mask"]).sum())
    per_token = -_np(adv)[:, None] * np.ones((b, t))
    return abs(loss - aggregate(per_token, _np(mask), loss_type, max_len=t + 2, n_generated=generated))


def book_delta_ratio(ratio: np.ndarray, delta: float | None) -> np.ndarray:
    """The book's statement of TRL's ``delta`` (two-sided GRPO): the ratio in the unclipped term of f(x, A) capped at
    ``delta`` from above, min(x, delta), before the min with the clipped term; ``None`` (TRL's default) leaves it."""
    return ratio if delta is None else np.minimum(ratio, delta)


def clip_check(
    probe: Probe, clip_eps: float, clip_eps_high: float | None = None, *, delta: float | None = None
) -> float:
    """|TRL's loss - the book's clipped objective| at ratios exp(u), u ~ U(-0.7, 0.7), advantages ~ N(0, 1), with TRL's
    ``epsilon`` = ``clip_eps``, ``epsilon_high`` = ``clip_eps_high`` (default ``clip_eps``) and ``delta``; a row of
    :func:`knob_table` (section "Every knob, checked by TRL's own code").

    The book: -mean of :func:`book_clipped_term` with the same two clip ranges, at the ratio capped by
    :func:`book_delta_ratio` (for ``delta`` >= 1 + ``clip_eps_high``, where capping the unclipped term's ratio is
    capping the ratio)."""
    dev = probe.logp.device
    gen = torch.Generator(device=dev).manual_seed(1)
    b, t = probe.logp.shape
    u = (torch.rand(b, t, generator=gen, device=dev) - 0.5) * 1.4
    adv = torch.randn(b, generator=gen, device=dev)
    trainer = probe.trainer
    trainer.loss_type = "bnpo"
    trainer.epsilon_low = clip_eps
    trainer.epsilon_high = clip_eps if clip_eps_high is None else clip_eps_high
    trainer.args.delta = delta
    try:
        loss = probe.loss(advantages=adv, old_per_token_logps=probe.logp - u)
    finally:
        trainer.args.delta = None
    x, a = np.exp(_np(u)), np.broadcast_to(_np(adv)[:, None], (b, t))
    f = book_clipped_term(book_delta_ratio(x, delta), a, clip_eps, clip_eps_high=trainer.epsilon_high)
    return abs(loss - aggregate(-f, _np(probe.inputs["completion_mask"]), "bnpo", max_len=t))


def sequence_ratio_check(probe: Probe, level: str = "sequence") -> float:
    """|TRL's loss - the book's| under ``importance_sampling_level`` = ``level``, no clipping in effect; a row of
    :func:`knob_table` (section "Every knob, checked by TRL's own code").

    The book: the ratio exp(:func:`book_log_ratio`), token level one per token, sequence level (GSPO) one per
    completion, shared by its tokens."""
    check_choice("level", level, ("token", "sequence"))
    dev = probe.logp.device
    gen = torch.Generator(device=dev).manual_seed(2)
    b, t = probe.logp.shape
    u = (torch.rand(b, t, generator=gen, device=dev) - 0.5) * 0.6
    adv = torch.randn(b, generator=gen, device=dev)
    trainer = probe.trainer
    trainer.loss_type, trainer.importance_sampling_level = "bnpo", level
    trainer.epsilon_low = trainer.epsilon_high = 1e3
    loss = probe.loss(advantages=adv, old_per_token_logps=probe.logp - u)
    mask = _np(probe.inputs["completion_mask"])
    lr = book_log_ratio(_np(u), mask, level)
    return abs(loss - aggregate(-np.exp(lr) * _np(adv)[:, None], mask, "bnpo", max_len=t))


@dataclass(frozen=True)
class MuCheck:
    """Whether TRL stored old log-probabilities in a generation batch, and the largest share of clipped tokens it
    logged in the training steps."""

    stored: bool
    clipped: float


def mu_check(mu: int, n_steps: int = 3, lr: float = 3e-2, *, seed: int = 0) -> MuCheck:
    """``n_steps`` real training steps with TRL's ``num_iterations`` = ``mu``, a large learning rate and clip range
    0.01 (``steps_per_generation`` = ``gradient_accumulation_steps`` = 1, no vLLM): whether TRL stored old
    log-probabilities (it does not at mu = 1: the ratio is then pi_theta/pi_theta.detach() = 1), and the largest
    share of clipped tokens TRL logged. ``seed`` seeds TRL's trainer and the probe's draw. A row of
    :func:`knob_table` (section "Every knob, checked by TRL's own code")."""
    setup = _probe_setup()
    trainer = make_trainer(
        setup, TRLRun("mu", 0.0, 0.01), num_iterations=mu, max_steps=n_steps, learning_rate=lr, seed=seed
    )
    stored = "old_per_token_logps" in make_probe(num_iterations=mu, seed=seed).inputs
    trainer.train()
    clipped = max(h.get("clip_ratio/region_mean", 0.0) for h in trainer.state.log_history)
    return MuCheck(stored, float(clipped))


def book_stores_old_logps(mu: int, steps_per_generation: int, grad_accum: int) -> bool:
    """The book's statement of when TRL (no vLLM) computes and stores pi_old's log-probabilities at generation: when
    ``gradient_accumulation_steps`` is not a multiple of ``steps_per_generation`` x ``num_iterations`` (the batch is
    then used after an optimizer step). Otherwise the ratio is pi_theta/pi_theta.detach() = 1 and the clip never
    acts."""
    return grad_accum % (steps_per_generation * mu) != 0


#: (num_iterations, steps_per_generation, gradient_accumulation_steps) cases of :func:`old_logps_check`: TRL's
#: default, and settings where the rule and "only mu > 1 stores them" disagree.
OLD_LOGPS_CASES: tuple[tuple[int, int, int], ...] = ((1, 1, 1), (1, 2, 1), (3, 1, 1), (1, 2, 2), (2, 1, 2))


@dataclass(frozen=True)
class OldLogpsCheck:
    """Per case (mu, steps_per_generation, gradient_accumulation_steps): whether TRL stored old log-probabilities
    (``trl``) and whether :func:`book_stores_old_logps` says it does (``book``); and whether TRL's source names vLLM's
    importance-sampling correction as the other reason to store them (``vllm_in_rule``)."""

    cases: tuple[tuple[int, int, int], ...]
    trl: tuple[bool, ...]
    book: tuple[bool, ...]
    vllm_in_rule: bool

    @property
    def agree(self) -> bool:
        """Every case as the book states, and vLLM named in TRL's rule."""
        return self.trl == self.book and self.vllm_in_rule


def old_logps_check(seed: int = 0) -> OldLogpsCheck:
    """Section "Every knob, checked by TRL's own code", row ``num_iterations``: one probe per case of
    :data:`OLD_LOGPS_CASES` (TRL's ``_generate_and_score_completions`` decides whether to store pi_old's
    log-probabilities) against :func:`book_stores_old_logps`; the vLLM half of TRL's rule (vLLM does not run on the
    CPU) is read from TRL's source."""
    import inspect

    from trl import GRPOTrainer

    trl, book = [], []
    for mu, spg, ga in OLD_LOGPS_CASES:
        probe = make_probe(seed=seed, num_iterations=mu, steps_per_generation=spg, gradient_accumulation_steps=ga)
        trl.append("old_per_token_logps" in probe.inputs)
        book.append(bool(book_stores_old_logps(mu, spg, ga)))
    source = inspect.getsource(GRPOTrainer._generate_and_score_completions)
    vllm = "gradient_accumulation_steps % generate_every != 0 or (" in source and (
        "self.use_vllm and self.vllm_importance_sampling_correction" in source
    )
    return OldLogpsCheck(OLD_LOGPS_CASES, tuple(trl), tuple(book), vllm)


def book_ref_sync(theta: np.ndarray, theta_ref: np.ndarray, alpha: float) -> np.ndarray:
    """The book's statement of TRL's ``sync_ref_model``: every ``ref_model_sync_steps`` optimizer steps the reference
    network's *weights* become alpha theta + (1 - alpha) theta_ref (``ref_model_mixup_alpha`` = alpha), a mix of
    weights, not of policies; at alpha = 1 the reference is the current policy."""
    return alpha * theta + (1 - alpha) * theta_ref


@dataclass(frozen=True)
class RefSyncCheck:
    """TRL's reference sync on a probe: |TRL's reference weights - :func:`book_ref_sync`| after the step that syncs
    (``gap``), and the largest change of the reference weights one step before it (``early``, 0 when TRL waits)."""

    gap: float
    early: float


def ref_sync_check(alpha: float = 0.6, seed: int = 0) -> RefSyncCheck:
    """Section "Every knob, checked by TRL's own code", row ``sync_ref_model``: a probe with ``beta`` = 0.5 and
    ``sync_ref_model`` on, its policy's weights moved by N(0, 0.01) noise (seeded), then TRL's own sync callback at
    step ``ref_model_sync_steps`` - 1 and at ``ref_model_sync_steps``."""
    from trl.trainer.callbacks import SyncRefModelCallback

    probe = make_probe(beta=0.5, seed=seed, sync_ref_model=True, ref_model_mixup_alpha=alpha)
    trainer = probe.trainer
    callback = next(c for c in trainer.callback_handler.callbacks if isinstance(c, SyncRefModelCallback))
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for w in trainer.model.parameters():
            w.add_(0.01 * torch.randn(w.shape, generator=gen))
    theta = [_np(w) for w in trainer.model.parameters()]
    before = [_np(w) for w in trainer.ref_model.parameters()]
    tau = trainer.args.ref_model_sync_steps
    early = 0.0
    for step in (tau - 1, tau):
        trainer.state.global_step = step
        callback.on_step_end(trainer.args, trainer.state, trainer.control, model=trainer.model)
        ref = [_np(w) for w in trainer.ref_model.parameters()]
        if step < tau:
            early = max(float(np.abs(r - b).max()) for r, b in zip(ref, before, strict=True))
    book = [book_ref_sync(t, b, alpha) for t, b in zip(theta, before, strict=True)]
    gap = max(float(np.abs(r - w).max()) for r, w in zip(ref, book, strict=True))
    return RefSyncCheck(gap, early)


def _default_config(**changes):
    """TRL's ``GRPOConfig`` at its defaults (on the CPU). TRL 1.16 still sets transformers' deprecated
    ``gradient_checkpointing`` (True by default), and transformers 5.23 warns about that on every construction: the
    warning is about TRL's default, not the book's code, so it is silenced here, for this construction only."""
    from trl import GRPOConfig

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*gradient_checkpointing.* is deprecated", category=FutureWarning)
        return GRPOConfig(output_dir="unused", use_cpu=True, **changes)


@dataclass(frozen=True)
class BetaDefault:
    """TRL's default beta, whether a trainer at that default builds a reference model, and |loss| with advantages 0,
    ratio 1 and reference log-probabilities 1 nat off (a KL term would make it positive)."""

    default: float
    has_reference: bool
    loss: float


def beta_default_check() -> BetaDefault:
    """TRL's default beta and what a trainer at that default does (the fields of :class:`BetaDefault`); a row of
    :func:`knob_table` (section "Every knob, checked by TRL's own code")."""
    default = _default_config(bf16=False).beta
    probe = make_probe(beta=default)
    loss = probe.loss(
        advantages=torch.zeros(probe.logp.shape[0], device=probe.logp.device),
        old_per_token_logps=probe.logp,
        ref_per_token_logps=probe.logp + 1.0,
    )
    return BetaDefault(float(default), probe.trainer.ref_model is not None, abs(loss))


SPG_KEY = "steps_per_generation (gradient_accumulation_steps 4)"

BOOK_DEFAULTS: dict[str, object] = {
    "beta": 0.0,
    "num_iterations": 1,
    "num_generations": 8,
    "steps_per_generation": 1,
    SPG_KEY: 4,
    "epsilon": 0.2,
    "epsilon_high (trainer)": 0.2,
    "delta": None,
    "scale_rewards": "group",
    "loss_type": "dapo",
    "importance_sampling_level": "token",
    "use_bias_correction_kl": True,
    "sync_ref_model": False,
    "ref_model_mixup_alpha": 0.6,
    "ref_model_sync_steps": 512,
    "learning_rate": 1e-6,
    "max_completion_length": 512,
    "gradient_checkpointing": True,
}


def defaults_check() -> dict[str, tuple[object, object]]:
    """The knobs whose TRL default differs from the book's statement :data:`BOOK_DEFAULTS`, as
    {name: (TRL's default, the book's)}; empty when every stated default is TRL's. ``epsilon_high (trainer)`` is the
    upper clip range a trainer built at the defaults uses; :data:`SPG_KEY` is ``steps_per_generation`` when only
    ``gradient_accumulation_steps`` = 4 is set (it follows it). A row of :func:`knob_table` (section "Every knob,
    checked by TRL's own code")."""
    claimed = BOOK_DEFAULTS
    config = _default_config()
    special = {"epsilon_high (trainer)", SPG_KEY}
    actual = {name: getattr(config, name) for name in claimed if name not in special}
    if "epsilon_high (trainer)" in claimed:
        actual["epsilon_high (trainer)"] = make_probe(beta=config.beta).trainer.epsilon_high
    if SPG_KEY in claimed:
        actual[SPG_KEY] = _default_config(gradient_accumulation_steps=4).steps_per_generation
    return {name: (actual[name], claimed[name]) for name in claimed if actual[name] != claimed[name]}


def _share(x: float) -> str:
    """A clipped-token share as the check reads it: exactly 0, or above 0 (its value depends on the draw)."""
    return "0" if x == 0 else "> 0"


@dataclass(frozen=True)
class KnobCheck:
    """One row of the knob map: the knob, what it is in the theory, what TRL's own code gave, and whether the check
    passed."""

    knob: str
    theory: str
    measured: str
    passed: bool


@dataclass(frozen=True)
class KnobTable:
    """The knob map: its table (one row per :class:`KnobCheck`, "passes" or "FAILS") and its rows."""

    table: Table
    rows: tuple[KnobCheck, ...]


def knob_table(seed: int = 0) -> KnobTable:
    """Section "Every knob, checked by TRL's own code": every row of the knob map, checked by TRL's own code (module
    docstring); ``seed`` seeds every sampled draw (the probes' answers, the training steps of the ``num_iterations``
    row). Every row must pass at any seed."""
    rows: list[KnobCheck] = []
    wrong = defaults_check()
    rows.append(
        KnobCheck(
            "TRL's defaults",
            ", ".join(f"`{k}` {v}" for k, v in BOOK_DEFAULTS.items()),
            "all as stated" if not wrong else f"differ: {wrong}",
            not wrong,
        )
    )
    beta0 = beta_default_check()
    rows.append(
        KnobCheck(
            "`beta` (default 0)",
            r"the KL weight $\beta$ of Eq. (6); at 0 no KL term: the recursion's $\beta \to 0$ limit, $h(p) = 1$",
            f"default {beta0.default:g}; reference model built: {beta0.has_reference}; "
            rf"loss with $\pi_{{\mathrm{{ref}}}}$ 1 nat off: {bound(beta0.loss, TOL)}",
            beta0.default == 0 and not beta0.has_reference and beta0.loss < TOL,
        )
    )
    probe_kl = make_probe(beta=0.5, seed=seed)
    gap = kl_check(probe_kl)
    gap_bc = kl_check(probe_kl, bias_correction=True)
    rows.append(
        KnobCheck(
            "`beta` > 0: the KL estimate",
            r"Schulman's k3 per token, $e^{d} - d - 1$, $d = \log\pi_{\mathrm{ref}} - \log\pi_\theta$ "
            "(flag below off: no ratio)",
            f"|TRL − k3| {bound(gap, TOL)}",
            gap < TOL,
        )
    )
    rows.append(
        KnobCheck(
            "`use_bias_correction_kl`",
            r"on (TRL's default): k3 times the importance ratio $\pi_\theta/\pi_{\mathrm{old}}$ per token",
            f"|TRL − ratio·k3| {bound(gap_bc, TOL)}",
            gap_bc < TOL,
        )
    )
    probe = make_probe(beta=0.0, seed=seed)
    for scale, theory in (
        (
            "group",
            r"Eq. (3) with Bessel's std $+ 10^{-4}$: "
            r"$\beta_{\mathrm{eff}} = \beta\sqrt{G/(G-1)}$, $\varepsilon \approx 0$",
        ),
        ("batch", "mean per group, one std for the whole batch: not a per-prompt recursion"),
        ("none", "mean only (Dr. GRPO): the variants chapter's mean-only map"),
    ):
        gap = advantage_check(probe, scale)
        rows.append(KnobCheck(f"`scale_rewards={scale}`", theory, f"max abs gap {bound(gap, TOL)}", gap < TOL))
    groups, gap_g = probe.rewards.shape[1], advantage_check(probe, "group")
    rows.append(
        KnobCheck(
            "`num_generations` = $G$",
            "the group size $G$ of Eq. (3): each prompt's advantage uses its own $G$ answers",
            f"`num_generations` {probe.trainer.num_generations}, groups of {groups} rewards; "
            f"per-group advantage: max abs gap {bound(gap_g, TOL)}",
            groups == probe.trainer.num_generations == PROBE_CONFIG.G and gap_g < TOL,
        )
    )
    mu1, mu3 = mu_check(1, seed=seed), mu_check(3, seed=seed)
    rows.append(
        KnobCheck(
            "`num_iterations` = μ",
            "μ inner steps per generation (at `steps_per_generation` = `gradient_accumulation_steps`, "
            "the default); at μ = 1 the ratio is 1 and the clip never acts",
            f"μ = 1: old log-probs stored {mu1.stored}, clipped share {_share(mu1.clipped)}; "
            f"μ = 3: {mu3.stored}, {_share(mu3.clipped)}",
            not mu1.stored and mu1.clipped == 0 and mu3.stored and mu3.clipped > 0,
        )
    )
    old = old_logps_check(seed=seed)
    rows.append(
        KnobCheck(
            "`steps_per_generation`, `gradient_accumulation_steps`",
            r"$\pi_{\mathrm{old}}$'s log-probs are stored (the ratio can leave 1) iff `gradient_accumulation_steps` "
            "is not a multiple of `steps_per_generation` × μ, or vLLM's correction is on",
            "(μ, spg, gas) → stored: "
            + ", ".join(f"{c} {s}" for c, s in zip(old.cases, old.trl, strict=True))
            + f"; vLLM in TRL's rule: {old.vllm_in_rule}",
            old.agree,
        )
    )
    gap_sym = clip_check(probe, 0.2)
    gap_asym = clip_check(probe, 0.2, 0.28)
    rows.append(
        KnobCheck(
            "`epsilon`, `epsilon_high`",
            r"clip range $[1 - \epsilon, 1 + \epsilon_{\mathrm{high}}]$ of the ratio, "
            r"$f(x, A) = \min(xA, \mathrm{clip}(x)A)$",
            f"|TRL − book|: symmetric {bound(gap_sym, TOL)}, "
            + rf"$\epsilon_{{\mathrm{{high}}}} = 0.28$: {bound(gap_asym, TOL)}",
            max(gap_sym, gap_asym) < TOL,
        )
    )
    gap_delta = clip_check(probe, 0.2, delta=1.5)
    rows.append(
        KnobCheck(
            "`delta` (default None)",
            r"two-sided clip: the unclipped term's ratio capped at $\delta$, "
            r"$\min(\min(x, \delta)A, \mathrm{clip}(x)A)$",
            rf"|TRL − book| at $\delta = 1.5$: {bound(gap_delta, TOL)}",
            gap_delta < TOL,
        )
    )
    sync = ref_sync_check(seed=seed)
    rows.append(
        KnobCheck(
            "`sync_ref_model`, `ref_model_mixup_alpha`, `ref_model_sync_steps`",
            r"every τ steps $\pi_{\mathrm{ref}}$'s weights become $\alpha\theta + (1-\alpha)\theta_{\mathrm{ref}}$ "
            r"(a mix of weights): the KL target moves; at $\alpha = 1$ it is the current policy",
            f"|TRL − book| at α = 0.6: {bound(sync.gap, TOL)}; change one step early: {bound(sync.early, TOL)}",
            sync.gap < TOL and sync.early < TOL,
        )
    )
    gaps = {lt: loss_type_check(probe, lt) for lt in LOSS_TYPES}
    rows.append(
        KnobCheck(
            "`loss_type`",
            r"grpo: mean of per-answer token means; bnpo: token mean; dapo: sum / tokens generated in the batch; "
            r"dr_grpo: sum $/\,(B\,L_{\max})$, $L_{\max}$ = `max_completion_length`",
            "|TRL − book|: " + ", ".join(f"{k} {bound(v, TOL)}" for k, v in gaps.items()),
            max(gaps.values()) < TOL,
        )
    )
    gap_seq, gap_tok = sequence_ratio_check(probe, "sequence"), sequence_ratio_check(probe, "token")
    rows.append(
        KnobCheck(
            "`importance_sampling_level`",
            "token: ratio per token; sequence: exp(mean of the log ratios) per answer",
            f"|TRL − book|: token {bound(gap_tok, TOL)}, sequence {bound(gap_seq, TOL)}",
            max(gap_seq, gap_tok) < TOL,
        )
    )
    table = Table(
        ["TRL knob", "in the theory (stated; the check runs the formula)", "TRL's own code gives", "check"],
        [[r.knob, r.theory, r.measured, "passes" if r.passed else "FAILS"] for r in rows],
    )
    return KnobTable(table, tuple(rows))


# --- Sections "The same prompts under TRL" and "Time and hardware": the cached runs -------------------------------
# The JSON of ``python -m grpo_nb.toylm --trainer trl`` holds, per prompt and outer step n, the measured p_n, the
# infinite-G recursion h^n(p_ref) at TRL's effective beta (``p_theory``), the finite-group chain's mean
# (``p_finite_group``) and the successes k_n in the prompt's group of G answers (``group_successes``).


def load_result(path: str | Path) -> dict:
    """The JSON summary of a TRL run: a file, or the name of one that ships with the package (``grpo_nb/data/``),
    so that the chapter opened alone (Colab, an empty folder) finds the cached runs it reads."""
    if Path(path).exists():
        return json.loads(Path(path).read_text())
    shipped = resources.files("grpo_nb") / "data" / str(path)
    if not shipped.is_file():
        raise ValueError(f"path={str(path)!r} is neither a file nor one of grpo_nb/data/'s cached runs")
    return json.loads(shipped.read_text())


def run_label(key: str) -> str:
    """A cached run's key as the page writes it: ``"beta=2, clip 0.2"`` becomes ``"$\\beta = 2$, clip 0.2"`` (MathJax
    in a table, mathtext in a figure)."""
    head, sep, rest = key.partition(",")
    if head.startswith("beta="):
        value, _, note = head.removeprefix("beta=").partition(" ")
        head = rf"$\beta = {value}$" + (f" {note}" if note else "")
    return head + sep + rest


def _arrays(result: dict, key: str) -> dict[str, np.ndarray]:
    rows = result["runs"][key]["per_prompt"]
    fin = [r["p_finite_group"] for r in rows]
    return {
        "p": np.array([r["p_measured"] for r in rows]).T,  # (M+1, P)
        "theory": np.array([r["p_theory"] for r in rows]).T,
        "finite": None if fin[0] is None else np.array(fin).T,
        "k": np.array([r["group_successes"] for r in rows]).T,  # (M, P)
    }


@dataclass(frozen=True)
class PerPromptTable:
    """:func:`per_prompt_table`'s table, each prompt's p_ref, and each run's final measured p_M (keyed by run)."""

    table: Table
    p_ref: np.ndarray
    finals: dict[str, np.ndarray]


def per_prompt_table(result: dict, keys: list[str]) -> PerPromptTable:
    """Per prompt (sorted by p_ref): p_ref, then for each run its final measured p_M; for the first run with a
    finite-group prediction also h^M(p_ref) and E[p_M] under the finite-group chain (section "The same prompts under
    TRL")."""
    first = next(k for k in keys if result["runs"][k]["per_prompt"][0]["p_finite_group"] is not None)
    a = _arrays(result, first)
    p_ref = a["p"][0]
    order = np.argsort(p_ref, kind="stable")
    finals = {k: _arrays(result, k)["p"][-1] for k in keys}
    label = run_label(first)
    headers = [
        "prompt",
        r"$p_{\mathrm{ref}}$",
        *[f"$p_M$, {run_label(k)}" for k in keys],
        f"$h^M$, {label}",
        f"finite $G$, {label}",
    ]
    prompts = [r["prompt"] for r in result["runs"][first]["per_prompt"]]
    rows = [
        [prompts[i], p_ref[i], *[finals[k][i] for k in keys], a["theory"][-1, i], a["finite"][-1, i]] for i in order
    ]
    return PerPromptTable(Table(headers, rows, fmt=".3f"), p_ref, finals)


def trajectories(result: dict, keys: list[str]) -> dict[str, object]:
    """The arguments of :func:`grpo_nb.plots.trl.plot_trl_trajectories`: measured p_n per run (M+1, P), the first
    run's recursion and finite-group mean, the prompts, and the prompts with the lowest, median and highest p_ref
    (:func:`grpo_nb.toylm.report.regime_picks`) (section "The same prompts under TRL")."""
    first = _arrays(result, keys[0])
    return {
        "measured": {run_label(k): _arrays(result, k)["p"] for k in keys},
        "theory": first["theory"],
        "finite": first["finite"],
        "picks": regime_picks(first["p"][0]),
        "prompts": [r["prompt"] for r in result["runs"][keys[0]]["per_prompt"]],
    }


@dataclass(frozen=True)
class PredictionGaps:
    """:func:`prediction_gaps`: the median over prompts of max_n |p_n - prediction_n| for the infinite-G recursion
    and for the finite-group mean (NaN when the run has no finite-group prediction)."""

    infinite_g: float
    finite_g: float


def prediction_gaps(result: dict, key: str) -> PredictionGaps:
    """How far one run stays from each prediction (section "The same prompts under TRL")."""
    a = _arrays(result, key)
    infinite = float(np.median(np.abs(a["p"] - a["theory"]).max(axis=0)))
    finite = float("nan") if a["finite"] is None else float(np.median(np.abs(a["p"] - a["finite"]).max(axis=0)))
    return PredictionGaps(infinite, finite)


@dataclass(frozen=True)
class BetaZeroFacts:
    """:func:`beta_zero_facts`: what an outer step did to a prompt's success, by what its group held. Each field's
    ``label`` is its row in the chapter's table (:attr:`rows`)."""

    mixed_steps: int = field(metadata={"label": "steps with a mixed group"})
    mean_change_mixed: float = field(metadata={"label": "mean change after a mixed group"})
    full_steps: int = field(metadata={"label": "steps with an all-success group"})
    mean_change_full: float = field(metadata={"label": "mean change after an all-success group"})
    empty_steps: int = field(metadata={"label": "steps with no success"})
    largest_change_empty: float = field(metadata={"label": "largest change after no success"})
    mean_size_change_mixed: float = field(metadata={"label": "mean size of a change after a mixed group"})
    easy_share_higher: float = field(metadata={"label": "share of easy prompts that end higher"})
    never_successful: int = field(metadata={"label": "prompts without a success in any group"})

    @property
    def rows(self) -> list[tuple[str, float | int]]:
        """(label, value) per field, in order: the rows of the chapter's table."""
        return [(f.metadata["label"], getattr(self, f.name)) for f in fields(self)]


def beta_zero_facts(result: dict, key: str, G: int) -> BetaZeroFacts:
    """What an outer step did to a prompt's success, by what its group of G answers held (section "The same prompts
    under TRL"): mixed (k = 1..G-1: TRL's advantage moves it), all successes (k = G) or no success (k = 0). In the
    last two TRL's advantage is 0, and with beta = 0 there is no KL term: the prompt's own loss is zero. Changes
    p_n - p_{n-1} over every (prompt, outer step); also the share of prompts with p_ref >= 1/2 that end above their
    p_ref (NaN for a kind of group that never occurred)."""
    a = _arrays(result, key)
    dp = np.diff(a["p"], axis=0)  # (M, P): step n's change, made from the group drawn at step n
    k = a["k"]
    mixed, full, empty = (k > 0) & (k < G), k == G, k == 0
    easy = a["p"][0] >= 0.5
    return BetaZeroFacts(
        mixed_steps=int(mixed.sum()),
        mean_change_mixed=float(dp[mixed].mean()),
        full_steps=int(full.sum()),
        mean_change_full=float(dp[full].mean()) if full.any() else float("nan"),
        empty_steps=int(empty.sum()),
        largest_change_empty=float(np.abs(dp[empty]).max()) if empty.any() else float("nan"),
        mean_size_change_mixed=float(np.abs(dp[mixed]).mean()),
        easy_share_higher=float((a["p"][-1][easy] > a["p"][0][easy]).mean()),
        never_successful=int((k.sum(axis=0) == 0).sum()),
    )


def timing_table(result: dict) -> Table:
    """Per run: wall time and the median wall time of one outer step (generation + mu optimizer steps) (section
    "Time and hardware")."""
    rows = [
        [run_label(key), f"{run['wall_s']:.1f}", f"{np.median(run['outer_step_s']):.2f}"]
        for key, run in result["runs"].items()
    ]
    return Table(["run", "wall time (s)", "per outer step (s)"], rows)


# --- Section "Every knob": the direction of the KL whose gradient k3 gives -----------------------------------------

#: The book's statement of which KL's gradient Schulman's k3 gives in expectation, per placement of
#: :func:`grpo_nb.kl.expected_estimator_gradient`: as a loss without the ratio, the forward KL(pi_ref || pi_theta);
#: times the importance ratio (``use_bias_correction_kl``), the reverse KL(pi_theta || pi_ref) of Eq. (2).
KL_GRADIENT_DIRECTION: dict[str, str] = {"loss": "forward", "ratio_weighted": "reverse"}


def kl_direction_check(n_draws: int = 50, n_answers: int = 6, *, seed: int = 0) -> dict[str, float]:
    """Section "Every knob, checked by TRL's own code": per placement of k3 (``loss``, ``ratio_weighted``), the
    largest gap, over ``n_draws`` seeded softmax policies and references on ``n_answers`` answers, between k3's exact
    expected gradient (:func:`grpo_nb.kl.expected_estimator_gradient`) and the gradient of the KL direction that
    :data:`KL_GRADIENT_DIRECTION` states (:func:`grpo_nb.kl.softmax_kl_gradients`)."""
    from grpo_nb.kl import expected_estimator_gradient, softmax_kl_gradients

    rng = np.random.default_rng(seed)
    gaps = dict.fromkeys(KL_GRADIENT_DIRECTION, 0.0)
    for _ in range(n_draws):
        logits, ref_logits = rng.normal(size=(2, n_answers))
        log_ref = ref_logits - np.logaddexp.reduce(ref_logits)
        reverse, forward = softmax_kl_gradients(logits, log_ref)
        for placement, direction in KL_GRADIENT_DIRECTION.items():
            target = {"reverse": reverse, "forward": forward}[direction]
            gap = np.abs(expected_estimator_gradient(logits, log_ref, "k3", placement=placement) - target).max()
            gaps[placement] = max(gaps[placement], float(gap))
    return gaps


# --- Section "TRL's default, beta = 0": what moves a prompt whose own loss is zero -------------------------------


@dataclass(frozen=True)
class AdamCarry:
    """One AdamW step with a gradient, then one with gradient 0, at the TRL config's optimizer settings: the second
    step's largest weight change (``move``) and the learning rate, for scale."""

    optim: str
    move: float
    lr: float


def adam_zero_gradient_step(lr: float = 5e-4, *, seed: int = 0) -> AdamCarry:
    """Section "TRL's default, beta = 0": whether a weight whose gradient is exactly 0 on a step still moves under
    the optimizer TRL builds by default (``optim``, ``adam_beta1``, ``adam_beta2``, ``adam_epsilon``,
    ``weight_decay`` of TRL's ``GRPOConfig``), after one step with a seeded N(0, 1) gradient."""
    config = _default_config()
    w = torch.zeros(16, requires_grad=True)
    opt = torch.optim.AdamW(
        [w],
        lr=lr,
        betas=(config.adam_beta1, config.adam_beta2),
        eps=config.adam_epsilon,
        weight_decay=config.weight_decay,
    )
    gen = torch.Generator().manual_seed(seed)
    for grad in (torch.randn(16, generator=gen), torch.zeros(16)):
        before = w.detach().clone()
        w.grad = grad
        opt.step()
    return AdamCarry(str(getattr(config.optim, "value", config.optim)), float((w.detach() - before).abs().max()), lr)


# --- Section "The same prompts under TRL": amplification, the prediction gaps with an error bar --------------------


@dataclass(frozen=True)
class AmplificationFacts:
    """:func:`amplification_facts`, per run (keyed by run): of the ``n_easy`` prompts with p_ref >= 1/2, how many end
    above p_ref (``easy_above``) and their mean final p (``easy_final``); of all ``n_prompts``, how many end below
    p_ref (``below_ref``). ``predictions_above_ref``: both predictions of the first run (the recursion and the
    finite-group mean) stay at or above p_ref at every step, for every prompt (Theorem 3's amplification)."""

    n_easy: int
    n_prompts: int
    easy_above: dict[str, int]
    easy_final: dict[str, float]
    below_ref: dict[str, int]
    predictions_above_ref: bool


def amplification_facts(result: dict, keys: list[str]) -> AmplificationFacts:
    """Section "The same prompts under TRL": where each run's prompts end against p_ref, and whether the first run's
    predictions ever fall below p_ref."""
    arrays = {k: _arrays(result, k) for k in keys}
    first = arrays[keys[0]]
    p_ref = first["p"][0]
    easy = p_ref >= 0.5
    predictions = [first["theory"]] + ([] if first["finite"] is None else [first["finite"]])
    return AmplificationFacts(
        n_easy=int(easy.sum()),
        n_prompts=int(p_ref.size),
        easy_above={k: int((a["p"][-1][easy] > p_ref[easy]).sum()) for k, a in arrays.items()},
        easy_final={k: float(a["p"][-1][easy].mean()) for k, a in arrays.items()},
        below_ref={k: int((a["p"][-1] < p_ref).sum()) for k, a in arrays.items()},
        predictions_above_ref=all(bool(np.all(x >= p_ref - 1e-12)) for x in predictions),
    )


BOOTSTRAP_SEED = 0  # fixed, not the page's SEED: the bootstrap's interval is an output nbval compares
N_BOOTSTRAP = 4000


def _worst_gaps(result: dict, key: str, prediction: str) -> np.ndarray:
    """Per prompt, max_n |p_n - prediction_n| (``prediction``: "theory" or "finite", the first run's)."""
    a = _arrays(result, key)
    first = _arrays(result, next(iter(result["runs"])))
    return np.abs(a["p"] - first[prediction]).max(axis=0)


@dataclass(frozen=True)
class GapDifference:
    """Median over prompts of the worst gap of (run, prediction) a and b, the paired bootstrap's 95% interval of
    median(a) - median(b) (resampling prompts, :data:`BOOTSTRAP_SEED`), and how many prompts have a > b."""

    median_a: float
    median_b: float
    low: float
    high: float
    n_larger: int
    n_prompts: int


def gap_difference(result: dict, a: tuple[str, str], b: tuple[str, str]) -> GapDifference:
    """Section "The same prompts under TRL": how much larger the worst gap of ``a`` = (run key, prediction) is than
    that of ``b``, with a seeded paired bootstrap over prompts (the prompts are resampled, each keeping its pair)."""
    ga, gb = _worst_gaps(result, *a), _worst_gaps(result, *b)
    idx = np.random.default_rng(BOOTSTRAP_SEED).integers(0, ga.size, (N_BOOTSTRAP, ga.size))
    diff = np.median(ga[idx], axis=1) - np.median(gb[idx], axis=1)
    low, high = np.percentile(diff, [2.5, 97.5])
    return GapDifference(
        float(np.median(ga)), float(np.median(gb)), float(low), float(high), int((ga > gb).sum()), int(ga.size)
    )


FOLLOW_TOL = 0.1  # a run "follows" a prediction when its median worst gap is below this


@dataclass(frozen=True)
class FollowCheck:
    """The first run's settings against the conditions of the page's table (``meets``: beta > 0, group scaling,
    clip range >= 100, mu >= 10), its median worst gap to the nearer prediction, and how many prompts end below
    p_ref."""

    meets: bool
    settings: dict
    median_gap: float
    below_ref: int
    n_prompts: int

    @property
    def follows(self) -> bool:
        """Whether the run follows a prediction: median worst gap below :data:`FOLLOW_TOL` and no prompt below p_ref."""
        return self.median_gap < FOLLOW_TOL and self.below_ref == 0


def follow_check(result: dict, key: str) -> FollowCheck:
    """Section "When TRL follows the recursion": does the run that meets the table's conditions for "follows" follow
    either prediction?"""
    trl = result["runs"][key]["trl"]
    meets = (
        trl["beta"] > 0 and trl["scale_rewards"] == "group" and trl["epsilon"] >= 100 and trl["num_iterations"] >= 10
    )
    gaps = prediction_gaps(result, key)
    a = _arrays(result, key)
    return FollowCheck(
        bool(meets),
        {k: trl[k] for k in ("beta", "epsilon", "num_iterations", "G")},
        min(gaps.infinite_g, gaps.finite_g),
        int((a["p"][-1] < a["p"][0]).sum()),
        int(a["p"].shape[1]),
    )


# --- Section "In practice": the other chapters' numbers the advice quotes, recomputed -----------------------------


@dataclass(frozen=True)
class PracticeNumbers:
    """The numbers section "In practice" quotes from other chapters, recomputed from the math modules:
    ``g_star`` (the group-size chapter's budget-optimal G for the unnormalised estimator on its eight toy prompts),
    ``bias_g8`` (the relative bias of the std-normalised gradient at G = 8 on its three bandits, smallest and
    largest) and ``rho2`` (the share rho_2(0.1) of Theorem 2's step a group of two keeps at eps = 1e-5)."""

    g_star: float
    bias_g8: tuple[float, float]
    rho2: float


def practice_numbers() -> PracticeNumbers:
    """Section "In practice": the group-size chapter's prompts and bandits (same seeds), through
    :func:`grpo_nb.ustat.scaling.scaling_constants`, :func:`grpo_nb.ustat.moments.exact_moments` and
    :func:`grpo_nb.ustat.finite_group.signal_retention`."""
    from grpo_nb.tabular.algorithm1 import make_task
    from grpo_nb.ustat.bandit import PromptSet
    from grpo_nb.ustat.finite_group import signal_retention
    from grpo_nb.ustat.moments import exact_moments
    from grpo_nb.ustat.scaling import scaling_constants

    task = make_task(np.array([0.05, 0.1, 0.2, 0.3, 0.5, 0.6, 0.7, 0.8]), n_outcomes=6, n_success=2, seed=1)
    g_star = scaling_constants(PromptSet(task.ref_logits, task.reward, np.full(8, 1 / 8))).optimal_group_size
    bandits = make_task(np.array([0.2, 0.5, 0.85]), n_outcomes=6, n_success=2, seed=3)
    bias = [
        exact_moments(logits, reward, 8, estimator="grpo_std").relative_bias
        for logits, reward in zip(bandits.ref_logits, bandits.reward, strict=True)
    ]
    return PracticeNumbers(float(g_star), (min(bias), max(bias)), float(signal_retention(0.1, 2, 1e-5)))
