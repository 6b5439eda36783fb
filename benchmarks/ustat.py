"""Benchmark: the vectorised group estimators and the finite-group law against per-group Python loops.

    python benchmarks/ustat.py [--groups 2000] [--G 64] [--chains 20000]

* ``gradient_estimates`` draws the answer counts of every group at once (one multinomial call) and computes all
  estimates with array operations. The baseline draws each group's G answers and computes its GRPO estimate in a
  Python loop, sample by sample (leave-one-out baseline, score e_o - pi), in the same process. Both are checked
  against the exact MSE.
* ``finite_group_law`` propagates the law of the finite-group chain (no sampling) and ``simulate_chain`` runs it
  vectorised; the baseline runs the chain one seed at a time in a Python loop. Their means are compared.

Each figure is reported as a ratio against its baseline, measured in the same process.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy.special import expit, softmax

from grpo_nb.ustat import exact_gradient, gradient_estimates
from grpo_nb.ustat.finite_group import StepModel, finite_group_law, group_tilt, simulate_chain
from grpo_nb.ustat.moments import exact_moments

LOGITS = np.array([0.3, -1.2, 0.8, 0.1, -0.4, 0.5])
REWARD = np.array([1.0, 0.0, 0.0, 1.0, 0.0, 0.0])


def loop_grpo_estimates(logits: np.ndarray, reward: np.ndarray, G: int, n_groups: int, seed: int) -> np.ndarray:
    """Per-group baseline: for each group, G draws and (1/G) sum_i (r_i - mean_{j != i} r_j)(e_{o_i} - pi)."""
    rng = np.random.default_rng(seed)
    pi = softmax(logits)
    out = np.empty((n_groups, pi.size))
    for g in range(n_groups):
        answers = rng.choice(pi.size, size=G, p=pi)
        r = reward[answers]
        total = r.sum()
        est = np.zeros(pi.size)
        for o, ri in zip(answers, r, strict=True):
            score = -pi.copy()
            score[o] += 1.0
            est += (ri - (total - ri) / (G - 1)) * score
        out[g] = est / G
    return out


def loop_chain(model: StepModel, n: int, n_chains: int, seed: int) -> np.ndarray:
    """Per-seed baseline of the finite-group chain (inner problem solved, groups kept): p_n of each run."""
    rng = np.random.default_rng(seed)
    out = np.empty((n + 1, n_chains))
    for c in range(n_chains):
        z = model.a
        out[0, c] = expit(z)
        for k in range(n):
            successes = rng.binomial(model.G, expit(z))
            z = model.a + float(group_tilt(z, successes, model.G, eps=model.eps)) / model.beta
            out[k + 1, c] = expit(z)
    return out


def _timed(fn, *args, **kwargs):
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=2000)
    parser.add_argument("--G", type=int, default=64)
    parser.add_argument("--chains", type=int, default=20_000)
    args = parser.parse_args()

    theta = exact_gradient(LOGITS, REWARD)
    exact = exact_moments(LOGITS, REWARD, args.G, estimator="grpo").mse
    t_loop, loop = _timed(loop_grpo_estimates, LOGITS, REWARD, args.G, args.groups, 0)
    t_vec, vec = _timed(gradient_estimates, LOGITS, REWARD, args.G, args.groups, "grpo", seed=0)
    rows = [("GRPO estimates", args.groups, t_loop, t_vec)]
    for name, x in (("loop", loop), ("vectorised", vec)):
        err = np.sum((x - theta) ** 2, axis=1)
        print(f"{name:>10}: MSE {err.mean():.3e} ± {1.96 * err.std() / math.sqrt(err.size):.1e} (exact {exact:.3e})")

    model = StepModel(0.1, 1.0, 1e-5, 8)
    t_chain_loop, chain_loop = _timed(loop_chain, model, 8, args.chains, 1)
    t_chain, chain = _timed(simulate_chain, model, 8, args.chains, seed=1)
    t_law, law = _timed(finite_group_law, model, 8)
    rows += [("chain, 8 steps", args.chains, t_chain_loop, t_chain), ("law (no sampling)", 1, t_chain_loop, t_law)]
    print(f"mean p_8: loop {chain_loop[-1].mean():.4f}, vectorised {chain[-1].mean():.4f}, law {law.mean[-1]:.4f}")

    print("\n| task | size | baseline loop (s) | vectorised (s) | speed-up |")
    print("|---|---|---|---|---|")
    for task, size, base, fast in rows:
        print(f"| {task} | {size} | {base:.3f} | {fast:.4f} | {base / fast:.0f}x |")


if __name__ == "__main__":
    main()
