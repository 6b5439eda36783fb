"""The analyses of the sections "The expected step of a finite group", "The finite-group recursion on a two-answer
prompt" and "The law against Algorithm 1 runs" of Part 2 of the chapter "Group size" (``book/group_size.md``,
"Finite groups in the dynamics"), each returning its table and the values its asserts need; the section of the
chapter that uses each is named in brackets.

* :func:`step_factor_check` and :func:`retention_table` ("The expected step of a finite group"):
  E[estimate] = c_G(p) grad p for every estimator (exact moments of Part 1), and the signal retention rho_G(p)
  against its hard-prompt form sqrt((G-1) p).
* :func:`replay_check` and :func:`expected_map_curves` ("The finite-group recursion on a two-answer prompt"): tabular
  Algorithm 1 on two-answer prompts replayed by the one-logit recursion, and the exact expected maps.
* :func:`trajectory_comparison` ("The law against Algorithm 1 runs"): the law of the finite-group chain against
  seeded Algorithm 1 runs, per G.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, softmax
from tqdm.auto import tqdm

from grpo_nb.dynamics.map import h, iterate
from grpo_nb.report import Table, bound
from grpo_nb.tabular.algorithm1 import algorithm1, make_task
from grpo_nb.tabular.policy import expected_reward
from grpo_nb.ustat.bandit import exact_gradient
from grpo_nb.ustat.estimators import ALL_ESTIMATORS
from grpo_nb.ustat.finite_group import (
    FiniteGroupLaw,
    StepModel,
    expected_map,
    finite_group_law,
    signal_retention,
    step_logits,
)
from grpo_nb.ustat.moments import exact_moments, expected_step_factor
from grpo_nb.validation import check_positive_int

__all__ = [
    "ChainComparison",
    "Retention",
    "StepFactorCheck",
    "expected_map_curves",
    "replay_check",
    "retention_table",
    "step_factor_check",
    "trajectory_comparison",
]


Bandit = tuple[np.ndarray, np.ndarray]


FACTOR_TOL = 1e-12  # E[estimate] = c_G grad V to rounding; the table prints the gap as this bound


@dataclass(frozen=True)
class StepFactorCheck:
    """Per (estimator, G): the step factor c_G(V) of each bandit (``factor``, in the bandits' order), and the largest
    |E[estimate] - c_G(V) grad V| over all of them (``worst``)."""

    table: Table
    factor: dict[tuple[str, int], np.ndarray]
    worst: float


def step_factor_check(bandits: Mapping[str, Bandit], groups: Sequence[int]) -> StepFactorCheck:
    """Section "The expected step of a finite group": per estimator and G, c_G(V) for each bandit, and max over
    bandits of |E[estimate] - c_G(V) grad V| (exact), shown as a bound at ``FACTOR_TOL``."""
    rows, worst, factor = [], 0.0, {}
    for est in ALL_ESTIMATORS:
        for G in groups:
            factors, gap = [], 0.0
            for logits, reward in bandits.values():
                v = float(expected_reward(softmax(logits), reward))
                c = expected_step_factor(v, G, est)
                gap = max(
                    gap,
                    float(
                        np.abs(
                            exact_moments(logits, reward, G, estimator=est).mean - c * exact_gradient(logits, reward)
                        ).max()
                    ),
                )
                factors.append(c)
            worst = max(worst, gap)
            factor[est, G] = np.array(factors)
            rows.append((est, str(G), *factors, bound(gap, FACTOR_TOL)))
    headers = [
        "estimator",
        "$G$",
        *(f"$c_G$, {label}" for label in bandits),
        r"max $\lvert \mathbb{E}\,\hat g - c_G \nabla V\rvert$",
    ]
    return StepFactorCheck(Table(headers, rows, ".4g"), factor, worst)


@dataclass(frozen=True)
class Retention:
    """The signal retention rho_G(p), one row per p and one column per G (``rho``), and its table."""

    table: Table
    rho: np.ndarray


def retention_table(ps: Sequence[float], groups: Sequence[int], eps: float) -> Retention:
    """Section "The expected step of a finite group": rho_G(p) for every p and G (rows: p), with sqrt((G-1) p) in
    brackets where G p < 1."""
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
    return Retention(Table(["$p$", *(f"$G = {G}$" for G in groups)], rows), rho)


def _two_answer_runs(
    p_ref: float, beta: float, eps: float, G: int, mu: int, lr: float, n: int, n_seeds: int, seed: int, **options
) -> np.ndarray:
    """Algorithm 1 on n_seeds copies of a prompt with one correct and one wrong answer (independent groups per copy,
    one run): p_0..p_n, shape (n+1, n_seeds)."""
    task = make_task(np.full(n_seeds, p_ref), n_outcomes=2, seed=seed)
    run = algorithm1(task, beta=beta, eps=eps, G=G, mu=mu, lr=lr, n=n, seed=seed, **options)
    return run.p_true


def replay_check(
    p_ref: Sequence[float], beta: float, eps: float, *, G: int, mu: int, lr: float, n: int, seed: int = 0
) -> float:
    """Section "The finite-group recursion on a two-answer prompt": run tabular Algorithm 1 on two-answer prompts,
    then replay each trajectory with the one-logit recursion (:func:`step_logits`, rule "inner_loop") fed the run's
    own group counts. Returns max |p_n(run) - p_n(replay)|."""
    task = make_task(np.asarray(p_ref, dtype=float), n_outcomes=2, seed=seed)
    run = algorithm1(task, beta=beta, eps=eps, G=G, mu=mu, lr=lr, n=n, seed=seed)
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
    """Per G: the law of the finite-group chain and seeded Algorithm 1 runs (two answers), and the recursion h; the
    verdicts of section "The law against Algorithm 1 runs" (:meth:`z_scores`, :meth:`band_coverage`) and its table
    (:meth:`table`)."""

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
            "$G$",
            "orbit of $h$: $p_M$",
            r"law: $\mathbb{E}[p_M]$",
            "Algorithm 1: mean $p_M$ ± s.e.",
            r"max $\lvert z\rvert$ over $n$",
            f"runs inside the law's q{lo}–q{hi} band",
            "mean P(no signal)",
        ]
        return Table(headers, rows, ".3f")


def trajectory_comparison(
    p_ref: float,
    beta: float,
    eps: float,
    *,
    groups: Sequence[int],
    mu: int,
    lr: float,
    n: int,
    n_seeds: int,
    seed: int = 0,
) -> ChainComparison:
    """Section "The law against Algorithm 1 runs": the finite-group law (rule "inner_loop" with Algorithm 1's own mu
    and lr) against n_seeds seeded Algorithm 1 runs on a two-answer prompt, for each G; quantile band 10%-90%."""
    n_seeds = check_positive_int("n_seeds", n_seeds, minimum=2)
    laws, runs = {}, {}
    for G in tqdm(groups, desc="group sizes"):
        laws[G] = finite_group_law(StepModel(p_ref, beta, eps, G, rule="inner_loop", mu=mu, lr=lr), n)
        runs[G] = _two_answer_runs(p_ref, beta, eps, G, mu, lr, n, n_seeds, seed + G)
    return ChainComparison(tuple(groups), laws, runs, iterate(p_ref, beta, eps, n))


def expected_map_curves(
    p_ref: float, beta: float, eps: float, *, groups: Sequence[int], p: np.ndarray
) -> dict[str, np.ndarray]:
    """Section "The finite-group recursion on a two-answer prompt": the exact expected maps on the grid ``p``, h, H_G
    (Algorithm 1's inner problem solved, groups kept) and the plug-in model's E[h(K/G)] for each G. Returns
    {label: values}."""
    out = {"h (G = ∞)": np.asarray(h(p, p_ref, beta, eps))}
    for G in groups:
        out[f"G = {G}"] = np.asarray(expected_map(StepModel(p_ref, beta, eps, G), p))
    for G in groups:
        out[f"plug-in, G = {G}"] = np.asarray(expected_map(StepModel(p_ref, beta, eps, G, rule="plug_in"), p))
    return out
