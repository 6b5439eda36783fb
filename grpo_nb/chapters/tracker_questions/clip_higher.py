"""Section "Clip-higher cannot do anything: with one epoch the ratio is always 1" of the chapter "Questions from
the trackers" (``book/tracker_questions.md``): when TRL's ``epsilon_high`` (DAPO's clip-higher) can change a run,
measured on real training runs of TRL's ``GRPOTrainer`` on the toy task.

A *setting* is (``num_iterations`` = mu, ``steps_per_generation``, ``gradient_accumulation_steps``): one generation
batch feeds mu x steps_per_generation micro-steps, and the optimizer steps once every ``gradient_accumulation_steps``
of them. :func:`clip_higher_pair` trains TRL twice from the same pi_ref and seed, the upper clip at 1 + 0.2 (TRL's
default) and at 1 + 0.28 (DAPO's), records pi_theta/pi_old of every token it trains on (pi_old's log-probabilities
taken when the batch was generated, independently of TRL's own bookkeeping), TRL's logged ``clip_ratio/*`` metrics
and the two runs' final weights. :func:`clip_higher_check` holds them against the book's two statements:

- :func:`book_clip_can_bind`: the ratio can leave 1 (so a clip can bind) only when one generation batch feeds more
  than one optimizer step;
- :func:`book_clip_higher_tokens`: raising the upper clip changes a step only through the tokens with A > 0 whose
  ratio lies in (1 + clip_eps, 1 + clip_eps_high], read off the slope of the clipped term
  (:func:`grpo_nb.clipping.clipped_term_slope`).

The check reads both names when it runs, so replacing one by a wrong statement (as the tests do) makes it fail.
Scope: TRL 1.16 without vLLM, ``loss_type="dapo"``, token-level ratios, beta = 0, answers of two tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from grpo_nb.chapters.trl_grpo.advantage_probe import PROBE_CONFIG, _probe_setup
from grpo_nb.clipping import clipped_term_slope
from grpo_nb.constants import CLIP_EPS, DAPO_CLIP_EPS_HIGH
from grpo_nb.trl_adapters.trainer import TRLRun, make_trainer
from grpo_nb.validation import check_positive_int

__all__ = [
    "CLIP_HIGHER_CASES",
    "RATIO_TOL",
    "ClipHigherCase",
    "ClipHigherCheck",
    "book_clip_can_bind",
    "book_clip_higher_tokens",
    "clip_higher_check",
    "clip_higher_pair",
    "clip_higher_sweep",
]

#: Settings (num_iterations, steps_per_generation, gradient_accumulation_steps) of :func:`clip_higher_check`: TRL's
#: default, mu = 2, 4, 8, a batch accumulated over four micro-batches into one step, and the same batch split into
#: four optimizer steps (DAPO's mini-batches).
CLIP_HIGHER_CASES: tuple[tuple[int, int, int], ...] = ((1, 1, 1), (2, 1, 1), (4, 1, 1), (8, 1, 1), (1, 4, 4), (1, 4, 1))
#: |pi_theta/pi_old - 1| below this is rounding: pi_old's log-probabilities are recomputed in float32 on a batch of
#: another size than the step's.
RATIO_TOL = 1e-5
_OLD_KEY = "book_old_logps"  # pi_old's per-token log-probabilities, recorded at generation


def book_clip_can_bind(mu: int, steps_per_generation: int, grad_accum: int) -> bool:
    """The book's statement: pi_theta/pi_old leaves 1 in some step, so that a clip range (``epsilon``,
    ``epsilon_high``) can bind, only when one generation batch feeds more than one optimizer step, that is when
    mu x steps_per_generation > gradient_accumulation_steps (for settings where the latter divides the former).
    Otherwise every step's policy is the one that sampled the batch."""
    return mu * steps_per_generation > grad_accum


def book_clip_higher_tokens(
    ratio: np.ndarray, advantage: np.ndarray, clip_eps: float, *, clip_eps_high: float
) -> np.ndarray:
    """The book's statement of the tokens on which the upper clip 1 + ``clip_eps_high`` instead of 1 + ``clip_eps``
    changes a step: the slope in x of the clipped term f(x, A) = A min(x, 1 + upper) for A >= 0
    (:func:`grpo_nb.clipping.clipped_term_slope`) differs between the two upper ranges; for A < 0 only the lower range
    acts. That is A > 0 and 1 + clip_eps < x <= 1 + clip_eps_high. Boolean array of the shape of ``ratio``."""
    ratio, advantage = np.broadcast_arrays(np.asarray(ratio, float), np.asarray(advantage, float))
    low, high = (clipped_term_slope(ratio, advantage, e) for e in (clip_eps, clip_eps_high))
    return (advantage >= 0) & (np.asarray(low) != np.asarray(high))


def _check_setting(mu: int, steps_per_generation: int, grad_accum: int, n_completions: int) -> int:
    """Optimizer steps per generation batch; ValueError for a setting the section does not cover."""
    mu = check_positive_int("mu", mu)
    spg = check_positive_int("steps_per_generation", steps_per_generation)
    ga = check_positive_int("grad_accum", grad_accum)
    if n_completions % spg:
        raise ValueError(
            f"steps_per_generation={spg!r} is out of range; valid values divide the {n_completions} completions of a "
            "generation batch"
        )
    if (mu * spg) % ga:
        raise ValueError(
            f"grad_accum={ga!r} is out of range; valid values divide mu x steps_per_generation = {mu * spg} (a whole "
            "number of optimizer steps per generation batch)"
        )
    return mu * spg // ga


@dataclass(frozen=True)
class ClipHigherCase:
    """One setting trained twice by TRL (upper clip 1 + ``clip_eps`` and 1 + ``clip_eps_high``, same pi_ref, seed and
    learning rate). From the first run: ``ratio_gap``, the largest |pi_theta/pi_old - 1| over the tokens of every
    step; ``clip_share`` and ``high_share``, the largest ``clip_ratio/region_mean`` and ``clip_ratio/high_mean`` TRL
    logged in a step; ``band_tokens``, the tokens :func:`book_clip_higher_tokens` marks, summed over the steps. From
    both: ``weight_gap``, the largest |difference| of their final weights (0.0 when they are identical)."""

    setting: tuple[int, int, int]
    optimizer_steps: int
    ratio_gap: float
    clip_share: float
    high_share: float
    band_tokens: int
    weight_gap: float


def _record_old_logps(trainer) -> None:
    """After TRL generates a batch, store pi_old's per-token log-probabilities in it (the policy that sampled it)."""
    generate = trainer._generate_and_score_completions

    def generate_and_record(inputs):
        batch = generate(inputs)
        batch[_OLD_KEY] = _policy_logps(trainer, trainer.model, batch)
        return batch

    trainer._generate_and_score_completions = generate_and_record


def _policy_logps(trainer, model, batch: dict) -> torch.Tensor:
    ids = torch.cat([batch["prompt_ids"], batch["completion_ids"]], dim=1)
    mask = torch.cat([batch["prompt_mask"], batch["completion_mask"]], dim=1)
    with torch.no_grad():
        return trainer._get_per_token_logps_and_entropies(model, ids, mask, batch["completion_ids"].size(1))[0]


def _record_ratios(trainer, log: list) -> None:
    """Before each of TRL's loss computations, append (pi_theta/pi_old, advantages, completion mask) of its batch."""
    compute_loss = trainer.compute_loss

    def compute_loss_and_record(model, inputs, *args, **kwargs):
        ratio = torch.exp(_policy_logps(trainer, model, inputs) - inputs[_OLD_KEY])
        log.append(tuple(t.detach().double().numpy() for t in (ratio, inputs["advantages"], inputs["completion_mask"])))
        return compute_loss(model, inputs, *args, **kwargs)

    trainer.compute_loss = compute_loss_and_record


def _train(setting: tuple[int, int, int], clip_eps_high: float, *, seed: int, lr: float, n_generations: int):
    """One TRL run of ``n_generations`` generation batches at ``setting``: (weights, ratio log, TRL's log history)."""
    mu, spg, ga = setting
    setup = _probe_setup()
    n_completions = setup.task.n_prompts * setup.cfg.G
    steps = _check_setting(mu, spg, ga, n_completions) * n_generations
    trainer = make_trainer(
        setup,
        TRLRun("clip-higher", 0.0, CLIP_EPS),
        epsilon_high=clip_eps_high,
        num_iterations=mu,
        steps_per_generation=spg,
        gradient_accumulation_steps=ga,
        per_device_train_batch_size=n_completions // spg,
        max_steps=steps,
        learning_rate=lr,
        seed=seed,
    )
    ratios: list = []
    _record_old_logps(trainer)
    _record_ratios(trainer, ratios)
    trainer.train()
    weights = torch.cat([w.detach().flatten() for w in trainer.model.parameters()])
    return weights, ratios, trainer.state.log_history


def clip_higher_pair(
    mu: int,
    steps_per_generation: int = 1,
    grad_accum: int = 1,
    *,
    seed: int = 0,
    clip_eps_high: float = DAPO_CLIP_EPS_HIGH,
    lr: float = PROBE_CONFIG.lr,
    n_generations: int = 2,
) -> ClipHigherCase:
    """Section "Clip-higher cannot do anything": TRL's ``GRPOTrainer`` on the probe task (four prompts, G = 8,
    beta = 0, ``epsilon`` = 0.2, the TRL chapter's learning rate 5e-4) for ``n_generations`` generation batches at
    the setting (mu, ``steps_per_generation``, ``grad_accum``), once with ``epsilon_high`` = 0.2 and once with
    ``clip_eps_high``; ``seed`` seeds TRL (sampling and all). What :class:`ClipHigherCase` lists."""
    if not (np.isfinite(clip_eps_high) and clip_eps_high > CLIP_EPS):
        raise ValueError(f"clip_eps_high={clip_eps_high!r} is out of range; valid range is {CLIP_EPS} < clip_eps_high")
    if not (np.isfinite(lr) and lr > 0):
        raise ValueError(f"lr={lr!r} is out of range; valid range is 0 < lr < inf")
    n_generations = check_positive_int("n_generations", n_generations)
    setting = (mu, steps_per_generation, grad_accum)
    low_w, ratios, history = _train(setting, CLIP_EPS, seed=seed, lr=lr, n_generations=n_generations)
    high_w, _, _ = _train(setting, clip_eps_high, seed=seed, lr=lr, n_generations=n_generations)
    logged = [h for h in history if "clip_ratio/region_mean" in h]
    band = sum(
        int((book_clip_higher_tokens(r, a[:, None], CLIP_EPS, clip_eps_high=clip_eps_high) & (m > 0)).sum())
        for r, a, m in ratios
    )
    return ClipHigherCase(
        setting=(int(mu), int(steps_per_generation), int(grad_accum)),
        optimizer_steps=int(mu * steps_per_generation // grad_accum),
        ratio_gap=max(float(np.abs(r - 1)[m > 0].max()) for r, _, m in ratios),
        clip_share=max(float(h["clip_ratio/region_mean"]) for h in logged),
        high_share=max(float(h["clip_ratio/high_mean"]) for h in logged),
        band_tokens=band,
        weight_gap=float((low_w - high_w).abs().max()),
    )


@dataclass(frozen=True)
class ClipHigherCheck:
    """:func:`clip_higher_check`: the cases, and per case whether it is as the book states. ``binds_as_stated``: TRL
    logged clipped tokens exactly where :func:`book_clip_can_bind` says a clip can bind, and where it says not, the
    ratio stayed 1 (within :data:`RATIO_TOL`) and the two runs ended with identical weights. ``differs_as_stated``: the
    two runs' weights differ exactly where :func:`book_clip_higher_tokens` marked a token."""

    cases: tuple[ClipHigherCase, ...]
    binds_as_stated: tuple[bool, ...]
    differs_as_stated: tuple[bool, ...]

    @property
    def agree(self) -> bool:
        """Every case as both statements say."""
        return all(self.binds_as_stated) and all(self.differs_as_stated)

    @property
    def rows(self) -> list[tuple[object, ...]]:
        """One row per case: mu, steps_per_generation, gradient_accumulation_steps, optimizer steps per batch,
        max |ratio - 1|, TRL's largest logged clipped share and high-clipped share, marked tokens, weight gap."""
        return [
            (*c.setting, c.optimizer_steps, c.ratio_gap, c.clip_share, c.high_share, c.band_tokens, c.weight_gap)
            for c in self.cases
        ]


def clip_higher_check(seed: int = 0, *, cases: tuple[tuple[int, int, int], ...] = CLIP_HIGHER_CASES) -> ClipHigherCheck:
    """Section "Clip-higher cannot do anything": :func:`clip_higher_pair` at every setting of ``cases``, held
    against :func:`book_clip_can_bind` and :func:`book_clip_higher_tokens` (both read when this runs)."""
    runs = tuple(clip_higher_pair(*setting, seed=seed) for setting in cases)
    binds = []
    for c in runs:
        stated = book_clip_can_bind(*c.setting)
        inert = c.ratio_gap < RATIO_TOL and c.clip_share == 0 and c.weight_gap == 0
        binds.append(bool(c.clip_share > 0) if stated else inert)
    differs = tuple((c.weight_gap > 0) == (c.band_tokens > 0) for c in runs)
    return ClipHigherCheck(runs, tuple(binds), differs)


def clip_higher_sweep(
    seeds: tuple[int, ...], *, cases: tuple[tuple[int, int, int], ...] = CLIP_HIGHER_CASES
) -> dict[tuple[int, int, int], tuple[int, int, int]]:
    """Per setting, over ``seeds``: (seeds at which TRL logged a clipped token, seeds at which the two runs' weights
    differ, seeds at which :func:`clip_higher_check` held). The frequencies section "Clip-higher cannot do
    anything" quotes for the claims that do not hold at every seed."""
    counts = {setting: [0, 0, 0] for setting in cases}
    for seed in seeds:
        check = clip_higher_check(seed, cases=cases)
        for c, binds, differs in zip(check.cases, check.binds_as_stated, check.differs_as_stated, strict=True):
            counts[c.setting][0] += c.clip_share > 0
            counts[c.setting][1] += c.weight_gap > 0
            counts[c.setting][2] += binds and differs
    return {setting: (n[0], n[1], n[2]) for setting, n in counts.items()}
