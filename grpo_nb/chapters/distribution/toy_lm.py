"""Section "The toy language model" of the chapter "What GRPO does to the whole distribution"
(``book/distribution.md``): the cached runs of ``tools/distribution_runs.py`` (``grpo_nb/data/distribution_runs.json``:
20 seeds, each an SFT to its own pi_ref and nine GRPO runs from it) and TRL's cached runs of the same task
(``grpo_nb/data/trl_full.json``), read as pass@k, entropy and top mass.

- :func:`pass_at_k_changes`: per run, the prompt-averaged pass@k change from pi_ref to the last outer step, per seed;
- :func:`entropy_order`: per clip mode the mean entropy at the last step, and at how many seeds each mode ends above
  each other;
- :func:`random_reward_top_mass`: per clip mode with random rewards the change of the mass on pi_ref's most likely
  answer, its mean and standard error over seeds, and the same pairwise counts;
- :func:`trl_pass_at_k`: TRL's runs: the prompts that lose success probability and the prompt-averaged pass@k change.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from itertools import permutations

import numpy as np

from grpo_nb.report import Table
from grpo_nb.tabular.clip_bias import CLIP_MODES
from grpo_nb.tabular.distribution import pass_at_k
from grpo_nb.toylm.distribution_runs import load_distribution_runs

__all__ = [
    "EntropyOrder",
    "PassAtKChanges",
    "TopMassChanges",
    "TrlPassAtK",
    "entropy_order",
    "load_record",
    "pass_at_k_changes",
    "random_reward_top_mass",
    "trl_pass_at_k",
]

KS = (1, 4, 16, 64, 256)
TRL_RUNS = "trl_full.json"


def load_record() -> dict:
    """The cached distribution runs (validated); ValueError where the package ships none."""
    record = load_distribution_runs()
    if record is None:
        raise ValueError("grpo_nb/data/distribution_runs.json is missing: run tools/distribution_runs.py")
    return record


def _per_seed(record: dict, run: str, key: str) -> np.ndarray:
    """``key`` of run ``run`` stacked over the record's seeds."""
    return np.array([entry["runs"][run][key] for entry in record["per_seed"].values()], dtype=float)


def _mean_pass_change(p: np.ndarray) -> np.ndarray:
    """Prompt-averaged pass@k(p_M) - pass@k(p_0) for k in :data:`KS`; p of shape (..., M + 1, P)."""
    before, after = (pass_at_k(x[..., None], np.array(KS)).mean(axis=-2) for x in (p[..., 0, :], p[..., -1, :]))
    return after - before


@dataclass(frozen=True)
class PassAtKChanges:
    """Per run key over the seeds: the mean pass@k change at :data:`KS`, the seeds where it is positive at every k,
    and the seeds where some prompt's p falls."""

    table: Table
    mean_change: dict
    rises_everywhere: dict
    some_prompt_falls: dict
    n_seeds: int


def pass_at_k_changes(record: dict, *, runs: tuple = ("exact", "sampled/symmetric", "sampled/none")) -> PassAtKChanges:
    """pass@k before and after each run of ``runs`` at every seed of ``record``."""
    mean, rises, falls, rows = {}, {}, {}, []
    for run in runs:
        p = _per_seed(record, run, "p")  # (seeds, M + 1, P)
        change = _mean_pass_change(p)  # (seeds, len(KS))
        mean[run], rises[run] = change.mean(axis=0), int(np.sum(np.all(change > 0, axis=1)))
        falls[run] = int(np.sum(np.any(p[:, -1] < p[:, 0], axis=1)))
        rows.append([run, *mean[run], f"{rises[run]} of {len(p)}", f"{falls[run]} of {len(p)}"])
    headers = ["run", *(f"pass@{k} change" for k in KS), "seeds: up at every k", "seeds: some prompt's p falls"]
    return PassAtKChanges(Table(headers, rows, fmt="+.3f"), mean, rises, falls, len(record["per_seed"]))


def _pairwise(values: dict) -> dict:
    """For every ordered pair of modes, at how many seeds the first's value exceeds the second's."""
    return {(a, b): int(np.sum(values[a] > values[b])) for a, b in permutations(values, 2)}


def _paired_gap(per_seed: dict, first: str, second: str) -> float:
    """mean over seeds of d = (first's value - second's) over its standard error std(d) / sqrt(seeds): the modes
    share each seed's pi_ref, so the noise of their difference is that of the per-seed differences, without the
    spread of pi_ref between seeds that both carry."""
    d = per_seed[first] - per_seed[second]
    return float(d.mean() / (d.std(ddof=1) / np.sqrt(d.size)))


@dataclass(frozen=True)
class EntropyOrder:
    """Per clip mode the mean entropy at pi_ref and at the last step over seeds; for every pair of modes, ordered by
    their means, at how many seeds the first ends above the second (``pairs``); the final entropy per seed."""

    table: Table
    pairs: Table
    start: float
    final_mean: dict
    above: dict
    n_seeds: int
    mean_paths: dict
    final: dict

    def paired_gap(self, first: str, second: str) -> float:
        """The final entropy of ``first`` minus ``second``, paired by seed, in standard errors (:func:`_paired_gap`)."""
        return _paired_gap(self.final, first, second)


def entropy_order(record: dict, *, prefix: str = "sampled") -> EntropyOrder:
    """The prompt-averaged entropy of the policy at the last outer step of ``prefix``/<mode>, per seed."""
    paths = {m: _per_seed(record, f"{prefix}/{m}", "entropy_mean") for m in CLIP_MODES}
    final = {m: path[:, -1] for m, path in paths.items()}
    start = float(paths["none"][:, 0].mean())
    above = _pairwise(final)
    n = len(record["per_seed"])
    rows = [[m, final[m].mean(), final[m].min(), final[m].max()] for m in CLIP_MODES]
    table = Table(["clip mode", "mean final entropy", "min over seeds", "max over seeds"], rows, fmt=".3f")
    ranked = sorted(CLIP_MODES, key=lambda m: -final[m].mean())
    pairs = [[f"{a} > {b}", f"{above[a, b]} of {n}"] for i, a in enumerate(ranked) for b in ranked[i + 1 :]]
    pair_table = Table(["final entropy", "seeds where it holds"], pairs)
    mean_final = {m: float(v.mean()) for m, v in final.items()}
    mean_paths = {m: v.mean(axis=0) for m, v in paths.items()}
    return EntropyOrder(table, pair_table, start, mean_final, above, n, mean_paths, final)


@dataclass(frozen=True)
class TopMassChanges:
    """Per clip mode under random rewards: the change of the mass on pi_ref's most likely answer over the run, its
    mean and standard error over seeds, the pairwise seed counts, and the change per seed."""

    table: Table
    mean: dict
    se: dict
    above: dict
    n_seeds: int
    mean_paths: dict
    change: dict

    def gap(self, first: str, second: str) -> float:
        """(mean of ``first`` - mean of ``second``) over the standard error of the difference."""
        return float((self.mean[first] - self.mean[second]) / np.hypot(self.se[first], self.se[second]))

    def paired_gap(self, first: str, second: str) -> float:
        """The change of ``first`` minus ``second``'s, paired by seed, in standard errors (:func:`_paired_gap`)."""
        return _paired_gap(self.change, first, second)


def random_reward_top_mass(record: dict) -> TopMassChanges:
    """random/<mode> runs: top_mass_mean at the last step minus at pi_ref, per seed."""
    change, paths = {}, {}
    for m in CLIP_MODES:
        top = _per_seed(record, f"random/{m}", "top_mass_mean")
        change[m], paths[m] = top[:, -1] - top[:, 0], top.mean(axis=0)
    n = len(record["per_seed"])
    mean = {m: float(v.mean()) for m, v in change.items()}
    se = {m: float(v.std(ddof=1) / np.sqrt(n)) for m, v in change.items()}
    above = _pairwise(change)
    rows = [
        [m, f"{mean[m]:+.4f} ± {se[m]:.4f}", f"{above[m, 'none']} of {n}" if m != "none" else "—"] for m in CLIP_MODES
    ]
    headers = ["clip mode", "top-mass change (mean ± s.e.)", "seeds above no clip"]
    return TopMassChanges(Table(headers, rows), mean, se, above, n, paths, change)


@dataclass(frozen=True)
class TrlPassAtK:
    """Per cached TRL run: prompts whose p falls, the largest fall, and the prompt-averaged pass@k change."""

    table: Table
    mean_change: dict
    prompts_falling: dict
    largest_fall: dict


def trl_pass_at_k() -> TrlPassAtK:
    """TRL's three cached runs of the toy task (``trl_full.json``): p_ref and the last measured p of each prompt."""
    # read as package data: the TRL chapter's loader sits in a package that imports TRL, which this chapter needs not
    result = json.loads((resources.files("grpo_nb") / "data" / TRL_RUNS).read_text())
    mean, falling, largest, rows = {}, {}, {}, []
    for key, run in result["runs"].items():
        p = np.array([[q["p_measured"][0], q["p_measured"][-1]] for q in run["per_prompt"]])
        mean[key] = _mean_pass_change(p.T[None])[0]
        falling[key], largest[key] = int(np.sum(p[:, 1] < p[:, 0])), float(np.max(p[:, 0] - p[:, 1]))
        rows.append([key.replace("beta", "β"), f"{falling[key]} of {len(p)}", f"{largest[key]:.3f}", *mean[key]])
    headers = ["TRL run", "prompts whose p falls", "largest fall", *(f"pass@{k} change" for k in KS)]
    return TrlPassAtK(Table(headers, rows, fmt="+.3f"), mean, falling, largest)
