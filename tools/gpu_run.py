"""A GPU run, ready to go: measure the toy LM on a CUDA machine and write the numbers the training chapter shows.

    tools/gpu_run.sh                                   # on a CUDA machine: writes grpo_nb/data/gpu_run.json
    tools/gpu_run.sh --device cpu --dry-run --out /tmp/gpu_run.json   # every step at its smallest, on the CPU

Steps, each a process with its own timeout and log (under ``--work``, a temporary folder by default):

- the CUDA tests, ``tests/unit/test_toylm_cuda.py`` and the training chapter's claims on the GPU,
  ``tests/chapters/test_parametric_grpo_cuda.py`` (they skip without CUDA): passed, failed, skipped;
- the book's trainer, ``python -m grpo_nb.toylm``, in ``quick`` and then ``full``, on the GPU;
- TRL's trainer in the TRL chapter's configuration (``python -m grpo_nb.trl_adapters --config full``, as
  ``grpo_nb/data/trl_full.json`` was made). TRL runs on the CPU, one thread, whatever the machine
  (``grpo_nb.trl_adapters.trainer``): on the CPU that made ``trl_full.json`` its SFT took 285 s and each of its three
  runs about 125 s, some 11 minutes in a row, more than the whole budget. So each run is a process of its own
  (``--runs``), all three started at once beside the GPU steps; each makes the same seeded SFT (the script checks that
  every process has the same p_ref) and takes about 7 minutes on the CPU that made ``trl_full.json``; on an H200
  machine's CPU (2026-11-27) none finished within its 470 s.

The GPU steps run one after the other, the TRL processes beside them on other cores, so the whole run takes about as
long as one TRL process; the timeouts (``TIMEOUT_S``) hold it under 8 minutes. The GPU steps' own time was
estimated from ``grpo_nb.toylm.cost`` (about 0.24 million kernel launches for ``quick`` and 0.58 million for ``full``,
a few seconds each at tens of microseconds per launch, plus each process's start and the CUDA tests, whose two files
each train ``quick`` once more) at about 2 minutes; on an H200 (2026-11-27) the two trainings took 28 s and 44 s and
the CUDA tests 34 s. A step that fails or times out is reported (the record's ``failed_steps``) and the others go on;
the record then holds what was measured, and the script exits with 1.

The record follows :mod:`grpo_nb.toylm.gpu_run` (checked by ``validate_gpu_run`` before it is written): per run the
wall time (SFT and every run of the configuration), the main run's time, the rollout throughput, and per prompt the
main run's worst gap ``max_n |p~_n - p_n|`` to the recursion (for TRL the ``beta=2`` run against the recursion at
TRL's effective beta, as the TRL chapter reads ``trl_full.json``). ``--dry-run`` runs every step at its smallest
(``--config tiny`` for both trainers) and must write elsewhere (``--out``): it never writes the package's file.
Nothing is downloaded (the Hugging Face libraries run offline) and nothing is installed.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout: the grpo_nb next to this script

from grpo_nb.toylm.gpu_run import GPU_RUN_FILE, SCHEMA, validate_gpu_run  # noqa: E402

PACKAGE_FILE = ROOT / "grpo_nb" / "data" / GPU_RUN_FILE
CUDA_TESTS = ("tests/unit/test_toylm_cuda.py", "tests/chapters/test_parametric_grpo_cuda.py")
TRL_MAIN_RUN = "beta=2"  # the TRL run the chapter compares with the recursion
BUDGET_S = 480  # the whole run: eight minutes
TIMEOUT_S = {"cuda tests": 120, "book quick": 90, "book full": 180, "trl": BUDGET_S - 10}  # GPU lane: 390 s in all
HEARTBEAT_S = 30
# The CUDA tests need neither the book's nbval options (pyproject's addopts) nor the root conftest (it imports nbformat
# for the chapter runs): a CUDA image holds torch and pytest, not the notebook stack.
PYTEST_ALONE = ("-o", "addopts=", "--noconftest", "-p", "no:cacheprovider")
TRL_LANE = "trl "  # a TRL lane's name: this prefix and the run's key
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}


@dataclass(frozen=True)
class Step:
    """One process of the run: its name, command, timeout, log file and the JSON summary it writes (or None)."""

    name: str
    argv: list[str]
    timeout_s: float
    log: Path
    summary: Path | None = None


@dataclass(frozen=True)
class Outcome:
    """How a step ended: ``ok``, its seconds, and why it failed (empty when it did not)."""

    step: Step
    ok: bool
    seconds: float
    reason: str = ""


def say(message: str, start: float) -> None:
    """Print one progress line, stamped with the seconds since ``start``, at once."""
    print(f"[{time.perf_counter() - start:5.0f} s] {message}", flush=True)


#: each trainer's command line: ``python -m <module>``
TRAINER_CLI = {"book": "grpo_nb.toylm", "trl": "grpo_nb.trl_adapters"}


def toylm_argv(trainer: str, config: str, out: Path, *extra: str) -> list[str]:
    """The command line of ``trainer`` (``TRAINER_CLI``) with a configuration, writing its summary to ``out``."""
    return [
        sys.executable,
        "-m",
        TRAINER_CLI[trainer],
        "--config",
        config,
        "--out",
        str(out),
        "--no-progress",
        *extra,
    ]


def trl_run_keys(config: str) -> list[str]:
    """The keys of the TRL configuration's runs, in its order (``grpo_nb.trl_adapters.trainer.TRL_CONFIGS``)."""
    from grpo_nb.trl_adapters.trainer import TRL_CONFIGS

    return [run.key for run in TRL_CONFIGS[config].runs]


def plan_lanes(device: str, dry_run: bool, work: Path) -> dict[str, list[Step]]:
    """The steps by lane: the GPU lane runs its steps in order; every TRL run is a lane of its own, beside it."""
    book = ("tiny", "tiny") if dry_run else ("quick", "full")
    trl = "tiny" if dry_run else "full"
    gpu_lane = [
        Step(
            "cuda tests",
            [sys.executable, "-m", "pytest", *CUDA_TESTS, "-v", "-rs", *PYTEST_ALONE],
            TIMEOUT_S["cuda tests"],
            work / "cuda_tests.log",
        ),
    ]
    for size, config in zip(("quick", "full"), book, strict=True):
        out = work / f"book_{size}.json"
        argv = toylm_argv("book", config, out, "--device", device)
        gpu_lane.append(Step(f"book {size}", argv, TIMEOUT_S[f"book {size}"], work / f"book_{size}.log", out))
    lanes = {"gpu": gpu_lane}
    for i, key in enumerate(trl_run_keys(trl)):
        out = work / f"trl_{i}.json"
        lanes[TRL_LANE + key] = [
            Step(
                f"trl {trl} [{key}]",
                toylm_argv("trl", trl, out, "--runs", key),
                TIMEOUT_S["trl"],
                work / f"trl_{i}.log",
                out,
            )
        ]
    return lanes


def child_env(device: str) -> dict[str, str]:
    """The steps' environment: offline Hugging Face libraries, unbuffered output; no GPU visible for ``cpu``."""
    env = os.environ | OFFLINE
    if device == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""
    return env


def run_step(step: Step, env: dict[str, str], start: float) -> Outcome:
    """Run one step with its timeout, its output into its log; how it ended."""
    say(f"{step.name}: started (timeout {step.timeout_s:.0f} s, log {step.log})", start)
    t0 = time.perf_counter()
    with step.log.open("w") as log:
        try:
            proc = subprocess.run(
                step.argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=step.timeout_s, check=False
            )
            reason = "" if proc.returncode == 0 else f"exit status {proc.returncode}"
        except subprocess.TimeoutExpired:
            reason = f"timed out after {step.timeout_s:.0f} s"
    seconds = time.perf_counter() - t0
    if not reason and step.summary is not None and not step.summary.is_file():
        reason = f"wrote no summary {step.summary}"
    say(f"{step.name}: {'done' if not reason else 'FAILED, ' + reason} in {seconds:.0f} s", start)
    if reason:
        print("".join(step.log.read_text().splitlines(keepends=True)[-15:]), flush=True)
    return Outcome(step, not reason, seconds, reason)


def run_lane(steps: list[Step], env: dict[str, str], start: float) -> list[Outcome]:
    """A lane's steps one after the other; a failed step does not stop the next."""
    return [run_step(step, env, start) for step in steps]


def run_lanes(lanes: dict[str, list[Step]], env: dict[str, str], start: float) -> dict[str, Outcome]:
    """Every lane at once (one thread each, waiting on its processes); a line every ``HEARTBEAT_S`` seconds while
    they run. The outcome of every step, by name."""
    with ThreadPoolExecutor(max_workers=len(lanes)) as pool:
        pending = {pool.submit(run_lane, steps, env, start): name for name, steps in lanes.items()}
        outcomes: dict[str, Outcome] = {}
        while pending:
            done, _ = wait(pending, timeout=HEARTBEAT_S, return_when=FIRST_COMPLETED)
            for future in done:
                pending.pop(future)
                outcomes |= {o.step.name: o for o in future.result()}
            if pending and not done:
                say(f"still running: {', '.join(pending.values())}", start)
    return outcomes


def count_cuda_tests(log: str) -> dict[str, int]:
    """Passed, failed and skipped tests in a ``pytest -v`` log, from the line each finished test prints (so a log cut
    off by the timeout counts the tests that finished)."""
    results = re.findall(r"::\S+ (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)", log)
    return {
        "passed": sum(r in ("PASSED", "XPASS") for r in results),
        "failed": sum(r in ("FAILED", "ERROR") for r in results),
        "skipped": sum(r in ("SKIPPED", "XFAIL") for r in results),
    }


def worst_gaps(per_prompt: list[dict]) -> list[float]:
    """Per prompt, max_n |p~_n - p_n|: the measured trajectory's worst gap to the recursion's."""
    return [max(abs(a - b) for a, b in zip(r["p_measured"], r["p_theory"], strict=True)) for r in per_prompt]


def run_record(trainer: str, config: str, *, wall_s: float, main: dict, rollout: float | None) -> dict:
    """One entry of the record's ``runs`` (:mod:`grpo_nb.toylm.gpu_run`) from a summary's main run."""
    gaps = worst_gaps(main["per_prompt"])
    return {
        "trainer": trainer,
        "config": config,
        "wall_s": wall_s,
        "grpo_s": main["wall_s"],
        "rollout_tokens_per_s": rollout,
        "n_prompts": len(gaps),
        "max_gap_per_prompt": gaps,
        "median_max_gap": statistics.median(gaps),
        "max_gap": max(gaps),
    }


def book_record(summary: dict) -> dict:
    """The book trainer's entry: SFT plus every run, the main run, the sampled run's rollout throughput."""
    runs = summary["runs"]
    wall = summary["timings_s"]["sft_s"] + sum(run["wall_s"] for run in runs.values())
    rollout = runs["sampled"]["rollout_tokens_per_s"] if "sampled" in runs else None
    return run_record("book", summary["config"]["name"], wall_s=wall, main=runs["main"], rollout=rollout)


def trl_record(summaries: list[dict], all_keys: list[str], gpu: bool) -> dict:
    """TRL's entry from its per-run processes: one SFT plus every run, the ``beta=2`` run as the main run.

    ValueError when the processes' SFT differ (then they are not one configuration) or the main run is missing. The
    configuration names what is missing and, on a GPU machine, that TRL ran on the CPU."""
    p_refs = {tuple(p["p_ref"] for p in s["prompts"]) for s in summaries}
    if len(p_refs) != 1:
        raise ValueError(f"TRL processes: {len(p_refs)} different p_ref after SFT; expected one (the same seeded SFT)")
    runs = {key: run for s in summaries for key, run in s["runs"].items()}
    if TRL_MAIN_RUN not in runs:
        raise ValueError(f"TRL runs: {sorted(runs)} lack the main run {TRL_MAIN_RUN!r}")
    notes = [] if set(runs) == set(all_keys) else [f"runs: {', '.join(k for k in all_keys if k in runs)}"]
    if gpu and all(s["hardware"].startswith("CPU:") for s in summaries):
        notes.append("on the CPU")
    config = summaries[0]["config"] + (f" ({'; '.join(notes)})" if notes else "")
    wall = summaries[0]["sft_s"] + sum(run["wall_s"] for run in runs.values())
    return run_record("trl", config, wall_s=wall, main=runs[TRL_MAIN_RUN], rollout=None)


def git_commit() -> str:
    """The checkout's commit, ``-dirty`` when tracked files differ from it; ``unknown`` outside a git checkout."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head.stdout.strip() + ("-dirty" if status.stdout.strip() else "")


def machine(device: str) -> dict[str, str | None]:
    """The device's name (the GPU's, or the CPU's for a dry run on the CPU) and the torch and CUDA versions."""
    import torch

    from grpo_nb.toylm.device import cpu_name

    name = torch.cuda.get_device_name(torch.device(device)) if device.startswith("cuda") else cpu_name()
    return {"device": name, "torch": torch.__version__, "cuda": torch.version.cuda}


def read_summary(outcome: Outcome | None) -> dict | None:
    """A finished step's JSON summary (None for a step that failed or wrote none)."""
    if outcome is None or not outcome.ok or outcome.step.summary is None:
        return None
    return json.loads(outcome.step.summary.read_text())


def assemble(outcomes: dict[str, Outcome], lanes: dict[str, list[Step]], device: str, date: str) -> tuple[dict, list]:
    """The record of what was measured, and the problems met while assembling it (as text)."""
    problems: list[str] = []
    tests = outcomes["cuda tests"]
    cuda_tests = count_cuda_tests(tests.step.log.read_text())
    if not tests.ok:  # a failure, or a test cut off by the timeout
        cuda_tests["failed"] = max(cuda_tests["failed"], 1)
    runs = [book_record(s) for size in ("quick", "full") if (s := read_summary(outcomes.get(f"book {size}")))]
    trl_keys = [name.removeprefix(TRL_LANE) for name in lanes if name.startswith(TRL_LANE)]
    trl = [s for key in trl_keys for step in lanes[TRL_LANE + key] if (s := read_summary(outcomes.get(step.name)))]
    if trl:
        try:
            runs.append(trl_record(trl, trl_keys, gpu=device.startswith("cuda")))
        except ValueError as err:
            problems.append(str(err))
    record = {
        "schema": SCHEMA,
        **machine(device),
        "date": date,
        "commit": git_commit(),
        "cuda_tests": cuda_tests,
        "runs": runs,
    }
    return record, problems


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line; refuses a dry run that would write the package's file and a real run without a GPU."""
    parser = argparse.ArgumentParser(prog="tools/gpu_run.sh", description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", help="cuda (or cuda:N) for the GPU run; cpu only with --dry-run")
    parser.add_argument("--dry-run", action="store_true", help="every step at its smallest configuration")
    parser.add_argument("--out", type=Path, default=None, help=f"the record (default {PACKAGE_FILE.relative_to(ROOT)})")
    parser.add_argument(
        "--work", type=Path, default=None, help="the steps' logs and summaries (default: a temp folder)"
    )
    args = parser.parse_args(argv)
    if args.dry_run and (args.out is None or args.out.resolve() == PACKAGE_FILE.resolve()):
        parser.error(f"--dry-run needs --out elsewhere than {PACKAGE_FILE.relative_to(ROOT)}")
    if not args.dry_run and not args.device.startswith("cuda"):
        parser.error(f"--device {args.device!r}: the GPU run needs cuda; the CPU runs only with --dry-run")
    args.out = args.out or PACKAGE_FILE
    return args


def main(argv: list[str] | None = None) -> int:
    """Run every step, write the record, and return 0 only if every step succeeded."""
    args = parse_args(argv)
    start = time.perf_counter()
    if args.device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            print(f"--device {args.device}: torch.cuda.is_available() is False; nothing run", flush=True)
            return 1
    date = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    work = args.work or Path(tempfile.mkdtemp(prefix="gpu_run_"))
    work.mkdir(parents=True, exist_ok=True)
    lanes = plan_lanes(args.device, args.dry_run, work)
    say(
        f"{'dry run' if args.dry_run else 'GPU run'} on {args.device}: {sum(map(len, lanes.values()))} steps, "
        f"budget {BUDGET_S} s, logs in {work}",
        start,
    )
    outcomes = run_lanes(lanes, child_env(args.device), start)
    record, problems = assemble(outcomes, lanes, args.device, date)
    failed = [f"{o.step.name}: {o.reason}" for o in outcomes.values() if not o.ok] + problems
    record["failed_steps"] = failed
    if record["runs"]:
        validate_gpu_run(record)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(record, indent=1) + "\n")
        say(f"wrote {args.out}: {len(record['runs'])} runs, CUDA tests {record['cuda_tests']}", start)
    else:
        failed.append("no run finished: nothing written")
    for line in failed:
        say(f"FAILED {line}", start)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
