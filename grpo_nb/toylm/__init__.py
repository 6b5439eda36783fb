"""Paper §5 on a real network: a tiny causal LM, SFT to pi_ref, GRPO (Algorithm 1), compared with theory.

Needs torch (the rest of grpo_nb does not). Modules, each small:

- ``configs``    every hyperparameter; ``QUICK`` and ``FULL``; ``BookTrainerConfig``, the book's trainer's, checked at
                 creation
- ``device``     CUDA when there is a GPU, else the CPU; waiting for it; naming the hardware
- ``task``       the digit-sum task: graded difficulty, enumerable outputs, verifiable 0/1 reward
- ``model``      the causal transformer (SDPA attention, KV cache)
- ``rollout``    exact enumeration of log pi(o|q), teacher forcing, batched and naive sampling
- ``sft``        SFT on noisy demonstrations
- ``grpo``       Algorithm 1: stabilised / TRL advantage, importance ratio, clipping, exact or k3 KL
- ``theory``     Theorem 1's policy, total variation, success probability (numpy)
- ``experiment`` the whole §5 experiment and its comparison with h^n(p_ref)
- ``cost``       a configuration's GPU time (a T4 by default) from FLOPs and kernel launches counted on the CPU;
                 ``pick_config`` chooses ``quick`` or ``full`` by it
- ``report``     the per-prompt table and the prompts picked across regimes; ``__main__`` the command line
- ``gpu_run``    the numbers of the GPU run (``tools/gpu_run.sh``) as the package ships them, or None before one
- ``distribution_runs`` the answer distribution per seed under each clip mode and reward
                 (``tools/distribution_runs.py``), and the record the package ships
- ``records``    the JSON records the package ships under ``grpo_nb/data/`` (the GPU run's, the distribution runs'):
                 read, and their header checked

The same task trained by TRL's GRPOTrainer, and the ablation ladder from TRL's trainer to the theory, are
:mod:`grpo_nb.trl_adapters` (needs ``trl``; it stands on this package, which never imports it), with its own command
line, ``python -m grpo_nb.trl_adapters``.

The parametric chapter's analyses (its runs' summaries, Theorem 5's per-step errors against |h'| along a run) are
:mod:`grpo_nb.chapters.parametric_grpo`.
"""

from grpo_nb.toylm.configs import FULL, QUICK, BookTrainerConfig, ModelConfig, RunConfig, SFTConfig, TaskConfig
from grpo_nb.toylm.cost import pick_config
from grpo_nb.toylm.distribution_runs import load_distribution_runs
from grpo_nb.toylm.experiment import (
    ExperimentResult,
    RunRecord,
    prepare,
    run_all,
    run_experiment,
    run_grpo,
    run_plan,
)
from grpo_nb.toylm.gpu_run import load_gpu_run

__all__ = [
    "FULL",
    "QUICK",
    "BookTrainerConfig",
    "ExperimentResult",
    "ModelConfig",
    "RunConfig",
    "RunRecord",
    "SFTConfig",
    "TaskConfig",
    "load_distribution_runs",
    "load_gpu_run",
    "pick_config",
    "prepare",
    "run_all",
    "run_experiment",
    "run_grpo",
    "run_plan",
]
