"""Tables and summary numbers of the TRL runs (the JSON of ``python -m grpo_nb.toylm --trainer trl``); numpy only.

Per prompt and outer step n the JSON holds the measured p_n, the infinite-G recursion h^n(p_ref) at TRL's
effective beta (``p_theory``), the finite-group chain's mean (``p_finite_group``) and the successes k_n in the
prompt's group of G answers (``group_successes``).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import numpy as np

from grpo_nb.report import Table

__all__ = ["beta_zero_facts", "load_result", "per_prompt_table", "prediction_gaps", "timing_table", "trajectories"]


def load_result(path: str | Path) -> dict:
    """The JSON summary of a TRL run: a file, or the name of one that ships with the package (``grpo_nb/data/``),
    so that a chapter opened alone (Colab, an empty folder) finds the cached runs it reads."""
    if Path(path).exists():
        return json.loads(Path(path).read_text())
    shipped = resources.files("grpo_nb") / "data" / str(path)
    if not shipped.is_file():
        raise ValueError(f"path={str(path)!r} is neither a file nor one of grpo_nb/data/'s cached runs")
    return json.loads(shipped.read_text())


def _arrays(result: dict, key: str) -> dict[str, np.ndarray]:
    rows = result["runs"][key]["per_prompt"]
    fin = [r["p_finite_group"] for r in rows]
    return {
        "p": np.array([r["p_measured"] for r in rows]).T,  # (M+1, P)
        "theory": np.array([r["p_theory"] for r in rows]).T,
        "finite": None if fin[0] is None else np.array(fin).T,
        "k": np.array([r["group_successes"] for r in rows]).T,  # (M, P)
    }


def per_prompt_table(result: dict, keys: list[str]) -> tuple[Table, dict[str, np.ndarray]]:
    """Per prompt (sorted by p_ref): p_ref, then for each run its final measured p_M; for the first run with a
    finite-group prediction also h^M(p_ref) and E[p_M] under the finite-group chain. Returns the table and
    the arrays (p_ref, and p_M per run key)."""
    first = next(k for k in keys if result["runs"][k]["per_prompt"][0]["p_finite_group"] is not None)
    a = _arrays(result, first)
    p_ref = a["p"][0]
    order = np.argsort(p_ref, kind="stable")
    finals = {k: _arrays(result, k)["p"][-1] for k in keys}
    headers = ["prompt", "$p_{ref}$", *[f"$p_M$, {k}" for k in keys], f"$h^M$, {first}", f"finite $G$, {first}"]
    prompts = [r["prompt"] for r in result["runs"][first]["per_prompt"]]
    rows = [
        [prompts[i], p_ref[i], *[finals[k][i] for k in keys], a["theory"][-1, i], a["finite"][-1, i]] for i in order
    ]
    return Table(headers, rows, fmt=".3f"), {"p_ref": p_ref, **finals}


def trajectories(result: dict, keys: list[str]) -> dict[str, object]:
    """For the figure: measured p_n per run (M+1, P), the first run's recursion and finite-group mean, the
    prompts, and the prompts with the lowest, median and highest p_ref (``toylm.report.regime_picks``)."""
    from grpo_nb.toylm.report import regime_picks

    first = _arrays(result, keys[0])
    return {
        "measured": {k: _arrays(result, k)["p"] for k in keys},
        "theory": first["theory"],
        "finite": first["finite"],
        "picks": regime_picks(first["p"][0]),
        "prompts": [r["prompt"] for r in result["runs"][keys[0]]["per_prompt"]],
    }


def prediction_gaps(result: dict, key: str) -> dict[str, float]:
    """Median over prompts of max_n |p_n - prediction_n|, for the infinite-G recursion and the finite-group mean."""
    a = _arrays(result, key)
    out = {"infinite G": float(np.median(np.abs(a["p"] - a["theory"]).max(axis=0)))}
    if a["finite"] is not None:
        out["finite G"] = float(np.median(np.abs(a["p"] - a["finite"]).max(axis=0)))
    return out


def beta_zero_facts(result: dict, key: str, G: int) -> dict[str, float | int]:
    """What an outer step did to a prompt's success, by what its group of G answers held: mixed (k = 1..G-1: TRL's
    advantage moves it), all successes (k = G) or no success (k = 0). In the last two TRL's advantage is 0, and
    with beta = 0 there is no KL term: the prompt's own loss is zero. Changes p_n - p_{n-1} over every (prompt,
    outer step); also the share of prompts with p_ref >= 1/2 that end above their p_ref."""
    a = _arrays(result, key)
    dp = np.diff(a["p"], axis=0)  # (M, P): step n's change, made from the group drawn at step n
    k = a["k"]
    mixed, full, empty = (k > 0) & (k < G), k == G, k == 0
    easy = a["p"][0] >= 0.5
    return {
        "steps with a mixed group": int(mixed.sum()),
        "mean change after a mixed group": float(dp[mixed].mean()),
        "steps with an all-success group": int(full.sum()),
        "mean change after an all-success group": float(dp[full].mean()) if full.any() else float("nan"),
        "steps with no success": int(empty.sum()),
        "largest change after no success": float(np.abs(dp[empty]).max()) if empty.any() else float("nan"),
        "mean size of a change after a mixed group": float(np.abs(dp[mixed]).mean()),
        "share of easy prompts that end higher": float((a["p"][-1][easy] > a["p"][0][easy]).mean()),
        "prompts without a success in any group": int((k.sum(axis=0) == 0).sum()),
    }


def timing_table(result: dict) -> Table:
    """Per run: wall time and the median wall time of one outer step (generation + mu optimizer steps)."""
    rows = [
        [key, f"{run['wall_s']:.1f}", f"{np.median(run['outer_step_s']):.2f}"] for key, run in result["runs"].items()
    ]
    return Table(["run", "wall time (s)", "per outer step (s)"], rows)
