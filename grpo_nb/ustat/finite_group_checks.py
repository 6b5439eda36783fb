"""The group-size chapter's checks of Part 2 (finite G in the dynamics), each returning its table and verdicts.

* :func:`step_factor_check`: E[estimate] = c_G(p) grad p for every estimator (exact moments of Part 1).
* :func:`retention_table`: the signal retention rho_G(p) against its hard-prompt form sqrt((G-1) p).
* :func:`replay_check`: tabular Algorithm 1 on two-answer prompts replayed by the one-logit recursion.
* :func:`trajectory_comparison`: the law of the finite-group chain against seeded Algorithm 1 runs, per G.
* :func:`iterations_gap`: the seed-averaged gap of the GRPO-iterations chapter, predicted.
* :func:`toy_lm_gap`: the sampled toy-LM run of the parametric chapter against the finite-group law.
* :func:`zero_variance_study`: groups without signal kept, dropped or resampled (dynamic sampling).
* :func:`expected_map_orbits` and :func:`burst_statistics`: cycles and chaos of hard prompts with a finite group.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logit, softmax
from scipy.stats import binom
from tqdm.auto import tqdm

from grpo_nb.dynamics.map import h, iterate
from grpo_nb.dynamics.orbits import attractor
from grpo_nb.report import Table, bound
from grpo_nb.tabular.algorithm1 import algorithm1, make_task
from grpo_nb.tabular.policy import expected_reward
from grpo_nb.ustat.bandit import exact_gradient
from grpo_nb.ustat.estimators import ALL_ESTIMATORS
from grpo_nb.ustat.finite_group import (
    Z_MAX,
    FiniteGroupLaw,
    StepModel,
    expected_map,
    finite_group_law,
    group_tilt,
    signal_retention,
    simulate_chain,
    step_logits,
)
from grpo_nb.ustat.moments import exact_moments, expected_step_factor
from grpo_nb.validation import check_positive_int

__all__ = [
    "ChainComparison",
    "burst_statistics",
    "expected_map_curves",
    "expected_map_orbits",
    "iterations_gap",
    "replay_check",
    "retention_table",
    "step_factor_check",
    "toy_lm_gap",
    "trajectory_comparison",
    "zero_variance_study",
]

Bandit = tuple[np.ndarray, np.ndarray]


FACTOR_TOL = 1e-12  # E[estimate] = c_G grad V to rounding; the table prints the gap as this bound


def step_factor_check(bandits: Mapping[str, Bandit], groups: Sequence[int]) -> tuple[Table, float]:
    """Per estimator and G: c_G(V) for each bandit, and max over bandits of |E[estimate] - c_G(V) grad V| (exact),
    shown as a bound at ``FACTOR_TOL``."""
    rows, worst = [], 0.0
    for est in ALL_ESTIMATORS:
        for G in groups:
            factors, gap = [], 0.0
            for logits, reward in bandits.values():
                v = float(expected_reward(softmax(logits), reward))
                c = expected_step_factor(v, G, est)
                gap = max(
                    gap,
                    float(
                        np.abs(exact_moments(logits, reward, G, est).mean - c * exact_gradient(logits, reward)).max()
                    ),
                )
                factors.append(c)
            worst = max(worst, gap)
            rows.append((est, str(G), *factors, bound(gap, FACTOR_TOL)))
    headers = ["estimator", "G", *(f"c_G, {label}" for label in bandits), "max |E est − c_G ∇V|"]
    return Table(headers, rows, ".4g"), worst


def retention_table(ps: Sequence[float], groups: Sequence[int], eps: float) -> tuple[Table, np.ndarray]:
    """rho_G(p) for every p and G (rows: p), with sqrt((G-1) p) in brackets where G p < 1. Returns (table, rho)."""
    rho = np.array([[signal_retention(p, G, eps) for G in groups] for p in ps])
    rows = [
        (
            f"{p:g}",
            *(
                f"{r:.3f}" + (f" ({np.sqrt((G - 1) * p):.3f})" if G * p < 1 else "")
                for r, G in zip(rho[i], groups, strict=True)
            ),
        )
        for i, p in enumerate(ps)
    ]
    return Table(["p", *(f"G = {G}" for G in groups)], rows), rho


def _two_answer_runs(
    p_ref: float, beta: float, eps: float, G: int, mu: int, lr: float, n: int, n_seeds: int, seed: int, **options
) -> np.ndarray:
    """Algorithm 1 on n_seeds copies of a prompt with one correct and one wrong answer (independent groups per copy,
    one run): p_0..p_n, shape (n+1, n_seeds)."""
    task = make_task(np.full(n_seeds, p_ref), n_outcomes=2, seed=seed)
    run = algorithm1(task, beta=beta, eps=eps, G=G, mu=mu, lr=lr, n_iterations=n, seed=seed, **options)
    return run.p_true


def replay_check(p_ref: Sequence[float], beta: float, eps: float, G: int, mu: int, lr: float, n: int, seed: int = 0):
    """Run tabular Algorithm 1 on two-answer prompts, then replay each trajectory with the one-logit recursion
    (:func:`step_logits`, rule "inner_loop") fed the run's own group counts. Returns max |p_n(run) - p_n(replay)|."""
    task = make_task(np.asarray(p_ref, dtype=float), n_outcomes=2, seed=seed)
    run = algorithm1(task, beta=beta, eps=eps, G=G, mu=mu, lr=lr, n_iterations=n, seed=seed)
    worst = 0.0
    for q, p0 in enumerate(task.p_ref):
        model = StepModel(p0, beta, eps, G, rule="inner_loop", mu=mu, lr=lr)
        z = [model.a]
        for k in np.rint(run.p_hat[:, q] * G).astype(int):
            z.append(float(step_logits(model, z[-1], k)))
        worst = max(worst, float(np.abs(expit(np.array(z)) - run.p_true[:, q]).max()))
    return worst


@dataclass(frozen=True)
class ChainComparison:
    """Per G: the law of the finite-group chain and seeded Algorithm 1 runs (two answers), and the recursion h."""

    groups: tuple[int, ...]
    laws: dict[int, FiniteGroupLaw]
    runs: dict[int, np.ndarray]
    recursion: np.ndarray

    def z_scores(self, G: int) -> np.ndarray:
        """(mean of the runs - E[p_n]) / standard error, n = 1..M."""
        r = self.runs[G][1:]
        return (r.mean(axis=1) - self.laws[G].mean[1:]) / (r.std(axis=1, ddof=1) / np.sqrt(r.shape[1]))

    def band_coverage(self, G: int) -> float:
        """Share of all run values p_n (n >= 1) inside the law's outer quantile band at the same n."""
        lo, hi = self.laws[G].quantiles[0, 1:, None], self.laws[G].quantiles[-1, 1:, None]
        r = self.runs[G][1:]
        return float(np.mean((r >= lo - 1e-12) & (r <= hi + 1e-12)))

    def table(self) -> Table:
        rows = []
        for G in self.groups:
            law, r = self.laws[G], self.runs[G]
            se = r[-1].std(ddof=1) / np.sqrt(r.shape[1])
            rows.append(
                (
                    str(G),
                    self.recursion[-1],
                    law.mean[-1],
                    f"{r[-1].mean():.3f} ± {se:.3f}",
                    float(np.abs(self.z_scores(G)).max()),
                    self.band_coverage(G),
                    law.no_signal.mean(),
                )
            )
        lo, hi = (
            int(round(100 * q)) for q in (self.laws[self.groups[0]].levels[0], self.laws[self.groups[0]].levels[-1])
        )
        headers = [
            "G",
            "h-orbit p_M",
            "law: E[p_M]",
            "Algorithm 1: mean p_M ± se",
            "max |z| over n",
            f"runs inside the law's q{lo}–q{hi} band",
            "mean P(no signal)",
        ]
        return Table(headers, rows, ".3f")


def trajectory_comparison(
    p_ref: float,
    beta: float,
    eps: float,
    groups: Sequence[int],
    *,
    mu: int,
    lr: float,
    n: int,
    n_seeds: int,
    seed: int = 0,
) -> ChainComparison:
    """The finite-group law (rule "inner_loop" with Algorithm 1's own mu and lr) against n_seeds seeded Algorithm 1
    runs on a two-answer prompt, for each G; quantile band 10%-90%."""
    n_seeds = check_positive_int("n_seeds", n_seeds, minimum=2)
    laws, runs = {}, {}
    for G in tqdm(groups, desc="group sizes"):
        laws[G] = finite_group_law(StepModel(p_ref, beta, eps, G, rule="inner_loop", mu=mu, lr=lr), n)
        runs[G] = _two_answer_runs(p_ref, beta, eps, G, mu, lr, n, n_seeds, seed + G)
    return ChainComparison(tuple(groups), laws, runs, iterate(p_ref, beta, eps, n))


def expected_map_curves(
    p_ref: float, beta: float, eps: float, groups: Sequence[int], p: np.ndarray
) -> dict[str, np.ndarray]:
    """The exact expected maps on the grid ``p``: h, H_G (Algorithm 1's inner problem solved, groups kept) and the
    plug-in model's E[h(K/G)] for each G. Returns {label: values}."""
    out = {"h (G = ∞)": np.asarray(h(p, p_ref, beta, eps))}
    for G in groups:
        out[f"G = {G}"] = np.asarray(expected_map(StepModel(p_ref, beta, eps, G), p))
    for G in groups:
        out[f"plug-in, G = {G}"] = np.asarray(expected_map(StepModel(p_ref, beta, eps, G, rule="plug_in"), p))
    return out


def iterations_gap(
    p_ref: Sequence[float],
    *,
    beta: float,
    eps: float,
    G: int,
    mu: int,
    lr: float,
    n: int,
    book_seeds: int,
    n_seeds: int,
) -> tuple[Table, dict[str, np.ndarray]]:
    """The GRPO-iterations chapter's run (eight answers, four correct, make_task seed 0) averaged over ``book_seeds``
    seeds as printed there, and over n_seeds more; the same prompts with two answers over n_seeds; the finite-group
    law (two answers, Algorithm 1's mu and lr) and the recursion h. Returns (table, values for the asserts)."""
    p_ref = np.asarray(p_ref, dtype=float)
    task = make_task(p_ref, n_outcomes=8, seed=0)
    book = np.array(
        [
            algorithm1(task, beta=beta, eps=eps, G=G, mu=mu, lr=lr, n_iterations=n, seed=s).p_true[-1]
            for s in range(book_seeds)
        ]
    )
    many8 = (
        algorithm1(
            make_task(np.repeat(p_ref, n_seeds), n_outcomes=8, seed=0),
            beta=beta,
            eps=eps,
            G=G,
            mu=mu,
            lr=lr,
            n_iterations=n,
            seed=1,
        )
        .p_true[-1]
        .reshape(p_ref.size, n_seeds)
    )
    many2 = np.array([_two_answer_runs(p, beta, eps, G, mu, lr, n, n_seeds, 1)[-1] for p in p_ref])
    laws = [finite_group_law(StepModel(p, beta, eps, G, rule="inner_loop", mu=mu, lr=lr), n) for p in p_ref]
    law = np.array([x.mean[-1] for x in laws])
    rec = iterate(p_ref, beta, eps, n)[-1]

    def mean_se(a: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
        return a.mean(axis=axis), a.std(axis=axis, ddof=1) / np.sqrt(a.shape[axis])

    (b_mean, b_se), (m8, s8), (m2, s2) = mean_se(book, 0), mean_se(many8, 1), mean_se(many2, 1)
    vals = {"book": b_mean, "book_se": b_se, "law": law, "h": rec, "eight": m8, "eight_se": s8, "two": m2, "two_se": s2}
    rows = [
        (
            f"{p:g}",
            rec[i],
            law[i],
            f"{b_mean[i]:.3f} ± {b_se[i]:.3f}",
            (b_mean[i] - rec[i]) / b_se[i],
            (b_mean[i] - law[i]) / b_se[i],
            f"{m8[i]:.3f} ± {s8[i]:.3f}",
            f"{m2[i]:.3f} ± {s2[i]:.3f}",
        )
        for i, p in enumerate(p_ref)
    ]
    headers = [
        "p_ref",
        "h-orbit p_M",
        "finite-G law E[p_M]",
        f"book: {book_seeds} seeds",
        "z vs h",
        "z vs law",
        f"8 answers, {n_seeds} seeds",
        f"2 answers, {n_seeds} seeds",
    ]
    return Table(headers, rows, ".3f"), vals


def toy_lm_gap(p_ref: np.ndarray, p_measured: np.ndarray, *, beta: float, eps: float, G: int) -> tuple[Table, dict]:
    """The toy LM's sampled run (measured p_n per prompt, shape (M+1, P)) against the finite-group law of each prompt
    (two answers, maximiser: the inner problem solved, as the exact-estimator run does) and against h.

    The law gives E[mean_q p_n] and, for independent prompts, its standard error sqrt(sum_q Var p_n(q)) / P."""
    n = p_measured.shape[0] - 1
    laws = [finite_group_law(StepModel(p, beta, eps, G), n) for p in p_ref]
    law_mean = np.mean([x.mean for x in laws], axis=0)
    law_se = np.sqrt(np.sum([x.std**2 for x in laws], axis=0)) / p_ref.size
    rec = iterate(p_ref, beta, eps, n).mean(axis=1)
    measured = p_measured.mean(axis=1)
    step_sd = np.std(np.diff(measured[1:]), ddof=1) / np.sqrt(2.0)  # iteration-to-iteration spread of the mean
    rows = [(str(k), rec[k], law_mean[k], law_se[k], measured[k]) for k in range(n + 1)]
    facts = {
        "law": law_mean,
        "law_se": law_se,
        "h": rec,
        "measured": measured,
        "mean_spread": step_sd,
        "late_measured": measured[2:].mean(),
        "late_law": law_mean[2:].mean(),
        "late_h": rec[2:].mean(),
    }
    headers = ["n", "h: mean p_n", "finite-G law: E[mean p_n]", "law: standard error", "toy LM: mean p~_n"]
    return Table(headers, rows, ".3f"), facts


def zero_variance_study(
    p_ref: float, beta: float, eps: float, G: int, *, mu: int, lr: float, n: int, n_seeds: int, seed: int = 0
) -> tuple[Table, dict]:
    """Keep, drop or resample the groups without signal: per rule the law (Algorithm 1's mu, lr), the maximiser's law,
    Algorithm 1 runs (two answers, ``no_signal`` option) and the groups drawn per step. Returns (table, facts)."""
    facts, rows = {}, []
    rec = iterate(p_ref, beta, eps, n)
    for rule in ("keep", "drop", "resample"):
        law = finite_group_law(StepModel(p_ref, beta, eps, G, rule="inner_loop", mu=mu, lr=lr, no_signal=rule), n)
        ideal = finite_group_law(StepModel(p_ref, beta, eps, G, no_signal=rule), n)
        runs = _two_answer_runs(p_ref, beta, eps, G, mu, lr, n, n_seeds, seed, no_signal=rule)
        se = runs.std(axis=1, ddof=1)[1:] / np.sqrt(n_seeds)
        z = (runs.mean(axis=1)[1:] - law.mean[1:]) / np.maximum(se, 1e-12)
        facts[rule] = {"law": law, "ideal": ideal, "runs": runs, "z": z}
        rows.append(
            (
                rule,
                law.mean[1],
                law.mean[-1],
                ideal.mean[-1],
                f"{runs[-1].mean():.3f} ± {se[-1]:.3f}",
                float(np.abs(z).max()),
                law.draws[0],
                law.draws.mean(),
            )
        )
    rows.append(("h (exact p)", rec[1], rec[-1], rec[-1], "", float("nan"), 0.0, 0.0))
    headers = [
        "groups without signal",
        "E[p_1]",
        f"E[p_{n}]",
        f"E[p_{n}], inner problem solved",
        f"Algorithm 1: p_{n} ± se",
        "max |z| over n",
        "groups drawn at step 1",
        "groups drawn per step (mean)",
    ]
    return Table(headers, rows, ".3f"), facts


def _expected_logit_map(z: np.ndarray, a: float, beta: np.ndarray, eps: float, G: int) -> np.ndarray:
    """logit H_G(sigmoid z) for the maximiser with groups kept, vectorised over (z, beta) of the same shape."""
    k = np.arange(G + 1)
    w = binom.pmf(k[None, :], G, expit(z)[:, None])
    nxt = expit(np.clip(a + group_tilt(z[:, None], k[None, :], G, eps) / beta[:, None], -Z_MAX, Z_MAX))
    return logit(np.clip(np.sum(w * nxt, axis=1), 1e-300, 1 - 1e-16))


def expected_map_orbits(
    p_ref: float, eps: float, betas: np.ndarray, G: int, *, transient: int = 1500, n_keep: int = 64, tol: float = 1e-7
) -> tuple[np.ndarray, np.ndarray]:
    """The orbit of the exact expected map H_G from p_ref for every beta: its last n_keep values (beta, n_keep) and
    its period (smallest k <= n_keep/2 with |z_{j+k} - z_j| <= tol max(1, |z_j|) over the window; 0 if none)."""
    betas = np.asarray(betas, dtype=float)
    a = float(logit(p_ref))
    z = np.full(betas.size, a)
    for _ in range(transient):
        z = _expected_logit_map(z, a, betas, eps, G)
    keep = np.empty((betas.size, n_keep))
    for j in range(n_keep):
        z = _expected_logit_map(z, a, betas, eps, G)
        keep[:, j] = z
    period = np.zeros(betas.size, dtype=int)
    scale = np.maximum(1.0, np.abs(keep))
    for k in range(n_keep // 2, 0, -1):
        period[np.all(np.abs(keep[:, k:] - keep[:, :-k]) <= tol * scale[:, :-k], axis=1)] = k
    return expit(keep), period


def burst_statistics(
    p_ref: float,
    beta: float,
    eps: float,
    groups: Sequence[int],
    *,
    n: int,
    n_chains: int,
    burn_in: int = 20,
    seed: int = 0,
    n_shown: int = 80,
) -> tuple[Table, dict]:
    """Seeded runs of the finite-group chain (maximiser, groups kept) of a hard prompt, per G: the share of steps at
    exactly p_ref (a group without signal the step before), the share of steps with p > 1/2 (bursts), the share of
    bursts followed by a return to p_ref, the share of steps that reverse the previous step (up-down, as a 2-cycle
    does), and the mean p. ``facts[G]["path"]`` is the first n_shown steps of the run with the most bursts."""
    cycle = np.array(attractor(p_ref, beta, eps))
    rows, facts = [], {}
    for G in groups:
        p = simulate_chain(StepModel(p_ref, beta, eps, G), n, n_chains, seed=seed + G)[burn_in:]
        at_ref = np.isclose(p, p_ref, rtol=1e-12, atol=0.0)
        burst = p > 0.5
        after = at_ref[1:][burst[:-1]]
        steps = np.sign(np.diff(p, axis=0))
        alternating = steps[1:] * steps[:-1] < 0
        shown = int(np.argmax(burst[:n_shown].sum(axis=0)))
        facts[G] = {
            "at_ref": at_ref.mean(),
            "burst": burst.mean(),
            "reset": after.mean() if after.size else np.nan,
            "alternating": alternating.mean(),
            "mean": p.mean(),
            "path": p[:n_shown, shown],
        }
        rows.append((str(G), *(facts[G][k] for k in ("at_ref", "burst", "reset", "alternating", "mean"))))
    exact_alt = 1.0 if cycle.size == 2 else 0.0  # a 2-cycle reverses at every step, a fixed point never
    rows.append(("exact recursion", 0.0, float(np.mean(cycle > 0.5)), float("nan"), exact_alt, float(cycle.mean())))
    headers = [
        "G",
        "share of steps at p_ref",
        "share of steps with p > 1/2",
        "bursts followed by p_ref",
        "steps that reverse the previous one",
        "mean p",
    ]
    return Table(headers, rows, ".3f"), facts
