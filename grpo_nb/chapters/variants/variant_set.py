"""The variants the chapter "GRPO variants" compares (section "The variants"), and the random instances its checks
draw: the normalisations, their labels, the variants in the chapter's order and :func:`random_instance`.

The names with a leading underscore are shared by the section modules of :mod:`grpo_nb.chapters.variants` only.
"""

from __future__ import annotations

import numpy as np

from grpo_nb.report import bound
from grpo_nb.validation import check_positive_int
from grpo_nb.variants.variant import Variant

__all__ = ["ALL_VARIANTS", "NORMALIZATIONS", "random_instance"]

_P_REF = r"$p_{\mathrm{ref}}$"  # a table header's p_ref, typeset

NORMALIZATIONS = ("mean_var", "mean")
_NAMES = {"mean_var": "mean+var", "mean": "mean-only"}
#: The variants the chapter compares: the paper's iteration first, then mean+var with both KLs and the mirror step,
#: then mean-only with KL to pi_ref, both KLs and the mirror step.
ALL_VARIANTS = (
    Variant("mean_var", 1.0),
    Variant("mean_var", 0.5),
    Variant("mean_var", 0.3),
    Variant("mean_var", 0.0),
    Variant("mean", 1.0),
    Variant("mean", 0.5),
    Variant("mean", 0.0),
)


def _small(x: float, threshold: float = 1e-12) -> str:
    """A difference at rounding level, shown as a bound (fixed text: the last digits of rounding vary)."""
    return bound(x, threshold)


def random_instance(rng: np.random.Generator, n_outcomes: int = 40) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """pi_ref ~ Dirichlet(1/2), pi_prev ~ Dirichlet(1), a 0/1 reward with both values, beta log-uniform in [0.1, 10]."""
    n_outcomes = check_positive_int("n_outcomes", n_outcomes, minimum=2)
    pi_ref = rng.dirichlet(np.full(n_outcomes, 0.5))
    pi_prev = rng.dirichlet(np.ones(n_outcomes))
    reward = (rng.random(n_outcomes) < rng.uniform(0.05, 0.95)).astype(float)
    reward[:2] = (1.0, 0.0)
    return pi_ref, pi_prev, reward, float(10 ** rng.uniform(-1, 1))
