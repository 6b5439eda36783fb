"""Section "Why TRL leaves the recursion" of the TRL chapter: the ablation ladder's cached runs, summarised.

Reads the JSON that ``python -m grpo_nb.trl_adapters --ladder full`` writes
(:mod:`grpo_nb.trl_adapters.ladder`; the shipped copy is ``grpo_nb/data/trl_ladder.json``) and computes, per rung and
seed, what the section states: how many prompts end below p_ref, the median and largest (over prompts) worst gap
max_n |p_n - prediction_n| to the finite-group chain's mean and to the recursion h^n, and the inner losses. Across
seeds each number is a mean with its standard error (sample standard deviation / sqrt(seeds)); a rung's difference
from the rung before has the standard error sqrt(se_a**2 + se_b**2): each rung's seeds draw their own samples, so
the runs of two rungs are independent.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grpo_nb.chapters.trl_grpo.full_runs import load_summary
from grpo_nb.report import Table
from grpo_nb.validation import check_choice

__all__ = [
    "Dips",
    "LadderFindings",
    "dips_below_ref",
    "Restoration",
    "ladder_findings",
    "SHORT_LABELS",
    "figure_data",
    "restoration",
    "InnerConvergence",
    "LadderStats",
    "Estimate",
    "inner_convergence",
    "ladder_stats",
    "ladder_table",
    "load_ladder",
    "rung_stats",
    "rung_zero_is_run",
    "step_differences",
]


def load_ladder(path: str = "trl_ladder.json") -> dict:
    """The ladder's JSON summary: a file, or the name of one that ships in ``grpo_nb/data/``."""
    return load_summary(path, "trl-ladder", what="ladder", flag="--ladder")


@dataclass(frozen=True)
class Estimate:
    """A mean over seeds, its standard error, and the per-seed values."""

    mean: float
    se: float
    values: tuple[float, ...]

    @classmethod
    def of(cls, values, *, exact: bool = False) -> Estimate:
        """The mean of ``values`` and its standard error; ``exact``: a run with no sampling noise (one value, the
        same at every seed), standard error 0."""
        v = np.asarray(values, dtype=float)
        if exact:
            if v.size != 1:
                raise ValueError(f"values={values!r} has {v.size} values; valid: one, for an exact run")
            return cls(float(v[0]), 0.0, (float(v[0]),))
        if v.size < 2:
            raise ValueError(f"values={values!r} has {v.size} values; valid: two or more seeds")
        return cls(float(v.mean()), float(v.std(ddof=1) / np.sqrt(v.size)), tuple(float(x) for x in v))

    def minus(self, other: Estimate) -> Estimate:
        """self - other with the standard error of two independent means (no per-seed values: the two rungs' runs
        are not paired)."""
        return Estimate(self.mean - other.mean, float(np.hypot(self.se, other.se)), ())

    def __str__(self) -> str:
        return f"{self.mean:.3f} ± {self.se:.3f}"


@dataclass(frozen=True)
class LadderStats:
    """One rung's numbers over its seeds: prompts ending below p_ref, median and largest worst gap (over prompts)
    to the finite-group chain's mean and to the recursion h^n, the mean final p of the prompts with p_ref >= 1/2."""

    key: str
    change: str
    n_seeds: int
    n_prompts: int
    below_ref: Estimate
    median_gap_finite: Estimate
    max_gap_finite: Estimate
    median_gap_h: Estimate
    easy_final: Estimate


def _arrays(rung: dict, run: dict) -> dict[str, np.ndarray]:
    return {
        "p": np.asarray(run["p_measured"], dtype=float),  # (P, n+1)
        "finite": np.asarray(rung["p_finite_group"], dtype=float),
        "h": np.asarray(rung["p_theory"], dtype=float),
    }


def rung_stats(result: dict, rung: dict) -> LadderStats:
    """:class:`LadderStats` of one rung of ``result["rungs"]``."""
    p_ref = np.asarray(result["p_ref"], dtype=float)
    easy = p_ref >= 0.5
    below, med_f, max_f, med_h, easy_final = [], [], [], [], []
    for run in rung["runs"]:
        a = _arrays(rung, run)
        gap_f = np.abs(a["p"] - a["finite"]).max(axis=1)
        gap_h = np.abs(a["p"] - a["h"]).max(axis=1)
        below.append((a["p"][:, -1] < p_ref).sum())
        med_f.append(np.median(gap_f))
        max_f.append(gap_f.max())
        med_h.append(np.median(gap_h))
        easy_final.append(a["p"][easy, -1].mean())
    exact = rung["objective"] == "exact"  # no sample is read: one run, the same at every seed
    return LadderStats(
        rung["key"],
        rung["change"],
        len(rung["runs"]),
        int(p_ref.size),
        *(Estimate.of(v, exact=exact) for v in (below, med_f, max_f, med_h, easy_final)),
    )


def ladder_stats(result: dict) -> list[LadderStats]:
    """:func:`rung_stats` of every rung, in the ladder's order."""
    return [rung_stats(result, rung) for rung in result["rungs"]]


def step_differences(stats: list[LadderStats]) -> list[dict[str, Estimate]]:
    """Each rung's change from the rung before (none for rung 0): below p_ref and the median gap to finite G."""
    return [
        {
            "below_ref": b.below_ref.minus(a.below_ref),
            "median_gap_finite": b.median_gap_finite.minus(a.median_gap_finite),
        }
        for a, b in zip(stats, stats[1:], strict=False)
    ]


def ladder_table(stats: list[LadderStats]) -> Table:
    """The ladder as a table: per rung its change, prompts below p_ref and the median worst gap to the finite-group
    chain (mean ± standard error over seeds), each with its change from the rung before (± its standard error)."""
    diffs = [None, *step_differences(stats)]
    rows = []
    for i, (s, d) in enumerate(zip(stats, diffs, strict=True)):
        rows.append(
            [
                f"{i}. {s.change}",
                f"{s.below_ref.mean:.1f} ± {s.below_ref.se:.1f}",
                "" if d is None else f"{d['below_ref'].mean:+.1f} ± {d['below_ref'].se:.1f}",
                str(s.median_gap_finite),
                "" if d is None else f"{d['median_gap_finite'].mean:+.3f} ± {d['median_gap_finite'].se:.3f}",
                str(s.median_gap_h),
            ]
        )
    headers = [
        "rung: what changes",
        "below $p_{\\text{ref}}$",
        "change",
        "median worst gap, finite $G$",
        "change",
        "median worst gap, $h^n$",
    ]
    return Table(headers, rows)


@dataclass(frozen=True)
class InnerConvergence:
    """How far a rung's inner loops get: per seed, the largest |fall of the loss over the last ``tail`` of the mu
    inner steps| over the outer steps, as a share of the largest fall over a whole inner loop (``shares``)."""

    key: str
    tail: int
    mu: int
    shares: tuple[float, ...]


def inner_convergence(result: dict, key: str, tail: int = 10) -> InnerConvergence:
    """:class:`InnerConvergence` of rung ``key``: a share near 0 means every inner loop has levelled off by its end."""
    rung = next(r for r in result["rungs"] if r["key"] == key)
    mu = int(result["trl_config"]["mu"])
    tail = min(tail, mu - 1)  # a small ladder's inner loop may be shorter than the tail
    shares = []
    for run in rung["runs"]:
        loss = np.asarray(run["inner_loss"], dtype=float).reshape(-1, mu)
        total = np.abs(loss[:, 0] - loss[:, -1]).max()
        shares.append(float(np.abs(loss[:, -tail - 1] - loss[:, -1]).max() / total))
    return InnerConvergence(key, tail, mu, tuple(shares))


#: the rungs as the figure names them (rung number, then what the rung has that the one before did not)
SHORT_LABELS = {
    "trl": r"0 TRL, $\beta = 2$",
    "sequence_ratio": "1 sequence ratio",
    "paper_advantage": "2 Eq. 3's advantage",
    "adam_reset": "3 fresh Adam",
    "exact_p": r"4 exact $p_{\mathrm{old}}$",
    "kl_exact": "5 exact KL",
    "exact": "6 every answer",
}


def figure_data(stats: list[LadderStats]) -> dict[str, object]:
    """The arguments of :func:`grpo_nb.plots.trl_ladder.plot_ladder`: labels, per rung the counts below p_ref at
    each seed, and (means, standard errors) of the counts and of the two median worst gaps."""
    return {
        "labels": [SHORT_LABELS[s.key] for s in stats],
        "below_ref": [s.below_ref.values for s in stats],
        "below_se": [s.below_ref.se for s in stats],
        "gap_finite": ([s.median_gap_finite.mean for s in stats], [s.median_gap_finite.se for s in stats]),
        "gap_h": ([s.median_gap_h.mean for s in stats], [s.median_gap_h.se for s in stats]),
        "n_prompts": stats[0].n_prompts,
    }


@dataclass(frozen=True)
class Restoration:
    """Where amplification comes back: ``first`` is the first rung from which no prompt ends below p_ref at any seed,
    on that rung and every rung after it (None if there is none); ``below_before`` the fewest and most prompts
    below p_ref over the seeds of the rungs before it; ``significant`` the rungs whose change in the count below
    p_ref from the rung before exceeds ``z`` standard errors (a zero standard error on both sides counts when the
    change is not 0)."""

    first: int | None
    below_before: tuple[int, int]
    significant: tuple[int, ...]
    z: float


def restoration(stats: list[LadderStats], z: float = 2.0) -> Restoration:
    """:class:`Restoration` of the ladder."""
    clean = [max(s.below_ref.values) == 0 for s in stats]
    first = next((i for i in range(len(stats)) if all(clean[i:])), None)
    before = [v for s in stats[: first if first is not None else len(stats)] for v in s.below_ref.values]
    significant = tuple(
        i + 1
        for i, d in enumerate(step_differences(stats))
        if abs(d["below_ref"].mean) > z * d["below_ref"].se or (d["below_ref"].se == 0 and d["below_ref"].mean != 0)
    )
    return Restoration(first, (int(min(before)), int(max(before))) if before else (0, 0), significant, z)


@dataclass(frozen=True)
class LadderFindings:
    """What the section states of the ladder, per rung key: the fewest and most prompts
    below p_ref over the seeds (``below``), the smallest and largest median worst gap to h^n (``gap_h``) and to the
    finite-group chain (``gap_finite``); the step with the largest fall in the count below p_ref (``largest_drop``,
    its rung index and the change with its standard error); :class:`Restoration`; per rung the inner-loop tail
    shares of its seeds (:func:`inner_convergence`)."""

    below: dict[str, tuple[int, int]]
    gap_h: dict[str, tuple[float, float]]
    gap_finite: dict[str, tuple[float, float]]
    largest_drop: tuple[int, Estimate]
    restoration: Restoration
    tail_shares: dict[str, tuple[float, ...]]


def ladder_findings(result: dict) -> LadderFindings:
    """:class:`LadderFindings` of a ladder summary."""
    stats = rungs = ladder_stats(result)

    def span(est: Estimate) -> tuple[float, float]:
        return (min(est.values), max(est.values))

    drops = [d["below_ref"] for d in step_differences(rungs)]
    i = int(np.argmin([d.mean for d in drops]))
    return LadderFindings(
        below={s.key: tuple(int(v) for v in span(s.below_ref)) for s in stats},
        gap_h={s.key: span(s.median_gap_h) for s in stats},
        gap_finite={s.key: span(s.median_gap_finite) for s in stats},
        largest_drop=(i + 1, drops[i]),
        restoration=restoration(rungs),
        tail_shares={r["key"]: inner_convergence(result, r["key"]).shares for r in result["rungs"]},
    )


def rung_zero_is_run(ladder: dict, result: dict, key: str) -> bool:
    """Whether the ladder's rung 0 at its first seed is, prompt by prompt and step by step, the TRL chapter's cached
    run ``key`` of ``result`` (``trl_full.json``): the same trainer, settings, seed and pi_ref."""
    rung0 = np.asarray(ladder["rungs"][0]["runs"][0]["p_measured"])
    run = np.asarray([row["p_measured"] for row in result["runs"][key]["per_prompt"]])
    return rung0.shape == run.shape and bool(np.array_equal(rung0, run))


@dataclass(frozen=True)
class Dips:
    """One rung, per seed: the prompts whose measured p falls below p_ref at some step after the first (``dipped``)
    and those that end below it (``ended``); ``depth``: the largest p_ref - p over every step, prompt and seed.
    Theorem 3 speaks of every step, so a prompt that dips and recovers is not amplified at that step."""

    dipped: tuple[int, ...]
    ended: tuple[int, ...]
    depth: float


def dips_below_ref(result: dict, key: str) -> Dips:
    """:class:`Dips` of rung ``key`` of a ladder summary (section "Why TRL leaves the recursion: one knob at a
    time"); ValueError for a key that is not one of its rungs."""
    check_choice("key", key, tuple(r["key"] for r in result["rungs"]))
    rung = next(r for r in result["rungs"] if r["key"] == key)
    p_ref = np.asarray(result["p_ref"], dtype=float)[:, None]
    steps = [np.asarray(run["p_measured"], dtype=float)[:, 1:] for run in rung["runs"]]
    return Dips(
        dipped=tuple(int((p < p_ref).any(axis=1).sum()) for p in steps),
        ended=tuple(int((p[:, -1] < p_ref[:, 0]).sum()) for p in steps),
        depth=float(max((p_ref - p).max() for p in steps)),
    )
