"""The numbers of the book's GPU run, as ``tools/gpu_run.sh`` measured them on a CUDA machine.

``tools/gpu_run.sh`` runs the CUDA tests, the book's trainer in both configurations (``quick`` and ``full``) and TRL's
trainer in the TRL chapter's configuration on one GPU, and writes what it measured into ``grpo_nb/data/gpu_run.json``
(package data, so that a chapter opened alone in Colab finds it). The training chapter shows these numbers where the
file exists and says that no GPU run has been made where it does not: nothing on a page is a GPU number unless it was
measured on one.

The file's schema (``SCHEMA``), one record per run in ``runs``:

- ``device`` (the GPU's name), ``torch``, ``cuda`` (versions), ``date`` (ISO date of the run), ``commit``;
- ``cuda_tests``: ``passed``, ``failed``, ``skipped`` of the CUDA tests;
- ``failed_steps`` (optional; absent means none): one line per step that did not finish, ``"<step>: <why>"``;
- each run: ``trainer`` (``book`` or ``trl``), ``config``, ``wall_s`` (SFT and every GRPO run of the configuration),
  ``grpo_s`` (the main run alone), ``rollout_tokens_per_s`` (the sampled run's rollout throughput; ``None`` where no
  run samples through the book's rollout), ``n_prompts``, and over the main run's prompts the largest gap
  ``|p~_n - p_n|`` per prompt (``max_gap_per_prompt``), with its median ``median_max_gap`` and maximum ``max_gap``.
"""

from __future__ import annotations

from pathlib import Path

from grpo_nb.toylm.records import check_header, load_record

__all__ = ["GPU_RUN_FILE", "RUN_KEYS", "SCHEMA", "load_gpu_run", "validate_gpu_run"]

GPU_RUN_FILE = "gpu_run.json"  # under grpo_nb/data/
SCHEMA = 1
TOP_KEYS = ("schema", "device", "torch", "cuda", "date", "commit", "cuda_tests", "runs")
RUN_KEYS = (
    "trainer",
    "config",
    "wall_s",
    "grpo_s",
    "rollout_tokens_per_s",
    "n_prompts",
    "max_gap_per_prompt",
    "median_max_gap",
    "max_gap",
)


def validate_gpu_run(record: dict) -> dict:
    """``record`` if it has the schema above, else ValueError naming the first missing or wrong field."""
    check_header(record, "gpu_run", top_keys=TOP_KEYS, schema=SCHEMA)
    failed_steps = record.get("failed_steps", [])
    if not isinstance(failed_steps, list) or not all(isinstance(line, str) for line in failed_steps):
        raise ValueError(f"gpu_run record: failed_steps={failed_steps!r}, expected a list of strings")
    if not record["runs"]:
        raise ValueError("gpu_run record: runs=[] holds no run; expected at least one")
    for i, run in enumerate(record["runs"]):
        missing = [k for k in RUN_KEYS if k not in run]
        if missing:
            raise ValueError(f"gpu_run record: runs[{i}] is missing {missing}; expected {list(RUN_KEYS)}")
        if run["trainer"] not in ("book", "trl"):
            raise ValueError(f"gpu_run record: runs[{i}].trainer={run['trainer']!r}, expected 'book' or 'trl'")
        if len(run["max_gap_per_prompt"]) != run["n_prompts"]:
            n = len(run["max_gap_per_prompt"])
            raise ValueError(f"gpu_run record: runs[{i}] has {n} per-prompt gaps for n_prompts={run['n_prompts']}")
    return record


def load_gpu_run(path: str | Path | None = None) -> dict | None:
    """The GPU run's record (validated), from ``path`` or, by default, from the package's ``grpo_nb/data/``; ``None``
    where no GPU run has been made (the packaged file does not exist)."""
    return load_record(path, GPU_RUN_FILE, validate_gpu_run)
