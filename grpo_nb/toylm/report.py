"""Tables and summary numbers of the toy-LM runs (numpy only; the chapter and the CLI share them)."""

from __future__ import annotations

import numpy as np

__all__ = ["per_prompt_rows", "regime_picks", "run_summary", "timing_rows"]


def per_prompt_rows(prompts: list[str], run: object) -> tuple[list[str], list[list[object]]]:
    """Per prompt, sorted by p_ref: p_ref, measured p~_M, theory p_M, max_n |p~_n - p_n|, max_n one-step TV."""
    headers = ["prompt", "p_ref", "p~_M", "p_M (theory)", "max gap", "max 1-step TV"]
    order = np.argsort(run.p_tilde[0], kind="stable")
    gap, one = run.gap.max(axis=0), run.one_step_tv.max(axis=0)
    rows = [[prompts[i], run.p_tilde[0, i], run.p_tilde[-1, i], run.p_theory[-1, i], gap[i], one[i]] for i in order]
    return headers, rows


def regime_picks(p_ref: np.ndarray) -> dict[str, int]:
    """Indices of the prompts with the lowest, the median and the highest p_ref."""
    order = np.argsort(p_ref, kind="stable")
    return {"low": int(order[0]), "middle": int(order[len(order) // 2]), "high": int(order[-1])}


def run_summary(run: object) -> dict[str, float]:
    """Scalar summary of a run: mean success before/after (measured, theory), gaps and inner errors."""
    return {
        "mean p_ref": float(run.p_tilde[0].mean()),
        "mean p~_M": float(run.p_tilde[-1].mean()),
        "mean p_M": float(run.p_theory[-1].mean()),
        "median max gap": float(np.median(run.gap.max(axis=0))),
        "max gap": float(run.gap.max()),
        "median 1-step TV": float(np.median(run.one_step_tv.max(axis=0))),
        "max TV to ideal": float(run.tv_to_ideal.max()),
    }


def timing_rows(runs: dict[str, object]) -> tuple[list[str], list[list[str]]]:
    """Per run: wall time, median time of one outer iteration, and rollout throughput (sampled runs)."""
    headers = ["run", "wall time (s)", "per outer step (s)", "rollout (answer tokens / s)"]
    rows = []
    for run in runs.values():
        tps = run.rollout_tokens_per_s
        rows.append(
            [run.label, f"{run.wall_s:.1f}", f"{np.median(run.step_s):.3f}", "" if tps is None else f"{tps:,.0f}"]
        )
    return headers, rows
