"""Section "What breaks amplification, one knob at a time" of the TRL chapter: the knob grid's cached runs.

Reads the JSON that ``python -m grpo_nb.toylm --trainer trl --grid grid`` writes (:mod:`grpo_nb.trl_adapters.knob_grid`;
the shipped copy is ``grpo_nb/data/trl_knob_grid.json``). Per cell and seed it counts the prompts that end below
p_ref after the last outer step (``ended``) and those whose p falls below p_ref at some step (``dipped``: Theorem 3
speaks of every step), and the median over prompts of the worst gap max_n |p_n - h^n(p_ref)|.

Each cell is compared with its baseline *paired by seed*: a cell and its baseline at one seed are TRL's sampling
from the same seed, so the difference is taken seed by seed and its standard error is the standard deviation of the
per-seed differences over sqrt(seeds). A baseline that reads no sample (exact expectations) is one run, the same at
every seed, and a cell that reads none is one run too; two such runs differ by an exact number (standard error 0).
The count is also summarised as a count: at how many seeds the cell is below, equal to or above its baseline.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grpo_nb.chapters.trl_grpo.full_runs import load_result
from grpo_nb.report import Table
from grpo_nb.validation import check_choice

__all__ = [
    "CellStats",
    "Effect",
    "cell_stats",
    "effect",
    "effects",
    "effects_table",
    "figure_panels",
    "SHORT_LABELS",
    "load_grid",
    "restoring_cells",
    "BelowPrompts",
    "below_prompts",
    "GridFindings",
    "grid_findings",
]


def load_grid(path: str = "trl_knob_grid.json") -> dict:
    """The grid's JSON summary: a file, or the name of one that ships in ``grpo_nb/data/``."""
    result = load_result(path)
    if result.get("trainer") != "trl-knob-grid":
        raise ValueError(f"path={path!r} is not a knob-grid summary; valid: the output of --trainer trl --grid")
    return result


def _cell(result: dict, key: str) -> dict:
    check_choice("key", key, tuple(c["key"] for c in result["cells"]))
    return next(c for c in result["cells"] if c["key"] == key)


@dataclass(frozen=True)
class CellStats:
    """One cell's per-seed numbers (``seeds``; one entry for a cell that reads no sample): prompts ending below
    p_ref, prompts dipping below it at some step, the median worst gap to h^n."""

    key: str
    change: str
    seeds: tuple[int, ...]
    ended: tuple[int, ...]
    dipped: tuple[int, ...]
    gap_h: tuple[float, ...]

    @property
    def sampled(self) -> bool:
        """Whether the cell has one run per seed (it reads samples)."""
        return len(self.seeds) > 1


def cell_stats(result: dict, key: str) -> CellStats:
    """:class:`CellStats` of cell ``key``; ValueError for a key that is not one of the grid's cells."""
    cell = _cell(result, key)
    p_ref = np.asarray(result["p_ref"], dtype=float)
    h = np.asarray(cell["p_theory"], dtype=float)
    ended, dipped, gap = [], [], []
    for run in cell["runs"]:
        p = np.asarray(run["p_measured"], dtype=float)  # (P, n+1)
        ended.append(int((p[:, -1] < p_ref).sum()))
        dipped.append(int((p[:, 1:] < p_ref[:, None]).any(axis=1).sum()))
        gap.append(float(np.median(np.abs(p - h).max(axis=1))))
    seeds = tuple(int(run["seed"]) for run in cell["runs"])
    return CellStats(key, cell["change"], seeds, tuple(ended), tuple(dipped), tuple(gap))


@dataclass(frozen=True)
class Effect:
    """A cell's effect on one measure against its baseline, paired by seed: the per-seed differences, their mean and
    standard error (0 when both runs read no sample), and at how many seeds the cell is lower and higher."""

    measure: str
    diffs: tuple[float, ...]
    mean: float
    se: float
    lower: int
    higher: int

    def significant(self, z: float = 2.0) -> bool:
        """|mean| beyond ``z`` standard errors (an exact nonzero difference counts)."""
        return abs(self.mean) > z * self.se if self.se > 0 else self.mean != 0

    def __str__(self) -> str:
        return f"{self.mean:+.1f} ± {self.se:.1f}" if self.measure != "gap_h" else f"{self.mean:+.3f} ± {self.se:.3f}"


def effect(cell: CellStats, base: CellStats, measure: str) -> Effect:
    """The paired :class:`Effect` of ``cell`` against ``base`` on ``measure`` (``ended``, ``dipped`` or ``gap_h``).
    A run that reads no sample stands for every seed; two sampled cells must have the same seeds."""
    check_choice("measure", measure, ("ended", "dipped", "gap_h"))
    a, b = np.asarray(getattr(cell, measure), float), np.asarray(getattr(base, measure), float)
    if cell.sampled and base.sampled and cell.seeds != base.seeds:
        raise ValueError(
            f"seeds {cell.seeds} and {base.seeds} differ; valid: a cell and its baseline at the same seeds"
        )
    d = a - b  # broadcasting: a one-run side stands for every seed
    se = float(d.std(ddof=1) / np.sqrt(d.size)) if d.size > 1 else 0.0
    return Effect(measure, tuple(float(x) for x in d), float(d.mean()), se, int((d < 0).sum()), int((d > 0).sum()))


def effects(result: dict) -> dict[str, dict[str, Effect]]:
    """Every cell with a baseline: its effects on ``ended``, ``dipped`` and ``gap_h``, by cell key."""
    out = {}
    for cell in result["cells"]:
        if cell["baseline"] is None:
            continue
        a, b = cell_stats(result, cell["key"]), cell_stats(result, cell["baseline"])
        out[cell["key"]] = {m: effect(a, b, m) for m in ("ended", "dipped", "gap_h")}
    return out


def restoring_cells(result: dict, side: str = "trl") -> tuple[str, ...]:
    """The cells of ``side`` (against a baseline) at which no prompt ends below p_ref, at any seed."""
    check_choice("side", side, ("trl", "theory"))
    return tuple(
        c["key"]
        for c in result["cells"]
        if c["side"] == side and c["baseline"] is not None and max(cell_stats(result, c["key"]).ended) == 0
    )


def _counts(values: tuple) -> str:
    return ", ".join(str(v) for v in values)


def effects_table(result: dict, side: str) -> Table:
    """One side of the grid as a table: per cell what it changes, prompts ending below p_ref and dipping below it at
    each seed, and the paired effects against the baseline (mean ± standard error; seeds lower / higher)."""
    check_choice("side", side, ("trl", "theory"))
    eff = effects(result)
    rows = []
    for cell in (c for c in result["cells"] if c["side"] == side):
        s = cell_stats(result, cell["key"])
        e = eff.get(cell["key"])
        rows.append(
            [
                cell["change"] if e is not None else f"baseline: {cell['change']}",
                _counts(s.ended),
                "" if e is None else f"{e['ended']} ({e['ended'].lower}↓ {e['ended'].higher}↑)",
                _counts(s.dipped),
                "" if e is None else f"{e['dipped']} ({e['dipped'].lower}↓ {e['dipped'].higher}↑)",
                f"{np.mean(s.gap_h):.3f}",
                "" if e is None else str(e["gap_h"]),
            ]
        )
    headers = [
        "what changes",
        "end below $p_{\\text{ref}}$, per seed",
        "effect",
        "dip below at some step",
        "effect",
        "median worst gap to $h^n$",
        "effect",
    ]
    return Table(headers, rows)


#: the cells as the figure names them: the baseline, then what the cell changes
SHORT_LABELS = {
    "trl": r"TRL, $\beta = 2$ (rung 0)",
    "trl+book_loss": "placebo: the book's loss code",
    "trl+kl_exact": "+ exact KL",
    "trl+k3_float64": "+ k3 in float64",
    "trl+k3_unweighted": "+ k3 without the ratio",
    "trl+sequence_ratio": "+ sequence ratio",
    "trl+paper_advantage": "+ Eq. 3's advantage",
    "trl+adam_reset": "+ fresh Adam",
    "trl+exact_p": r"+ exact $p_{\mathrm{old}}$",
    "trl+kl_exact+sequence_ratio": "+ exact KL + sequence ratio",
    "exact": "every answer (rung 6)",
    "exact-kl": "− exact KL (k3)",
    "exact-adam_reset": "− fresh Adam",
    "exact-exact_p": r"− exact $p_{\mathrm{old}}$ ($\hat p$)",
    "exact-objective": "− every answer (rung 5)",
}


def figure_panels(result: dict) -> list[tuple[str, list[str], list[tuple], list[tuple]]]:
    """The ``panels`` of :func:`grpo_nb.plots.trl_knob_grid.plot_knob_grid`: per side its title, the labels
    (:data:`SHORT_LABELS`) and per cell the seeds' counts ending below and dipping below p_ref."""
    titles = {"trl": "From TRL's side: one change to rung 0", "theory": "From the theory's side: one knob reverted"}
    panels = []
    for side, title in titles.items():
        stats = [cell_stats(result, c["key"]) for c in result["cells"] if c["side"] == side]
        panels.append(
            (title, [SHORT_LABELS[s.key] for s in stats], [s.ended for s in stats], [s.dipped for s in stats])
        )
    return panels


@dataclass(frozen=True)
class BelowPrompts:
    """The prompts of one cell that end below p_ref at some seed (``indices``, sorted) and, per prompt, its p_ref,
    the gain the recursion predicts after the last step (h^n(p_ref) - p_ref, ``predicted_gain``), the largest
    |p_k - p_ref| over every step and seed (``excursion``: how far its p wanders either way) and the largest
    p_ref - p_n at the last step over the seeds (``final_depth``)."""

    indices: tuple[int, ...]
    p_ref: tuple[float, ...]
    predicted_gain: tuple[float, ...]
    excursion: tuple[float, ...]
    final_depth: tuple[float, ...]


def below_prompts(result: dict, key: str) -> BelowPrompts:
    """:class:`BelowPrompts` of cell ``key``."""
    cell = _cell(result, key)
    p_ref = np.asarray(result["p_ref"], dtype=float)
    runs = np.stack([np.asarray(run["p_measured"], dtype=float) for run in cell["runs"]])  # (seeds, P, n+1)
    idx = tuple(int(i) for i in np.flatnonzero((runs[:, :, -1] < p_ref).any(axis=0)))
    h = np.asarray(cell["p_theory"], dtype=float)
    gap = runs[:, list(idx)] - p_ref[list(idx), None]
    return BelowPrompts(
        idx,
        tuple(float(p_ref[i]) for i in idx),
        tuple(float(h[i, -1] - p_ref[i]) for i in idx),
        tuple(float(x) for x in np.abs(gap).max(axis=(0, 2))),
        tuple(float(x) for x in (-gap[:, :, -1]).max(axis=0)),
    )


@dataclass(frozen=True)
class GridFindings:
    """What the section states of the grid, per cell key: the counts ending below and dipping below p_ref at each
    seed, the mean (over seeds) median worst gap to h^n, the paired effects of every cell with a baseline
    (:func:`effects`), and per side the cells at which no prompt ends below p_ref at any seed
    (:func:`restoring_cells`)."""

    ended: dict[str, tuple[int, ...]]
    dipped: dict[str, tuple[int, ...]]
    gap_h: dict[str, float]
    effects: dict[str, dict[str, Effect]]
    restoring: dict[str, tuple[str, ...]]


def grid_findings(result: dict) -> GridFindings:
    """:class:`GridFindings` of a grid summary."""
    stats = {c["key"]: cell_stats(result, c["key"]) for c in result["cells"]}
    return GridFindings(
        ended={k: s.ended for k, s in stats.items()},
        dipped={k: s.dipped for k, s in stats.items()},
        gap_h={k: float(np.mean(s.gap_h)) for k, s in stats.items()},
        effects=effects(result),
        restoring={side: restoring_cells(result, side) for side in ("trl", "theory")},
    )
