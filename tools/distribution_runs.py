"""Measure the toy LM's answer distribution under GRPO at many seeds and cache it for the book.

    python tools/distribution_runs.py                                   # quick, seeds 0..19, two at a time
    python tools/distribution_runs.py --config tiny --seeds 0-1 --out /tmp/distribution_runs.json

Every seed repeats SFT and the nine runs of :func:`grpo_nb.toylm.distribution_runs.run_plan` (exact; sampled groups
with no clip, both clips, the upper clip alone, the lower clip alone; the same four with random rewards) on the CPU,
one thread per process; the record (:mod:`grpo_nb.toylm.distribution_runs`) holds every run's summary per seed, the
machine, the versions, the date and the commit, and goes to ``grpo_nb/data/distribution_runs.json`` unless ``--out``
says otherwise (a ``tiny`` run must name ``--out``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grpo_nb.toylm.configs import QUICK, TINY  # noqa: E402
from grpo_nb.toylm.distribution_runs import (  # noqa: E402
    CLIP_EPS,
    DISTRIBUTION_RUNS_FILE,
    SCHEMA,
    measure_seed,
    run_plan,
    validate_distribution_runs,
)

PACKAGE_FILE = ROOT / "grpo_nb" / "data" / DISTRIBUTION_RUNS_FILE
CONFIGS = {"quick": QUICK, "tiny": TINY}


def parse_seeds(text: str) -> list[int]:
    """``"0-19"`` or ``"3,5,8"``: the seeds, in order."""
    if "-" in text:
        lo, hi = (int(x) for x in text.split("-"))
        return list(range(lo, hi + 1))
    return [int(x) for x in text.split(",")]


def _one_seed(config: str, seed: int) -> tuple[int, dict]:
    return seed, measure_seed(CONFIGS[config], seed)


def versions() -> dict[str, str]:
    import numpy
    import torch

    return {"python": platform.python_version(), "numpy": numpy.__version__, "torch": torch.__version__}


def machine() -> dict[str, str]:
    from grpo_nb.toylm.device import cpu_name

    return {"platform": platform.platform(), "processor": cpu_name(), "threads": "one per process"}


def git_commit() -> str:
    proc = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return proc.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", choices=sorted(CONFIGS), default="quick")
    parser.add_argument("--seeds", default="0-19", help="e.g. 0-19 or 0,3,7 (default 0-19)")
    parser.add_argument("--jobs", type=int, default=2, help="processes at a time (default 2)")
    parser.add_argument("--out", type=Path, default=None, help=f"the record (default {PACKAGE_FILE.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    if args.out is None and args.config != "quick":
        parser.error(f"--config {args.config} must name --out: only quick writes {PACKAGE_FILE.relative_to(ROOT)}")
    out = args.out or PACKAGE_FILE
    seeds = parse_seeds(args.seeds)
    start = time.perf_counter()
    per_seed: dict[str, dict] = {}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for seed, entry in pool.map(_one_seed, [args.config] * len(seeds), seeds):
            per_seed[str(seed)] = entry
            print(f"seed {seed}: {entry['wall_s']:.0f} s", flush=True)
    record = {
        "schema": SCHEMA,
        "config": args.config,
        "clip_eps": CLIP_EPS,
        "seeds": seeds,
        "runs": list(run_plan(CONFIGS[args.config].grpo)),
        "machine": machine(),
        "versions": versions(),
        "date": datetime.date.today().isoformat(),
        "commit": git_commit(),
        "per_seed": per_seed,
    }
    validate_distribution_runs(record)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, separators=(",", ":")) + "\n")
    print(f"wrote {out} ({len(seeds)} seeds) in {time.perf_counter() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
