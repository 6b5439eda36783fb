"""The analyses of the chapter "GRPO in TRL" (``book/trl_grpo.md``): TRL's GRPO knobs against the book's formulas,
each checked by running TRL's own code.

* :func:`make_probe` and :func:`trl_advantages` (section "TRL's advantage, read from a real step"): a probe and TRL's
  advantages for its rewards.
* :func:`knob_table` (section "Every knob, checked by TRL's own code"): every row of the knob map, each from one of
  the checks below (:func:`defaults_check`, :func:`beta_default_check`, :func:`kl_check`, :func:`advantage_check`,
  :func:`mu_check`, :func:`clip_check`, :func:`loss_type_check`, :func:`sequence_ratio_check`).

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
  ``num_iterations`` > 1 in real training steps;
- ``beta``'s default 0 (no reference model, no KL in the loss).

The book's side of each check is a module-level name: :data:`BOOK_ADVANTAGES`, :func:`book_kl`, :func:`aggregate`,
:func:`book_clipped_term`, :func:`book_log_ratio` and :data:`BOOK_DEFAULTS`. A check reads it when it runs, so
replacing one by a wrong statement (as the tests do) makes its check fail.

The cached full runs (``grpo_nb/data/trl_full.json``) are read by :func:`load_result` and shown by
:func:`per_prompt_table`, :func:`trajectories`, :func:`prediction_gaps`, :func:`beta_zero_facts` (section "The same
prompts under TRL: β > 0 and the default β = 0") and :func:`timing_table` (section "Time and hardware").
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
from grpo_nb.clipping import clipped_term
from grpo_nb.report import Table, bound
from grpo_nb.toylm.grpo import k3_kl
from grpo_nb.toylm.report import regime_picks
from grpo_nb.toylm.trl_trainer import TRL_CONFIGS, TRLRun, TRLSetup, make_trainer, prepare_trl
from grpo_nb.validation import check_choice

__all__ = [
    "BOOK_ADVANTAGES",
    "BOOK_DEFAULTS",
    "LOSS_TYPES",
    "BetaDefault",
    "BetaZeroFacts",
    "KnobCheck",
    "KnobTable",
    "MuCheck",
    "PerPromptTable",
    "PredictionGaps",
    "Probe",
    "advantage_check",
    "aggregate",
    "beta_default_check",
    "beta_zero_facts",
    "book_clipped_term",
    "book_kl",
    "book_log_ratio",
    "clip_check",
    "defaults_check",
    "kl_check",
    "knob_table",
    "load_result",
    "loss_type_check",
    "make_probe",
    "mu_check",
    "per_prompt_table",
    "prediction_gaps",
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


def aggregate(per_token: np.ndarray, mask: np.ndarray, loss_type: str, *, max_len: int) -> float:
    """The book's statement of TRL's loss aggregation, per ``loss_type``, of a (B, T) per-token loss:

    grpo: mean over completions of their own token mean; bnpo: sum over tokens / number of tokens; dr_grpo:
    sum / (B max_completion_length); dapo: sum / number of completion tokens in the generation batch (one
    process and one step per generation: the same as bnpo)."""
    check_choice("loss_type", loss_type, LOSS_TYPES)
    x = per_token * mask
    if loss_type == "grpo":
        return float((x.sum(1) / np.maximum(mask.sum(1), 1)).mean())
    if loss_type == "dr_grpo":
        return float(x.sum() / (x.shape[0] * max_len))
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
    cut to random lengths 1..L (so that the aggregations differ); a row of :func:`knob_table` (section "Every knob,
    checked by TRL's own code")."""
    check_choice("loss_type", loss_type, LOSS_TYPES)
    dev = probe.logp.device
    gen = torch.Generator(device=dev).manual_seed(seed)
    b, t = probe.logp.shape
    adv = torch.randn(b, generator=gen, device=dev)
    lengths = torch.randint(1, t + 1, (b,), generator=gen, device=dev)
    mask = (torch.arange(t, device=dev)[None, :] < lengths[:, None]).long()
    probe.trainer.loss_type = loss_type
    loss = probe.loss(
        advantages=adv, completion_mask=mask, old_per_token_logps=probe.logp, num_items_in_batch=mask.sum()
    )
    book = aggregate(-_np(adv)[:, None] * np.ones((b, t)), _np(mask), loss_type, max_len=t)
    return abs(loss - book)


def clip_check(probe: Probe, clip_eps: float, clip_eps_high: float | None = None) -> float:
    """|TRL's loss - the book's clipped objective| at ratios exp(u), u ~ U(-0.7, 0.7), advantages ~ N(0, 1), with TRL's
    ``epsilon`` = ``clip_eps`` and ``epsilon_high`` = ``clip_eps_high`` (default ``clip_eps``); a row of
    :func:`knob_table` (section "Every knob, checked by TRL's own code").

    The book: -mean of :func:`book_clipped_term` with the same two clip ranges."""
    dev = probe.logp.device
    gen = torch.Generator(device=dev).manual_seed(1)
    b, t = probe.logp.shape
    u = (torch.rand(b, t, generator=gen, device=dev) - 0.5) * 1.4
    adv = torch.randn(b, generator=gen, device=dev)
    trainer = probe.trainer
    trainer.loss_type = "bnpo"
    trainer.epsilon_low = clip_eps
    trainer.epsilon_high = clip_eps if clip_eps_high is None else clip_eps_high
    loss = probe.loss(advantages=adv, old_per_token_logps=probe.logp - u)
    x, a = np.exp(_np(u)), np.broadcast_to(_np(adv)[:, None], (b, t))
    f = book_clipped_term(x, a, clip_eps, clip_eps_high=trainer.epsilon_high)
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
    0.01: whether TRL stored old log-probabilities (it does not at mu = 1: the ratio is then
    pi_theta/pi_theta.detach() = 1), and the largest share of clipped tokens TRL logged. ``seed`` seeds TRL's trainer
    and the probe's draw. A row of :func:`knob_table` (section "Every knob, checked by TRL's own code")."""
    setup = _probe_setup()
    trainer = make_trainer(
        setup, TRLRun("mu", 0.0, 0.01), num_iterations=mu, max_steps=n_steps, learning_rate=lr, seed=seed
    )
    stored = "old_per_token_logps" in make_probe(num_iterations=mu, seed=seed).inputs
    trainer.train()
    clipped = max(h.get("clip_ratio/region_mean", 0.0) for h in trainer.state.log_history)
    return MuCheck(stored, float(clipped))


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


BOOK_DEFAULTS: dict[str, object] = {
    "beta": 0.0,
    "num_iterations": 1,
    "epsilon": 0.2,
    "epsilon_high (trainer)": 0.2,
    "scale_rewards": "group",
    "loss_type": "dapo",
    "importance_sampling_level": "token",
    "use_bias_correction_kl": True,
    "learning_rate": 1e-6,
    "max_completion_length": 512,
    "gradient_checkpointing": True,
}


def defaults_check() -> dict[str, tuple[object, object]]:
    """The knobs whose TRL default differs from the book's statement :data:`BOOK_DEFAULTS`, as
    {name: (TRL's default, the book's)}; empty when every stated default is TRL's. ``epsilon_high (trainer)`` is the
    upper clip range a trainer built at the defaults uses. A row of :func:`knob_table` (section "Every knob, checked
    by TRL's own code")."""
    claimed = BOOK_DEFAULTS
    config = _default_config()
    actual = {name: getattr(config, name) for name in claimed if name != "epsilon_high (trainer)"}
    if "epsilon_high (trainer)" in claimed:
        actual["epsilon_high (trainer)"] = make_probe(beta=config.beta).trainer.epsilon_high
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
    mu1, mu3 = mu_check(1, seed=seed), mu_check(3, seed=seed)
    rows.append(
        KnobCheck(
            "`num_iterations` = μ",
            "μ inner steps per generation; at μ = 1 the ratio is 1 and the clip never acts",
            f"μ = 1: old log-probs stored {mu1.stored}, clipped share {_share(mu1.clipped)}; "
            f"μ = 3: {mu3.stored}, {_share(mu3.clipped)}",
            not mu1.stored and mu1.clipped == 0 and mu3.stored and mu3.clipped > 0,
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
    gaps = {lt: loss_type_check(probe, lt) for lt in LOSS_TYPES}
    rows.append(
        KnobCheck(
            "`loss_type`",
            r"grpo: mean of per-answer token means; bnpo, dapo: token mean; dr_grpo: sum $/\,(B\,L_{\max})$",
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
        ["TRL knob", "in the theory", "TRL's own code gives", "check"],
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
