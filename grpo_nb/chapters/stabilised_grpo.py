"""The analyses of the chapter "Stabilised GRPO" (``book/stabilised_grpo.md``, paper §2.2-2.3).

* :func:`importance_weighted_bias` (section "Why the importance ratio can be dropped"): the mean of the
  importance-weighted group average on a two-outcome prompt, by exact enumeration of the binomial success count,
  with the advantage from the exact p and from the group's p_hat, against Eq. (5).
* :func:`compare_forms` (section "The advantage of a finite group"): every advantage form of
  :mod:`grpo_nb.advantage` on every group of G binary rewards, side by side.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import binom

from grpo_nb.advantage import ADVANTAGE_FORMS, group_advantage, group_rewards
from grpo_nb.report import Table
from grpo_nb.ustat.finite_group import signal_retention
from grpo_nb.validation import check_eps, check_p, check_positive_int, check_scalar
from grpo_nb.weights import stabilised_advantage

__all__ = ["FormComparison", "FormGap", "GroupBias", "compare_forms", "importance_weighted_bias"]


@dataclass(frozen=True)
class GroupBias:
    """:func:`importance_weighted_bias`: per group size (``groups``), the exact mean of the importance-weighted group
    average with the advantage from the exact p_old (``mean_exact_p``) and from the group's p_hat (``mean_p_hat``),
    Eq. (5)'s value (``eq5``), and the signal retention rho_G(p_old) of :mod:`grpo_nb.ustat.finite_group`."""

    groups: tuple[int, ...]
    eq5: float
    mean_exact_p: np.ndarray
    mean_p_hat: np.ndarray
    retention: np.ndarray

    @property
    def ratio(self) -> np.ndarray:
        """E[group average with p_hat] / Eq. (5), per G."""
        return self.mean_p_hat / self.eq5


def importance_weighted_bias(p_old: float, p_theta: float, groups: tuple[int, ...], *, eps: float) -> GroupBias:
    """Is the importance-weighted group average an unbiased estimate of Eq. (5)? (section "Why the importance ratio
    can be dropped").

    A prompt with one correct and one wrong answer; the old policy succeeds with probability ``p_old``, the new one
    with ``p_theta``. A group of G answers drawn from the old policy with k successes has the average
    (1/G) sum_i (pi_theta(o_i)/pi_old(o_i)) A_i = (k/G)(p_theta/p_old) A^+ + (1 - k/G)((1-p_theta)/(1-p_old)) A^-;
    its mean is the exact sum over k ~ Binomial(G, p_old) (no sampling), once with the advantage of Eq. (4) at the
    exact p_old and once with the paper's group advantage at p_hat = k/G (Algorithm 1). Eq. (5) is
    p_theta A^+(p_old) + (1 - p_theta) A^-(p_old). Returns a :class:`GroupBias`.
    """
    p_old = check_scalar("p_old", check_p(p_old, np.asarray(0.0), name="p_old"))
    p_theta = check_scalar("p_theta", check_p(p_theta, np.asarray(0.0), name="p_theta"))
    eps = check_scalar("eps", check_eps(eps))
    groups = tuple(check_positive_int("G", G, minimum=2) for G in groups)
    eq5 = float(np.dot((p_theta, 1 - p_theta), stabilised_advantage(np.array([1.0, 0.0]), p_old, eps)))
    exact, hat = [], []
    for G in groups:
        k = np.arange(G + 1)
        r = group_rewards(k, G)
        ratio = np.where(r == 1, p_theta / p_old, (1 - p_theta) / (1 - p_old))
        law = binom.pmf(k, G, p_old)
        exact.append(law @ (ratio * stabilised_advantage(r, p_old, eps)).mean(axis=1))
        hat.append(law @ (ratio * group_advantage(r, "paper", eps)).mean(axis=1))
    retention = np.array([signal_retention(p_old, G, eps) for G in groups])
    return GroupBias(groups, eq5, np.array(exact), np.array(hat), retention)


@dataclass(frozen=True)
class FormGap:
    """For one group size G, on mixed groups (0 < k < G): the largest relative gap of TRL's, the population and the
    mean-only (Dr. GRPO) advantage to the paper's, TRL's predicted gap 1 - sqrt((G-1)/G), whether every form
    gives 0 to groups whose rewards are all equal, and the smallest and largest Dr. GRPO/population scale."""

    G: int
    trl: float
    population: float
    mean_only: float
    predicted_trl: float
    all_equal_zero: bool
    scale_min: float
    scale_max: float


@dataclass(frozen=True)
class FormComparison:
    """:func:`compare_forms`' summary table, the advantages {(G, form): array (G+1, G)} (row k: k successes first),
    and one :class:`FormGap` per group size."""

    table: Table
    advantages: dict[tuple[int, str], np.ndarray]
    gaps: tuple[FormGap, ...]


def compare_forms(group_sizes: tuple[int, ...]) -> FormComparison:
    """Every advantage form on every group of G binary rewards (k successes first, k = 0..G), side by side.

    Returns the summary table (per G: the largest relative gap of TRL's and the population form to the paper's on
    mixed groups, TRL's predicted gap 1 - sqrt((G-1)/G), the Dr. GRPO/population scale range), the advantages
    {(G, form): array (G+1, G)}, and per G the raw values (with whether groups whose rewards are all equal get 0
    everywhere, which the chapter asserts), as a :class:`FormComparison`.
    """
    adv = {}
    for G in group_sizes:
        r = group_rewards(np.arange(check_positive_int("G", G, minimum=2) + 1), G)
        for form in ADVANTAGE_FORMS:
            adv[G, form] = group_advantage(r, form)
    rows, facts = [], []
    for G in group_sizes:
        mixed = slice(1, G)  # 0 < k < G
        paper = adv[G, "paper"][mixed]
        rel = {f: float(np.abs(adv[G, f][mixed] / paper - 1).max()) for f in ("trl", "population", "mean_only")}
        scale = np.abs(adv[G, "mean_only"][mixed] / adv[G, "population"][mixed])
        all_equal_zero = all(np.all(adv[G, f][[0, G]] == 0) for f in ADVANTAGE_FORMS)
        predicted = 1 - np.sqrt((G - 1) / G)
        scales = f"{scale.min():.3f} to {scale.max():.3f}"
        rows.append((G, rel["trl"], predicted, rel["population"], scales))
        facts.append(
            FormGap(
                G, rel["trl"], rel["population"], rel["mean_only"], float(predicted), all_equal_zero,
                float(scale.min()), float(scale.max()),
            )
        )  # fmt: skip
    # a form's gap: its largest |A / A_paper - 1| over the mixed groups (the chapter defines it in words)
    headers = ["$G$", "TRL gap", "predicted", "population gap", "Dr. GRPO / population"]
    return FormComparison(Table(headers, rows, ".3g"), adv, tuple(facts))
