"""Speed of the toy-LM GRPO loop against a naive baseline, measured in the same process.

- rollout throughput (answer tokens per second): batched sampling with a KV cache (``rollout.sample``)
  against the naive baseline, one sequence at a time with a full forward pass per token
  (``rollout.sample_naive``);
- the wall time of one GRPO outer step of Algorithm 1 (sampled estimator: G answers per prompt, mu inner
  steps, k3 KL) with each sampler;
- the same outer step under TRL's GRPOTrainer (``--trl``, needs the ``trl`` extra): one generation of G answers
  per prompt and ``num_iterations`` = mu optimizer steps on it, k3 KL (beta > 0), same prompts, G and mu, a GPT-2
  of the book's width, depth and heads (``grpo_nb.trl_adapters.model``), in the same process and thread count; the
  ratio is TRL's time over the book's batched loop.

Both on the configuration's device (CUDA where there is a GPU, else the CPU; ``--device`` overrides), which
the output names. Usage: ``python benchmarks/toylm.py [--config quick|full|auto] [--device cpu|cuda]
[--rows 1024] [--repeats 3] [--trl] [--out bench.json]``.
Weights are freshly initialised (speed does not depend on them). A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import time
from dataclasses import replace
from pathlib import Path

import torch

from grpo_nb.toylm.cost import pick_config
from grpo_nb.toylm.device import describe, resolve_device, synchronize
from grpo_nb.toylm.grpo import TaskTensors, train_grpo
from grpo_nb.toylm.model import TinyLM
from grpo_nb.toylm.rollout import enumerate_logprobs, sample, sample_naive
from grpo_nb.toylm.task import N_DIGITS, VOCAB_SIZE, make_task


def _timed(fn, device: torch.device, repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        synchronize(device)
        t0 = time.perf_counter()
        fn()
        synchronize(device)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="auto")
    parser.add_argument("--device", default=None, help="auto, cpu, cuda or cuda:N (default: the configuration's)")
    parser.add_argument("--rows", type=int, default=1024, help="sequences sampled by the batched sampler")
    parser.add_argument("--naive-rows", type=int, default=128, help="sequences sampled by the naive baseline")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--trl", action="store_true", help="also time TRL's GRPOTrainer (CPU)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    cfg = pick_config(args.config)
    device = resolve_device(cfg.device if args.device is None else args.device)
    dtype = getattr(torch, cfg.dtype)
    torch.set_num_threads(min(cfg.threads, torch.get_num_threads()))
    torch.manual_seed(cfg.seed)
    task = make_task(cfg.task)
    with torch.device("cpu"):
        model = TinyLM(cfg.model, VOCAB_SIZE, N_DIGITS, task.prompt_len + task.out_len)
    model = model.to(device=device, dtype=dtype)
    model.requires_grad_(False)
    prompts = torch.as_tensor(task.prompts, device=device)
    outputs = torch.as_tensor(task.outputs, device=device)
    gen = torch.Generator(device=device).manual_seed(cfg.seed)
    out_len = task.out_len

    rows = prompts[torch.arange(args.rows, device=device) % task.n_prompts]
    naive_rows = rows[: args.naive_rows]
    t_batched = _timed(lambda: sample(model, rows, out_len, generator=gen), device, args.repeats)
    t_naive = _timed(lambda: sample_naive(model, naive_rows, out_len, generator=gen), device, args.repeats)
    tps_batched = args.rows * out_len / t_batched
    tps_naive = args.naive_rows * out_len / t_naive

    ref = copy.deepcopy(model)
    with torch.no_grad():
        logp_ref = enumerate_logprobs(ref, prompts, outputs)
    reward = torch.as_tensor(task.reward_table(), device=device, dtype=dtype)
    tensors = TaskTensors(prompts, outputs, reward, logp_ref)
    gcfg = replace(cfg.grpo, n=1, estimator="sampled", kl="k3")

    def outer_step(sampler) -> float:
        policy = copy.deepcopy(model).requires_grad_(True)
        return train_grpo(policy, ref, tensors, cfg=gcfg, generator=gen, sampler=sampler).step_s[0]

    step_fast = statistics.median(outer_step(sample) for _ in range(args.repeats))
    step_naive = statistics.median(outer_step(sample_naive) for _ in range(args.repeats))

    result = {
        "config": cfg.name,
        "device": describe(device),
        "torch_threads": torch.get_num_threads(),
        "rollout_tokens_per_s": {"kv_cache_batched": tps_batched, "naive": tps_naive, "ratio": tps_batched / tps_naive},
        "grpo_outer_step_s": {
            "kv_cache_batched": step_fast,
            "naive_sampling": step_naive,
            "ratio": step_naive / step_fast,
            "prompts": task.n_prompts,
            "G": gcfg.G,
            "mu": gcfg.mu,
        },
    }
    print(f"{result['device']}  config: {cfg.name}")
    print(
        f"rollout tokens/s   KV cache, batched: {tps_batched:12.0f}   naive: {tps_naive:10.0f}   "
        f"speed-up x{tps_batched / tps_naive:.1f}"
    )
    print(
        f"GRPO outer step    KV cache, batched: {step_fast:10.3f} s   naive sampling: {step_naive:8.3f} s   "
        f"speed-up x{step_naive / step_fast:.1f}   (P={task.n_prompts}, G={gcfg.G}, mu={gcfg.mu})"
    )
    if args.trl:
        if device.type != "cpu":
            raise SystemExit("--trl times TRL on the CPU: add --device cpu")
        step_trl = _trl_outer_step(cfg, args.repeats)
        result["trl_outer_step_s"] = {"trl": step_trl, "book": step_fast, "ratio": step_trl / step_fast}
        print(
            f"TRL outer step     GRPOTrainer: {step_trl:10.3f} s   book's loop: {step_fast:8.3f} s   "
            f"TRL / book x{step_trl / step_fast:.2f}   (P={task.n_prompts}, G={gcfg.G}, mu={gcfg.mu})"
        )
    if args.out is not None:
        args.out.write_text(json.dumps(result, indent=1))
    return result


def _trl_outer_step(cfg, repeats: int) -> float:
    """Median wall time of TRL's outer steps after the first (generation + mu optimizer steps), beta and lr as the
    book's run, no clipping in effect; the exact success probabilities the callback computes are not timed."""
    from grpo_nb.trl_adapters.trainer import ExactSuccessCallback, TRLRun, TRLRunConfig, make_trainer, prepare_trl

    base = replace(cfg, sft=replace(cfg.sft, n_steps=1))  # speed does not depend on the weights
    tcfg = TRLRunConfig("bench", base, G=cfg.grpo.G, mu=cfg.grpo.mu, n=repeats + 1, lr=cfg.grpo.lr)
    setup = prepare_trl(tcfg)
    trainer = make_trainer(setup, TRLRun("bench", cfg.grpo.beta))
    timer = ExactSuccessCallback(setup.task, tcfg.mu)
    trainer.add_callback(timer.callback)
    trainer.train()
    return statistics.median(timer.step_s[1:])


if __name__ == "__main__":
    main()
