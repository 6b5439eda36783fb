"""Section "Every knob, checked by TRL's own code" of the chapter "GRPO in TRL": the knobs of TRL's loss, each checked
by running TRL's ``compute_loss`` on a probe (:func:`~grpo_nb.chapters.trl_grpo.advantage_probe.make_probe`) whose
importance ratio, reference log-probabilities or advantages the check sets, against the book's formula:

- the KL estimator (:func:`kl_check`) against Schulman's k3 (:func:`grpo_nb.toylm.grpo.k3_kl`), with and without
  ``use_bias_correction_kl`` (k3 times the importance ratio): :func:`book_kl`;
- the loss aggregation (``loss_type``, :func:`loss_type_check`) against :func:`aggregate`;
- the clip range (``epsilon``, ``epsilon_high``) and ``delta`` (:func:`clip_check`) against
  :func:`grpo_nb.clipping.clipped_term` (:func:`book_clipped_term`, :func:`book_delta_ratio`);
- ``importance_sampling_level`` = sequence (the ratio exp(mean_t log ratio_t)) against token
  (:func:`sequence_ratio_check`, :func:`book_log_ratio`).

The book's side of each check is a module-level name of this module; a check reads it when it runs, so replacing one
by a wrong statement (as the tests do) makes its check fail.
"""

from __future__ import annotations

import numpy as np
import torch

from grpo_nb.chapters.trl_grpo.advantage_probe import Probe, _np
from grpo_nb.clipping import clipped_term
from grpo_nb.toylm.grpo import k3_kl
from grpo_nb.validation import check_choice

__all__ = [
    "LOSS_TYPES",
    "aggregate",
    "book_clipped_term",
    "book_delta_ratio",
    "book_kl",
    "book_log_ratio",
    "clip_check",
    "kl_check",
    "loss_type_check",
    "sequence_ratio_check",
]

LOSS_TYPES: tuple[str, ...] = ("grpo", "bnpo", "dr_grpo", "dapo")


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


def _ratio_draw(probe: Probe, *, seed: int, width: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-ratios u ~ U(-width/2, width/2) per token (B, T) and advantages ~ N(0, 1) per completion (B,), drawn in
    that order from one torch generator seeded ``seed`` on the probe's device."""
    dev = probe.logp.device
    gen = torch.Generator(device=dev).manual_seed(seed)
    b, t = probe.logp.shape
    u = (torch.rand(b, t, generator=gen, device=dev) - 0.5) * width
    return u, torch.randn(b, generator=gen, device=dev)


def clip_check(
    probe: Probe, clip_eps: float, clip_eps_high: float | None = None, *, delta: float | None = None
) -> float:
    """|TRL's loss - the book's clipped objective| at ratios exp(u), u ~ U(-0.7, 0.7), advantages ~ N(0, 1), with TRL's
    ``epsilon`` = ``clip_eps``, ``epsilon_high`` = ``clip_eps_high`` (default ``clip_eps``) and ``delta``; a row of
    :func:`knob_table` (section "Every knob, checked by TRL's own code").

    The book: -mean of :func:`book_clipped_term` with the same two clip ranges, at the ratio capped by
    :func:`book_delta_ratio` (for ``delta`` >= 1 + ``clip_eps_high``, where capping the unclipped term's ratio is
    capping the ratio)."""
    b, t = probe.logp.shape
    u, adv = _ratio_draw(probe, seed=1, width=1.4)
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
    t = probe.logp.shape[1]
    u, adv = _ratio_draw(probe, seed=2, width=0.6)
    trainer = probe.trainer
    trainer.loss_type, trainer.importance_sampling_level = "bnpo", level
    trainer.epsilon_low = trainer.epsilon_high = 1e3
    loss = probe.loss(advantages=adv, old_per_token_logps=probe.logp - u)
    mask = _np(probe.inputs["completion_mask"])
    lr = book_log_ratio(_np(u), mask, level)
    return abs(loss - aggregate(-np.exp(lr) * _np(adv)[:, None], mask, "bnpo", max_len=t))
