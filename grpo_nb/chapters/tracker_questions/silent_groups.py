"""Section "All my rewards in a group are equal: loss 0, grad_norm 0" of the chapter "Questions from the trackers"
(``book/tracker_questions.md``; TRL issues 3857 and 5588): silent groups, measured on TRL's own trainer.

* :func:`silent_probability_check`: P(silent) = p^G + (1 - p)^G (:data:`SILENT_PROBABILITY`) against the
  enumeration of every reward vector of a group, and against the probability the group-size chapter's finite-group
  law gives a group without signal (:func:`grpo_nb.ustat.finite_group.finite_group_law`); and what it is not: the
  signal retention rho_G (:func:`grpo_nb.ustat.finite_group.signal_retention`) is another quantity.
* :func:`silent_share_run`: a short run of TRL's ``GRPOTrainer`` on the toy task; the share of its groups that were
  silent against the share expected from the exact success probability each prompt had before each generation.
* :func:`silent_batch_beta_zero`, :func:`silent_batch_kl_pull`: TRL's ``compute_loss`` and its gradient on a batch
  of silent groups (the probe of the chapter "GRPO in TRL"): with beta = 0 both are exactly 0; with beta > 0 the
  gradient is the KL term's alone, per token beta :data:`SILENT_TOKEN_WEIGHT` / N, towards pi_ref on every token.
  :func:`adam_zero_gradient_step` (re-exported from that chapter) shows AdamW moving weights on a zero gradient.
* :func:`dynamic_sampling`: DAPO's dynamic sampling (keep the mixed groups, draw more until the batch is full), which
  TRL 1.16 does not offer (:func:`trl_silent_group_options`): groups drawn per kept group and the update per kept
  group, exactly by enumeration and by a seeded simulation of the sampling loop.

A check reads the book's side of its comparison (a module-level name of this module) when it runs, so replacing it
by a wrong statement (as the tests do) makes the check fail.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import torch

from grpo_nb.advantage import group_advantage, group_rewards
from grpo_nb.chapters.trl_grpo.advantage_probe import Probe, _np, _probe_setup, make_probe, trl_advantages
from grpo_nb.chapters.trl_grpo.beta_zero import adam_zero_gradient_step
from grpo_nb.constants import CLIP_EPS, PAPER_EPS
from grpo_nb.kl import score_weight
from grpo_nb.trl_adapters.trainer import TRLRun, make_trainer, train_measured
from grpo_nb.ustat.finite_group import (
    StepModel,
    finite_group_law,
    mixed_group_probability,
    signal_retention,
    silent_group_probability,
)
from grpo_nb.validation import check_p, check_positive_int

__all__ = [
    "ABSENT_OPTION_WORDS",
    "DAPO_GROUPS_PER_KEPT",
    "DAPO_UPDATE_PER_KEPT",
    "SILENT_PROBABILITY",
    "SILENT_TOKEN_WEIGHT",
    "TOL",
    "DynamicSampling",
    "SilentBatch",
    "SilentProbabilityCheck",
    "SilentShareRun",
    "adam_zero_gradient_step",
    "dynamic_sampling",
    "silent_batch_beta_zero",
    "silent_batch_kl_pull",
    "silent_probability_check",
    "silent_share_run",
    "trl_silent_group_options",
]

TOL = 1e-6  # float32 gradients of size 1e-2; float64 sums of probabilities
SD_MARGIN = 4.0  # the TRL run: |observed - expected| <= 4 sd + one group
MC_SD_MARGIN = 5.0  # the simulation of dynamic sampling: within 5 sd (+ one kept group for the count)

#: The book's statement: a group of G answers, each right with probability p, is silent (all rewards equal) with
#: probability p^G + (1 - p)^G.
SILENT_PROBABILITY: Callable[[np.ndarray, int], np.ndarray] = silent_group_probability


def _weight_k3_loss(d: np.ndarray) -> np.ndarray:
    return score_weight(np.zeros_like(d), d, "k3", placement="loss")  # 1 - e^d


def _weight_k3_ratio(d: np.ndarray) -> np.ndarray:
    return score_weight(np.zeros_like(d), d, "k3", placement="ratio_weighted")  # -d


#: The book's statement of d(TRL's loss)/d(log pi_t) on a silent group, in units of beta / N (N: the batch's completion
#: tokens, TRL's default ``loss_type="dapo"``), as a function of d = log pi_ref - log pi per token, keyed by TRL's
#: ``use_bias_correction_kl``: k3's slope 1 - e^d without the ratio; with it (TRL 1.16's default) k3 + its slope
#: = -d (:func:`grpo_nb.kl.score_weight`).
SILENT_TOKEN_WEIGHT: dict[bool, Callable[[np.ndarray], np.ndarray]] = {False: _weight_k3_loss, True: _weight_k3_ratio}


def _groups_per_kept(silent: np.ndarray) -> float:
    return float(1.0 / (1.0 - np.mean(silent)))


def _update_per_kept(update: np.ndarray, silent: np.ndarray) -> float:
    return float(np.mean(update) / (1.0 - np.mean(silent)))


#: The book's statements on DAPO's dynamic sampling over prompts drawn uniformly, from each prompt's P(silent)
#: (``silent``) and its expected update per drawn group (``update``, silent groups counting 0; beta = 0): groups drawn
#: per kept group 1/(1 - S), S the prompts' mean P(silent) (a geometric number of draws), and the expected update per
#: kept group = the mean update per drawn group / (1 - S). Not the mean over prompts of each prompt's 1/(1 - P(silent)),
#: which is what resampling the same prompt costs.
DAPO_GROUPS_PER_KEPT: Callable[[np.ndarray], float] = _groups_per_kept
DAPO_UPDATE_PER_KEPT: Callable[[np.ndarray, np.ndarray], float] = _update_per_kept

#: The book's statement that TRL 1.16's ``GRPOConfig`` has no option to drop or resample silent groups: no field
#: name contains one of these words.
ABSENT_OPTION_WORDS: tuple[str, ...] = ("dynamic", "zero_std", "zero_adv", "filter", "resampl", "oversampl", "silent")


# ---- the probability ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SilentProbabilityCheck:
    """:func:`silent_probability_check`: the largest gap between :data:`SILENT_PROBABILITY` and the enumeration of all
    2^G reward vectors (``enumeration_gap``) and the finite-group law's no-signal probability at its first step
    (``law_gap``); rho_G(p) and 1 - P(silent) at (``p``, ``G``), two different quantities."""

    enumeration_gap: float
    law_gap: float
    p: float
    G: int
    retention: float
    mixed: float

    @property
    def passed(self) -> bool:
        return self.enumeration_gap < TOL and self.law_gap < TOL and abs(self.retention - self.mixed) > 0.05


def silent_probability_check(
    groups: tuple[int, ...] = tuple(range(2, 13)), n_p: int = 99, *, p: float = 0.1, G: int = 8
) -> SilentProbabilityCheck:
    """Section "All my rewards in a group are equal": :data:`SILENT_PROBABILITY` against (a) the sum, over every
    reward vector r in {0, 1}^G, of prod_i p^{r_i} (1 - p)^{1 - r_i} where all r_i are equal, on a grid of ``n_p``
    values of p in (0, 1) and each G of ``groups``; (b) the probability that step 1's group has no signal in the
    finite-group law of the chapter "Group size" (binomial weights of k = 0 and k = G). Also rho_G(p) next to
    1 - P(silent) at (``p``, ``G``)."""
    n_p = check_positive_int("n_p", n_p)
    ps = np.linspace(0.0, 1.0, n_p + 2)[1:-1]
    enum_gap = 0.0
    for g in groups:
        r = np.array(list(itertools.product((0, 1), repeat=check_positive_int("G", g, minimum=2))))
        k = r.sum(axis=1)
        prob = ps[:, None] ** k * (1 - ps[:, None]) ** (g - k)  # (p, 2^G): each vector's probability
        silent = np.all(r == r[:, :1], axis=1)
        enum_gap = max(enum_gap, float(np.abs(prob[:, silent].sum(axis=1) - SILENT_PROBABILITY(ps, g)).max()))
    law_gap = 0.0
    for g in (2, 8, 32):
        for q in (0.01, 0.3, 0.9):
            law = finite_group_law(StepModel(q, 1.0, PAPER_EPS, g), 1)
            law_gap = max(law_gap, abs(float(law.no_signal[0]) - float(SILENT_PROBABILITY(np.array(q), g))))
    mixed = 1.0 - float(SILENT_PROBABILITY(np.array(p), G))
    return SilentProbabilityCheck(enum_gap, law_gap, p, G, float(signal_retention(p, G, PAPER_EPS)), mixed)


# ---- the share in a real TRL run ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SilentShareRun:
    """:func:`silent_share_run`: the run's exact success probabilities before each generation (``p``, (n, P)), its
    groups' successes (``k``, (n, P)), the silent share observed and expected (:data:`SILENT_PROBABILITY` at ``p``),
    the standard deviation of the observed count, TRL's own logged ``frac_reward_zero_std`` per step (``trl_logged``)
    and its largest gap to the observed share of each step (``trl_log_gap``)."""

    p: np.ndarray
    k: np.ndarray
    G: int
    observed: float
    expected: float
    sd: float
    trl_logged: np.ndarray
    trl_log_gap: float

    @property
    def n_groups(self) -> int:
        return int(self.k.size)

    @property
    def margin(self) -> float:
        """The allowed gap in share: (4 sd of the silent count + 1 group) / number of groups."""
        return (SD_MARGIN * self.sd + 1.0) / self.n_groups

    @property
    def passed(self) -> bool:
        return abs(self.observed - self.expected) <= self.margin and self.trl_log_gap < TOL


def silent_share_run(seed: int = 0, *, n: int = 16, beta: float = 0.0) -> SilentShareRun:
    """Section "All my rewards in a group are equal": TRL's GRPOTrainer on the probe's task (4 prompts of the toy task,
    G = 8, pi_ref after SFT, TRL's clip range, ``beta`` (TRL's default 0), learning rate 5e-4, mu = 1) for ``n`` outer
    steps, seeded by ``seed`` (TRL's ``seed``: sampling and shuffling). Before each generation the exact p of every
    prompt is computed from the network (:func:`grpo_nb.trl_adapters.trainer.train_measured`); given them, group
    (n, q) is silent with probability S = :data:`SILENT_PROBABILITY` (p, G), independently across prompts, so the
    silent count has mean sum S and variance sum S (1 - S) (a sum of conditionally independent Bernoulli draws)."""
    n = check_positive_int("n", n)
    seed = check_positive_int("seed", seed, minimum=0)
    if not (np.isfinite(beta) and beta >= 0):
        raise ValueError(f"beta={beta!r} is out of range; valid range is 0 <= beta < inf")
    base = _probe_setup()
    setup = replace(base, cfg=replace(base.cfg, name="silent", mu=1, n=n))
    log: list = []
    trainer = make_trainer(setup, TRLRun("silent groups", beta, CLIP_EPS), reward_log=log, seed=seed)
    measured = train_measured(trainer, setup, log)
    G = setup.cfg.G
    p, k = measured.p[:-1], measured.k
    silent = (k == 0) | (k == G)
    s = np.asarray(SILENT_PROBABILITY(p, G))
    logged = np.array([h["frac_reward_zero_std"] for h in trainer.state.log_history if "frac_reward_zero_std" in h])
    gap = float(np.abs(logged - silent.mean(axis=1)).max()) if logged.size == n else float("inf")
    return SilentShareRun(
        p, k, G, float(silent.mean()), float(s.mean()), float(np.sqrt(np.sum(s * (1 - s)))), logged, gap
    )


# ---- TRL's loss and gradient on silent groups -----------------------------------------------------------------------


@dataclass(frozen=True)
class SilentBatch:
    """TRL's ``compute_loss`` on a batch of silent groups (every group all right or all wrong): the largest |advantage|
    TRL computed for it, the loss, the model's gradient norm, and d loss / d log pi per token (``token_gradient``,
    (B, T), zero off the completion mask) with the token mask and d = log pi_ref - log pi; ``control_grad_norm``: the
    gradient norm on the same batch with every group half right (mixed), beta = 0."""

    beta: float
    bias_correction: bool | None
    max_advantage: float
    loss: float
    grad_norm: float
    token_gradient: np.ndarray
    mask: np.ndarray
    d: np.ndarray | None
    control_grad_norm: float = float("nan")

    @property
    def book_token_gradient(self) -> np.ndarray:
        """The book's d loss / d log pi per token: beta :data:`SILENT_TOKEN_WEIGHT` (d) / N on the mask, N its sum."""
        if self.d is None:
            return np.zeros_like(self.token_gradient)
        weight = SILENT_TOKEN_WEIGHT[bool(self.bias_correction)](self.d)
        return self.beta * weight * self.mask / self.mask.sum()

    @property
    def token_gap(self) -> float:
        return float(np.abs(self.token_gradient - self.book_token_gradient).max())

    @property
    def towards_reference(self) -> bool:
        """Whether a descent step moves every token's log pi towards log pi_ref: -gradient has the sign of d."""
        on = self.mask > 0
        return self.d is not None and bool(np.all(np.sign(-self.token_gradient[on]) == np.sign(self.d[on])))


def _silent_rewards(shape: tuple[int, int]) -> np.ndarray:
    """Every group silent: group q all wrong for even q, all right for odd q (both kinds in one batch)."""
    return np.broadcast_to((np.arange(shape[0]) % 2)[:, None], shape).astype(float)


def _half_right(shape: tuple[int, int]) -> np.ndarray:
    return np.broadcast_to(np.arange(shape[1]) % 2, shape).astype(float)


def _loss_and_gradients(probe: Probe, **changes) -> tuple[float, np.ndarray, float]:
    """TRL's ``compute_loss`` on the probe's batch with ``changes``, and its backward pass: the loss, d loss / d log pi
    per token (read by a hook on the log-probabilities TRL computes) and the norm of the model's gradient."""
    trainer = probe.trainer
    original = trainer._get_per_token_logps_and_entropies
    grads: list[torch.Tensor] = []

    def recording(*args, **kwargs):
        out = original(*args, **kwargs)
        if out[0].requires_grad:
            out[0].register_hook(lambda g: grads.append(g.detach().clone()))
        return out

    trainer._get_per_token_logps_and_entropies = recording
    try:
        trainer.model.zero_grad(set_to_none=True)
        loss = trainer.compute_loss(trainer.model, dict(probe.inputs) | changes)
        loss.backward()
    finally:
        del trainer._get_per_token_logps_and_entropies
    squares = [p.grad.double().pow(2).sum() for p in trainer.model.parameters() if p.grad is not None]
    norm = float(torch.stack(squares).sum().sqrt()) if squares else 0.0
    return float(loss.detach()), _np(grads[0]) if grads else np.zeros(tuple(probe.logp.shape)), norm


def _silent_advantages(probe: Probe, rewards: np.ndarray) -> tuple[torch.Tensor, float]:
    """TRL's advantages (its own code) for ``rewards`` on the probe's batch, flat, and their largest |value|."""
    adv = trl_advantages(replace(probe, rewards=rewards))
    return torch.as_tensor(adv.reshape(-1), dtype=probe.logp.dtype), float(np.abs(adv).max())


def silent_batch_beta_zero(seed: int = 0) -> SilentBatch:
    """Section "All my rewards in a group are equal": TRL's default beta = 0 on the probe's batch (seeded by ``seed``)
    with every group silent. TRL's advantages for those rewards, then ``compute_loss`` and its backward pass: the
    loss and the model's gradient; the control is the same batch with every group half right."""
    probe = make_probe(beta=0.0, seed=check_positive_int("seed", seed, minimum=0))
    mask = _np(probe.inputs["completion_mask"])
    adv, largest = _silent_advantages(probe, _silent_rewards(probe.rewards.shape))
    loss, token_grad, norm = _loss_and_gradients(probe, advantages=adv)
    control, _ = _silent_advantages(probe, _half_right(probe.rewards.shape))
    control_norm = _loss_and_gradients(probe, advantages=control)[2]
    return SilentBatch(0.0, None, largest, loss, norm, token_grad, mask, None, control_norm)


def silent_batch_kl_pull(beta: float = 0.5, *, bias_correction: bool = True, seed: int = 0) -> SilentBatch:
    """Section "All my rewards in a group are equal": beta > 0 on the probe's batch (seeded by ``seed``) with every
    group silent and pi != pi_ref: log pi_ref = log pi + d per token, d ~ U(-1, 1) (as the KL row of the chapter "GRPO
    in TRL" sets it), TRL's advantages for the silent rewards, ``use_bias_correction_kl`` = ``bias_correction`` (TRL
    1.16's default: True). TRL's loss, its gradient per token and the model's gradient norm."""
    if not (np.isfinite(beta) and beta > 0):
        raise ValueError(f"beta={beta!r} is out of range; valid range is 0 < beta < inf")
    if not isinstance(bias_correction, bool):
        raise ValueError(f"bias_correction={bias_correction!r} is not valid; valid values are True, False")
    probe = make_probe(beta=beta, seed=check_positive_int("seed", seed, minimum=0))
    probe.trainer.args.use_bias_correction_kl = bias_correction
    gen = torch.Generator(device=probe.logp.device).manual_seed(seed)
    d = torch.rand(probe.logp.shape, generator=gen, device=probe.logp.device) * 2 - 1
    adv, largest = _silent_advantages(probe, _silent_rewards(probe.rewards.shape))
    loss, token_grad, norm = _loss_and_gradients(probe, advantages=adv, ref_per_token_logps=probe.logp + d)
    mask = _np(probe.inputs["completion_mask"])
    return SilentBatch(beta, bias_correction, largest, loss, norm, token_grad, mask, _np(d))


def trl_silent_group_options() -> tuple[str, ...]:
    """The fields that TRL's ``GRPOConfig`` adds to transformers' ``TrainingArguments`` whose name contains a word of
    :data:`ABSENT_OPTION_WORDS` (an option that would drop, filter or resample silent groups); empty for TRL 1.16."""
    from transformers import TrainingArguments
    from trl import GRPOConfig

    inherited = {f.name for f in dataclasses.fields(TrainingArguments)}
    names = [f.name for f in dataclasses.fields(GRPOConfig) if f.name not in inherited]
    return tuple(n for n in names if any(word in n for word in ABSENT_OPTION_WORDS))


# ---- DAPO's dynamic sampling ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DynamicSampling:
    """:func:`dynamic_sampling` on a set of prompts (success probabilities ``p``) with groups of ``G``: the mean
    P(silent) S; groups drawn per kept group and expected update per kept group, each as the book states it
    (:data:`DAPO_GROUPS_PER_KEPT`, :data:`DAPO_UPDATE_PER_KEPT`), by enumeration (``exact_*``) and by simulation
    (``sampled_*``, with the standard deviation of each mean over ``n_kept`` kept groups); the expected update per
    drawn group (TRL: silent groups kept); the one-prompt cross-check against the finite-group law's "resample"
    rule (``law_gap``)."""

    p: np.ndarray
    G: int
    silent_share: float
    update_per_drawn: float
    book_groups: float
    exact_groups: float
    sampled_groups: float
    sd_groups: float
    book_update: float
    exact_update: float
    sampled_update: float
    sd_update: float
    n_kept: int
    law_gap: float
    same_prompt_groups: float

    @property
    def exact_gap(self) -> float:
        return max(abs(self.book_groups - self.exact_groups), abs(self.book_update - self.exact_update))

    @property
    def sampled_within(self) -> bool:
        """Simulation within 5 sd of the book's values (+ one kept group for the count)."""
        ok_groups = abs(self.sampled_groups - self.book_groups) <= MC_SD_MARGIN * self.sd_groups + 1.0 / self.n_kept
        ok_update = abs(self.sampled_update - self.book_update) <= MC_SD_MARGIN * self.sd_update
        return ok_groups and ok_update

    @property
    def passed(self) -> bool:
        return self.exact_gap < TOL * max(1.0, self.book_groups) and self.law_gap < TOL and self.sampled_within


def _updates(p: np.ndarray, G: int) -> np.ndarray:
    """u_q(k), (P, G+1): the update of a group with k successes on a one-token prompt whose success has log-odds z,
    (1/G) sum_i A_i (r_i - p_q) (d log pi(o_i)/dz = r_i - p_q), A TRL's advantage (r - mean)/(Bessel std + 1e-4)."""
    r = group_rewards(np.arange(G + 1), G)  # (G+1, G), k ones
    adv = group_advantage(r, "trl")
    return np.mean(adv[None] * (r[None] - p[:, None, None]), axis=-1)


def _binomial(p: np.ndarray, G: int) -> np.ndarray:
    from scipy.stats import binom

    return binom.pmf(np.arange(G + 1)[None, :], G, p[:, None])


def _simulate(p: np.ndarray, G: int, u: np.ndarray, n_kept: int, seed: int) -> tuple[int, np.ndarray]:
    """DAPO's loop, seeded: draw a prompt uniformly and its group, keep the group if it is mixed, until ``n_kept`` are
    kept; the number of groups drawn and the kept groups' updates."""
    rng = np.random.default_rng(seed)
    keep = float(np.mean(1.0 - np.asarray(SILENT_PROBABILITY(p, G))))
    drawn, kept, need = 0, [], n_kept
    while need > 0:
        q = rng.integers(0, p.size, size=int(min(4e6, 1.2 * need / keep + 100)))
        k = rng.binomial(G, p[q])
        mixed = np.flatnonzero((k > 0) & (k < G))
        if mixed.size >= need:
            mixed = mixed[:need]
            drawn += int(mixed[-1]) + 1
        else:
            drawn += q.size
        kept.append(u[q[mixed], k[mixed]])
        need -= mixed.size
    return drawn, np.concatenate(kept)


def _same_prompt_groups(p: np.ndarray, G: int) -> float:
    """The mean over prompts of 1/(1 - P(silent)): groups drawn per prompt when each is redrawn until mixed (infinite
    for a prompt with p = 0 or 1)."""
    mixed = np.atleast_1d(mixed_group_probability(p, G))
    return float(np.mean(np.divide(1.0, mixed, out=np.full_like(mixed, np.inf), where=mixed > 0)))


def dynamic_sampling(p: object, G: int = 8, *, n_kept: int = 20_000, seed: int = 0) -> DynamicSampling:
    """Section "All my rewards in a group are equal": DAPO's dynamic sampling on prompts with success probabilities
    ``p`` (drawn uniformly), groups of ``G``, beta = 0. Exactly: conditioning on a mixed group, groups drawn per kept
    group E[N] = 1 / P(a drawn group is mixed) (the first mixed group is the N-th draw, N geometric), that probability
    enumerated over (q, 0 < k < G) with binomial weights, and
    E[u | kept] = sum over (q, 0 < k < G) of w u / sum of w (w = P(q) Binomial(k; G, p_q)), against the book's
    :data:`DAPO_GROUPS_PER_KEPT` and :data:`DAPO_UPDATE_PER_KEPT`; by simulation of the loop (``n_kept`` kept
    groups, seeded by ``seed``), within 5 standard deviations. Scope: one-token answers, a logit per prompt."""
    p_arr = np.atleast_1d(check_p(p, np.asarray(1.0), name="p")).astype(float).ravel()
    G = check_positive_int("G", G, minimum=2)
    n_kept = check_positive_int("n_kept", n_kept)
    seed = check_positive_int("seed", seed, minimum=0)
    w = _binomial(p_arr, G) / p_arr.size  # P(prompt q and k successes)
    u = _updates(p_arr, G)
    mixed = np.zeros(G + 1, dtype=bool)
    mixed[1:-1] = True
    keep = w[:, mixed].sum()
    if keep <= 0:
        raise ValueError(f"p={p!r}: every group is silent (p in {{0, 1}}); valid p have some 0 < p < 1")
    silent = np.asarray(SILENT_PROBABILITY(p_arr, G))
    s = float(silent.mean())
    exact_groups = float(1.0 / keep)  # the mean of the geometric index of the first mixed draw
    exact_update = float((w[:, mixed] * u[:, mixed]).sum() / keep)
    var_update = float((w[:, mixed] * (u[:, mixed] - exact_update) ** 2).sum() / keep)
    drawn, kept_u = _simulate(p_arr, G, u, n_kept, seed)
    law_gap = 0.0
    for q in p_arr[(p_arr > 0) & (p_arr < 1)][:4]:
        law = finite_group_law(StepModel(float(q), 1.0, PAPER_EPS, G, no_signal="resample", max_draws=10**9), 1)
        one = np.asarray(SILENT_PROBABILITY(np.array([q]), G))
        law_gap = max(law_gap, abs(float(law.draws[0]) / DAPO_GROUPS_PER_KEPT(one) - 1))
    per_prompt = np.sum(w * u, axis=1) * p_arr.size  # E[u_q] per drawn group of prompt q
    return DynamicSampling(
        p_arr, G, s, float(per_prompt.mean()),
        DAPO_GROUPS_PER_KEPT(silent), exact_groups, drawn / n_kept, float(np.sqrt(s / n_kept)) / (1 - s),
        DAPO_UPDATE_PER_KEPT(per_prompt, silent), exact_update, float(kept_u.mean()),
        float(np.sqrt(var_update / n_kept)), n_kept, law_gap, _same_prompt_groups(p_arr, G),
    )  # fmt: skip
