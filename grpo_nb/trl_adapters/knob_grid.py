"""The knob grid: which of TRL's choices, changed alone, brings back Theorem 3's amplification.

The ablation ladder (:mod:`grpo_nb.trl_adapters.ladder`) is cumulative: each rung keeps the rungs before it, so it
brackets the cause without isolating it. The grid changes one knob per cell against a fixed baseline, from both ends:

* **From TRL's side**, against rung 0 (TRL 1.16's own ``GRPOTrainer`` at beta = 2, no clipping in effect): the exact
  sequence KL in place of k3; k3 computed stably (``expm1`` in float64) in place of TRL's float32
  ``exp(d) - d - 1``; k3 without the ratio weighting (``use_bias_correction_kl=False``); the sequence ratio; Eq. 3's
  advantage; a fresh Adam per outer step; the exact p_old. One factorial cell, the exact KL with the sequence ratio,
  asks whether the ratio's harm under k3 survives the exact KL. A placebo cell changes no knob: rung 0's loss
  computed by :func:`~grpo_nb.trl_adapters.ladder.ladder_loss` instead of TRL's own code (every other cell runs the
  book's code), so that a difference the code path alone makes is measured rather than assumed to be 0.
* **From the theory's side**, against the ladder's last rung (Eq. 6 with exact expectations, which follows h^n):
  each knob that still acts there reverted alone: TRL's k3 on the sampled tokens in place of the exact KL, one Adam
  for the whole run, the group's p_hat in place of the exact p_old (in the enumerated objective's advantage), and the
  G samples in place of the enumeration (the ladder's rung 5). Under the enumerated objective the importance ratio
  is not used and the advantage's form is Eq. 3's at whichever p is used, so those two knobs have no cell there.

Every cell is a :class:`grpo_nb.trl_adapters.ladder.Rung` run by the ladder's trainer (:func:`run_rung`: rung 0 by
TRL's own ``_compute_loss``, every other cell by :func:`grpo_nb.trl_adapters.ladder.ladder_loss`), at every seed of
:data:`GRID_SEEDS` when it reads samples and once when it reads none. The seed is TRL's sampling seed, so a cell and
its baseline at one seed start from the same first generation: the comparison is paired by seed
(:mod:`grpo_nb.chapters.trl_grpo.knob_grid`). Imports trl lazily.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from grpo_nb.trl_adapters.ladder import BETA, CLIP, LADDER, Rung, pool_runs, run_rung, run_summary, theory_parameters
from grpo_nb.trl_adapters.trainer import TRL_CONFIGS, TRLRun, TRLRunConfig, predictions, prepare_trl

__all__ = ["GRID", "GRID_CONFIGS", "GRID_SEEDS", "Cell", "merge_grids", "run_grid"]

_TRL, _THEORY = LADDER[0], LADDER[-1]


@dataclass(frozen=True)
class Cell:
    """One cell: its key, its side (``"trl"`` or ``"theory"``), the key of the cell it is compared with
    (``baseline``; None for the two baselines), what it changes, the rung that runs it, and whether rung 0's loss
    is computed by the book's code (``book_loss``: the placebo)."""

    key: str
    side: str
    baseline: str | None
    change: str
    rung: Rung
    book_loss: bool = False


def _grid() -> tuple[Cell, ...]:
    trl = [
        ("trl", None, "TRL's GRPOTrainer, beta = 2 (rung 0)", {}),
        ("trl+kl_exact", "trl", "k3 -> the exact sequence KL", {"kl": "exact"}),
        ("trl+k3_float64", "trl", "k3 in float32 -> k3 by expm1 in float64", {"kl_numerics": "float64"}),
        ("trl+k3_unweighted", "trl", "k3 times the ratio -> k3 alone", {"kl_weight": "none"}),
        ("trl+sequence_ratio", "trl", "token ratios -> the sequence ratio", {"ratio": "sequence"}),
        ("trl+paper_advantage", "trl", "Bessel std + 1e-4 -> Eq. 3's advantage", {"advantage": "paper"}),
        ("trl+adam_reset", "trl", "one Adam -> a fresh Adam per outer step", {"reset_adam": True}),
        ("trl+exact_p", "trl", "group p_hat -> the exact p_old", {"p": "exact"}),
        (
            "trl+kl_exact+sequence_ratio",
            "trl",
            "the exact KL and the sequence ratio together",
            {"kl": "exact", "ratio": "sequence"},
        ),
    ]
    theory = [
        ("exact", None, "every answer enumerated (the ladder's rung 6)", {}),
        ("exact-kl", "exact", "the exact KL -> TRL's k3 on the sampled tokens", {"kl": "k3_ratio"}),
        ("exact-adam_reset", "exact", "a fresh Adam per outer step -> one Adam", {"reset_adam": False}),
        ("exact-exact_p", "exact", "the exact p_old -> the group's p_hat", {"p": "group"}),
        ("exact-objective", "exact", "every answer -> the G samples (the ladder's rung 5)", {"objective": "sampled"}),
    ]
    cells = [Cell(k, "trl", b, c, replace(_TRL, key=k, change=c, **d)) for k, b, c, d in trl]
    placebo = "TRL's loss code -> the book's code for the same loss (a placebo)"
    cells.insert(
        1, Cell("trl+book_loss", "trl", "trl", placebo, replace(_TRL, key="trl+book_loss", change=placebo), True)
    )
    cells += [Cell(k, "theory", b, c, replace(_THEORY, key=k, change=c, **d)) for k, b, c, d in theory]
    return tuple(cells)


GRID: tuple[Cell, ...] = _grid()
GRID_SEEDS = tuple(range(10))

#: ``grid``: the TRL chapter's task, model and SFT with 16 prompts, G = 16 and mu = 40 inner steps (ten outer
#: steps), sized so that the whole grid at ten seeds runs in about an hour on two CPU cores; ``tiny``: the ladder's
#: smoke configuration (4 prompts, G = 4, mu = 2, 2 outer steps) for the tests.
GRID_CONFIGS: dict[str, TRLRunConfig] = {
    "tiny": replace(TRL_CONFIGS["tiny"], runs=(TRLRun("beta=2", BETA, CLIP),)),
    "grid": replace(
        TRL_CONFIGS["full"],
        name="grid",
        base=replace(TRL_CONFIGS["full"].base, task=replace(TRL_CONFIGS["full"].base.task, n_prompts=16)),
        G=16,
        mu=40,
        runs=(TRLRun("beta=2", BETA, CLIP),),
    ),
}


def _read_checkpoint(checkpoint: Path | None, p_ref: list[float]) -> dict[str, list]:
    """The runs a checkpoint holds, when it was made from the same pi_ref (else none: start afresh)."""
    if checkpoint is None or not checkpoint.exists():
        return {}
    saved = json.loads(checkpoint.read_text())
    return saved["runs"] if saved.get("p_ref") == p_ref else {}


def run_grid(
    cfg: TRLRunConfig, seeds=GRID_SEEDS, cells=None, *, progress: bool = True, checkpoint: Path | None = None
) -> dict:
    """SFT to pi_ref once, then every cell (``cells``: keys, default all) at every seed (once when it reads no
    sample); the JSON summary. ``checkpoint``: rewritten after each run; a run it already holds is not made again,
    so a grid that was cut off resumes where it stopped."""
    from tqdm.auto import tqdm

    by_key = {c.key: c for c in GRID}
    chosen = list(GRID) if cells is None else [by_key[k] for k in cells]
    t0 = time.perf_counter()
    setup = prepare_trl(cfg)
    runs = {c.key: [] for c in chosen} | {
        k: v for k, v in _read_checkpoint(checkpoint, setup.p_ref.tolist()).items() if k in {c.key for c in chosen}
    }
    done = {(k, run["seed"]) for k, v in runs.items() for run in v}
    jobs = [(c, s) for c in chosen for s in (seeds if c.rung.uses_samples else seeds[:1]) if (c.key, s) not in done]
    for cell, seed in tqdm(jobs, desc="grid", disable=not progress):
        runs[cell.key].append(run_rung(setup, cell.rung, seed, book_loss=cell.book_loss))
        if checkpoint is not None:
            checkpoint.write_text(json.dumps({"p_ref": setup.p_ref.tolist(), "runs": runs}))
    out_cells = []
    for cell in sorted(chosen, key=list(GRID).index):
        beta, eps = theory_parameters(cell.rung, cfg.G)
        theory, finite = predictions(setup.p_ref, beta, eps, G=cfg.G, n=cfg.n)
        out_cells.append(
            {"key": cell.key, "side": cell.side, "baseline": cell.baseline, "change": cell.change}
            | {"book_loss": cell.book_loss}
            | {"rung": asdict(cell.rung), "beta_theory": beta, "eps_theory": eps}
            | {"p_theory": theory.T.tolist(), "p_finite_group": finite.T.tolist()}
            | {"runs": sorted(runs[cell.key], key=lambda run: run["seed"])}
        )
    return run_summary("trl-knob-grid", cfg, setup, t0=t0, settings={"seeds": list(seeds)}, cells=out_cells)


def merge_grids(results: list[dict]) -> dict:
    """One grid from several made with different seeds or cells (parallel processes) from the same pi_ref: each
    cell's runs in seed order. ValueError when the configurations, p_ref or versions differ."""
    cells = []
    for cell in pool_runs(results, "cells", [c.key for c in GRID], what="grid").values():
        cell["book_loss"] = cell.get("book_loss", False)  # absent: a grid made before the placebo existed
        unique = {run["seed"]: run for run in cell["runs"]}
        cell["runs"] = [unique[s] for s in sorted(unique)]
        if not Rung(**cell["rung"]).uses_samples:  # the same run at every seed: keep one, the first seed's
            cell["runs"] = cell["runs"][:1]
        cells.append(cell)
    seeds = sorted({s for res in results for s in res["seeds"]})
    return results[0] | {
        "cells": cells,
        "seeds": seeds,
        "wall_s": sum(r["wall_s"] for r in results),
        "sft_s": max(r["sft_s"] for r in results),
    }
