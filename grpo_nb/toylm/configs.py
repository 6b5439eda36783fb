"""Every hyperparameter of the toy-LM experiment, in one place (CleanRL style).

Two configurations: ``quick`` (two-digit answers; the chapter and CI run it on one CPU thread) and ``full``
(three-digit answers, 1000 per prompt, more prompts, iterations and samples; sized so that it also finishes
on a CPU). Both run in float32 on CUDA wherever ``torch.cuda.is_available()``, else on the CPU
(``device="auto"``). ``pick_config`` chooses: on a GPU the largest configuration whose estimated time on a
Colab T4 (``grpo_nb.toylm.cost``) stays within ``T4_BUDGET_S``, else ``quick``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "CONFIGS",
    "CYCLING",
    "FULL",
    "GPU_CANDIDATES",
    "QUICK",
    "T4_BUDGET_S",
    "GRPOConfig",
    "ModelConfig",
    "RunConfig",
    "SFTConfig",
    "TaskConfig",
    "pick_config",
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
    steps: int = 300
    lr: float = 3e-3  # full-batch AdamW on all demonstrations
    weight_decay: float = 0.0


@dataclass(frozen=True)
class GRPOConfig:
    """Algorithm 1 (Mroueh 2025, §2.4); names follow the paper."""

    n_outer: int = 8  # M: outer iterations n = 1..M (pi_old <- pi_theta at each)
    mu: int = 40  # inner gradient steps per outer iteration
    lr: float = 5e-4  # Adam learning rate of the inner steps
    beta: float = 2.0  # KL coefficient to pi_ref
    eps: float = 1e-2  # variance smoothing in the stabilised advantage (Eq. 3-4)
    clip_eps: float | None = None  # PPO clip range epsilon; None = the paper's no-clip objective
    advantage: str = "paper"  # "paper": (r - p)/sqrt(p(1-p)+eps); "trl": (r - mean)/(std + 1e-4)
    estimator: str = "exact"  # "exact": enumerate every output; "sampled": G samples per prompt
    G: int = 16  # group size: sampled answers per prompt (sampled estimator)
    batch_prompts: int | None = None  # B prompts per outer step (None: all prompts)
    kl: str = "exact"  # "exact": sequence-level KL by enumeration; "k3": Schulman's per-token k3
    reset_optimizer: bool = True  # fresh Adam for every inner problem


@dataclass(frozen=True)
class RunConfig:
    name: str = "quick"
    task: TaskConfig = field(default_factory=TaskConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    sft: SFTConfig = field(default_factory=SFTConfig)
    grpo: GRPOConfig = field(default_factory=GRPOConfig)
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
    sft=SFTConfig(steps=800),
    grpo=GRPOConfig(n_outer=10, mu=80, G=32),  # 1000 answers: the inner problem needs more steps
    weak_inner=((4, 5e-4), (80, 2e-5)),
)

CONFIGS: dict[str, RunConfig] = {"quick": QUICK, "full": FULL}


T4_BUDGET_S = 600.0  # what pick_config allows a configuration on a GPU: about ten minutes on a Colab T4
GPU_CANDIDATES = ("full", "quick")  # tried in this order on a GPU; the last one is taken whatever its estimate


def pick_config(name: str | None = None, *, gpu_budget_s: float = T4_BUDGET_S) -> RunConfig:
    """``quick`` or ``full`` by name. ``None`` or ``"auto"``: the environment variable ``GRPO_NB_TOYLM_CONFIG``
    if set; else, when CUDA is available, the first of ``GPU_CANDIDATES`` whose estimated time on a Colab T4
    (the pessimistic ``upper_s`` of ``cost.estimate_gpu_time``: FLOPs, kernel launches and memory traffic
    counted on the CPU) is at most ``gpu_budget_s`` seconds; else ``quick``. A configuration runs on CUDA
    when there is a GPU and on the CPU otherwise."""
    if not gpu_budget_s > 0:
        raise ValueError(f"gpu_budget_s={gpu_budget_s!r} is out of range; valid range is 0 < gpu_budget_s")
    if name is None or name == "auto":
        import os

        import torch

        name = os.environ.get("GRPO_NB_TOYLM_CONFIG")
        if not name:
            name = _fits_on_gpu(gpu_budget_s) if torch.cuda.is_available() else "quick"
    if name not in CONFIGS:
        raise ValueError(f"config={name!r} is not known; valid values are 'auto', {', '.join(map(repr, CONFIGS))}")
    return CONFIGS[name]


def _fits_on_gpu(budget_s: float) -> str:
    """The first of ``GPU_CANDIDATES`` whose pessimistic T4 estimate is within ``budget_s`` (else the last)."""
    from grpo_nb.toylm.cost import estimate_gpu_time

    for name in GPU_CANDIDATES[:-1]:
        if estimate_gpu_time(CONFIGS[name]).upper_s <= budget_s:
            return name
    return GPU_CANDIDATES[-1]


# A hard prompt in a cycling regime (§3's "errors grow where the map is unstable"): three-digit answers, every
# demonstration uniform noise, and many of them, so that SFT leaves "0+0=" (one right answer in 1000) at p_ref near
# 1e-3; with beta = 5 and the paper's eps = 1e-5 the recursion from there is a 2-cycle (the parametric chapter checks
# this with grpo_nb.dynamics). Four prompts (seed 25 draws 0+0 among them), the exact estimator, ten iterations.
CYCLING = RunConfig(
    name="cycling",
    task=TaskConfig(n_prompts=4, out_len=3, noise_min=1.0, noise_max=1.0, demos_per_prompt=16384, seed=25),
    grpo=GRPOConfig(n_outer=10, beta=5.0, eps=1e-5),
    beta_sweep=(),
    weak_inner=(),
    sampled_run=False,
)
