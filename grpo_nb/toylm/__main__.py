"""Command line of the book's trainer: ``python -m grpo_nb.toylm --config quick --out summary.json``.

Trains pi_ref by SFT, runs every GRPO run of the configuration (on CUDA where there is a GPU, else on
the CPU; ``--device`` overrides), prints the hardware and the main run's per-prompt table (p_ref, measured
p~_M, theory h^M(p_ref), worst gap) and writes the JSON summary (per prompt p_ref, measured and theory
trajectories; hardware, wall times and rollout throughput). ``--config tiny`` is its smoke check: the same code path
in seconds. TRL's trainer on the same task has its own command, ``python -m grpo_nb.trl_adapters``, in the package
that stands on this one.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import replace
from pathlib import Path

from grpo_nb.toylm.configs import CONFIGS, TINY
from grpo_nb.toylm.report import per_prompt_rows

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    from grpo_nb.toylm.cost import pick_config
    from grpo_nb.toylm.experiment import run_experiment

    parser = argparse.ArgumentParser(prog="python -m grpo_nb.toylm", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--config",
        default="auto",
        choices=["auto", *CONFIGS, "tiny"],
        help="auto: on a GPU the largest configuration estimated to finish in about ten minutes on a T4, else quick; "
        "tiny: a smoke check in seconds",
    )
    parser.add_argument("--device", default=None, help="auto, cpu, cuda or cuda:N (default: the configuration's)")
    parser.add_argument("--out", type=Path, default=None, help="where to write the JSON summary")
    parser.add_argument("--no-progress", action="store_true", help="hide the tqdm progress bars")
    args = parser.parse_args(argv)
    cfg = TINY if args.config == "tiny" else pick_config(args.config)
    if args.device is not None:
        cfg = replace(cfg, device=args.device)
    result = run_experiment(cfg, progress=not args.no_progress)
    main_run = result.runs["main"]
    headers, rows = per_prompt_rows(result.prompts, main_run)
    widths = [max(len(h), 8) for h in headers]
    print(f"config={cfg.name}  beta={cfg.grpo.beta:g}  eps={cfg.grpo.eps:g}  mu={cfg.grpo.mu}  lr={cfg.grpo.lr:g}")
    print(result.hardware)
    print("  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True)))
    for row in rows:
        cells = [v if isinstance(v, str) else f"{v:.3f}" for v in row]
        print("  ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True)))
    print(f"SFT: {result.timings['sft_s']:.1f} s")
    for key, run in result.runs.items():
        tps = run.rollout_tokens_per_s
        print(
            f"grpo[{key}]: {run.wall_s:.1f} s, {statistics.median(run.step_s):.3f} s per outer step"
            + (f", rollout {tps:,.0f} tokens/s" if tps else "")
        )
    if args.out is not None:
        args.out.write_text(json.dumps(result.to_json(), indent=1))
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
