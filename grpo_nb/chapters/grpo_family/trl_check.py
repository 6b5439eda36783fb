"""Section "Checked against TRL's code" of the chapter "The GRPO family" (``book/grpo_family.md``).

:func:`trl_comparison`: TRL 1.16's advantages and losses, run by TRL's own ``GRPOTrainer`` on given rewards and
log-probabilities, against :func:`grpo_nb.family.advantage` and :func:`grpo_nb.family.loss` (:data:`ADVANTAGE`,
:data:`LOSS`), and what TRL does with a silent group (it keeps it: no dynamic sampling).

The negative tests replace :data:`ADVANTAGE` or :data:`LOSS` with a wrong rule and see TRL disagree.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np
import torch

from grpo_nb import family
from grpo_nb.chapters.grpo_family.batch import random_batch
from grpo_nb.chapters.grpo_family.tolerances import TOL, TOL_TRL
from grpo_nb.constants import CLIP_EPS, PRACTICAL_BETA
from grpo_nb.report import Table, bound
from grpo_nb.trl_adapters.trainer import TRL_CONFIGS, TRLRun, make_trainer, prepare_trl

__all__ = ["ADVANTAGE", "LOSS", "TOL", "TOL_TRL", "TRLComparison", "TRL_LOSS_CASES", "TRL_REWARDS", "FixedReward",
           "as_trl_reads", "probe_trainer", "trl_comparison", "trl_loss"]  # fmt: skip

ADVANTAGE = family.advantage
LOSS = family.loss
_PROBE = replace(TRL_CONFIGS["tiny"], name="family", G=4, mu=1, n=1)
#: Four groups of four: one success, two, and two silent groups (all successes, all failures).
TRL_REWARDS = np.array([[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]])
#: The knobs TRL's ``_compute_loss`` reads from ``trainer.args``, not from the trainer: the soft weightings'
#: parameters (``sapo_temperature_pos``, ``vespo_k_pos``, …).
ARGS_ONLY_PREFIXES = ("sapo_", "vespo_")
#: The book's choices for the loss comparison beyond each method's own flags: (TRL knobs, the book's keyword
#: arguments) for Dr. GRPO's KL term without TRL's bias correction.
TRL_LOSS_EXTRAS = {"dr_grpo": ({"use_bias_correction_kl": False}, {"bias_correction": False})}


def _loss_case(m: family.Method) -> tuple[dict, dict]:
    """TRL's knobs for method ``m`` and the book's keyword arguments for :data:`LOSS`: its ``loss_type`` (TRL's
    default "grpo" where its flags name none) and ratio level, its clip range where it is not TRL's default, its soft
    weighting's parameters under TRL's names (``sapo_temperature_pos``, ``vespo_k_pos``, …), beta =
    :data:`grpo_nb.constants.PRACTICAL_BETA` where its KL sits in the loss, and :data:`TRL_LOSS_EXTRAS`."""
    flags = m.trl_config
    knobs = {"loss_type": flags.get("loss_type", "grpo")}
    if "importance_sampling_level" in flags:
        knobs["importance_sampling_level"] = flags["importance_sampling_level"]
    if m.gate:
        knobs |= {f"{knobs['loss_type']}_{key}": value for key, value in m.gate}
    else:
        for key, value in zip(("epsilon_low", "epsilon_high"), m.clip_range, strict=True):
            if value != CLIP_EPS:
                knobs[key] = value
    book = {}
    if m.kl is family.KLPlacement.LOSS:
        knobs["beta"] = book["beta"] = PRACTICAL_BETA
    extra_knobs, extra_book = TRL_LOSS_EXTRAS.get(m.name, ({}, {}))
    return knobs | extra_knobs, book | extra_book


#: TRL's knobs for each method of the loss comparison, the methods TRL's GRPOTrainer runs: (GRPOConfig names and
#: values, the book's keyword arguments), from each method's record (:func:`_loss_case`).
TRL_LOSS_CASES = {m.name: _loss_case(m) for m in family.METHODS if m.trl_trainer is family.TRLTrainer.GRPO}


def as_trl_reads(m: family.Method) -> family.Method:
    """Record ``m`` with its soft weighting's parameters rounded to float32, as TRL 1.16 reads them: it picks them per
    answer with ``torch.where`` over two Python numbers, which gives a tensor of torch's default dtype (SAPO's 1.05
    becomes 1.0499999523…; VESPO's 2 and 3 are exact)."""
    return replace(m, gate=tuple((key, float(np.float32(value))) for key, value in m.gate)) if m.gate else m


class FixedReward:
    """A reward function that returns given rewards, whatever was sampled."""

    __name__ = "fixed_reward"

    def __init__(self, rewards: list[float]) -> None:
        self.rewards = rewards

    def __call__(self, prompts, completions, **kwargs) -> list[float]:
        return list(self.rewards)


@functools.lru_cache(maxsize=1)
def probe_trainer():
    """TRL's ``GRPOTrainer`` on the tiny toy model, built once, in eval mode: the trainer whose own advantage and loss
    code the family's checks run."""
    trainer = make_trainer(prepare_trl(_PROBE), TRLRun("family", 0.0, CLIP_EPS))
    trainer.model.eval()
    return trainer


def _trl_batch(trainer, rewards: np.ndarray, scale_rewards: str) -> dict:
    """TRL's ``_generate_and_score_completions`` on a fresh batch whose rewards are ``rewards``: the batch it trains
    on (advantages, completion mask, the token count of its loss normaliser)."""
    saved = trainer.reward_funcs, trainer.scale_rewards
    trainer.reward_funcs, trainer.scale_rewards = [FixedReward(rewards.reshape(-1).tolist())], scale_rewards
    try:
        torch.manual_seed(0)
        examples = [{"prompt": "0+0=", "index": i} for i in range(rewards.shape[0]) for _ in range(rewards.shape[1])]
        return trainer._generate_and_score_completions(examples)
    finally:
        trainer.reward_funcs, trainer.scale_rewards = saved


def trl_loss(
    trainer, batch: dict[str, np.ndarray], knobs: dict, *, n_tokens: float, entropies: torch.Tensor | None = None
) -> tuple[float, np.ndarray]:
    """TRL's ``_compute_loss`` on given log-probabilities (the model's forward pass replaced by them, with the given
    per-token ``entropies``, zeros by default) and its gradient with respect to them (autograd)."""
    B, T = batch["logp"].shape
    logp = torch.tensor(batch["logp"], requires_grad=True)
    ent = torch.zeros_like(logp) if entropies is None else entropies
    trainer._get_per_token_logps_and_entropies = lambda *a, **k: (logp, ent, None)
    args_knobs = {"use_bias_correction_kl": knobs.pop("use_bias_correction_kl", True)}
    args_knobs |= {key: knobs.pop(key) for key in list(knobs) if key.startswith(ARGS_ONLY_PREFIXES)}
    defaults = {"beta": 0.0, "epsilon_low": CLIP_EPS, "epsilon_high": CLIP_EPS, "importance_sampling_level": "token"}
    for key, value in (defaults | knobs | {"max_completion_length": T}).items():
        setattr(trainer, key, value)
    for key, value in args_knobs.items():
        setattr(trainer.args, key, value)
    inputs = {"prompt_ids": torch.zeros((B, 1), dtype=torch.long), "prompt_mask": torch.ones((B, 1)),
              "completion_ids": torch.zeros((B, T), dtype=torch.long),
              "completion_mask": torch.tensor(batch["mask"]), "advantages": torch.tensor(batch["advantages"]),
              "old_per_token_logps": torch.tensor(batch["old_logp"]),
              "ref_per_token_logps": torch.tensor(batch["ref_logp"]),
              "num_items_in_batch": torch.tensor(n_tokens, dtype=torch.float64)}  # fmt: skip
    try:
        value = trainer._compute_loss(trainer.model, inputs)
        value.backward()
    finally:
        del trainer._get_per_token_logps_and_entropies
    return float(value.detach()), logp.grad.detach().numpy()


@dataclass(frozen=True)
class TRLComparison:
    """TRL against the book: ``table`` (one row per check), the worst gaps of the advantages, losses, gradients, and
    ``silent_kept``: TRL's batch keeps the silent groups' answers, with zero advantage, and its loss normaliser
    counts their tokens (``silent_share``: the share of its tokens they hold)."""

    table: Table
    advantage_gap: float
    loss_gap: float
    grad_gap: float
    silent_kept: bool
    silent_share: float


def _silent_groups_kept(out: dict) -> tuple[bool, float]:
    """Whether TRL's batch ``out`` for :data:`TRL_REWARDS` keeps every answer of its silent groups, with A = 0, and
    counts their tokens in ``num_items_in_batch``; and the share of the tokens they hold."""
    silent = np.repeat(np.ptp(TRL_REWARDS, axis=1) == 0, TRL_REWARDS.shape[1])
    adv = out["advantages"].double().numpy()
    mask = out["completion_mask"].double().numpy()
    if adv.shape != silent.shape or mask.shape[0] != silent.size:
        return False, 0.0  # answers were dropped
    kept = bool(np.all(adv[silent] == 0)) and float(out["num_items_in_batch"]) == mask.sum() and mask[silent].sum() > 0
    return kept, float(mask[silent].sum() / mask.sum())


def trl_comparison() -> TRLComparison:
    """TRL 1.16's own code against :data:`ADVANTAGE` and :data:`LOSS` (section "Checked against TRL's code").

    Advantages: TRL's ``scale_rewards="group"`` against GRPO's advantage in TRL's form, ``"none"`` against Dr. GRPO's,
    on :data:`TRL_REWARDS` (silent groups included). Losses: TRL's ``_compute_loss`` with the knobs of
    :data:`TRL_LOSS_CASES`, on an off-policy batch with answers of different lengths (DAPO and CISPO divide by the
    generation batch's token count, here set to twice the batch's tokens)."""
    trainer = probe_trainer()
    rows, adv_gaps, loss_gaps, grad_gaps = [], [], [], []
    for name, scale in (("grpo", "group"), ("dr_grpo", "none")):
        book = ADVANTAGE(name, TRL_REWARDS, form="trl") if name == "grpo" else ADVANTAGE(name, TRL_REWARDS)
        out = _trl_batch(trainer, TRL_REWARDS, scale)
        trl_adv = out["advantages"].double().numpy().reshape(TRL_REWARDS.shape)
        adv_gaps.append(float(np.abs(trl_adv - book).max()))
        rows.append([f"advantage, {name}", f'`scale_rewards="{scale}"`', bound(adv_gaps[-1], TOL_TRL), "—"])
    silent_kept, silent_share = _silent_groups_kept(out)
    batch = random_batch()
    n_tokens = 2.0 * batch["mask"].sum()
    for name, (knobs, book_kwargs) in TRL_LOSS_CASES.items():
        trl_value, trl_grad = trl_loss(trainer, batch, dict(knobs), n_tokens=n_tokens)
        row = as_trl_reads(family.method(name)) if family.method(name).gate else name
        book = LOSS(row, batch["logp"], batch["advantages"], old_logp=batch["old_logp"],
                    ref_logp=batch["ref_logp"], mask=batch["mask"], n_tokens=n_tokens, **book_kwargs)  # fmt: skip
        loss_gaps.append(abs(book.value - trl_value))
        grad_gaps.append(float(np.abs(book.grad - trl_grad).max()))
        flags = ", ".join(f"`{k}={v!r}`" for k, v in knobs.items())
        rows.append([f"loss, {name}", flags, bound(loss_gaps[-1], TOL), bound(grad_gaps[-1], TOL)])
    table = Table(["check", "TRL trainer attributes set", "value gap", "gradient gap"], rows)
    return TRLComparison(table, max(adv_gaps), max(loss_gaps), max(grad_gaps), silent_kept, silent_share)
