"""The whole §5 experiment: SFT -> pi_ref, GRPO runs, and every prompt's trajectory against theory.

For each run the measured success probabilities p~_n(q) (exact, by enumeration) are compared with the
recursion p_n = h(p_{n-1}) started at the prompt's own p_ref (``grpo_nb.dynamics.iterate``), and the
policies with Theorem 1's: ``tv_to_ideal`` is TV(pi~_n, pi_n) (the quantity Assumption 1 bounds) and
``one_step_tv`` is TV(pi~_n, T(pi~_{n-1})), the inner problem's own error, where T(pi~_{n-1}) is
Theorem 1's solution of the n-th problem that the network was actually given (its p is p~_{n-1}).
"""

from __future__ import annotations

import copy
import time
from dataclasses import asdict, dataclass, field, replace

import numpy as np
import torch
from scipy.special import logsumexp
from tqdm.auto import tqdm

from grpo_nb.dynamics.map import iterate
from grpo_nb.toylm.configs import BookTrainerConfig, RunConfig
from grpo_nb.toylm.device import describe, resolve_device, synchronize
from grpo_nb.toylm.grpo import GRPOHistory, TaskTensors, train_grpo
from grpo_nb.toylm.model import TinyLM
from grpo_nb.toylm.rollout import enumerate_logprobs
from grpo_nb.toylm.sft import demo_frequencies, entropy_floor, train_sft
from grpo_nb.toylm.task import N_DIGITS, VOCAB_SIZE, DigitSumTask, make_task
from grpo_nb.toylm.theory import table_expected_reward, theorem1_logpolicy, total_variation

__all__ = [
    "beta_sweep_keys",
    "ExperimentResult",
    "RunRecord",
    "Setup",
    "compare_with_theory",
    "prepare",
    "run_all",
    "run_experiment",
    "run_grpo",
    "run_plan",
]


@dataclass
class RunRecord:
    """One GRPO run: per prompt (columns) and iteration n = 0..M (rows)."""

    label: str
    grpo: dict
    p_tilde: np.ndarray  # measured success probability, (M+1, P)
    p_theory: np.ndarray  # h^n(p_ref), (M+1, P)
    tv_to_ideal: np.ndarray  # TV(pi~_n, pi_n), (M+1, P)
    one_step_tv: np.ndarray  # TV(pi~_n, Theorem 1 applied to pi~_{n-1}), (M, P)
    mass_error: np.ndarray  # sum_o pi~_n(o|q) - 1 of the recorded float32 tables (rounding), (M+1, P)
    wall_s: float
    sampled_tokens: int = 0
    sampling_s: float = 0.0
    step_s: list[float] = field(default_factory=list)  # wall time of each outer iteration

    @property
    def rollout_tokens_per_s(self) -> float | None:
        """Sampled answer tokens per second of sampling (sampled estimator only)."""
        return self.sampled_tokens / self.sampling_s if self.sampling_s > 0 else None

    @property
    def gap(self) -> np.ndarray:
        """|p~_n - p_n|, (M+1, P)."""
        return np.abs(self.p_tilde - self.p_theory)

    @property
    def gap_bound(self) -> np.ndarray:
        """TV(pi~_n, pi_n) + |sum_o pi~_n - 1| / 2: the bound on ``gap`` for a 0/1 reward (M+1, P).

        For a 0/1 reward, p~ - p = sum_{r=1} (pi~ - pi) <= sum_o (pi~ - pi)^+ = TV + (sum_o pi~ - 1)/2 (and the
        same from below), pi being normalised; so the bound holds exactly even for a network table whose float32
        entries sum to 1 only up to rounding. With a normalised pi~ it is the TV of the 0/1-reward bound.
        """
        return self.tv_to_ideal + 0.5 * np.abs(self.mass_error)


@dataclass
class ExperimentResult:
    config: RunConfig
    prompts: list[str]
    noise: np.ndarray
    sft_loss: np.ndarray
    sft_floor: float
    p_ref: np.ndarray
    runs: dict[str, RunRecord]
    timings: dict[str, float] = field(default_factory=dict)
    hardware: str = ""

    def to_json(self) -> dict:
        """Plain-JSON summary: per prompt p_ref, measured and theory trajectories; hardware, wall times, throughput."""
        out = {
            "config": asdict(self.config),
            "hardware": self.hardware,
            "timings_s": self.timings,
            "sft_loss": self.sft_loss.tolist(),
            "sft_entropy_floor": self.sft_floor,
            "prompts": [
                {"prompt": q, "demo_noise": float(eta), "p_ref": float(p)}
                for q, eta, p in zip(self.prompts, self.noise, self.p_ref, strict=True)
            ],
            "runs": {},
        }
        for key, rec in self.runs.items():
            out["runs"][key] = {
                "label": rec.label,
                "grpo": rec.grpo,
                "wall_s": rec.wall_s,
                "outer_step_s": rec.step_s,
                "rollout_tokens_per_s": rec.rollout_tokens_per_s,
                "per_prompt": [
                    {
                        "prompt": q,
                        "p_ref": float(rec.p_tilde[0, i]),
                        "p_measured": rec.p_tilde[:, i].tolist(),
                        "p_theory": rec.p_theory[:, i].tolist(),
                        "tv_to_ideal": rec.tv_to_ideal[:, i].tolist(),
                    }
                    for i, q in enumerate(self.prompts)
                ],
            }
        return out


def compare_with_theory(
    label: str, history: GRPOHistory, logp_ref: np.ndarray, *, reward: np.ndarray, cfg: BookTrainerConfig
) -> RunRecord:
    """Measured p~_n and pi~_n against h^n(p_ref) and Theorem 1's pi_n (exact, by enumeration).

    pi_ref is the network's table renormalised in float64 (a float32 table sums to 1 only up to rounding),
    so that h^n(p_ref) is the success probability of Theorem 1's pi_n up to float64 rounding.
    """
    logp_ref = np.asarray(logp_ref, dtype=float)
    logp_ref = logp_ref - logsumexp(logp_ref, axis=1, keepdims=True)
    m = history.logp.shape[0] - 1  # GRPO iterations of the run
    p_tilde = np.stack([table_expected_reward(lp, reward) for lp in history.logp])
    mass_error = np.exp(history.logp.astype(float)).sum(axis=2) - 1.0
    p_ref = table_expected_reward(logp_ref, reward)
    p_theory = iterate(p_ref, cfg.beta, cfg.eps, m)
    ideal = [logp_ref] + [
        theorem1_logpolicy(logp_ref, reward, p_theory[n - 1], cfg.beta, cfg.eps) for n in range(1, m + 1)
    ]
    tv = np.stack([total_variation(history.logp[n], ideal[n]) for n in range(m + 1)])
    one_step = np.stack(
        [
            total_variation(history.logp[n], theorem1_logpolicy(logp_ref, reward, p_tilde[n - 1], cfg.beta, cfg.eps))
            for n in range(1, m + 1)
        ]
    )
    return RunRecord(
        label=label,
        grpo=asdict(cfg),
        p_tilde=p_tilde,
        p_theory=p_theory,
        tv_to_ideal=tv,
        one_step_tv=one_step,
        mass_error=mass_error,
        wall_s=history.wall_s,
        sampled_tokens=history.sampled_tokens,
        sampling_s=history.sampling_s,
        step_s=list(history.step_s),
    )


@dataclass
class Setup:
    """Everything the GRPO runs share: the task, pi_ref (network and exact table), SFT record."""

    cfg: RunConfig
    task: DigitSumTask
    ref_model: TinyLM
    tensors: TaskTensors
    logp_ref: np.ndarray
    reward: np.ndarray
    sft_loss: np.ndarray
    sft_floor: float
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def device(self) -> torch.device:
        return self.tensors.prompts.device

    @property
    def hardware(self) -> str:
        """The hardware the runs use, in words (``device.describe``)."""
        return describe(self.device)

    @property
    def p_ref(self) -> np.ndarray:
        return table_expected_reward(self.logp_ref, self.reward)


def prepare(cfg: RunConfig, progress: bool = True) -> Setup:
    """The task, its noisy demonstrations, and SFT from scratch: pi_ref (seeded, deterministic).

    The network is initialised on the CPU (the same weights on every device) and then moved to
    ``resolve_device(cfg.device)``, where every tensor of the task is created.
    """
    device = resolve_device(cfg.device)
    dtype = getattr(torch, cfg.dtype)
    torch.set_num_threads(min(cfg.threads, torch.get_num_threads()))
    torch.manual_seed(cfg.seed)
    task = make_task(cfg.task)
    demo_idx, demo_ans = task.demonstrations(np.random.default_rng(cfg.seed))
    base = N_DIGITS ** np.arange(task.out_len - 1, -1, -1)
    freq = demo_frequencies(demo_idx, demo_ans @ base, n_prompts=task.n_prompts, n_outputs=len(task.outputs))
    with torch.device("cpu"):
        model = TinyLM(cfg.model, VOCAB_SIZE, N_DIGITS, task.prompt_len + task.out_len)
    model = model.to(device=device, dtype=dtype)
    prompts = torch.as_tensor(task.prompts, device=device)
    outputs = torch.as_tensor(task.outputs, device=device)
    synchronize(device)
    t0 = time.perf_counter()
    sft_loss = train_sft(
        model, prompts, outputs, freq=torch.as_tensor(freq, device=device, dtype=dtype), cfg=cfg.sft, progress=progress
    )
    sft_s = time.perf_counter() - t0
    ref_model = copy.deepcopy(model).requires_grad_(False)
    with torch.no_grad():
        logp_ref_t = enumerate_logprobs(ref_model, prompts, outputs)
    reward = task.reward_table()
    tensors = TaskTensors(prompts, outputs, torch.as_tensor(reward, device=device, dtype=dtype), logp_ref_t)
    return Setup(
        cfg,
        task,
        ref_model,
        tensors,
        logp_ref_t.cpu().numpy(),
        reward,
        sft_loss,
        entropy_floor(freq, task.out_len),
        {"sft_s": sft_s},
    )


def run_plan(cfg: RunConfig) -> list[tuple[str, str, BookTrainerConfig]]:
    """(key, label, GRPO config) of every run: main, beta sweep, too-weak inner problems, sampled."""
    plan = [("main", f"main (beta={cfg.grpo.beta:g})", cfg.grpo)]
    plan += [(f"beta={b:g}", f"beta={b:g}", replace(cfg.grpo, beta=b)) for b in cfg.beta_sweep]
    plan += [(f"mu={m},lr={lr:g}", f"mu={m}, lr={lr:g}", replace(cfg.grpo, mu=m, lr=lr)) for m, lr in cfg.weak_inner]
    if cfg.sampled_run:
        g = cfg.grpo.G
        plan.append(("sampled", f"sampled G={g}, k3 KL", replace(cfg.grpo, estimator="sampled", kl="k3")))
    return plan


def beta_sweep_keys(runs: dict[str, RunRecord], cfg: RunConfig) -> list[str]:
    """The keys of the main run and of the beta sweep, in increasing beta (for the chapter's beta comparison)."""
    keys = ["main", *(f"beta={b:g}" for b in cfg.beta_sweep)]
    return sorted(keys, key=lambda k: runs[k].grpo["beta"])


def run_grpo(
    setup: Setup, label: str, gcfg: BookTrainerConfig, *, seed: int, progress: bool = True, bar: tqdm | None = None
) -> RunRecord:
    """One GRPO run from pi_ref with its own seeded generator (on the task's device), compared with theory.

    Progress: a tqdm bar over the outer iterations (none with ``progress=False``), or ``bar``, advanced by one per
    outer iteration."""
    gen = torch.Generator(device=setup.device).manual_seed(seed)
    torch.manual_seed(seed)
    policy = copy.deepcopy(setup.ref_model).requires_grad_(True)
    own_bar = bar is None
    if own_bar:
        bar = tqdm(total=gcfg.n, desc=label, unit="outer step", disable=not progress)
    history = train_grpo(policy, setup.ref_model, setup.tensors, cfg=gcfg, generator=gen, on_outer_step=bar.update)
    if own_bar:
        bar.close()
    return compare_with_theory(label, history, setup.logp_ref, reward=setup.reward, cfg=gcfg)


def run_all(setup: Setup, progress: bool = True) -> dict[str, RunRecord]:
    """Every run of ``run_plan(setup.cfg)``, run ``key`` seeded ``cfg.seed + 1 + i``; one progress bar over
    all their outer iterations, with an ETA for the whole plan."""
    plan = run_plan(setup.cfg)
    runs: dict[str, RunRecord] = {}
    total = sum(gcfg.n for _, _, gcfg in plan)
    with tqdm(total=total, desc="GRPO runs", unit="outer step", disable=not progress) as bar:
        for i, (key, label, gcfg) in enumerate(plan):
            bar.set_postfix_str(label)
            runs[key] = run_grpo(setup, label, gcfg, seed=setup.cfg.seed + 1 + i, progress=progress, bar=bar)
    return runs


def run_experiment(cfg: RunConfig, progress: bool = True) -> ExperimentResult:
    """SFT on noisy demonstrations, then every GRPO run of ``run_plan(cfg)``."""
    setup = prepare(cfg, progress)
    runs = run_all(setup, progress)
    timings = dict(setup.timings) | {f"grpo[{key}]_s": run.wall_s for key, run in runs.items()}
    return ExperimentResult(
        cfg,
        setup.task.prompts_text,
        setup.task.noise,
        setup.sft_loss,
        setup.sft_floor,
        setup.p_ref,
        runs,
        timings,
        setup.hardware,
    )
