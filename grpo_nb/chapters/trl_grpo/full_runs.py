"""Section "The same prompts under TRL: β > 0 and the default β = 0" of the chapter "GRPO in TRL": the cached full
runs (``grpo_nb/data/trl_full.json``), read by :func:`load_result` and shown by :func:`per_prompt_table`,
:func:`trajectories`, :func:`prediction_gaps`, :func:`gap_difference` and :func:`amplification_facts`; their wall
times (the section's run details, "time and hardware") by :func:`timing_table`.

The JSON of ``python -m grpo_nb.trl_adapters`` holds, per prompt and outer step n, the measured p_n, the
infinite-G recursion h^n(p_ref) at TRL's effective beta (``p_theory``), the finite-group chain's mean
(``p_finite_group``) and the successes k_n in the prompt's group of G answers (``group_successes``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from grpo_nb.report import Table
from grpo_nb.toylm.report import regime_picks

__all__ = [
    "AmplificationFacts",
    "BOOTSTRAP_SEED",
    "GapDifference",
    "N_BOOTSTRAP",
    "PerPromptTable",
    "PredictionGaps",
    "amplification_facts",
    "gap_difference",
    "load_result",
    "load_summary",
    "per_prompt_table",
    "prediction_gaps",
    "run_label",
    "timing_table",
    "trajectories",
]


def load_result(path: str | Path) -> dict:
    """The JSON summary of a TRL run: a file, or the name of one that ships with the package (``grpo_nb/data/``),
    so that the chapter opened alone (Colab, an empty folder) finds the cached runs it reads."""
    if Path(path).exists():
        return json.loads(Path(path).read_text())
    shipped = resources.files("grpo_nb") / "data" / str(path)
    if not shipped.is_file():
        raise ValueError(f"path={str(path)!r} is neither a file nor one of grpo_nb/data/'s cached runs")
    return json.loads(shipped.read_text())


def load_summary(path: str | Path, trainer: str, *, what: str, flag: str) -> dict:
    """:func:`load_result` of ``path``, which must be the summary that ``trainer`` writes (its ``"trainer"`` field):
    ValueError naming ``what`` it should be and the command line's ``flag`` that writes it otherwise."""
    result = load_result(path)
    if result.get("trainer") != trainer:
        raise ValueError(
            f"path={path!r} is not a {what} summary; valid: the output of python -m grpo_nb.trl_adapters {flag}"
        )
    return result


def run_label(key: str) -> str:
    """A cached run's key as the page writes it: ``"beta=2, clip 0.2"`` becomes ``"$\\beta = 2$, clip 0.2"`` (MathJax
    in a table, mathtext in a figure)."""
    head, sep, rest = key.partition(",")
    if head.startswith("beta="):
        value, _, note = head.removeprefix("beta=").partition(" ")
        head = rf"$\beta = {value}$" + (f" {note}" if note else "")
    return head + sep + rest


def _arrays(result: dict, key: str) -> dict[str, np.ndarray]:
    rows = result["runs"][key]["per_prompt"]
    fin = [r["p_finite_group"] for r in rows]
    return {
        "p": np.array([r["p_measured"] for r in rows]).T,  # (M+1, P)
        "theory": np.array([r["p_theory"] for r in rows]).T,
        "finite": None if fin[0] is None else np.array(fin).T,
        "k": np.array([r["group_successes"] for r in rows]).T,  # (M, P)
    }


@dataclass(frozen=True)
class PerPromptTable:
    """:func:`per_prompt_table`'s table, each prompt's p_ref, and each run's final measured p_M (keyed by run)."""

    table: Table
    p_ref: np.ndarray
    finals: dict[str, np.ndarray]


def per_prompt_table(result: dict, keys: list[str]) -> PerPromptTable:
    """Per prompt (sorted by p_ref): p_ref, then for each run its final measured p_M; for the first run with a
    finite-group prediction also h^M(p_ref) and E[p_M] under the finite-group chain (section "The same prompts under
    TRL")."""
    first = next(k for k in keys if result["runs"][k]["per_prompt"][0]["p_finite_group"] is not None)
    a = _arrays(result, first)
    p_ref = a["p"][0]
    order = np.argsort(p_ref, kind="stable")
    finals = {k: _arrays(result, k)["p"][-1] for k in keys}
    label = run_label(first)
    headers = [
        "prompt",
        r"$p_{\mathrm{ref}}$",
        *[f"$p_M$, {run_label(k)}" for k in keys],
        f"$h^M$, {label}",
        f"finite $G$, {label}",
    ]
    prompts = [r["prompt"] for r in result["runs"][first]["per_prompt"]]
    rows = [
        [prompts[i], p_ref[i], *[finals[k][i] for k in keys], a["theory"][-1, i], a["finite"][-1, i]] for i in order
    ]
    return PerPromptTable(Table(headers, rows, fmt=".3f"), p_ref, finals)


def trajectories(result: dict, keys: list[str]) -> dict[str, object]:
    """The arguments of :func:`grpo_nb.plots.trl.plot_trl_trajectories`: measured p_n per run (M+1, P), the first
    run's recursion and finite-group mean, the prompts, and the prompts with the lowest, median and highest p_ref
    (:func:`grpo_nb.toylm.report.regime_picks`) (section "The same prompts under TRL")."""
    first = _arrays(result, keys[0])
    return {
        "measured": {run_label(k): _arrays(result, k)["p"] for k in keys},
        "theory": first["theory"],
        "finite": first["finite"],
        "picks": regime_picks(first["p"][0]),
        "prompts": [r["prompt"] for r in result["runs"][keys[0]]["per_prompt"]],
    }


@dataclass(frozen=True)
class PredictionGaps:
    """:func:`prediction_gaps`: the median over prompts of max_n |p_n - prediction_n| for the infinite-G recursion
    and for the finite-group mean (NaN when the run has no finite-group prediction)."""

    infinite_g: float
    finite_g: float


def prediction_gaps(result: dict, key: str) -> PredictionGaps:
    """How far one run stays from each prediction (section "The same prompts under TRL")."""
    a = _arrays(result, key)
    infinite = float(np.median(np.abs(a["p"] - a["theory"]).max(axis=0)))
    finite = float("nan") if a["finite"] is None else float(np.median(np.abs(a["p"] - a["finite"]).max(axis=0)))
    return PredictionGaps(infinite, finite)


@dataclass(frozen=True)
class AmplificationFacts:
    """:func:`amplification_facts`, per run (keyed by run): of the ``n_easy`` prompts with p_ref >= 1/2, how many end
    above p_ref (``easy_above``) and their mean final p (``easy_final``); of all ``n_prompts``, how many end below
    p_ref (``below_ref``). ``predictions_above_ref``: both predictions of the first run (the recursion and the
    finite-group mean) stay at or above p_ref at every step, for every prompt (Theorem 3's amplification)."""

    n_easy: int
    n_prompts: int
    easy_above: dict[str, int]
    easy_final: dict[str, float]
    below_ref: dict[str, int]
    predictions_above_ref: bool


def amplification_facts(result: dict, keys: list[str]) -> AmplificationFacts:
    """Section "The same prompts under TRL": where each run's prompts end against p_ref, and whether the first run's
    predictions ever fall below p_ref."""
    arrays = {k: _arrays(result, k) for k in keys}
    first = arrays[keys[0]]
    p_ref = first["p"][0]
    easy = p_ref >= 0.5
    predictions = [first["theory"]] + ([] if first["finite"] is None else [first["finite"]])
    return AmplificationFacts(
        n_easy=int(easy.sum()),
        n_prompts=int(p_ref.size),
        easy_above={k: int((a["p"][-1][easy] > p_ref[easy]).sum()) for k, a in arrays.items()},
        easy_final={k: float(a["p"][-1][easy].mean()) for k, a in arrays.items()},
        below_ref={k: int((a["p"][-1] < p_ref).sum()) for k, a in arrays.items()},
        predictions_above_ref=all(bool(np.all(x >= p_ref - 1e-12)) for x in predictions),
    )


BOOTSTRAP_SEED = 0  # fixed, not the page's SEED: the bootstrap's interval is an output nbval compares
N_BOOTSTRAP = 4000


def _worst_gaps(result: dict, key: str, prediction: str) -> np.ndarray:
    """Per prompt, max_n |p_n - prediction_n| (``prediction``: "theory" or "finite", the first run's)."""
    a = _arrays(result, key)
    first = _arrays(result, next(iter(result["runs"])))
    return np.abs(a["p"] - first[prediction]).max(axis=0)


@dataclass(frozen=True)
class GapDifference:
    """Median over prompts of the worst gap of (run, prediction) a and b, the paired bootstrap's 95% interval of
    median(a) - median(b) (resampling prompts, :data:`BOOTSTRAP_SEED`), and how many prompts have a > b."""

    median_a: float
    median_b: float
    low: float
    high: float
    n_larger: int
    n_prompts: int


def gap_difference(result: dict, a: tuple[str, str], b: tuple[str, str]) -> GapDifference:
    """Section "The same prompts under TRL": how much larger the worst gap of ``a`` = (run key, prediction) is than
    that of ``b``, with a seeded paired bootstrap over prompts (the prompts are resampled, each keeping its pair)."""
    ga, gb = _worst_gaps(result, *a), _worst_gaps(result, *b)
    idx = np.random.default_rng(BOOTSTRAP_SEED).integers(0, ga.size, (N_BOOTSTRAP, ga.size))
    diff = np.median(ga[idx], axis=1) - np.median(gb[idx], axis=1)
    low, high = np.percentile(diff, [2.5, 97.5])
    return GapDifference(
        float(np.median(ga)), float(np.median(gb)), float(low), float(high), int((ga > gb).sum()), int(ga.size)
    )


def timing_table(result: dict) -> Table:
    """Per run: wall time and the median wall time of one outer step (generation + mu optimizer steps) (section
    "Time and hardware")."""
    rows = [
        [run_label(key), f"{run['wall_s']:.1f}", f"{np.median(run['outer_step_s']):.2f}"]
        for key, run in result["runs"].items()
    ]
    return Table(["run", "wall time (s)", "per outer step (s)"], rows)
