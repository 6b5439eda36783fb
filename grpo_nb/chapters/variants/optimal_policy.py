"""Section "The optimal policy of every variant" of the chapter "GRPO variants" (``book/variants_recursions.md``): every
closed-form policy against the numerical solver of :mod:`grpo_nb.variants.policy`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from tqdm.auto import tqdm

from grpo_nb.chapters.variants.variant_set import _NAMES, NORMALIZATIONS, _small, random_instance
from grpo_nb.constants import PAPER_EPS
from grpo_nb.report import Table
from grpo_nb.validation import check_positive_int
from grpo_nb.variants.policy import policy_step, solve_policy_step

__all__ = ["SolverAgreement", "solver_agreement"]


@dataclass(frozen=True)
class SolverAgreement:
    """max |closed form - numerical solver| per (normalisation, eps, alpha); the same for the alpha = 1 formula."""

    table: Table
    worst: float
    wrong_anchor_smallest: float


def solver_agreement(
    rng: np.random.Generator,
    alphas: Sequence[float] = (0.0, 0.3, 0.5, 1.0),
    eps_values: Sequence[float] = (0.0, PAPER_EPS, 1e-2),
    *,
    n_instances: int = 4,
    n_outcomes: int = 40,
) -> SolverAgreement:
    """:func:`grpo_nb.variants.policy_step` against :func:`grpo_nb.variants.solve_policy_step` on random instances.

    For every normalisation, eps and alpha, ``n_instances`` instances of :func:`random_instance`. As a control, the
    paper's formula (anchor pi_ref alone, alpha = 1) is compared with the solver for each alpha < 1: the smallest of
    those gaps is ``wrong_anchor_smallest`` (a check that could not tell the anchors apart would make it tiny).
    """
    n_instances = check_positive_int("n_instances", n_instances)
    rows, worst, wrong = [], 0.0, np.inf
    cases = [(nz, e) for nz in NORMALIZATIONS for e in eps_values]
    for normalization, eps in tqdm(cases, desc="closed form vs solver"):
        row = [_NAMES[normalization], f"{eps:g}"]
        for alpha in alphas:
            err = 0.0
            for _ in range(n_instances):
                pi_ref, pi_prev, reward, beta = random_instance(rng, n_outcomes)
                args = (pi_ref, pi_prev, reward, beta, eps)
                numeric = solve_policy_step(*args, normalization=normalization, alpha=alpha)
                err = max(
                    err, float(np.max(np.abs(policy_step(*args, normalization=normalization, alpha=alpha) - numeric)))
                )
                if alpha < 1:
                    wrong = min(
                        wrong,
                        float(np.max(np.abs(policy_step(*args, normalization=normalization, alpha=1.0) - numeric))),
                    )
            worst = max(worst, err)
            row.append(_small(err))
        rows.append(row)
    headers = ["normalisation", "ε", *(f"α = {a:g}" for a in alphas)]
    return SolverAgreement(Table(headers, rows, ".0e"), worst, wrong)
