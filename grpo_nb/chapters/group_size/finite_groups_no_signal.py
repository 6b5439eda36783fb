"""The analyses of the sections "Groups without signal, and dynamic sampling" and "Hard prompts: do finite groups
blur the cycles and chaos?" of Part 2 of the chapter "Group size" (``book/group_size.md``, "Finite groups in the
dynamics"), each returning its table and the values its asserts need.

* :func:`zero_variance_study` ("Groups without signal, and dynamic sampling"): groups without signal kept, dropped
  (DAPO's dynamic sampling, for one prompt) or resampled for the same prompt (this book's rule).
* :func:`burst_statistics` ("Hard prompts: do finite groups blur the cycles and chaos?"): seeded runs of the
  finite-group chain of a hard prompt, next to the cycle of the recursion (the orbits of the expected map itself are
  :func:`grpo_nb.ustat.finite_group.expected_map_orbits`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grpo_nb.chapters.group_size.finite_groups_gaps import _columns
from grpo_nb.chapters.group_size.finite_groups_law import _two_answer_runs
from grpo_nb.dynamics.map import iterate
from grpo_nb.dynamics.orbits import attractor
from grpo_nb.report import Table
from grpo_nb.ustat.finite_group import FiniteGroupLaw, StepModel, finite_group_law, simulate_chain

__all__ = ["BurstStatistics", "ZeroVarianceStudy", "burst_statistics", "zero_variance_study"]


#: The rule for groups without signal that DAPO's dynamic sampling amounts to for a single prompt: DAPO filters out
#: the prompts whose group is all right or all wrong and fills the batch with other prompts, so the filtered prompt's
#: own policy is left unchanged ("drop"). "resample" (redraw groups for the same prompt) is this book's rule.
DAPO_RULE = "drop"
RULE_LABELS = {"keep": "keep (Algorithm 1)", "drop": "drop", "resample": "resample the prompt"}


@dataclass(frozen=True)
class ZeroVarianceStudy:
    """Per rule for groups without signal ("keep", "drop", "resample"): the law with Algorithm 1's inner loop
    (``law``), the law with the inner problem solved (``solved``), the Algorithm 1 runs, shape (n+1, n_seeds)
    (``runs``), and (runs' mean - law's mean) / standard error at n = 1.. (``z``); the orbit of h (``recursion``)."""

    table: Table
    law: dict[str, FiniteGroupLaw]
    solved: dict[str, FiniteGroupLaw]
    runs: dict[str, np.ndarray]
    z: dict[str, np.ndarray]
    recursion: np.ndarray

    @property
    def dynamic_sampling(self) -> FiniteGroupLaw:
        """The law (Algorithm 1's inner loop) under the rule DAPO's dynamic sampling amounts to for one prompt,
        ``DAPO_RULE``."""
        return self.law[DAPO_RULE]

    @property
    def tables(self) -> tuple[Table, Table]:
        """:attr:`table` in two parts for the page: the expected success probabilities with the runs, and the number of
        groups drawn."""
        return _columns(self.table, (0, 1, 2, 3, 4, 5)), _columns(self.table, (0, 6, 7))


def zero_variance_study(
    p_ref: float, beta: float, eps: float, *, G: int, mu: int, lr: float, n: int, n_seeds: int, seed: int = 0
) -> ZeroVarianceStudy:
    """Section "Groups without signal, and dynamic sampling": keep, drop or resample the groups without signal; per
    rule the law (Algorithm 1's mu, lr), the maximiser's law, Algorithm 1 runs (two answers, ``no_signal`` option)
    and the groups drawn per step."""
    laws, solved, all_runs, zs, rows = {}, {}, {}, {}, []
    rec = iterate(p_ref, beta, eps, n)
    for rule in ("keep", "drop", "resample"):
        law = finite_group_law(StepModel(p_ref, beta, eps, G, rule="inner_loop", mu=mu, lr=lr, no_signal=rule), n)
        ideal = finite_group_law(StepModel(p_ref, beta, eps, G, no_signal=rule), n)
        runs = _two_answer_runs(p_ref, beta, eps, G, mu, lr, n, n_seeds, seed, no_signal=rule)
        se = runs.std(axis=1, ddof=1)[1:] / np.sqrt(n_seeds)
        z = (runs.mean(axis=1)[1:] - law.mean[1:]) / np.maximum(se, 1e-12)
        laws[rule], solved[rule], all_runs[rule], zs[rule] = law, ideal, runs, z
        label = RULE_LABELS[rule] + (" = DAPO, one prompt" if rule == DAPO_RULE else "")
        rows.append(
            (
                label,
                law.mean[1],
                law.mean[-1],
                ideal.mean[-1],
                f"{runs[-1].mean():.3f} ± {se[-1]:.3f}",
                float(np.abs(z).max()),
                law.draws[0],
                law.draws.mean(),
            )
        )
    rows.append(("$h$ (exact $p$)", rec[1], rec[-1], rec[-1], "", float("nan"), 0.0, 0.0))
    headers = [
        "groups without signal",
        r"$\mathbb{E}[p_1]$",
        rf"$\mathbb{{E}}[p_{{{n}}}]$",
        rf"$\mathbb{{E}}[p_{{{n}}}]$, inner problem solved",
        rf"Algorithm 1: $p_{{{n}}}$ ± s.e.",
        r"max $\lvert z\rvert$",
        "groups at step 1",
        "groups per step",
    ]
    return ZeroVarianceStudy(Table(headers, rows, ".3f"), laws, solved, all_runs, zs, rec)


@dataclass(frozen=True)
class BurstStatistics:
    """Per G, over the steps after burn-in of all chains: the share of steps at exactly p_ref (a group without
    signal the step before, ``at_ref``), the share with p > 1/2 (bursts, ``burst``), the share of bursts followed by
    a return to p_ref (``reset``), the share of steps that reverse the previous step (up-down, as a 2-cycle does,
    ``alternating``), the mean p (``mean``), and the first n_shown steps of the run with the most bursts
    (``path``)."""

    table: Table
    at_ref: dict[int, float]
    burst: dict[int, float]
    reset: dict[int, float]
    alternating: dict[int, float]
    mean: dict[int, float]
    path: dict[int, np.ndarray]


def burst_statistics(
    p_ref: float,
    beta: float,
    eps: float,
    *,
    groups: Sequence[int],
    n: int,
    n_chains: int,
    transient: int = 20,
    seed: int = 0,
    n_shown: int = 80,
) -> BurstStatistics:
    """Section "Hard prompts: do finite groups blur the cycles and chaos?": seeded runs of the finite-group chain
    (maximiser, groups kept) of a hard prompt, per G (the fields of :class:`BurstStatistics`), next to the attractor of
    the recursion h."""
    cycle = np.array(attractor(p_ref, beta, eps))
    rows, facts = [], {name: {} for name in ("at_ref", "burst", "reset", "alternating", "mean", "path")}
    for G in groups:
        p = simulate_chain(StepModel(p_ref, beta, eps, G), n, n_chains, seed=seed + G)[transient:]
        at_ref = np.isclose(p, p_ref, rtol=1e-12, atol=0.0)
        burst = p > 0.5
        after = at_ref[1:][burst[:-1]]
        steps = np.sign(np.diff(p, axis=0))
        alternating = steps[1:] * steps[:-1] < 0
        shown = int(np.argmax(burst[:n_shown].sum(axis=0)))
        shares = (at_ref.mean(), burst.mean(), after.mean() if after.size else np.nan, alternating.mean(), p.mean())
        for name, value in zip(("at_ref", "burst", "reset", "alternating", "mean"), shares, strict=True):
            facts[name][G] = float(value)
        facts["path"][G] = p[:n_shown, shown]
        rows.append((str(G), *shares))
    exact_alt = 1.0 if cycle.size == 2 else 0.0  # a 2-cycle reverses at every step, a fixed point never
    rows.append(("exact recursion", 0.0, float(np.mean(cycle > 0.5)), float("nan"), exact_alt, float(cycle.mean())))
    headers = [
        "$G$",
        r"share of steps at $p_{\mathrm{ref}}$",
        "share of steps with $p > 1/2$",
        r"bursts followed by $p_{\mathrm{ref}}$",
        "steps that reverse the previous one",
        "mean $p$",
    ]
    return BurstStatistics(Table(headers, rows, ".3f"), **facts)
