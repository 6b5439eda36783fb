"""The toy task trained by TRL's ``GRPOTrainer`` and compared with the success recursion (Mroueh 2025, Thm 2).

The policy is the GPT-2 of :mod:`grpo_nb.trl_adapters.model`, brought to pi_ref by the book's SFT on the same noisy
demonstrations (:mod:`grpo_nb.toylm.sft`), then trained by TRL, on the CPU, offline. One *outer step* of
Algorithm 1 is one TRL generation (G answers for every prompt) followed by ``num_iterations`` = mu optimizer steps
on it; after each, :class:`ExactSuccessCallback` computes every prompt's exact success probability from the
network's output distribution (all 10**L digit answers enumerated).

The theory next to it: TRL's advantage (r - mean)/(std_Bessel + 1e-4) is the paper's (Eq. 3) times
sqrt((G-1)/G) up to the 1e-4, and a factor c on the advantage is the factor 1/c on beta, so the recursion is
taken at ``beta_eff = beta sqrt(G/(G-1))`` and ``eps = TRL_EQUIVALENT_EPS`` (1e-8 = (1e-4)**2: TRL's denominator at
zero variance). ``p_theory`` is the infinite-G recursion (:func:`grpo_nb.dynamics.iterate`), ``p_finite_group`` the
mean of the finite-group chain (:func:`grpo_nb.ustat.finite_group.finite_group_law`). For beta = 0 the recursion's
limit beta -> 0 is h(p) = 1 for every 0 < p < 1 (``p_theory`` = p_ref, then 1) and the finite-group chain is not
defined (``p_finite_group`` is null).

TRL's defaults that are changed here, and why (the pitfalls of a tiny model on a CPU): ``bf16=False`` and
``gradient_checkpointing=False`` (CPU, float32), ``max_completion_length`` = the answer length (default 512),
a constant learning rate without warm-up (default 1e-6 with decay), no gradient clipping (``max_grad_norm=0``),
``per_device_train_batch_size`` = prompts x G (it counts completions, not prompts), dropout off in the model.
Imports trl lazily: ``grpo_nb`` imports without it.
"""

from __future__ import annotations

import atexit
import os
import platform
import shutil
import tempfile
import time
import warnings
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import torch

from grpo_nb.constants import CLIP_EPS
from grpo_nb.toylm.configs import FULL, QUICK, RunConfig
from grpo_nb.toylm.device import describe
from grpo_nb.toylm.sft import demo_frequencies
from grpo_nb.toylm.task import N_DIGITS, DigitSumTask, make_task
from grpo_nb.toylm.theory import table_expected_reward
from grpo_nb.trl_adapters.model import build_model, build_tokenizer, enumerate_logprobs_hf, save_local, sft_hf

__all__ = [
    "TRL_CONFIGS",
    "TRL_EQUIVALENT_EPS",
    "TRLRun",
    "TRLRunConfig",
    "ExactSuccessCallback",
    "beta_effective",
    "make_reward",
    "make_trainer",
    "predictions",
    "train_measured",
    "prepare_trl",
    "run_trl_experiment",
    "versions",
]

#: The eps of Eq. 3 equivalent to TRL's advantage: sqrt(eps) is the 1e-4 TRL adds to the group's std, so 1e-8.
TRL_EQUIVALENT_EPS = 1e-8
DEVICE = torch.device("cpu")  # TRL runs here on the CPU (``use_cpu=True``)


@dataclass(frozen=True)
class TRLRun:
    """One TRL run: its key, then TRL's own knobs under TRL's ``GRPOConfig`` names: beta, the clip range ``epsilon``
    (the book's ``clip_eps``; 1e3 = no clipping in effect), the loss type and the reward scaling."""

    key: str
    beta: float
    epsilon: float = 1e3
    loss_type: str = "dapo"
    scale_rewards: str = "group"


@dataclass(frozen=True)
class TRLRunConfig:
    """The task, model size and SFT of a book configuration (``base``) and the TRL runs on it."""

    name: str
    base: RunConfig
    G: int
    mu: int
    n: int
    lr: float
    runs: tuple[TRLRun, ...] = field(
        default=(
            TRLRun("beta=2", 2.0),
            TRLRun("beta=2, clip 0.2", 2.0, CLIP_EPS),
            TRLRun("beta=0 (TRL default)", 0.0, CLIP_EPS),
        )
    )
    seed: int = 0
    threads: int = 1


TRL_CONFIGS: dict[str, TRLRunConfig] = {
    "quick": TRLRunConfig("quick", QUICK, G=QUICK.grpo.G, mu=QUICK.grpo.mu, n=QUICK.grpo.n, lr=5e-4),
    "full": TRLRunConfig("full", FULL, G=FULL.grpo.G, mu=FULL.grpo.mu, n=FULL.grpo.n, lr=5e-4),
    # seconds: the pipeline end to end (tests and the CLI's smoke check), not an experiment
    "tiny": TRLRunConfig(
        "tiny",
        replace(QUICK, task=replace(QUICK.task, n_prompts=4)),
        G=4,
        mu=2,
        n=2,
        lr=5e-4,
        runs=(TRLRun("beta=2", 2.0), TRLRun("beta=0 (TRL default)", 0.0, CLIP_EPS)),
    ),
}


def beta_effective(beta: float, G: int) -> float:
    """The paper's beta that TRL's beta amounts to: beta sqrt(G/(G-1)) (Bessel's factor on the advantage)."""
    from grpo_nb.validation import check_positive_int

    check_positive_int("G", G, minimum=2)
    if not (np.isfinite(beta) and beta >= 0):
        raise ValueError(f"beta={beta!r} is out of range; valid range is 0 <= beta < inf")
    return beta * float(np.sqrt(G / (G - 1)))


def versions() -> dict[str, str]:
    """The versions of trl, transformers, accelerate, datasets and torch actually imported, and Python's."""
    import accelerate
    import datasets
    import transformers
    import trl

    return {
        "trl": trl.__version__,
        "transformers": transformers.__version__,
        "accelerate": accelerate.__version__,
        "datasets": datasets.__version__,
        "torch": torch.__version__,
        "python": platform.python_version(),
    }


def make_reward(task: DigitSumTask, log: list | None = None):
    """TRL reward function: 1 when the completion is ``out_len`` digits summing to the prompt's target, else 0.

    Reads ``completion_ids`` (so an ``<eos>`` or a ``+`` in an answer is seen as such) and the dataset's ``index``
    column; appends (prompt index, reward) arrays of every call to ``log``.
    """
    out_len = task.out_len

    def digit_sum_reward(prompts, completions, completion_ids, index, **kwargs):
        rewards = [
            float(len(c) == out_len and all(t < N_DIGITS for t in c) and sum(c) == task.targets[i])
            for c, i in zip(completion_ids, index, strict=True)
        ]
        if log is not None:
            log.append((np.asarray(index), np.asarray(rewards)))
        return rewards

    return digit_sum_reward


@dataclass
class TRLSetup:
    """The task, pi_ref's weights (GPT-2 after SFT, saved in ``folder``), its exact p_ref, the SFT loss, and
    log pi_ref(o|q) of every digit answer (``logp_ref``, (P, K))."""

    cfg: TRLRunConfig
    task: DigitSumTask
    folder: Path
    state: dict
    p_ref: np.ndarray
    sft_loss: np.ndarray
    sft_s: float
    logp_ref: np.ndarray


def _logp_table(model, task: DigitSumTask) -> np.ndarray:
    """log pi(o|q) of every digit answer of every prompt, (P, K), float64 (``enumerate_logprobs_hf``)."""
    with torch.no_grad():
        prompts, outputs = (torch.as_tensor(x, device=DEVICE) for x in (task.prompts, task.outputs))
        return enumerate_logprobs_hf(model, prompts, outputs).double().numpy()


def _success(model, task: DigitSumTask) -> np.ndarray:
    """Exact p(q) = sum_o pi(o|q) r(q, o) over every digit answer (Eq. 7; ``theory.table_expected_reward``)."""
    return table_expected_reward(_logp_table(model, task), task.reward_table())


def prepare_trl(cfg: TRLRunConfig, folder: Path | None = None) -> TRLSetup:
    """The book's task and demonstrations, GPT-2 of the book's size, SFT: pi_ref, saved to a local folder."""
    base = cfg.base
    torch.set_num_threads(min(cfg.threads, torch.get_num_threads()))
    task = make_task(base.task)
    demo_idx, demo_ans = task.demonstrations(np.random.default_rng(base.seed))
    place = N_DIGITS ** np.arange(task.out_len - 1, -1, -1)
    freq = demo_frequencies(demo_idx, demo_ans @ place, n_prompts=task.n_prompts, n_outputs=len(task.outputs))
    model = build_model(base.model, task.prompt_len + task.out_len, base.seed)
    t0 = time.perf_counter()
    prompts, outputs = (torch.as_tensor(x, device=DEVICE) for x in (task.prompts, task.outputs))
    sft_loss = sft_hf(model, prompts, outputs, freq=freq, cfg=base.sft)
    sft_s = time.perf_counter() - t0
    if folder is None:  # a temporary folder, removed when the process exits
        folder = Path(tempfile.mkdtemp(prefix="grpo_nb_trl_"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
    folder = Path(folder)
    _quiet()
    save_local(model, build_tokenizer(), folder / "pi_ref")
    state = {k: v.clone() for k, v in model.state_dict().items()}
    logp_ref = _logp_table(model, task)
    p_ref = table_expected_reward(logp_ref, task.reward_table())
    return TRLSetup(cfg, task, folder, state, p_ref, sft_loss, sft_s, logp_ref)


class ExactSuccessCallback:
    """After every outer step (every ``mu`` optimizer steps) the exact p(q) of every prompt; wall time per step."""

    def __init__(self, task: DigitSumTask, mu: int) -> None:
        from transformers import TrainerCallback

        self.task, self.mu = task, mu
        self.p: list[np.ndarray] = []
        self.step_s: list[float] = []
        self._t = time.perf_counter()
        outer = self

        class _Callback(TrainerCallback):
            def on_train_begin(self, args, state, control, model=None, **kwargs):
                outer.p.append(_success(model, outer.task))
                outer._t = time.perf_counter()

            def on_step_end(self, args, state, control, model=None, **kwargs):
                if state.global_step % outer.mu == 0:
                    outer.step_s.append(time.perf_counter() - outer._t)
                    outer.p.append(_success(model, outer.task))
                    outer._t = time.perf_counter()

        self.callback = _Callback()


def _quiet() -> None:
    """No progress bars or info lines from transformers, datasets and the hub (saving, loading weights)."""
    import datasets
    import transformers

    warnings.filterwarnings("ignore", message=r".*gradient_checkpointing.* is deprecated", category=FutureWarning)
    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    datasets.disable_progress_bars()


def make_trainer(setup: TRLSetup, run: TRLRun, *, reward_log: list | None = None, **overrides):
    """TRL's GRPOTrainer on pi_ref (a fresh copy), with the run's knobs; ``overrides`` go to ``trl.GRPOConfig``."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from datasets import Dataset
    from transformers import PrinterCallback
    from trl import GRPOConfig, GRPOTrainer

    _quiet()

    cfg, task = setup.cfg, setup.task
    model = build_model(cfg.base.model, task.prompt_len + task.out_len, cfg.base.seed)
    model.load_state_dict(setup.state)
    model.config.name_or_path = str(setup.folder / "pi_ref")
    data = Dataset.from_dict({"prompt": task.prompts_text, "index": list(range(task.n_prompts))})
    kwargs = dict(
        output_dir=str(setup.folder / "trainer"),
        beta=run.beta,
        epsilon=run.epsilon,
        loss_type=run.loss_type,
        scale_rewards=run.scale_rewards,
        num_generations=cfg.G,
        per_device_train_batch_size=cfg.G * task.n_prompts,
        num_iterations=cfg.mu,
        max_steps=cfg.mu * cfg.n,
        max_completion_length=task.out_len,
        learning_rate=cfg.lr,
        lr_scheduler_type="constant",
        warmup_steps=0,
        max_grad_norm=0.0,
        bf16=False,
        gradient_checkpointing=False,
        use_cpu=True,
        report_to="none",
        save_strategy="no",
        logging_steps=1,
        disable_tqdm=True,
        seed=cfg.seed,
        dataloader_num_workers=0,
    )
    kwargs.update(overrides)
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=make_reward(task, reward_log),
        args=GRPOConfig(**kwargs),
        train_dataset=data,
        processing_class=build_tokenizer(),
    )
    trainer.remove_callback(PrinterCallback)  # the metrics stay in trainer.state.log_history, unprinted
    return trainer


def predictions(p_ref: np.ndarray, beta: float, eps: float, *, G: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The recursion h^n(p_ref) at (beta, eps) (:func:`grpo_nb.dynamics.iterate`) and the mean of the finite-group
    chain of groups of G (:func:`grpo_nb.ustat.finite_group.finite_group_law`), each (n+1, P)."""
    from grpo_nb.dynamics.map import iterate
    from grpo_nb.ustat.finite_group import StepModel, finite_group_law

    inf_g = iterate(p_ref, beta, eps, n)
    fin = np.stack(
        [finite_group_law(StepModel(float(p), beta, eps, G), n).mean for p in np.clip(p_ref, 1e-9, 1 - 1e-9)],
        axis=1,
    )
    return inf_g, fin


def _theory(p_ref: np.ndarray, beta: float, G: int, n: int) -> tuple[np.ndarray, np.ndarray | None]:
    if beta == 0:
        return np.vstack([p_ref, np.ones((n, p_ref.size))]), None
    return predictions(p_ref, beta_effective(beta, G), TRL_EQUIVALENT_EPS, G=G, n=n)


def _group_successes(log: list, n_prompts: int, n: int) -> np.ndarray:
    """Successes k per prompt in each outer step's groups, (M, P): the reward log's generation calls, in order."""
    k = np.zeros((len(log), n_prompts), dtype=int)
    for step, (idx, r) in enumerate(log):
        np.add.at(k[step], idx, r.astype(int))
    return k[:n]


@dataclass(frozen=True)
class Measured:
    """A trained run as measured: exact p_n per outer step (n+1, P), successes k_n (n, P), wall and step times."""

    p: np.ndarray
    k: np.ndarray
    wall_s: float
    step_s: list[float]


def train_measured(trainer, setup: TRLSetup, reward_log: list) -> Measured:
    """Train ``trainer`` (made with ``reward_log``) with :class:`ExactSuccessCallback`; what it measured."""
    cb = ExactSuccessCallback(setup.task, setup.cfg.mu)
    trainer.add_callback(cb.callback)
    t0 = time.perf_counter()
    trainer.train()
    wall = time.perf_counter() - t0
    k = _group_successes(reward_log, setup.task.n_prompts, setup.cfg.n)
    return Measured(np.stack(cb.p), k, wall, cb.step_s)


def run_trl(setup: TRLSetup, run: TRLRun) -> dict:
    """One TRL run from pi_ref: per prompt the measured p_n, the recursion, the finite-group mean, successes k."""
    cfg = setup.cfg
    log: list = []
    m = train_measured(make_trainer(setup, run, reward_log=log), setup, log)
    p, k, wall = m.p, m.k, m.wall_s
    theory, finite = _theory(setup.p_ref, run.beta, cfg.G, cfg.n)
    return {
        "label": run.key,
        "trl": asdict(run) | {"G": cfg.G, "num_iterations": cfg.mu, "learning_rate": cfg.lr, "n": cfg.n},
        "beta_effective": beta_effective(run.beta, cfg.G),
        "eps": TRL_EQUIVALENT_EPS,
        "wall_s": wall,
        "outer_step_s": m.step_s,
        "per_prompt": [
            {
                "prompt": q,
                "p_ref": float(p[0, i]),
                "p_measured": p[:, i].tolist(),
                "p_theory": theory[:, i].tolist(),
                "p_finite_group": None if finite is None else finite[:, i].tolist(),
                "group_successes": k[:, i].tolist(),
            }
            for i, q in enumerate(setup.task.prompts_text)
        ],
    }


def run_trl_experiment(cfg: TRLRunConfig, progress: bool = True) -> dict:
    """SFT to pi_ref, then every run of ``cfg.runs`` under TRL; the JSON summary (``runs`` -> key -> ``per_prompt``)."""
    from tqdm.auto import tqdm

    setup = prepare_trl(cfg)
    runs = {}
    for run in tqdm(cfg.runs, desc="TRL runs", disable=not progress):
        runs[run.key] = run_trl(setup, run)
    return {
        "trainer": "trl",
        "config": cfg.name,
        "trl_config": asdict(cfg),
        "versions": versions(),
        "hardware": describe(torch.device("cpu")),
        "sft_s": setup.sft_s,
        "sft_loss_final": float(setup.sft_loss[-1]),
        "prompts": [
            {"prompt": q, "demo_noise": float(eta), "p_ref": float(p)}
            for q, eta, p in zip(setup.task.prompts_text, setup.task.noise, setup.p_ref, strict=True)
        ],
        "runs": runs,
    }
