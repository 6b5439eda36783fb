"""Minibatches of prompts and the group-size scaling law (the U-statistic paper, Proposition 3 and Theorem 7).

A minibatch draws B prompts x_1..x_B i.i.d. from the prompt distribution rho and a group of G answers for each;
its estimate of grad J, J = sum_x rho(x) V(x), is the average of the B per-prompt estimates, each placed in its
prompt's row of the tabular logits. The per-prompt estimates are unbiased for grad V(x) (GRPO's leave-one-out
form, Lemma 1), so (Proposition 3, here an equality)

    MSE(B, G) = (1/B) [ C1 + C2/G + C3/(G(G-1)) ],
    C1 = E_x |row_x(grad V(x)) - grad J|^2   (prompt sampling),
    C2 = E_x tr Sigma_x                        (the oracle's per-answer variance, Theorem 2's leading term),
    C3 = E_x 2 zeta_x                          (the degenerate U-statistic residual).

Under a fixed sampling budget N = B G per step, MSE = (C1 G + C2 + C3/(G-1)) / N: the first term grows with G
(fewer prompts per batch), the last one falls. The real minimiser is G* = 1 + sqrt(C3/C1); Theorem 7 writes the
residual as C3/G^2 and gets G* = sqrt(C3/C1). Neither depends on N: the optimal group size is universal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import softmax

from grpo_nb.ustat.bandit import PromptSet, exact_gradient
from grpo_nb.ustat.estimators import ALL_ESTIMATORS, estimates_from_counts
from grpo_nb.ustat.moments import hoeffding_constants
from grpo_nb.validation import check_choice, check_positive_int

__all__ = [
    "ScalingConstants",
    "budget_mse",
    "fit_scaling_constants",
    "minibatch_estimates",
    "minibatch_mse",
    "scaling_constants",
]


@dataclass(frozen=True)
class ScalingConstants:
    """C1, C2, C3 of Proposition 3 (module docstring) for one prompt set and GRPO's leave-one-out estimator."""

    c1: float
    c2: float
    c3: float

    @property
    def optimal_group_size(self) -> float:
        """The real minimiser of C1 G + C3/(G-1): G* = 1 + sqrt(C3/C1)."""
        return 1.0 + float(np.sqrt(self.c3 / self.c1))

    @property
    def theorem7_group_size(self) -> float:
        """Theorem 7's G* = sqrt(C3/C1) (the residual written as C3/G^2)."""
        return float(np.sqrt(self.c3 / self.c1))

    def best_divisor(self, N: int, max_group: int | None = None) -> int:
        """The group size G >= 2 dividing N (at most ``max_group``) with the smallest budget MSE."""
        N = check_positive_int("N", N, minimum=2)
        candidates = np.array([g for g in range(2, (max_group or N) + 1) if N % g == 0])
        return int(candidates[np.argmin(self.budget_mse(N, candidates))])

    def budget_mse(self, N: float, G: object) -> np.ndarray:
        """(C1 G + C2 + C3/(G-1)) / N: the MSE with B = N/G prompts of G answers each."""
        g = np.asarray(G, dtype=float)
        return (self.c1 * g + self.c2 + self.c3 / (g - 1.0)) / N


def scaling_constants(prompts: PromptSet) -> ScalingConstants:
    """C1, C2, C3 exactly: per-prompt gradients and Hoeffding constants, averaged over rho."""
    if not isinstance(prompts, PromptSet):
        raise ValueError(f"prompts={prompts!r} is not a PromptSet; build one with PromptSet(logits, reward, probs)")
    rho = prompts.prompt_probs
    g = exact_gradient(prompts.logits, prompts.reward)
    sq = np.sum(g**2, axis=1)
    consts = [hoeffding_constants(lg, rw) for lg, rw in zip(prompts.logits, prompts.reward, strict=True)]
    c1 = float(rho @ sq - np.sum(rho**2 * sq))  # E|row_x g_x|^2 - |sum_x rho_x row_x g_x|^2
    c2 = float(rho @ [c.trace_sigma for c in consts])
    c3 = float(rho @ [2.0 * c.zeta for c in consts])
    return ScalingConstants(c1, c2, c3)


def minibatch_mse(prompts: PromptSet, B: int, G: int) -> float:
    """Proposition 3's MSE of GRPO's minibatch estimate with B prompts and G answers each (exact)."""
    c = scaling_constants(prompts)
    B = check_positive_int("B", B)
    G = check_positive_int("G", G, minimum=2)
    return (c.c1 + c.c2 / G + c.c3 / (G * (G - 1.0))) / B


def budget_mse(prompts: PromptSet, N: int, G: int) -> float:
    """MSE with a budget of N answers per step split into B = N/G prompts (G must divide N)."""
    N = check_positive_int("N", N, minimum=2)
    G = check_positive_int("G", G, minimum=2)
    if N % G:
        raise ValueError(f"G={G!r} does not divide the budget N={N!r}; valid G are divisors of N, G >= 2")
    return minibatch_mse(prompts, N // G, G)


def minibatch_estimates(
    prompts: PromptSet, B: int, G: int, *, n_batches: int, estimator: str = "grpo", seed: int = 0
) -> np.ndarray:
    """n_batches independent minibatch estimates of grad J, shape (n_batches, P, K), vectorised (no loop over
    prompts or groups): prompts drawn from rho, answer counts from a multinomial per drawn prompt."""
    if not isinstance(prompts, PromptSet):
        raise ValueError(f"prompts={prompts!r} is not a PromptSet; build one with PromptSet(logits, reward, probs)")
    B, n_batches = check_positive_int("B", B), check_positive_int("n_batches", n_batches)
    G = check_positive_int("G", G, minimum=2)
    check_choice("estimator", estimator, ALL_ESTIMATORS)
    rng = np.random.default_rng(check_positive_int("seed", seed, minimum=0))
    n_prompts = prompts.logits.shape[0]
    drawn = rng.choice(n_prompts, size=(n_batches, B), p=prompts.prompt_probs)
    pi = softmax(prompts.logits, axis=-1)[drawn]  # (n_batches, B, K)
    counts = rng.multinomial(G, pi).astype(float)
    est = estimates_from_counts(pi, prompts.reward[drawn], counts, G=G, estimator=estimator)
    out = np.zeros((n_batches, n_prompts, prompts.logits.shape[1]))
    np.add.at(out, (np.arange(n_batches)[:, None], drawn), est)
    return out / B


@dataclass(frozen=True)
class ScalingFit:
    """Monte Carlo MSE under a budget N for several G, the constants fitted to it and the exact ones."""

    N: int
    groups: np.ndarray
    mse: np.ndarray
    half_width: np.ndarray
    exact: np.ndarray
    fitted: ScalingConstants
    true: ScalingConstants


def fit_scaling_constants(
    prompts: PromptSet, N: int, groups: tuple[int, ...], *, n_batches: int, seed: int = 0
) -> ScalingFit:
    """Monte Carlo MSE of GRPO's minibatch estimate with budget N for each G in ``groups``, and the constants
    C1, C2, C3 fitted to N * MSE = C1 G + C2 + C3/(G-1) by weighted least squares (weights 1/standard error^2)."""
    N = check_positive_int("N", N, minimum=2)
    true = scaling_constants(prompts)
    target = prompts.gradient
    mse, half, exact = [], [], []
    for i, G in enumerate(groups):
        if N % G:
            raise ValueError(f"G={G!r} does not divide the budget N={N!r}; valid G are divisors of N, G >= 2")
        est = minibatch_estimates(prompts, N // G, G, n_batches=n_batches, seed=seed + i)
        err = np.sum((est - target) ** 2, axis=(1, 2))
        mse.append(err.mean())
        half.append(1.96 * err.std(ddof=1) / np.sqrt(n_batches))
        exact.append(float(true.budget_mse(N, G)))
    mse, half = np.array(mse), np.array(half)
    g = np.asarray(groups, dtype=float)
    design = np.stack([g, np.ones_like(g), 1.0 / (g - 1.0)], axis=1)
    weights = 1.0 / (half / 1.96 / N) ** 2
    sw = np.sqrt(weights)
    coef = np.linalg.lstsq(design * sw[:, None], N * mse * sw, rcond=None)[0]
    return ScalingFit(N, np.asarray(groups), mse, half, np.array(exact), ScalingConstants(*map(float, coef)), true)
