"""Every hyperparameter of the toy-LM experiment, in one place (CleanRL style).

Two configurations: ``quick`` (two-digit answers; the chapter and CI run it on one CPU thread) and ``full``
(three-digit answers, 1000 per prompt, more prompts, iterations and samples; sized so that it also finishes
on a CPU). Both run in float32 on CUDA wherever ``torch.cuda.is_available()``, else on the CPU
(``device="auto"``). :func:`grpo_nb.toylm.cost.pick_config` chooses between them by their estimated GPU time.
``TINY`` runs the same plan in seconds: a smoke check of the code path, not an experiment.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field, fields

import numpy as np

from grpo_nb.constants import PAPER_EPS
from grpo_nb.validation import (
    check_beta,
    check_choice,
    check_clip_eps,
    check_eps,
    check_open_interval,
    check_positive_int,
    check_scalar,
)

__all__ = [
    "CONFIGS",
    "CYCLING",
    "FULL",
    "QUICK",
    "TINY",
    "BookTrainerConfig",
    "ModelConfig",
    "RunConfig",
    "SFTConfig",
    "TaskConfig",
]


@dataclass(frozen=True)
class TaskConfig:
    """Digit-sum task: prompt ``a + b =``, answer ``out_len`` digits whose sum is a + b (reward 1)."""

    n_prompts: int = 24  # distinct (a, b) pairs, a, b in 0..9
    out_len: int = 2  # answer length; the output space has 10**out_len strings
    noise_min: float = 0.02  # demonstrator noise of the easiest prompt ...
    noise_max: float = 1.0  # ... and of the hardest (1.0: demonstrations are uniform noise)
    demos_per_prompt: int = 64  # SFT demonstrations per prompt
    seed: int = 0


@dataclass(frozen=True)
class ModelConfig:
    d_model: int = 64
    n_layer: int = 2
    n_head: int = 4


@dataclass(frozen=True)
class SFTConfig:
    n_steps: int = 300  # optimiser steps
    lr: float = 3e-3  # full-batch AdamW on all demonstrations
    weight_decay: float = 0.0


def _with_field_help(cls: type) -> type:
    """Append each field's help text (its ``metadata["help"]``) to the class docstring, so ``help(cls)`` shows it."""
    lines = [f"- ``{f.name}`` (default {f.default!r}): {f.metadata['help']}" for f in fields(cls)]
    cls.__doc__ = f"{inspect.cleandoc(cls.__doc__ or '')}\n\nFields:\n\n" + "\n".join(lines)
    return cls


@_with_field_help
@dataclass(frozen=True)
class BookTrainerConfig:
    """The book's own GRPO trainer, Algorithm 1 (Mroueh 2025, §2.4); names follow the paper.

    Checked at creation: a bad value raises ValueError naming the field, its value and the valid range.
    """

    n: int = field(default=8, metadata={"help": "GRPO iterations (outer steps, pi_old <- pi_theta at each); >= 1"})
    mu: int = field(default=40, metadata={"help": "inner gradient steps per outer iteration; >= 1"})
    lr: float = field(default=5e-4, metadata={"help": "Adam learning rate of the inner steps; 0 < lr < inf"})
    beta: float = field(default=2.0, metadata={"help": "KL coefficient to pi_ref; 0 < beta < inf"})
    eps: float = field(
        default=1e-2, metadata={"help": "variance smoothing in the stabilised advantage (Eq. 3-4); 0 <= eps < inf"}
    )
    clip_eps: float | None = field(
        default=None,
        metadata={"help": "PPO clip range epsilon, 0 <= clip_eps <= inf; None = the paper's no-clip objective"},
    )
    clip_eps_high: float | None = field(
        default=None,
        metadata={
            "help": "upper clip range: x is clipped at 1 + clip_eps_high where A > 0, 0 <= clip_eps_high <= inf; "
            "None = clip_eps on both sides; needs clip_eps (clip_eps = inf: the upper clip alone)"
        },
    )
    reward_signal: str = field(
        default="verifiable",
        metadata={
            "help": '"verifiable": r(q, o) of the task; "random": Bernoulli(1/2) per sampled answer, independent of '
            "it (sampled estimator only)"
        },
    )
    advantage: str = field(
        default="paper",
        metadata={"help": '"paper": (r - p)/sqrt(p(1-p)+eps); "trl": (r - mean)/(std + 1e-4)'},
    )
    estimator: str = field(
        default="exact",
        metadata={"help": '"exact": enumerate every output; "sampled": G samples per prompt'},
    )
    G: int = field(default=16, metadata={"help": "group size: sampled answers per prompt (sampled estimator); >= 2"})
    batch_prompts: int | None = field(
        default=None, metadata={"help": "B prompts per outer step, >= 1 (None: all prompts)"}
    )
    kl: str = field(
        default="exact",
        metadata={"help": '"exact": sequence-level KL by enumeration; "k3": Schulman\'s per-token k3'},
    )
    reset_optimizer: bool = field(default=True, metadata={"help": "fresh Adam for every inner problem (True or False)"})

    def __post_init__(self) -> None:
        check_positive_int("n", self.n)
        check_positive_int("mu", self.mu)
        check_open_interval("lr", self.lr, lo=0.0, hi=math.inf)
        check_scalar("beta", check_beta(self.beta))
        check_scalar("eps", check_eps(self.eps))
        if self.clip_eps is not None:
            check_scalar("clip_eps", check_clip_eps(self.clip_eps))
        if self.clip_eps_high is not None:
            try:  # check_clip_eps names clip_eps in its message
                check_scalar("clip_eps_high", check_clip_eps(self.clip_eps_high))
            except ValueError as err:
                raise ValueError(str(err).replace("clip_eps", "clip_eps_high")) from err
            if self.clip_eps is None:
                raise ValueError(
                    f"clip_eps_high={self.clip_eps_high!r} needs clip_eps; valid: clip_eps_high=None without clip_eps"
                )
        check_choice("advantage", self.advantage, ("paper", "trl"))
        check_choice("estimator", self.estimator, ("exact", "sampled"))
        check_choice("reward_signal", self.reward_signal, ("verifiable", "random"))
        if self.reward_signal == "random" and self.estimator != "sampled":
            raise ValueError(
                f"reward_signal='random' with estimator={self.estimator!r}; valid: estimator='sampled' (a random "
                "reward has no exact expectation to enumerate)"
            )
        check_positive_int("G", self.G, minimum=2)
        if self.batch_prompts is not None:
            check_positive_int("batch_prompts", self.batch_prompts)
        check_choice("kl", self.kl, ("exact", "k3"))
        if not isinstance(self.reset_optimizer, (bool, np.bool_)):
            raise ValueError(f"reset_optimizer={self.reset_optimizer!r} is not valid; valid values are True, False")


@dataclass(frozen=True)
class RunConfig:
    name: str = "quick"
    task: TaskConfig = field(default_factory=TaskConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    sft: SFTConfig = field(default_factory=SFTConfig)
    grpo: BookTrainerConfig = field(default_factory=BookTrainerConfig)
    beta_sweep: tuple[float, ...] = (1.0, 4.0)  # extra runs at other beta (main run's beta is added)
    weak_inner: tuple[tuple[int, float], ...] = ((4, 5e-4), (40, 2e-5))  # (mu, lr) too small
    sampled_run: bool = True  # also run Algorithm 1 with G samples per prompt and the k3 KL
    dtype: str = "float32"
    device: str = "auto"  # "auto": CUDA when available, else the CPU; or "cpu", "cuda", "cuda:N"
    seed: int = 0
    threads: int = 1  # CPU threads (one: the same numbers on any CPU count)


QUICK = RunConfig()

FULL = RunConfig(
    name="full",
    task=TaskConfig(n_prompts=32, out_len=3, demos_per_prompt=128),  # 1000 answers per prompt
    sft=SFTConfig(n_steps=800),
    grpo=BookTrainerConfig(n=10, mu=80, G=32),  # 1000 answers: the inner problem needs more steps
    weak_inner=((4, 5e-4), (80, 2e-5)),
)

CONFIGS: dict[str, RunConfig] = {"quick": QUICK, "full": FULL}

# Seconds, not an experiment: every phase and every kind of run of the plan (SFT, the main run, a beta of the sweep, a
# too-weak inner problem, the sampled run) at the smallest size, for the CLI's smoke check (``--config tiny``) and
# tools/gpu_run.py's dry run. Not in CONFIGS: pick_config never chooses it.
TINY = RunConfig(
    name="tiny",
    task=TaskConfig(n_prompts=4, out_len=2, demos_per_prompt=16),
    model=ModelConfig(d_model=16, n_layer=1, n_head=2),
    sft=SFTConfig(n_steps=30, lr=1e-2),
    grpo=BookTrainerConfig(n=2, mu=10, lr=1e-3, G=4),
    beta_sweep=(4.0,),
    weak_inner=((1, 1e-3),),
)


# A hard prompt in a cycling regime (§3's "errors grow where the map is unstable"): three-digit answers, every
# demonstration uniform noise, and many of them, so that SFT leaves "0+0=" (one right answer in 1000) at p_ref near
# 1e-3; with beta = 5 and the paper's eps = 1e-5 the recursion from there is a 2-cycle (the parametric chapter checks
# this with grpo_nb.dynamics). Four prompts (seed 25 draws 0+0 among them), the exact estimator, ten iterations.
CYCLING = RunConfig(
    name="cycling",
    task=TaskConfig(n_prompts=4, out_len=3, noise_min=1.0, noise_max=1.0, demos_per_prompt=16384, seed=25),
    grpo=BookTrainerConfig(n=10, beta=5.0, eps=PAPER_EPS),
    beta_sweep=(),
    weak_inner=(),
    sampled_run=False,
)
