"""One seed of the cached SmolLM2 runs: load the model, pick the prompts by the chapter's rule, train with
Algorithm 1 and return what the record keeps (``tools/smollm_runs.py`` writes the record)."""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import torch

from grpo_nb.smollm.arithmetic import build_task, candidate_pairs, choose_prompts, success_probability
from grpo_nb.smollm.blocks import SplitModel
from grpo_nb.smollm.loading import LoadedModel, load_smollm
from grpo_nb.smollm.training import SmolGRPOConfig, train_smollm

__all__ = ["N_PROMPTS", "QUICK", "TINY", "measure_seed", "prompt_set"]

N_PROMPTS = 16
QUICK = SmolGRPOConfig()
TINY = SmolGRPOConfig(n=1, mu=1, G=2)  # every phase at its smallest: the tool's smoke check


def prompt_set(lm: LoadedModel, n: int = N_PROMPTS) -> tuple[list[tuple[int, int]], np.ndarray]:
    """The chapter's rule: exact p_ref of the 90 candidates, then n of them spread over its range
    (:func:`~grpo_nb.smollm.arithmetic.choose_prompts`). Returns their (a, b) and their p_ref."""
    pairs = candidate_pairs()
    p_all = success_probability(lm.model, build_task(lm.tokenizer, pairs))
    chosen = choose_prompts(p_all, n)
    return [pairs[i] for i in chosen], p_all[chosen]


def measure_seed(seed: int, cfg: SmolGRPOConfig = QUICK, *, source: str = "auto", device: str = "cpu") -> dict:
    """Train a freshly loaded model at ``seed`` and return the record's entry for it, with the run's header
    (pairs, p_ref, model source, config)."""
    torch.manual_seed(seed)
    lm = load_smollm(source)
    pairs, p_ref = prompt_set(lm)
    model = lm.model.to(device)
    task = build_task(lm.tokenizer, pairs)
    task = dataclasses.replace(task, prompt_ids=task.prompt_ids.to(device), target_ids=task.target_ids.to(device))
    split = SplitModel(model, cfg.trained_blocks)
    start = time.perf_counter()
    run = train_smollm(split, task, cfg, seed=seed)
    return {
        "header": {
            "model": {"id": lm.location, "source": lm.source},
            "config": dataclasses.asdict(cfg),
            "pairs": [list(pair) for pair in pairs],
            "p_ref": p_ref.tolist(),
        },
        "run": {
            "p": run.p.tolist(),
            "p_hat": run.p_hat.tolist(),
            "step_s": [round(s, 2) for s in run.step_s],
            "distinct": run.distinct,
            "wall_s": round(time.perf_counter() - start, 1),
        },
    }
