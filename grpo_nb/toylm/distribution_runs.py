"""The toy LM's whole answer distribution under GRPO: success probabilities (hence pass@k), entropy and the mass of
the reference policy's most likely answer, per seed and run, as ``tools/distribution_runs.py`` measures and caches
them in ``grpo_nb/data/distribution_runs.json`` (package data).

Each seed s repeats the whole pipeline: SFT to pi_ref at ``RunConfig.seed = s`` (:func:`grpo_nb.toylm.experiment.
prepare`), then every run of :func:`run_plan` from that pi_ref, run i with its own generator seeded ``100 s + i``:

- ``exact``: the book trainer's exact estimator (Eq. 6 with every answer enumerated), the configuration's settings;
- ``sampled/<mode>``: sampled groups (G answers per prompt, Schulman's k3 KL) with the four clip modes of
  :data:`grpo_nb.tabular.clip_bias.CLIP_MODES`: ``none``, ``symmetric`` (``clip_eps`` on both sides), ``high_only``
  (the upper clip alone), ``low_only`` (the lower clip alone), at the clip range :data:`CLIP_EPS`
  (:func:`trainer_clip`);
- ``random/<mode>``: the same four with Bernoulli(1/2) rewards drawn apart from the answers
  (``reward_signal="random"``).

Each run's table of log pi_n(o|q) over all enumerated answers, n = 0..M (:class:`grpo_nb.toylm.grpo.GRPOHistory`),
is summarised by :func:`summarize`: per n the prompts' success probabilities p_n(q) (from which pass@k =
1 - (1 - p)^k, :func:`grpo_nb.tabular.distribution.pass_at_k`), the mean over prompts of the policy's entropy
(:func:`grpo_nb.tabular.entropy.policy_entropy`) and of the mass on pi_ref's most likely answer; per prompt at n = M
the entropy and that mass.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np

from grpo_nb.tabular.clip_bias import CLIP_MODES, clip_bounds
from grpo_nb.tabular.entropy import policy_entropy
from grpo_nb.toylm.configs import BookTrainerConfig, RunConfig
from grpo_nb.toylm.records import check_header, load_record
from grpo_nb.toylm.theory import table_expected_reward

__all__ = [
    "CLIP_EPS",
    "DISTRIBUTION_RUNS_FILE",
    "SCHEMA",
    "load_distribution_runs",
    "measure_seed",
    "run_plan",
    "summarize",
    "trainer_clip",
    "validate_distribution_runs",
]

DISTRIBUTION_RUNS_FILE = "distribution_runs.json"  # under grpo_nb/data/
SCHEMA = 1
#: The clip range of the clipped runs (PPO's and TRL's default).
CLIP_EPS = 0.2
SUMMARY_KEYS = ("p", "entropy_mean", "top_mass_mean", "entropy_final", "top_mass_final")
TOP_KEYS = ("schema", "config", "clip_eps", "seeds", "runs", "machine", "versions", "date", "commit", "per_seed")


def trainer_clip(mode: str, clip_eps: float = CLIP_EPS) -> tuple[float | None, float | None]:
    """(clip_eps, clip_eps_high) of the book trainer (:class:`grpo_nb.toylm.configs.BookTrainerConfig`) for a clip
    ``mode`` of :data:`grpo_nb.tabular.clip_bias.CLIP_MODES`: the mode's bounds
    (:func:`grpo_nb.tabular.clip_bias.clip_bounds`), with no clip on either side as (None, None) and the same clip on
    both as (clip_eps, None); inf removes one side's clip."""
    low, high = clip_bounds(mode, clip_eps=clip_eps)
    if low == high:
        return (None, None) if low == math.inf else (low, None)
    return low, high


def run_plan(grpo: BookTrainerConfig) -> dict[str, BookTrainerConfig]:
    """The runs of one seed, by key (module docstring), from the configuration's GRPO settings ``grpo``."""
    plan = {"exact": replace(grpo, estimator="exact")}
    for signal, prefix in (("verifiable", "sampled"), ("random", "random")):
        for mode in CLIP_MODES:
            low, high = trainer_clip(mode)
            plan[f"{prefix}/{mode}"] = replace(
                grpo, estimator="sampled", kl="k3", clip_eps=low, clip_eps_high=high, reward_signal=signal
            )
    return plan


def summarize(logp: object, reward: object) -> dict[str, list]:
    """The summary of one run from its log-policy tables ``logp`` (M+1, P, K) and the 0/1 rewards (P, K).

    ``p``: (M+1, P) success probabilities; ``entropy_mean``, ``top_mass_mean``: (M+1,) means over prompts of the
    entropy and of pi_n(o*|q), o* = argmax pi_0(.|q); ``entropy_final``, ``top_mass_final``: (P,) at n = M.
    """
    logp = np.asarray(logp, dtype=float)
    if logp.ndim != 3:
        raise ValueError(f"logp has shape {logp.shape}; valid: (M+1, P, K)")
    p = np.stack([table_expected_reward(table, reward) for table in logp])
    entropy = np.asarray(policy_entropy(logp))
    top = np.argmax(logp[0], axis=-1)
    top_mass = np.exp(np.take_along_axis(logp, np.broadcast_to(top[None, :, None], (logp.shape[0], top.size, 1)), -1))
    top_mass = top_mass[..., 0]
    return {
        "p": _significant(p),
        "entropy_mean": _significant(entropy.mean(axis=1)),
        "top_mass_mean": _significant(top_mass.mean(axis=1)),
        "entropy_final": _significant(entropy[-1]),
        "top_mass_final": _significant(top_mass[-1]),
    }


def _significant(values: np.ndarray) -> list:
    """``values`` as nested lists of floats with 7 significant digits (the tables are float32: no more is known)."""
    return np.vectorize(lambda x: float(f"{x:.7g}"), otypes=[float])(values).tolist()


def measure_seed(cfg: RunConfig, seed: int) -> dict:
    """SFT and every run of :func:`run_plan` at ``seed`` (module docstring): ``{"p_ref", "wall_s", "runs"}``."""
    import copy
    import time

    import torch

    from grpo_nb.toylm.experiment import prepare
    from grpo_nb.toylm.grpo import train_grpo

    start = time.perf_counter()
    setup = prepare(replace(cfg, seed=seed), progress=False)
    runs = {}
    for i, (key, gcfg) in enumerate(run_plan(cfg.grpo).items()):
        gen = torch.Generator(device=setup.device).manual_seed(100 * seed + i)
        torch.manual_seed(100 * seed + i)
        policy = copy.deepcopy(setup.ref_model).requires_grad_(True)
        history = train_grpo(policy, setup.ref_model, setup.tensors, cfg=gcfg, generator=gen)
        runs[key] = summarize(history.logp, setup.reward)
    return {"p_ref": setup.p_ref.tolist(), "wall_s": time.perf_counter() - start, "runs": runs}


def validate_distribution_runs(record: dict) -> dict:
    """``record`` if it has the schema of ``tools/distribution_runs.py``'s file, else ValueError naming the field."""
    check_header(record, "distribution_runs", top_keys=TOP_KEYS, schema=SCHEMA)
    if [str(s) for s in record["seeds"]] != list(record["per_seed"]):
        raise ValueError(
            f"distribution_runs record: per_seed holds {list(record['per_seed'])}, seeds={record['seeds']}"
        )
    for seed, entry in record["per_seed"].items():
        if sorted(entry["runs"]) != sorted(record["runs"]):
            raise ValueError(f"distribution_runs record: seed {seed} has runs {sorted(entry['runs'])}")
        for key, summary in entry["runs"].items():
            missing = [k for k in SUMMARY_KEYS if k not in summary]
            if missing:
                raise ValueError(f"distribution_runs record: seed {seed}, run {key} is missing {missing}")
    return record


def load_distribution_runs(path: str | Path | None = None) -> dict | None:
    """The cached record (validated), from ``path`` or the package's ``grpo_nb/data/``; None where none is cached."""
    return load_record(path, DISTRIBUTION_RUNS_FILE, validate_distribution_runs)
