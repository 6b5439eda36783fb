"""GRPO with verifiable 0/1 rewards on the toy LM: Algorithm 1 of Mroueh 2025 (§2.4).

Each outer iteration n freezes pi_old <- pi_theta, estimates every prompt's success probability and
the advantages, then takes ``mu`` Adam steps on the no-clip objective (GRPO-No-Clip; optional PPO
clipping) minus beta KL(pi_theta || pi_ref). Two estimators:

- ``exact``: every output is enumerated, so p_old(q) is exact and the objective is Eq. (6) itself,
  sum_o pi_theta(o|q) (omega^+ r - omega^- (1 - r)) - beta KL, with the exact sequence-level KL.
- ``sampled``: G answers per prompt from pi_old (KV-cache sampling), the group's advantage (paper's
  stabilised one, Eq. 3, or TRL's), the sequence-level importance ratio pi_theta/pi_old, and the KL
  either exact or estimated with Schulman's k3 per token (summed over the answer's tokens). The clip range may
  differ on the two sides (``clip_eps`` below 1, ``clip_eps_high`` above, as DAPO's clip-higher), and
  ``reward_signal="random"`` replaces every sampled answer's reward by a Bernoulli(1/2) draw independent of it
  (the random rewards of Shao et al. 2025, arXiv 2506.10947).

Both estimators take the weights omega^+ and omega^- of Eq. (4) from one helper, ``omega_weights``; their
numpy home is ``grpo_nb.weights``.

After every outer iteration the whole table log pi_theta(o|q) is recorded for the comparison with theory.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

from grpo_nb.advantage import DEFAULT_EPS
from grpo_nb.toylm.configs import BookTrainerConfig
from grpo_nb.toylm.device import synchronize
from grpo_nb.toylm.model import TinyLM
from grpo_nb.toylm.rollout import enumerate_logprobs, sample, token_logprobs

__all__ = [
    "GRPOHistory",
    "TaskTensors",
    "clipped_term",
    "contrastive_weights",
    "exact_kl",
    "group_advantage",
    "grpo_loss",
    "k3_kl",
    "new_optimizer",
    "omega_weights",
    "train_grpo",
]


#: The kernels of this module: public, vectorised and fast, they do not validate their input (their callers do).
KERNELS = (
    "clipped_term",
    "exact_kl",
    "group_advantage",
    "grpo_loss",
    "k3_kl",
)


@dataclass(frozen=True)
class TaskTensors:
    """What the trainer needs of the task: prompts (P, T0), outputs (K, L), r(q, o) (P, K), log pi_ref (P, K)."""

    prompts: torch.Tensor
    outputs: torch.Tensor
    reward: torch.Tensor
    logp_ref: torch.Tensor


@dataclass
class GRPOHistory:
    """log pi_theta_n(o|q) for n = 0..M (shape (M+1, P, K)), inner losses, wall time, sampling counts."""

    logp: np.ndarray
    inner_loss: np.ndarray
    wall_s: float
    sampled_tokens: int = 0
    sampling_s: float = 0.0
    step_s: list[float] = field(default_factory=list)


def omega_weights(p: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Eq. (4): omega^+_eps(p) = (1 - p)/sqrt(p(1-p) + eps) and omega^-_eps(p) = p/sqrt(p(1-p) + eps), elementwise.

    The torch twin of ``grpo_nb.weights.omega_plus`` and ``omega_minus`` (tested against them), for a ``p``
    that lives on the training device: it neither validates nor waits for the device. Where
    p(1-p) + eps <= 0 (eps = 0 with p at 0 or 1, or rounded just past them) both weights are 0 instead of
    NaN: then every answer of the group, or all of pi_old's mass, has the same reward, and the term
    omega^- (1 - p) = sqrt(p(1-p)) that the weights contribute to the objective tends to 0.
    """
    var = p * (1.0 - p) + eps
    defined = var > 0
    sd = torch.sqrt(torch.where(defined, var, torch.ones_like(var)))
    zero = torch.zeros_like(var)
    return torch.where(defined, (1.0 - p) / sd, zero), torch.where(defined, p / sd, zero)


def contrastive_weights(p: torch.Tensor, reward: torch.Tensor, eps: float) -> torch.Tensor:
    """omega^+_eps(p) r - omega^-_eps(p) (1 - r): the weight of an answer with 0/1 reward r (Eq. 6).

    For r in {0, 1} it equals the stabilised advantage (r - p)/sqrt(p(1-p) + eps) of Eq. (3). ``p`` broadcasts
    against ``reward`` (one success probability per prompt or per group).
    """
    w_plus, w_minus = omega_weights(p, eps)
    return w_plus * reward - w_minus * (1.0 - reward)


def group_advantage(rewards: torch.Tensor, form: str, eps: float) -> torch.Tensor:
    """The advantage of each answer of a group, ``rewards`` (B, G) of 0/1: ``form`` "paper" is Eq. (3),
    (r - p)/sqrt(p(1-p) + eps) with p the group's mean reward; "trl" is TRL's (r - mean)/(std + eps), std with
    Bessel's correction (TRL's eps is ``grpo_nb.advantage.DEFAULT_EPS["trl"]``).

    The torch twin of :func:`grpo_nb.advantage.group_advantage` for these two forms (tested against it); no
    validation.
    """
    if form == "paper":
        return contrastive_weights(rewards.mean(dim=1, keepdim=True), rewards, eps)
    return (rewards - rewards.mean(dim=1, keepdim=True)) / (rewards.std(dim=1, keepdim=True) + eps)


def k3_kl(logp: torch.Tensor, logp_ref: torch.Tensor) -> torch.Tensor:
    """Schulman's k3 estimator of KL(pi || pi_ref) per sampled token: exp(d) - d - 1, d = log pi_ref - log pi.

    The torch twin of :func:`grpo_nb.kl.k3` (tested against it); no validation.
    """
    d = logp_ref - logp
    return torch.exp(d) - d - 1.0


def exact_kl(logp: torch.Tensor, logp_ref: torch.Tensor) -> torch.Tensor:
    """KL(pi || pi_ref) per prompt from the (P, K) tables of log-probabilities of every output.

    The torch twin of :func:`grpo_nb.kl.categorical_kl` (tested against it); no validation.
    """
    return (logp.exp() * (logp - logp_ref)).sum(dim=1)


def _check_generator(generator: torch.Generator, device: torch.device) -> None:
    """Every random draw of the trainer uses ``generator`` on tensors of ``device``: their devices must agree."""
    gen = torch.device(generator.device)
    if gen.type != device.type or (None not in (gen.index, device.index) and gen.index != device.index):
        raise ValueError(
            f"generator on device {gen} cannot draw for the task's tensors on {device}; "
            f"valid: a torch.Generator(device={str(device)!r})"
        )


def clipped_term(
    ratio: torch.Tensor, adv: torch.Tensor, clip_eps: float | None, *, clip_eps_high: float | None = None
) -> torch.Tensor:
    """f(x, A) = min(x A, clip(x, 1 - eps, 1 + eps_high) A) with eps = ``clip_eps`` and eps_high = ``clip_eps_high``
    (``clip_eps`` where None); x A when ``clip_eps`` is None.

    The torch twin of :func:`grpo_nb.clipping.clipped_term` (symmetric) and of
    :func:`grpo_nb.tabular.clip_bias.asymmetric_clipped_term` (tested against both; None there is ``inf``); no
    validation.
    """
    if clip_eps is None:
        return ratio * adv
    high = clip_eps if clip_eps_high is None else clip_eps_high
    return torch.minimum(ratio * adv, ratio.clamp(1.0 - clip_eps, 1.0 + high) * adv)


def grpo_loss(
    logp: torch.Tensor,
    logp_old: torch.Tensor,
    adv: torch.Tensor,
    *,
    beta: float,
    clip_eps: float | None,
    logp_ref: torch.Tensor | None = None,
    kl: torch.Tensor | None = None,
    clip_eps_high: float | None = None,
) -> torch.Tensor:
    """Algorithm 1's loss on sampled answers: minus the clipped surrogate of Eq. (1), plus beta times the KL term.

    ``logp``, ``logp_old`` and ``logp_ref`` are (N, L): the L token log-probabilities of each of N answers under
    pi_theta, the frozen pi_old and pi_ref; ``adv`` (N,) is each answer's group advantage. The KL term is Schulman's
    k3 summed over an answer's tokens and averaged over answers, unless ``kl`` gives it (the exact KL, say).
    """
    ratio = torch.exp((logp - logp_old).sum(dim=1))  # pi_theta(o|q) / pi_old(o|q), a whole answer's ratio
    surrogate = clipped_term(ratio, adv, clip_eps, clip_eps_high=clip_eps_high)  # min(xA, clip(x, 1-eps, 1+eps_h) A)
    if kl is None:
        kl = k3_kl(logp, logp_ref).sum(dim=1).mean()  # exp(d) - d - 1 per token, d = log pi_ref - log pi
    return -surrogate.mean() + beta * kl


def new_optimizer(model: TinyLM, lr: float) -> torch.optim.Adam:
    """Adam with the multi-tensor (foreach) update, which CUDA uses by default: a handful of kernels per step
    instead of several per parameter tensor. On the CPU it gives the same numbers as the per-tensor loop."""
    return torch.optim.Adam(model.parameters(), lr=lr, foreach=True)


def train_grpo(
    model: TinyLM,
    ref_model: TinyLM,
    task: TaskTensors,
    *,
    cfg: BookTrainerConfig,
    generator: torch.Generator,
    sampler: Callable[..., torch.Tensor] = sample,
    on_outer_step: Callable[[], object] | None = None,
) -> GRPOHistory:
    """Algorithm 1 on ``model`` (updated in place); ``ref_model`` is pi_ref (frozen). Returns the history.

    ``cfg`` is a :class:`~grpo_nb.toylm.configs.BookTrainerConfig`, whose fields were checked when it was created
    (anything else: ValueError). Everything stays on the device of ``task``; ``generator`` must live there too
    (ValueError otherwise).
    The inner loop never waits for the device: losses and the recorded tables are copied to the host once,
    at the end, and the device is synchronised once per outer iteration (and around sampling) so that the
    recorded times are those of finished work. ``sampler`` draws the G answers of the sampled estimator,
    ``sampler(model, prompts, out_len, generator=generator)`` (``rollout.sample``: batched with a KV cache; the
    benchmark swaps in ``rollout.sample_naive``).
    ``on_outer_step`` is called with no argument after every outer iteration (a progress bar's ``update``, say);
    the algorithm itself shows nothing.
    """
    if not isinstance(cfg, BookTrainerConfig):  # its fields are checked when it is created
        raise ValueError(f"cfg={cfg!r} is not valid; valid: a BookTrainerConfig (checked at creation)")
    device = task.prompts.device
    _check_generator(generator, device)
    run = _Run(opt=new_optimizer(model, cfg.lr))
    synchronize(device)
    start = time.perf_counter()
    for _ in range(cfg.n):
        t_step = time.perf_counter()
        _outer_iteration(model, ref_model, task, cfg, generator, sampler, run)
        synchronize(device)
        run.step_s.append(time.perf_counter() - t_step)
        if on_outer_step is not None:
            on_outer_step()
    with torch.no_grad():
        run.logps.append(enumerate_logprobs(model, task.prompts, task.outputs))
    logp_history = torch.stack(run.logps).cpu().numpy()
    inner_loss = torch.stack(run.losses).cpu().numpy()
    return GRPOHistory(
        logp=logp_history,
        inner_loss=inner_loss,
        wall_s=time.perf_counter() - start,
        sampled_tokens=run.sampled_tokens,
        sampling_s=run.sampling_s,
        step_s=run.step_s,
    )


@dataclass
class _Run:
    """What :func:`train_grpo` carries from one outer iteration to the next: the optimiser, the recorded tables
    log pi_theta (on the device), the inner losses (on the device), the sampling counts and the step times."""

    opt: torch.optim.Adam
    logps: list[torch.Tensor] = field(default_factory=list)
    losses: list[torch.Tensor] = field(default_factory=list)
    sampled_tokens: int = 0
    sampling_s: float = 0.0
    step_s: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class _OuterBatch:
    """One outer iteration's prompts and what its ``mu`` inner steps need: the batch's ``prompts`` and log pi_ref
    table ``logp_ref``; for the exact estimator the weights ``adv_table`` (P_b, K) of every output; for the sampled
    one the repeated prompts ``rep``, the ``answers``, their advantages ``adv`` and token log-probabilities under
    pi_old (``old_lp``) and pi_ref (``ref_lp``, None unless the KL is k3)."""

    prompts: torch.Tensor
    logp_ref: torch.Tensor
    adv_table: torch.Tensor | None = None
    rep: torch.Tensor | None = None
    answers: torch.Tensor | None = None
    adv: torch.Tensor | None = None
    old_lp: torch.Tensor | None = None
    ref_lp: torch.Tensor | None = None


def _outer_iteration(
    model: TinyLM,
    ref_model: TinyLM,
    task: TaskTensors,
    cfg: BookTrainerConfig,
    generator: torch.Generator,
    sampler: Callable[..., torch.Tensor],
    run: _Run,
) -> None:
    """Lines 4-10 of Algorithm 1, once: record log pi_old, draw the batch of prompts, estimate the advantages (exact
    or from G sampled answers per prompt), then take ``mu`` optimiser steps on the loss; ``run`` is updated."""
    n_prompts = task.prompts.shape[0]
    b = n_prompts if cfg.batch_prompts is None else min(cfg.batch_prompts, n_prompts)
    with torch.no_grad():
        logp_old = enumerate_logprobs(model, task.prompts, task.outputs)
    run.logps.append(logp_old)
    if cfg.reset_optimizer:
        run.opt = new_optimizer(model, cfg.lr)
    batch = torch.randperm(n_prompts, generator=generator, device=task.prompts.device)[:b].sort().values
    if cfg.estimator == "exact":
        outer = _exact_batch(task, batch, logp_old, cfg)
    else:
        outer = _sampled_batch(model, ref_model, task, batch, cfg, generator, sampler, run)
    for _ in range(cfg.mu):
        loss = _inner_loss(model, task, outer, cfg)
        run.opt.zero_grad(set_to_none=True)
        loss.backward()
        run.opt.step()
        run.losses.append(loss.detach())


def _exact_batch(task: TaskTensors, batch: torch.Tensor, logp_old: torch.Tensor, cfg: BookTrainerConfig) -> _OuterBatch:
    """The exact estimator's batch: p_old(q) summed over every output, and the weight omega^+ r - omega^- (1 - r) of
    each output (Eq. 6)."""
    prompts, logp_ref = task.prompts[batch], task.logp_ref[batch]
    p_old = (logp_old[batch].exp() * task.reward[batch]).sum(dim=1, keepdim=True)
    adv_table = contrastive_weights(p_old, task.reward[batch], cfg.eps)  # omega^+ r - omega^- (1 - r)
    return _OuterBatch(prompts, logp_ref, adv_table=adv_table)


def _sampled_batch(
    model: TinyLM,
    ref_model: TinyLM,
    task: TaskTensors,
    batch: torch.Tensor,
    cfg: BookTrainerConfig,
    generator: torch.Generator,
    sampler: Callable[..., torch.Tensor],
    run: _Run,
) -> _OuterBatch:
    """The sampled estimator's batch: G answers per prompt from pi_old (timed between two waits for the device,
    counted in ``run``), their rewards (or Bernoulli(1/2) draws when ``reward_signal`` is "random"), the group
    advantages, and the answers' token log-probabilities under pi_old and (for the k3 KL) pi_ref."""
    device = task.prompts.device
    b, g, out_len = batch.shape[0], cfg.G, task.outputs.shape[1]
    prompts, logp_ref = task.prompts[batch], task.logp_ref[batch]
    rep = prompts.repeat_interleave(g, dim=0)
    synchronize(device)
    t_sample = time.perf_counter()
    answers = sampler(model, rep, out_len, generator=generator)
    synchronize(device)
    run.sampling_s += time.perf_counter() - t_sample
    run.sampled_tokens += answers.numel()
    base = model.head.out_features ** torch.arange(out_len - 1, -1, -1, device=answers.device)
    out_index = (answers * base).sum(dim=1)  # row of the answer in the product-order output table
    rewards = task.reward[batch.repeat_interleave(g), out_index].view(b, g)
    if cfg.reward_signal == "random":  # Bernoulli(1/2), drawn apart from the answers
        rewards = (torch.rand(b, g, generator=generator, device=device) < 0.5).to(rewards.dtype)
    eps_adv = cfg.eps if cfg.advantage == "paper" else DEFAULT_EPS["trl"]
    adv = group_advantage(rewards, cfg.advantage, eps_adv)
    adv = adv.reshape(-1)
    with torch.no_grad():
        old_lp = token_logprobs(model, rep, answers)
        ref_lp = token_logprobs(ref_model, rep, answers) if cfg.kl == "k3" else None
    return _OuterBatch(prompts, logp_ref, rep=rep, answers=answers, adv=adv, old_lp=old_lp, ref_lp=ref_lp)


def _inner_loss(model: TinyLM, task: TaskTensors, outer: _OuterBatch, cfg: BookTrainerConfig) -> torch.Tensor:
    """One inner step's loss: minus Eq. (6)'s objective with the exact KL (exact estimator), or :func:`grpo_loss` on
    the sampled answers with the KL of ``cfg.kl`` (k3 per token, or exact over every output)."""
    if cfg.estimator == "exact":
        logp = enumerate_logprobs(model, outer.prompts, task.outputs)
        objective = (logp.exp() * outer.adv_table).sum(dim=1) - cfg.beta * exact_kl(logp, outer.logp_ref)
        return -objective.mean()
    lp = token_logprobs(model, outer.rep, outer.answers)
    kl = None  # k3: grpo_loss computes it from ref_lp
    if cfg.kl != "k3":
        kl = exact_kl(enumerate_logprobs(model, outer.prompts, task.outputs), outer.logp_ref).mean()
    return grpo_loss(
        lp, outer.old_lp, outer.adv, beta=cfg.beta, clip_eps=cfg.clip_eps, logp_ref=outer.ref_lp, kl=kl,
        clip_eps_high=cfg.clip_eps_high,
    )  # fmt: skip
