"""How long a configuration would take on a GPU, estimated from FLOPs and kernel launches counted on the CPU.

A network this small does very little arithmetic per kernel, so on a GPU its time is set either by the
arithmetic or, more often, by the fixed cost of launching each kernel. The estimate takes, for every step
(an SFT step, or one outer iteration of a GRPO run with its ``mu`` inner steps),

    time ~= max(FLOPs / flops_per_s, launches * launch_s, bytes / bytes_per_s),

with a Colab T4's defaults: about 8 TFLOP/s of float32 arithmetic at best, about 10 microseconds per
kernel launch, and 320 GB/s of memory bandwidth (the third term, memory traffic, goes past the first two:
elementwise kernels on the enumerated answers move megabytes each). ``upper_s`` adds the three terms
instead, as if nothing overlapped: a pessimistic bound, which :func:`pick_config` uses. All counts come
from running the package's own training code for one or two steps on the CPU, with the configuration's
shapes, under two torch dispatch modes:

- ``torch.utils.flop_counter.FlopCounterMode`` counts the FLOPs of every matrix product, forward and
  backward (the attention over 6-token sequences, under 1 % of them, and elementwise work are left out);
- ``LaunchCounter`` counts every ATen operator that computes something, each as one kernel launch (views
  and other metadata-only operators excluded), and the bytes of the tensors it reads and writes. Adam's
  update is the multi-tensor (foreach) one on both devices, one launch per operator for all parameters,
  so the CPU count is the CUDA count.

Per-step costs are separated by differencing: a GRPO run of n iterations costs ``a + n (b + mu c)``, and the three
profiled runs (n, mu) = (1, 1), (1, 2), (2, 1) give a, b and c exactly.
"""

from __future__ import annotations

import copy
import functools
import os
from collections.abc import Callable
from dataclasses import dataclass, replace

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves
from torch.utils.flop_counter import FlopCounterMode

from grpo_nb.toylm.configs import CONFIGS, BookTrainerConfig, RunConfig

__all__ = [
    "GPU_CANDIDATES",
    "T4_BUDGET_S",
    "T4_BYTES_PER_S",
    "T4_FLOPS_PER_S",
    "T4_LAUNCH_S",
    "T4",
    "GPUTimeEstimate",
    "Hardware",
    "LaunchCounter",
    "PhaseEstimate",
    "StepCost",
    "count_cost",
    "estimate_gpu_time",
    "pick_config",
]

T4_FLOPS_PER_S = 8e12  # NVIDIA T4: 8.1 TFLOP/s float32 peak; taken as the best case
T4_LAUNCH_S = 10e-6  # one kernel launch, as seen from Python through PyTorch's eager dispatch
T4_BYTES_PER_S = 320e9  # NVIDIA T4: 320 GB/s GDDR6 peak

# Operators that allocate or relabel memory but run no kernel.
_NO_KERNEL = frozenset({"empty", "empty_strided", "lift_fresh", "_local_scalar_dense", "set_", "resize_"})


def _nbytes(tree: object) -> int:
    return sum(t.numel() * t.element_size() for t in tree_leaves(tree) if isinstance(t, torch.Tensor))


class LaunchCounter(TorchDispatchMode):
    """Counts the ATen operators that compute (one kernel launch each on a GPU) and the bytes they touch.

    Views and allocations are not counted. Bytes: every tensor argument and result, once per operator.
    """

    def __init__(self) -> None:
        super().__init__()
        self.launches = 0
        self.bytes = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if func.namespace == "aten" and not func.is_view and func._opname not in _NO_KERNEL:
            self.launches += 1
            self.bytes += _nbytes((args, kwargs, out))
        return out


@dataclass(frozen=True)
class Hardware:
    """What the estimate assumes of the GPU (defaults: a Colab T4)."""

    flops_per_s: float = T4_FLOPS_PER_S
    launch_s: float = T4_LAUNCH_S
    bytes_per_s: float = T4_BYTES_PER_S

    def __post_init__(self) -> None:
        for name in ("flops_per_s", "launch_s", "bytes_per_s"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and 0 < value < float("inf")):
                raise ValueError(f"{name}={value!r} is out of range; valid range is 0 < {name} < inf")


T4 = Hardware()


@dataclass(frozen=True)
class StepCost:
    """Matmul FLOPs, kernel launches and bytes moved by some work."""

    flops: float
    launches: int
    bytes: int

    def __add__(self, other: StepCost) -> StepCost:
        return StepCost(self.flops + other.flops, self.launches + other.launches, self.bytes + other.bytes)

    def __sub__(self, other: StepCost) -> StepCost:
        return StepCost(self.flops - other.flops, self.launches - other.launches, self.bytes - other.bytes)

    def __mul__(self, k: int) -> StepCost:
        return StepCost(self.flops * k, self.launches * k, self.bytes * k)

    def terms(self, hw: Hardware = T4) -> dict[str, float]:
        """Seconds the work needs for its arithmetic, its launches and its memory traffic, each alone."""
        return {
            "FLOPs": self.flops / hw.flops_per_s,
            "launches": self.launches * hw.launch_s,
            "memory": self.bytes / hw.bytes_per_s,
        }

    def seconds(self, hw: Hardware = T4) -> float:
        """max(FLOPs / flops_per_s, launches * launch_s, bytes / bytes_per_s)."""
        return max(self.terms(hw).values())

    def upper_s(self, hw: Hardware = T4) -> float:
        """The three terms added: no overlap at all."""
        return sum(self.terms(hw).values())


def count_cost(fn: Callable[[], object]) -> StepCost:
    """Run ``fn`` (on the CPU) and count its matmul FLOPs, its kernel launches and the bytes they move."""
    flops, launches = FlopCounterMode(display=False), LaunchCounter()
    with flops, launches:
        fn()
    return StepCost(float(flops.get_total_flops()), launches.launches, launches.bytes)


@dataclass(frozen=True)
class PhaseEstimate:
    """One phase of the experiment: SFT, or one GRPO run, ``repeats`` times a step: SFT's ``n_steps`` optimiser steps
    or a run's ``n`` GRPO iterations."""

    phase: str
    repeats: int
    per_step: StepCost
    once: StepCost  # per phase, not per step (the first optimiser step's state; a run's last table)
    hw: Hardware

    @property
    def seconds(self) -> float:
        return self.repeats * self.per_step.seconds(self.hw) + self.once.seconds(self.hw)

    @property
    def upper_s(self) -> float:
        return self.repeats * self.per_step.upper_s(self.hw) + self.once.upper_s(self.hw)

    @property
    def bound(self) -> str:
        """What limits a step: ``"FLOPs"``, ``"launches"`` or ``"memory"``."""
        terms = self.per_step.terms(self.hw)
        return max(terms, key=terms.__getitem__)


@dataclass(frozen=True)
class GPUTimeEstimate:
    config: str
    phases: tuple[PhaseEstimate, ...]
    hw: Hardware

    @property
    def total_s(self) -> float:
        """The estimate: every step at the largest of its three terms."""
        return sum(p.seconds for p in self.phases)

    @property
    def upper_s(self) -> float:
        """The pessimistic estimate: every step at the sum of its three terms."""
        return sum(p.upper_s for p in self.phases)

    def rows(self) -> tuple[list[str], list[list[object]]]:
        """Per phase: steps, GFLOP, launches and MB per step, what bounds a step, estimate and upper bound (s)."""
        headers = [
            "phase",
            "steps",
            "GFLOP / step",
            "launches / step",
            "MB / step",
            "bound by",
            "estimate (s)",
            "upper (s)",
        ]
        rows = [
            [
                p.phase,
                str(p.repeats),
                f"{p.per_step.flops / 1e9:.1f}",
                str(p.per_step.launches),
                f"{p.per_step.bytes / 1e6:.0f}",
                p.bound,
                f"{p.seconds:.1f}",
                f"{p.upper_s:.1f}",
            ]
            for p in self.phases
        ]
        rows.append(["total", "", "", "", "", "", f"{self.total_s:.1f}", f"{self.upper_s:.1f}"])
        return headers, rows


def _cpu_setup(cfg: RunConfig):
    """The task's tensors and a freshly initialised network of the configuration's size, on the CPU."""
    from grpo_nb.toylm.grpo import TaskTensors
    from grpo_nb.toylm.model import TinyLM
    from grpo_nb.toylm.rollout import enumerate_logprobs
    from grpo_nb.toylm.task import N_DIGITS, VOCAB_SIZE, make_task

    cpu, dtype = torch.device("cpu"), getattr(torch, cfg.dtype)
    task = make_task(cfg.task)
    with torch.device(cpu), torch.random.fork_rng(devices=[]):
        torch.manual_seed(cfg.seed)
        model = TinyLM(cfg.model, VOCAB_SIZE, N_DIGITS, task.prompt_len + task.out_len).to(dtype=dtype)
    prompts = torch.as_tensor(task.prompts, device=cpu)
    outputs = torch.as_tensor(task.outputs, device=cpu)
    with torch.no_grad():
        logp_ref = enumerate_logprobs(model, prompts, outputs)
    reward = torch.as_tensor(task.reward_table(), device=cpu, dtype=dtype)
    return model, TaskTensors(prompts, outputs, reward, logp_ref)


def _sft_cost(cfg: RunConfig, model, tensors) -> tuple[StepCost, StepCost]:
    from grpo_nb.toylm.sft import train_sft

    freq = tensors.reward / tensors.reward.sum(dim=1, keepdim=True)  # any distribution will do

    def run(n_steps: int) -> StepCost:
        m = copy.deepcopy(model).requires_grad_(True)
        return count_cost(
            lambda: train_sft(
                m, tensors.prompts, tensors.outputs, freq=freq, cfg=replace(cfg.sft, n_steps=n_steps), progress=False
            )
        )

    one, two = run(1), run(2)
    step = two - one
    return step, one - step


def _grpo_cost(gcfg: BookTrainerConfig, model, tensors) -> tuple[StepCost, StepCost, StepCost]:
    """(once per run, per outer iteration without inner steps, per inner step) of Algorithm 1 with ``gcfg``."""
    from grpo_nb.toylm.grpo import train_grpo

    def run(n: int, mu: int) -> StepCost:
        policy = copy.deepcopy(model).requires_grad_(True)
        g = replace(gcfg, n=n, mu=mu)
        gen = torch.Generator(device="cpu").manual_seed(0)
        return count_cost(lambda: train_grpo(policy, model, tensors, cfg=g, generator=gen))

    c11, c12, c21 = run(1, 1), run(1, 2), run(2, 1)
    inner = c12 - c11
    outer = c21 - c11 - inner
    return c11 - outer - inner, outer, inner


@functools.lru_cache(maxsize=8)
def estimate_gpu_time(cfg: RunConfig, hw: Hardware = T4) -> GPUTimeEstimate:
    """Estimated GPU time of ``run_experiment(cfg)`` (SFT and every run of ``run_plan``), by default on a T4.

    Counts FLOPs, kernel launches and bytes of the package's own code on the CPU (a few seconds for
    ``full``) and takes the largest of the three times per step (``upper_s``: their sum); see the module
    docstring. Host-side work (the numpy comparison with theory, starting the run) is not included.
    """
    from grpo_nb.toylm.experiment import run_plan

    model, tensors = _cpu_setup(cfg)
    sft_step, sft_once = _sft_cost(cfg, model, tensors)
    phases = [PhaseEstimate("SFT", cfg.sft.n_steps, sft_step, sft_once, hw)]
    measured: dict[tuple, tuple[StepCost, StepCost, StepCost]] = {}
    for _, label, gcfg in run_plan(cfg):
        key = (gcfg.estimator, gcfg.kl, gcfg.G, gcfg.batch_prompts, gcfg.advantage, gcfg.clip_eps is None)
        if key not in measured:
            measured[key] = _grpo_cost(gcfg, model, tensors)
        once, outer, inner = measured[key]
        phases.append(PhaseEstimate(label, gcfg.n, outer + inner * gcfg.mu, once, hw))
    return GPUTimeEstimate(cfg.name, tuple(phases), hw)


T4_BUDGET_S = 600.0  # what pick_config allows a configuration on a GPU: about ten minutes on a Colab T4
GPU_CANDIDATES = ("full", "quick")  # tried in this order on a GPU; the last one is taken whatever its estimate


def pick_config(name: str | None = None, *, gpu_budget_s: float = T4_BUDGET_S) -> RunConfig:
    """``quick`` or ``full`` by name. ``None`` or ``"auto"``: the environment variable ``GRPO_NB_TOYLM_CONFIG``
    if set; else, when CUDA is available, the first of ``GPU_CANDIDATES`` whose estimated time on a Colab T4
    (the pessimistic ``upper_s`` of :func:`estimate_gpu_time`: FLOPs, kernel launches and memory traffic
    counted on the CPU) is at most ``gpu_budget_s`` seconds; else ``quick``. A configuration runs on CUDA
    when there is a GPU and on the CPU otherwise."""
    if not gpu_budget_s > 0:
        raise ValueError(f"gpu_budget_s={gpu_budget_s!r} is out of range; valid range is 0 < gpu_budget_s")
    if name is None or name == "auto":
        name = os.environ.get("GRPO_NB_TOYLM_CONFIG")
        if not name:
            name = _fits_on_gpu(gpu_budget_s) if torch.cuda.is_available() else "quick"
    if name not in CONFIGS:
        raise ValueError(f"config={name!r} is not known; valid values are 'auto', {', '.join(map(repr, CONFIGS))}")
    return CONFIGS[name]


def _fits_on_gpu(budget_s: float) -> str:
    """The first of ``GPU_CANDIDATES`` whose pessimistic T4 estimate is within ``budget_s`` (else the last)."""
    for name in GPU_CANDIDATES[:-1]:
        if estimate_gpu_time(CONFIGS[name]).upper_s <= budget_s:
            return name
    return GPU_CANDIDATES[-1]
