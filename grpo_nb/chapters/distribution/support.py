"""Section "Support and diversity" of the chapter "What GRPO does to the whole distribution"
(``book/distribution.md``): exact steps keep the ratios inside each reward class, so one prompt's pass@k rises at
every k; a policy shared by prompts can trade pass@256 for pass@1; sampled groups reshape the correct class.

- :func:`class_ratios`: the numerical maximiser of the step's objective (:func:`grpo_nb.variants.policy.
  solve_policy_step`, which never sees Theorem 1's formula), with KL to pi_ref (alpha = 1) and to pi_{n-1}
  (alpha = 0), keeps pi(. | r = 1) and pi(. | r = 0) equal to pi_ref's (:func:`grpo_nb.tabular.distribution.
  within_class_drift`) and raises p, on random instances;
- :func:`per_prompt_pass_at_k`: along the success recursion of both anchors logit p_n > logit p_ref on a grid, so
  pass@k(p_n) > pass@k(p_ref) at every k;
- :func:`crossover`: the crossover example of :mod:`grpo_nb.tabular.examples` (three prompts, one policy);
- :func:`sampled_sharpening`: the expected-update path of the clip bandit (groups of G answers,
  :func:`grpo_nb.tabular.clip_bias.expected_update_orbit`) moves the correct class towards its likely answer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit, softmax

from grpo_nb.constants import PAPER_EPS
from grpo_nb.report import Table, bound
from grpo_nb.tabular.clip_bias import expected_update_orbit
from grpo_nb.tabular.distribution import pass_at_k, shared_success_orbit, within_class_drift
from grpo_nb.tabular.examples import (
    BANDIT_PI0,
    BANDIT_REWARD,
    CROSSOVER_PI_REF,
    CROSSOVER_REWARD,
    bandit_options,
)
from grpo_nb.variants.map import iterate_logit
from grpo_nb.variants.policy import solve_policy_step

__all__ = [
    "ANCHORS",
    "KS",
    "ClassRatios",
    "Crossover",
    "PerPromptPassAtK",
    "SampledSharpening",
    "class_ratios",
    "crossover",
    "per_prompt_pass_at_k",
    "sampled_sharpening",
]

#: The KL anchors of the section: alpha = 1 (KL to pi_ref, the paper's step) and alpha = 0 (KL to pi_{n-1}).
ANCHORS = {r"\pi_{\mathrm{ref}}": 1.0, r"\pi_{n-1}": 0.0}  # by their LaTeX, as the tables write them
#: The k of pass@k the section reads: 1 to 256.
KS = np.arange(1, 257)
SOLVE = solve_policy_step  # the step's maximiser; a test replaces it with a wrong one
ITERATE = iterate_logit  # the success recursion of both anchors; a test replaces it with a wrong one
ORBIT = expected_update_orbit  # the clip bandit's expected-update path; a test replaces it with a wrong one


@dataclass(frozen=True)
class ClassRatios:
    """Per anchor, over random instances and steps: the largest within-class drift of the solver's maximiser from
    pi_ref's class conditionals, and the smallest p_m - p_ref (m >= 1; with KL to pi_ref p_m need not rise at every
    step: the recursion can oscillate, above p_ref)."""

    table: Table
    worst_drift: float
    smallest_gain: float
    steps_checked: int


def _random_instance(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, float, float]:
    """pi_ref (Dirichlet(1) over K in 3..8 answers), a 0/1 reward with both classes, beta, eps."""
    k = int(rng.integers(3, 9))
    reward = np.zeros(k)
    reward[rng.choice(k, size=int(rng.integers(1, k)), replace=False)] = 1.0
    return rng.dirichlet(np.ones(k)), reward, float(rng.choice([0.1, 1.0, 10.0])), float(rng.choice([PAPER_EPS, 1e-2]))


def class_ratios(rng: np.random.Generator, *, n_instances: int = 6, n: int = 3) -> ClassRatios:
    """n steps of the numerically maximised objective J(pi) = E_pi[A] - beta KL(pi || anchor) from pi_ref, for each
    anchor of :data:`ANCHORS`, on ``n_instances`` random instances each."""
    instances = [_random_instance(rng) for _ in range(n_instances)]
    rows, drifts, rises = [], [], []
    for name, alpha in ANCHORS.items():
        drift, rise = 0.0, np.inf
        for pi_ref, reward, beta, eps in instances:
            pi = pi_ref
            for _ in range(n):
                new = SOLVE(pi_ref, pi, reward, beta, eps, alpha=alpha)
                drift = max(drift, float(within_class_drift(new, pi_ref, reward)))
                rise, pi = min(rise, float(new @ reward - pi_ref @ reward)), new
        rows.append(
            [f"KL to ${name}$", n_instances * n, bound(drift, 1e-12), rise]
        )  # drift: rounding, shown as a bound
        drifts.append(drift)
        rises.append(rise)
    headers = ["anchor", "steps", "largest within-class drift (TV)", "smallest p_m − p_ref"]
    return ClassRatios(Table(headers, rows, fmt=".2g"), max(drifts), min(rises), n_instances * n)


@dataclass(frozen=True)
class PerPromptPassAtK:
    """Along the success recursion of each anchor over the grid: the smallest logit p_m - logit p_ref (m >= 1); the
    smallest drop, at n, of log(1 - pass@k) = -k softplus(logit p) over k = 1..256 (the miss probability falls by at
    least that factor's log, also where pass@k rounds to 1); the smallest pass@k gain in double precision."""

    table: Table
    smallest_logit_gain: float
    smallest_log_miss_drop: float
    smallest_pass_gain: float
    n_orbits: int


P_REF_GRID = np.geomspace(1e-6, 0.99, 13)
BETA_GRID = (1e-3, 0.1, 1.0, 10.0, 1e3)
EPS_GRID = (0.0, PAPER_EPS, 1e-2)


def per_prompt_pass_at_k(*, n: int = 30) -> PerPromptPassAtK:
    """logit p_m - logit p_ref, m = 1..n, and pass@k(p_n) - pass@k(p_ref) over p_ref x beta x eps
    (:data:`P_REF_GRID`, :data:`BETA_GRID`, :data:`EPS_GRID`), for each anchor."""
    p_ref, beta, eps = np.meshgrid(P_REF_GRID, BETA_GRID, EPS_GRID, indexing="ij")
    rows, logit_gains, miss_drops, pass_gains = [], [], [], []
    for name, alpha in ANCHORS.items():
        with np.errstate(over="ignore"):
            z = ITERATE(p_ref, beta, eps, n=n, alpha=alpha)
        gain = float(np.min(z[1:] - z[0]))
        drop = float(np.min(np.logaddexp(0.0, z[-1]) - np.logaddexp(0.0, z[0])))  # times k >= 1
        passes = float(np.min(pass_at_k(expit(z[-1])[..., None], KS) - pass_at_k(p_ref[..., None], KS)))
        rows.append([f"KL to ${name}$", p_ref.size, gain, drop, passes])
        logit_gains.append(gain)
        miss_drops.append(drop)
        pass_gains.append(passes)
    headers = [
        "anchor",
        "orbits",
        "smallest logit p_m − logit p_ref",
        "smallest drop of log(1 − pass@k)",
        "smallest pass@k gain",
    ]
    table = Table(headers, rows, fmt=".3g")
    return PerPromptPassAtK(table, min(logit_gains), min(miss_drops), min(pass_gains), p_ref.size)


@dataclass(frozen=True)
class Crossover:
    """The crossover example after n shared exact steps: per prompt p before and after, the prompt-averaged pass@k
    change for k = 1..256, the first k where it is negative (0 if none), and the same prompts each with a policy of
    their own (whose smallest change is >= 0)."""

    table: Table
    p_before: np.ndarray
    p_after: np.ndarray
    change: np.ndarray
    first_loss_k: int
    alone_smallest_change: float


def crossover(beta: float, eps: float, *, n: int) -> Crossover:
    """n exact shared steps on the crossover example at (beta, eps), against one policy per prompt."""
    orbit = shared_success_orbit(CROSSOVER_PI_REF, CROSSOVER_REWARD, beta, eps, n=n)
    before, after = (pass_at_k(p[:, None], KS).mean(axis=0) for p in (orbit[0], orbit[-1]))
    change = after - before
    alone = np.stack([shared_success_orbit(CROSSOVER_PI_REF, [row], beta, eps, n=n)[:, 0] for row in CROSSOVER_REWARD])
    alone_change = pass_at_k(alone[:, -1:], KS).mean(axis=0) - pass_at_k(alone[:, :1], KS).mean(axis=0)
    loss = np.flatnonzero(change < 0)
    shown = [0, 1, 3, 7, 15, 63, 255]
    rows = [[str(KS[i]), before[i], after[i], change[i], alone_change[i]] for i in shown]
    headers = ["k", "mean pass@k before", "after (shared policy)", "change", "change, a policy per prompt"]
    return Crossover(
        Table(headers, rows, fmt=".4f"),
        orbit[0],
        orbit[-1],
        change,
        int(KS[loss[0]]) if loss.size else 0,
        float(alone_change.min()),
    )


@dataclass(frozen=True)
class SampledSharpening:
    """The clip bandit's expected-update path with verifiable rewards: per iteration the ratio of the likely to the
    unlikely correct answer (pi_ref's ratio: 3), the within-class drift, and p."""

    table: Table
    ratio: np.ndarray
    drift: np.ndarray
    p: np.ndarray


def sampled_sharpening(*, mode: str = "symmetric", clip_eps: float = 0.2, n: int = 40) -> SampledSharpening:
    """n iterations of :func:`grpo_nb.tabular.clip_bias.expected_update_orbit` on the clip bandit (verifiable
    rewards, groups of G = 6, mu = 4, lr = 1), and the shape of its correct class."""
    path = ORBIT(
        np.log(BANDIT_PI0),
        n=n,
        mode=mode,
        **bandit_options(clip_eps=clip_eps),
        reward=BANDIT_REWARD,
    )
    pi = softmax(path.logits, axis=-1)
    reward = np.asarray(BANDIT_REWARD, dtype=float)
    drift = np.array([within_class_drift(row, BANDIT_PI0, reward) for row in pi])
    ratio, p = pi[:, 1] / pi[:, 3], pi @ reward
    rows = [[m, f"{p[m]:.3f}", f"{ratio[m]:.1f}", f"{drift[m]:.3f}"] for m in (0, 5, 10, 20, n)]
    headers = ["iteration", "p", "π(likely correct) / π(unlikely correct)", "within-class drift (TV)"]
    return SampledSharpening(Table(headers, rows), ratio, drift, p)
