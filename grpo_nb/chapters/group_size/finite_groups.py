"""The analyses of Part 2 of the chapter "Group size" (``book/group_size.md``, "Finite groups in the dynamics"),
each returning its table and the values its asserts need; the section of the chapter that uses each is named in
brackets.

* :func:`step_factor_check` and :func:`retention_table` ("The expected step of a finite group"):
  E[estimate] = c_G(p) grad p for every estimator (exact moments of Part 1), and the signal retention rho_G(p)
  against its hard-prompt form sqrt((G-1) p).
* :func:`replay_check` and :func:`expected_map_curves` ("The finite-group recursion on a two-answer prompt"): tabular
  Algorithm 1 on two-answer prompts replayed by the one-logit recursion, and the exact expected maps.
* :func:`trajectory_comparison` ("The law against Algorithm 1 runs"): the law of the finite-group chain against
  seeded Algorithm 1 runs, per G.
* :func:`iterations_gap` and :func:`toy_lm_gap` ("The book's own gaps, predicted"): the seed-averaged gap of the
  GRPO-iterations chapter, and the sampled toy-LM run of the parametric chapter, against the finite-group law.
* :func:`k3_gradient_check` ("The book's own gaps, predicted"): the expected gradient of the k3 estimate placed in
  the loss against the exact gradients of the two KL directions.
* :func:`zero_variance_study` ("Groups without signal, and dynamic sampling"): groups without signal kept, dropped
  (DAPO's dynamic sampling, for one prompt) or resampled for the same prompt (this book's rule).
* :func:`group_size_guide` ("What this means for choosing G"): the chapter's evidence on G gathered in one table.
* :func:`burst_statistics` ("Hard prompts: do finite groups blur the cycles and chaos?"): seeded runs of the
  finite-group chain of a hard prompt, next to the cycle of the recursion (the orbits of the expected map itself are
  :func:`grpo_nb.ustat.finite_group.expected_map_orbits`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import expit, softmax
from tqdm.auto import tqdm

from grpo_nb.dynamics.map import h, iterate
from grpo_nb.dynamics.orbits import attractor
from grpo_nb.kl import expected_estimator_gradient, softmax_kl_gradients
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
    simulate_chain,
    step_logits,
)
from grpo_nb.ustat.moments import exact_moments, expected_step_factor
from grpo_nb.ustat.scaling import ScalingFit
from grpo_nb.validation import check_positive_int

if TYPE_CHECKING:
    from grpo_nb.chapters.group_size.u_statistic import DifficultyScan, Normalisation

__all__ = [
    "BurstStatistics",
    "ChainComparison",
    "GroupSizeGuide",
    "IterationsGap",
    "K3Gradient",
    "Retention",
    "StepFactorCheck",
    "ToyLMGap",
    "ZeroVarianceStudy",
    "burst_statistics",
    "expected_map_curves",
    "group_size_guide",
    "iterations_gap",
    "k3_gradient_check",
    "replay_check",
    "retention_table",
    "step_factor_check",
    "toy_lm_gap",
    "trajectory_comparison",
    "zero_variance_study",
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


def _columns(table: Table, n_columns: Sequence[int]) -> Table:
    """The columns ``n_columns`` (indices) of ``table``, as a narrower table that fits a phone's width."""
    return Table([table.headers[i] for i in n_columns], [[row[i] for i in n_columns] for row in table.rows], table.fmt)


@dataclass(frozen=True)
class IterationsGap:
    """Per prompt, the final success probability: the book's seed average (``book``, its standard error
    ``book_se``), the finite-group law's mean (``law``), the recursion (``h``), and the means of the n_seeds runs with
    eight and with two answers (``eight``, ``two``) with their standard errors."""

    table: Table
    book: np.ndarray
    book_se: np.ndarray
    law: np.ndarray
    h: np.ndarray
    eight: np.ndarray
    eight_se: np.ndarray
    two: np.ndarray
    two_se: np.ndarray

    @property
    def tables(self) -> tuple[Table, Table]:
        """:attr:`table` in two parts for the page: the prediction (h, the law, the book's seeds and their z-scores),
        and the runs with eight and with two answers next to the law."""
        return _columns(self.table, (0, 1, 2, 3, 4, 5)), _columns(self.table, (0, 2, 6, 7))


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
    seed: int = 0,
) -> IterationsGap:
    """Section "The book's own gaps, predicted": the GRPO-iterations chapter's run (eight answers, four correct,
    make_task seed 0) averaged over ``book_seeds`` seeds as printed there (seeds ``seed`` to ``seed + book_seeds - 1``)
    and over n_seeds more; the same prompts with two answers over n_seeds (both of these seeded ``seed + 1``); the
    finite-group law (two answers, Algorithm 1's mu and lr) and the recursion h."""
    p_ref = np.asarray(p_ref, dtype=float)
    seed = check_positive_int("seed", seed, minimum=0)
    task = make_task(p_ref, n_outcomes=8, seed=0)
    seeds = range(seed, seed + book_seeds)
    book = np.array([algorithm1(task, beta=beta, eps=eps, G=G, mu=mu, lr=lr, n=n, seed=s).p_true[-1] for s in seeds])
    many8 = (
        algorithm1(
            make_task(np.repeat(p_ref, n_seeds), n_outcomes=8, seed=0),
            beta=beta,
            eps=eps,
            G=G,
            mu=mu,
            lr=lr,
            n=n,
            seed=seed + 1,
        )
        .p_true[-1]
        .reshape(p_ref.size, n_seeds)
    )
    many2 = np.array([_two_answer_runs(p, beta, eps, G, mu, lr, n, n_seeds, seed + 1)[-1] for p in p_ref])
    laws = [finite_group_law(StepModel(p, beta, eps, G, rule="inner_loop", mu=mu, lr=lr), n) for p in p_ref]
    law = np.array([x.mean[-1] for x in laws])
    rec = iterate(p_ref, beta, eps, n)[-1]

    def mean_se(a: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
        return a.mean(axis=axis), a.std(axis=axis, ddof=1) / np.sqrt(a.shape[axis])

    (b_mean, b_se), (m8, s8), (m2, s2) = mean_se(book, 0), mean_se(many8, 1), mean_se(many2, 1)
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
        r"$p_{\mathrm{ref}}$",
        "$h$: $p_M$",
        r"law: $\mathbb{E}[p_M]$",
        f"book: {book_seeds} seeds",
        "$z$ vs $h$",
        "$z$ vs law",
        f"8 answers, {n_seeds} seeds",
        f"2 answers, {n_seeds} seeds",
    ]
    return IterationsGap(Table(headers, rows, ".3f"), b_mean, b_se, law, rec, m8, s8, m2, s2)


@dataclass(frozen=True)
class ToyLMGap:
    """Per iteration n, means over prompts: the law's E[mean p_n] (``law``) and its standard error for one run
    (``law_se``), the recursion (``h``) and the network's measured mean (``measured``); the iteration-to-iteration
    spread of the measured mean (``mean_spread``) and the means from iteration 2 on (``late_*``)."""

    table: Table
    law: np.ndarray
    law_se: np.ndarray
    h: np.ndarray
    measured: np.ndarray
    mean_spread: float
    late_measured: float
    late_law: float
    late_h: float


def toy_lm_gap(p_ref: np.ndarray, p_measured: np.ndarray, *, beta: float, eps: float, G: int) -> ToyLMGap:
    """Section "The book's own gaps, predicted": the toy LM's sampled run (measured p_n per prompt, shape (M+1, P))
    against the finite-group law of each prompt (two answers, maximiser: the inner problem solved, as the
    exact-estimator run does) and against h.

    The law gives E[mean_q p_n] and, for independent prompts, its standard error sqrt(sum_q Var p_n(q)) / P."""
    n = p_measured.shape[0] - 1
    laws = [finite_group_law(StepModel(p, beta, eps, G), n) for p in p_ref]
    law_mean = np.mean([x.mean for x in laws], axis=0)
    law_se = np.sqrt(np.sum([x.std**2 for x in laws], axis=0)) / p_ref.size
    rec = iterate(p_ref, beta, eps, n).mean(axis=1)
    measured = p_measured.mean(axis=1)
    step_sd = np.std(np.diff(measured[1:]), ddof=1) / np.sqrt(2.0)  # iteration-to-iteration spread of the mean
    rows = [(str(k), rec[k], law_mean[k], law_se[k], measured[k]) for k in range(n + 1)]
    headers = [
        "$n$",
        "$h$: mean $p_n$",
        r"law: $\mathbb{E}[$mean $p_n]$",
        "law: standard error",
        r"toy LM: mean $\tilde p_n$",
    ]
    late = (float(measured[2:].mean()), float(law_mean[2:].mean()), float(rec[2:].mean()))
    return ToyLMGap(Table(headers, rows, ".3f"), law_mean, law_se, rec, measured, float(step_sd), *late)


#: Which KL the k3 estimate in the loss climbs in expectation: index into :func:`softmax_kl_gradients`'s
#: (reverse KL(pi || pi_ref), forward KL(pi_ref || pi)).
K3_LOSS_DIRECTION = 1
KL_DIRECTIONS = ("KL(π‖π_ref)", "KL(π_ref‖π)")


@dataclass(frozen=True)
class K3Gradient:
    """Over random softmax policies: the largest gap between the expected gradient of the k3 estimate in the loss
    and the gradient of the KL direction ``K3_LOSS_DIRECTION`` names (``gap``), and the smallest relative distance
    to the other direction's gradient (``other``); ``direction`` names the first."""

    gap: float
    other: float
    direction: str


def k3_gradient_check(n_answers: int = 6, n_policies: int = 20, *, seed: int = 0) -> K3Gradient:
    """Section "The book's own gaps, predicted": for n_policies random softmax policies pi and references pi_ref on
    n_answers answers, E_{o~pi}[grad of k3(o)] with the sample's log pi(o) differentiated (the k3 term of the toy LM's
    loss, :func:`grpo_nb.kl.expected_estimator_gradient`, placement "loss"), against the exact gradients of both KL
    directions (:func:`grpo_nb.kl.softmax_kl_gradients`)."""
    n_policies = check_positive_int("n_policies", n_policies)
    rng = np.random.default_rng(check_positive_int("seed", seed, minimum=0))
    gap, other = 0.0, np.inf
    for _ in range(n_policies):
        logits, ref_logits = rng.normal(size=(2, check_positive_int("n_answers", n_answers, minimum=2)))
        log_ref = ref_logits - np.logaddexp.reduce(ref_logits)
        k3_grad = expected_estimator_gradient(logits, log_ref, "k3", placement="loss")
        both = softmax_kl_gradients(logits, log_ref)
        target, rest = both[K3_LOSS_DIRECTION], both[1 - K3_LOSS_DIRECTION]
        gap = max(gap, float(np.abs(k3_grad - target).max()))
        other = min(other, float(np.linalg.norm(k3_grad - rest) / np.linalg.norm(rest)))
    return K3Gradient(gap, other, KL_DIRECTIONS[K3_LOSS_DIRECTION])


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


def _percent(x: float) -> str:
    """x as a percentage, with one decimal below 10%."""
    return f"{x:.1%}" if x < 0.1 else f"{x:.0%}"


@dataclass(frozen=True)
class GroupSizeGuide:
    """The chapter's evidence on G, one row per quantity and one column per G of ``groups`` (the table), and the
    values the section's asserts read: G* of the easiest and hardest prompt sets of the difficulty scan
    (``g_star``), the budget MSE over its minimum among the divisors (``budget_excess``, per G), the std-normalised
    estimator's relative bias over the bandits (``bias``: per G, (min, max)), the signal retention (``retention``)
    and the share of groups without signal (``no_signal``), both per (p, G)."""

    table: Table
    g_star: tuple[float, float]
    budget_excess: dict[int, float]
    bias: dict[int, tuple[float, float]]
    retention: dict[tuple[float, int], float]
    no_signal: dict[tuple[float, int], float]


def group_size_guide(
    budget: ScalingFit,
    scan: DifficultyScan,
    norm: Normalisation,
    *,
    groups: Sequence[int] = (2, 4, 8, 16, 64),
    ps: Sequence[float] = (0.1, 0.01),
    eps: float = 1e-5,
) -> GroupSizeGuide:
    """Section "What this means for choosing G": the chapter's own analyses read at a few group sizes. The exact
    budget MSE of Proposition 3 (U-statistic paper) over its minimum among the divisors of the budget, the relative
    bias of the std-normalised estimator (section "Reward normalisation"), the signal retention rho_G(p) of Mroueh's
    advantage (:func:`grpo_nb.ustat.finite_group.signal_retention`) and the probability (1-p)^G + p^G that a group
    carries no signal."""
    c, N = budget.true, budget.N
    floor = float(np.min(c.budget_mse(N, [g for g in range(2, N + 1) if N % g == 0])))
    excess = {G: float(c.budget_mse(N, G)) / floor - 1.0 for G in groups}
    bias = {}
    for G in groups:
        at_g = [float(b[norm.groups.index(G)]) for b in norm.bias.values()]
        bias[G] = (min(at_g), max(at_g))
    retention = {(p, G): float(signal_retention(p, G, eps)) for p in ps for G in groups}
    no_signal = {(p, G): (1 - p) ** G + p**G for p in ps for G in groups}
    rows = [
        (f"budget MSE / min., $N = {N}$", *(f"{1 + excess[G]:.2f}×" for G in groups)),
        ("bias, std-normalised", *(f"{_percent(bias[G][0]).rstrip('%')}–{_percent(bias[G][1])}" for G in groups)),
        *((rf"$\rho_G({p:g})$", *(f"{retention[p, G]:.2f}" for G in groups)) for p in ps),
        *((f"no signal, $p = {p:g}$", *(f"{no_signal[p, G]:.0%}" for G in groups)) for p in ps),
    ]
    g_star = (float(scan.optimal_group_size[0]), float(scan.optimal_group_size[-1]))
    return GroupSizeGuide(
        Table(["", *(f"$G = {G}$" for G in groups)], rows), g_star, excess, bias, retention, no_signal
    )


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
