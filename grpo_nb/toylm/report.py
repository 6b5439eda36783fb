"""Tables of the toy-LM runs that the parametric-GRPO chapter, the TRL chapter's analyses and the CLI share (numpy
only). The parametric chapter's own summaries are in :mod:`grpo_nb.chapters.parametric_grpo`."""

from __future__ import annotations

import numpy as np

__all__ = ["per_prompt_rows", "regime_picks"]


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
