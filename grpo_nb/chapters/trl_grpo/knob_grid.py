"""Section "What breaks amplification, one knob at a time" of the TRL chapter: the knob grid's cached runs.

Reads the JSON that ``python -m grpo_nb.trl_adapters --grid grid`` writes (:mod:`grpo_nb.trl_adapters.knob_grid`;
the shipped copy is ``grpo_nb/data/trl_knob_grid.json``). Per cell and seed it counts the prompts that end below
p_ref after the last outer step (``ended``) and those whose p falls below p_ref at some step (``dipped``: Theorem 3
speaks of every step), and the median over prompts of the worst gap max_n |p_n - h^n(p_ref)|.

Each cell is compared with its baseline *paired by seed*: a cell and its baseline at one seed are TRL's sampling
from the same seed, so the difference is taken seed by seed and its standard error is the standard deviation of the
per-seed differences over sqrt(seeds). A baseline that reads no sample (exact expectations) is one run, the same at
every seed, and a cell that reads none is one run too; two such runs differ by an exact number (standard error 0).
The count is also summarised as a count: at how many seeds the cell is below, equal to or above its baseline.

Two readings of the grid that the section states: :func:`prompt_gains`, per prompt of a sampled cell, the mean final
gain p_n - p_ref over seeds with its standard error against the gain h^n(p_ref) - p_ref the recursion predicts
(:func:`gain_verdict`: amplified, not amplified or falling); and :func:`placebo_reach`, what the placebo (rung 0's
loss computed by the book's code) rules out: a systematic shift beyond |mean| + 2 standard errors of its paired
effect, and no smaller one, against which every other cell of TRL's side is read.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grpo_nb.chapters.trl_grpo.full_runs import load_summary
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
    "PLACEBO",
    "PlaceboReach",
    "PromptGains",
    "Z",
    "gain_verdict",
    "placebo_reach",
    "placebo_reach_of",
    "prompt_gains",
    "GridFindings",
    "grid_findings",
]

#: A paired mean counts as beyond noise when it lies more than this many of its standard errors from a value.
Z = 2.0


def load_grid(path: str = "trl_knob_grid.json") -> dict:
    """The grid's JSON summary: a file, or the name of one that ships in ``grpo_nb/data/``."""
    return load_summary(path, "trl-knob-grid", what="knob-grid", flag="--grid")


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

    def significant(self, z: float = Z) -> bool:
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


def gain_verdict(mean: float, se: float) -> str:
    """Whether a prompt's mean final gain p_n - p_ref over seeds, with standard error ``se``, shows amplification
    (Theorem 3: p_n > p_ref): ``"amplified"`` (mean - Z se > 0), ``"falls"`` (mean + Z se < 0) or ``"not amplified"``
    (0 within Z se)."""
    if mean - Z * se > 0:
        return "amplified"
    return "falls" if mean + Z * se < 0 else "not amplified"


@dataclass(frozen=True)
class PromptGains:
    """Per prompt of one sampled cell: its p_ref, the gain h^n(p_ref) - p_ref the recursion predicts after the last
    step (``predicted``), the mean over seeds of the final gain p_n - p_ref (``mean``) and its standard error
    (``se``: the standard deviation of the final gains over the seeds divided by sqrt(seeds), a yardstick taken around
    the mean, so that a steady fall does not enlarge it), the number of seeds at which it ends below p_ref
    (``seeds_below``) and its :func:`gain_verdict` (``verdicts``)."""

    p_ref: tuple[float, ...]
    predicted: tuple[float, ...]
    mean: tuple[float, ...]
    se: tuple[float, ...]
    seeds_below: tuple[int, ...]
    verdicts: tuple[str, ...]

    @property
    def ending_below(self) -> tuple[int, ...]:
        """The prompts that end below p_ref at some seed."""
        return tuple(i for i, n in enumerate(self.seeds_below) if n > 0)

    @property
    def shortfall(self) -> tuple[float, ...]:
        """Per prompt, how many standard errors its mean final gain lies below the predicted gain."""
        return tuple((h - m) / s for h, m, s in zip(self.predicted, self.mean, self.se, strict=True))


def prompt_gains(result: dict, key: str) -> PromptGains:
    """:class:`PromptGains` of the sampled cell ``key`` over its seeds; ValueError for a cell with one run."""
    cell = _cell(result, key)
    if len(cell["runs"]) < 2:
        raise ValueError(f"key={key!r} has one run; valid: a cell that reads samples (one run per seed)")
    p_ref = np.asarray(result["p_ref"], dtype=float)
    final = np.stack([np.asarray(run["p_measured"], dtype=float)[:, -1] for run in cell["runs"]]) - p_ref
    mean, se = final.mean(axis=0), final.std(axis=0, ddof=1) / np.sqrt(final.shape[0])
    predicted = np.asarray(cell["p_theory"], dtype=float)[:, -1] - p_ref
    return PromptGains(
        tuple(float(x) for x in p_ref),
        tuple(float(x) for x in predicted),
        tuple(float(x) for x in mean),
        tuple(float(x) for x in se),
        tuple(int(x) for x in (final < 0).sum(axis=0)),
        tuple(gain_verdict(float(m), float(s)) for m, s in zip(mean, se, strict=True)),
    )


#: The placebo: rung 0 with its loss computed by the book's code instead of TRL's, no knob changed.
PLACEBO = "trl+book_loss"


def placebo_reach_of(placebo: Effect) -> float:
    """The largest systematic shift a placebo's paired effect leaves possible: |mean| + Z standard errors."""
    return abs(placebo.mean) + Z * placebo.se


@dataclass(frozen=True)
class PlaceboReach:
    """What the placebo rules out on ``measure``: its per-seed differences from TRL's own code (``diffs``), their
    standard deviation (``spread``: how far the two codes' runs of one seed part), the largest systematic shift it
    leaves possible (``reach``, :func:`placebo_reach_of`), and per cell of TRL's side with a baseline (the placebo
    left out) whether its effect lies beyond the reach by more than Z of its own standard errors (``"beyond"``), has
    a mean inside the reach (``"within"``: not told apart from the change of code) or neither (``"unclear"``); and
    each such cell's paired effect against the placebo itself (``against_placebo``), whose loss code it shares."""

    measure: str
    diffs: tuple[float, ...]
    spread: float
    reach: float
    verdicts: dict[str, str]
    against_placebo: dict[str, Effect]


def placebo_reach(result: dict, measure: str = "ended") -> PlaceboReach:
    """:class:`PlaceboReach` of the grid's placebo (:data:`PLACEBO`) on ``measure`` (``ended`` or ``dipped``)."""
    check_choice("measure", measure, ("ended", "dipped"))
    found = effects(result)
    placebo = found[PLACEBO][measure]
    reach = float(placebo_reach_of(placebo))
    same_code = cell_stats(result, PLACEBO)
    verdicts, against = {}, {}
    for cell in result["cells"]:
        if cell["side"] != "trl" or cell["baseline"] is None or cell["key"] == PLACEBO:
            continue
        e = found[cell["key"]][measure]
        size = abs(e.mean)
        verdicts[cell["key"]] = "beyond" if size - Z * e.se > reach else "within" if size < reach else "unclear"
        against[cell["key"]] = effect(cell_stats(result, cell["key"]), same_code, measure)
    spread = float(np.std(placebo.diffs, ddof=1))
    return PlaceboReach(measure, placebo.diffs, spread, reach, verdicts, against)


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
