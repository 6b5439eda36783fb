"""Command line of TRL's trainer: ``python -m grpo_nb.trl_adapters --config quick --out summary.json``.

Trains the toy-LM task of :mod:`grpo_nb.toylm` with TRL's GRPOTrainer (:mod:`grpo_nb.trl_adapters.trainer`; needs the
``trl`` extra) and writes the JSON summary of the book's trainer (``python -m grpo_nb.toylm``), with the versions of
TRL, transformers and torch it imported; ``--runs`` makes only some of its runs (parallel processes, each with the
same seeded SFT). ``--config tiny`` is its smoke check: the same code path in seconds; ``auto`` is ``quick`` (TRL runs
on the CPU). ``--ladder full`` runs the ablation ladder (:mod:`grpo_nb.trl_adapters.ladder`: TRL's trainer moved
toward the theory one knob per rung, at every ``--seeds``); ``--grid grid`` runs the knob grid
(:mod:`grpo_nb.trl_adapters.knob_grid`: one knob per cell against TRL's trainer and against exact expectations, at
every ``--seeds``, default 0 to 9; ``--cells`` makes only some). With ``--out``, a ladder or a grid checkpoints beside
it after every run and resumes from that checkpoint when started again; ``--merge a.json b.json`` joins ladders or
grids made by parallel processes into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import replace
from pathlib import Path

from grpo_nb.trl_adapters.knob_grid import GRID, GRID_CONFIGS, GRID_SEEDS, merge_grids, run_grid
from grpo_nb.trl_adapters.ladder import LADDER, LADDER_CONFIGS, LADDER_SEEDS, merge_ladders, run_ladder
from grpo_nb.trl_adapters.trainer import TRL_CONFIGS, run_trl_experiment

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grpo_nb.trl_adapters", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--config", default="auto", choices=["auto", *TRL_CONFIGS], help="auto is quick; tiny: a smoke check in seconds"
    )
    parser.add_argument("--out", type=Path, default=None, help="where to write the JSON summary")
    parser.add_argument("--no-progress", action="store_true", help="hide the tqdm progress bars")
    parser.add_argument("--runs", nargs="+", default=None, help="the runs to make, by key (default all)")
    parser.add_argument("--ladder", default=None, help="run the ablation ladder of this configuration")
    parser.add_argument("--seeds", type=int, nargs="+", default=None, help="the ladder's or the grid's seeds")
    parser.add_argument("--rungs", nargs="+", default=None, help="the ladder's rungs, by key (default all)")
    parser.add_argument("--grid", default=None, help="run the knob grid of this configuration")
    parser.add_argument("--cells", nargs="+", default=None, help="the grid's cells, by key (default all)")
    parser.add_argument("--merge", type=Path, nargs="+", default=None, help="ladders or grids to join into --out")
    args = parser.parse_args(argv)
    if args.grid is not None or (args.merge and json.loads(args.merge[0].read_text())["trainer"] == "trl-knob-grid"):
        return _main_grid(args, parser)
    if args.ladder is not None or args.merge is not None:
        return _main_ladder(args, parser)
    return _main_runs(args, parser)


def _main_runs(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Every TRL run of the configuration, or those named by ``--runs``."""
    cfg = TRL_CONFIGS["quick" if args.config == "auto" else args.config]
    if args.runs is not None:
        keys = [run.key for run in cfg.runs]
        for key in args.runs:
            if key not in keys:
                parser.error(f"--runs {key!r} is not one of {keys}")
        cfg = replace(cfg, runs=tuple(run for run in cfg.runs if run.key in args.runs))
    result = run_trl_experiment(cfg, progress=not args.no_progress)
    print(f"trainer=trl  config={cfg.name}  G={cfg.G}  mu={cfg.mu}  lr={cfg.lr:g}  outer steps={cfg.n}")
    print("  ".join(f"{k} {v}" for k, v in result["versions"].items()))
    for key, run in result["runs"].items():
        gap = max(abs(r["p_measured"][-1] - r["p_theory"][-1]) for r in run["per_prompt"])
        print(
            f"{key}: {run['wall_s']:.1f} s, {statistics.median(run['outer_step_s']):.3f} s per outer step, "
            f"mean p_ref {statistics.mean(r['p_ref'] for r in run['per_prompt']):.3f} -> "
            f"{statistics.mean(r['p_measured'][-1] for r in run['per_prompt']):.3f}, max |p_M - h^M(p_ref)| {gap:.3f}"
        )
    _write(result, args.out)
    return 0


def _main_ladder(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``--ladder NAME``: the ablation ladder; ``--merge``: join ladders made in parallel."""
    if args.merge is not None:
        result = merge_ladders([json.loads(p.read_text()) for p in args.merge])
    else:
        if args.ladder not in LADDER_CONFIGS:
            parser.error(f"--ladder {args.ladder!r} is not one of {sorted(LADDER_CONFIGS)}")
        keys = [r.key for r in LADDER]
        for key in args.rungs or ():
            if key not in keys:
                parser.error(f"--rungs {key!r} is not one of {keys}")
        seeds = tuple(args.seeds) if args.seeds else LADDER_SEEDS
        partial = None if args.out is None else args.out.with_suffix(".partial.json")
        result = run_ladder(
            LADDER_CONFIGS[args.ladder],
            seeds=seeds,
            rungs=args.rungs,
            progress=not args.no_progress,
            checkpoint=partial,
        )
        if partial is not None:  # finished: the summary written below replaces the checkpoint
            partial.unlink(missing_ok=True)
    print(
        f"ladder={result['config']}  beta={result['beta']:g}  "
        + "  ".join(f"{k} {v}" for k, v in result["versions"].items())
    )
    print(result["hardware"])
    p_ref = result["p_ref"]
    for rung in result["rungs"]:
        below = [sum(run["p_measured"][i][-1] < p_ref[i] for i in range(len(p_ref))) for run in rung["runs"]]
        gaps = [
            statistics.median(
                max(abs(a - b) for a, b in zip(run["p_measured"][i], rung["p_finite_group"][i], strict=True))
                for i in range(len(p_ref))
            )
            for run in rung["runs"]
        ]
        walls = [run["wall_s"] for run in rung["runs"]]
        print(
            f"{rung['key']:>16}: below p_ref {below}, median worst gap to the finite-group law "
            f"{[round(g, 3) for g in gaps]}, {statistics.mean(walls):.0f} s per run"
        )
    _write(result, args.out)
    return 0


def _main_grid(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``--grid NAME``: the knob grid, checkpointed beside ``--out``; ``--merge``: join grids."""
    if args.merge is not None:
        result = merge_grids([json.loads(p.read_text()) for p in args.merge])
    else:
        if args.grid not in GRID_CONFIGS:
            parser.error(f"--grid {args.grid!r} is not one of {sorted(GRID_CONFIGS)}")
        keys = [c.key for c in GRID]
        for key in args.cells or ():
            if key not in keys:
                parser.error(f"--cells {key!r} is not one of {keys}")
        partial = None if args.out is None else args.out.with_suffix(".partial.json")
        seeds = tuple(args.seeds) if args.seeds else GRID_SEEDS
        cfg = GRID_CONFIGS[args.grid]
        result = run_grid(cfg, seeds, args.cells, progress=not args.no_progress, checkpoint=partial)
        if partial is not None:
            partial.unlink(missing_ok=True)
    print(
        f"grid={result['config']}  beta={result['beta']:g}  "
        + "  ".join(f"{k} {v}" for k, v in result["versions"].items())
    )
    print(result["hardware"])
    p_ref = result["p_ref"]
    for cell in result["cells"]:
        below = [sum(run["p_measured"][i][-1] < p_ref[i] for i in range(len(p_ref))) for run in cell["runs"]]
        walls = [run["wall_s"] for run in cell["runs"]]
        print(f"{cell['key']:>28}: below p_ref {below}, {statistics.mean(walls):.0f} s per run")
    _write(result, args.out)
    return 0


def _write(result: dict, out: Path | None) -> None:
    """Write the JSON summary to ``out`` (nothing when None)."""
    if out is not None:
        out.write_text(json.dumps(result, indent=1))
        print(f"wrote {out}")


if __name__ == "__main__":
    sys.exit(main())
