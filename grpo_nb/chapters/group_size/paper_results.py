"""The analyses of the section "More of the U-statistic paper, on the bandits" of the chapter "Group size"
(``book/group_size.md``), each returning its table and the values its asserts read:

* :func:`constant_baselines` (Assumption 2 and Corollary 5): the best prompt-only baseline b* against the value V;
* :func:`strength_order` (the paper's Fig. 4, observation 3): the exact MSE of each estimator against the model's
  strength;
* :func:`arcsin_check` (Proposition 13): the arcsin objective of reward normalisation and the closed form of the
  normalised estimator's large-G constant;
* :func:`kl_bias` (Theorem 12): the bias of the k3 term on answers from the old policy against the step size;
* :func:`pl_check` (Lemma 6 and Theorem 8): the Polyak-Lojasiewicz ratio along a path to the bandit's optimum.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from grpo_nb.kl import expected_estimator_gradient, softmax_kl_gradients
from grpo_nb.report import Table, bound
from grpo_nb.ustat.bandit import bandit_expected_reward, exact_gradient
from grpo_nb.ustat.moments import exact_moments, hoeffding_constants, normalised_leading_constants
from grpo_nb.ustat.paper_results import (
    arcsin_identity,
    arcsin_value,
    constant_baseline_mse,
    delta_method_identity,
    normalised_limit_closed_form,
    off_policy_k3_gradient,
    optimal_constant_baseline,
    score_reward_covariance,
)

__all__ = [
    "ArcsinCheck",
    "BaselineStudy",
    "KLBias",
    "PLCheck",
    "StrengthOrder",
    "arcsin_check",
    "constant_baselines",
    "kl_bias",
    "peaked_bandit",
    "pl_check",
    "strength_order",
]

Bandit = tuple[np.ndarray, np.ndarray]
BASELINE_GRID = np.linspace(-0.5, 1.5, 2001)  # prompt-only baselines b searched for the least MSE
TOL = 1e-12  # rounding-level gaps are shown as this bound
MARGIN_GROUPS = 4096  # GRPO's exact MSE is compared with b*'s for every G from 2 to this


def peaked_bandit(p_right: float = 0.6, n_wrong: int = 40) -> Bandit:
    """One right answer of probability ``p_right`` and ``n_wrong`` wrong answers sharing the rest equally (section
    "More of the U-statistic paper": a bandit on which the vanilla estimator beats the value baseline)."""
    pi = np.r_[p_right, np.full(n_wrong, (1 - p_right) / n_wrong)]
    return np.log(pi), np.r_[1.0, np.zeros(n_wrong)]


@dataclass(frozen=True)
class BaselineStudy:
    """Per bandit: V, b*, the MSE gain of b* over the value baseline (1 - MSE_b*/MSE_V), the gap between the MSE at
    b* and the least MSE over ``BASELINE_GRID`` (``grid_gap``, <= 0 when b* is the minimiser), and MSE_0 - MSE_V
    (``vanilla_margin``: positive when the value baseline beats vanilla), the three MSEs (b = 0, V, b*), ``mse``, and
    the least of MSE_grpo(G) - MSE_b*(G) over G = 2..``MARGIN_GROUPS`` (``grpo_margin``: positive when the constant b*
    beats GRPO at every G)."""

    table: Table
    value: dict[str, float]
    b_star: dict[str, float]
    gain: dict[str, float]
    grid_gap: dict[str, float]
    vanilla_margin: dict[str, float]
    mse: dict[str, tuple[float, float, float]]
    grpo_margin: dict[str, float]


def constant_baselines(bandits_: Mapping[str, Bandit], G: int = 8) -> BaselineStudy:
    """Section "More of the U-statistic paper" (Corollary 5): for every bandit, the best prompt-only baseline b*
    against the value V, and the exact MSE of vanilla (b = 0), of the value baseline and of b* at group size G."""
    out: dict[str, dict[str, float]] = {k: {} for k in ("value", "b_star", "gain", "grid_gap", "vanilla_margin")}
    rows, mse, grpo_margin = [], {}, {}
    for label, (logits, reward) in bandits_.items():
        v, b = float(bandit_expected_reward(logits, reward)), optimal_constant_baseline(logits, reward)
        mse_0, mse_v, mse_b = constant_baseline_mse(logits, reward, [0.0, v, b], G=G)
        least = float(np.min(constant_baseline_mse(logits, reward, BASELINE_GRID, G=G)))
        vals = (v, b, 1 - mse_b / mse_v, mse_b - least, mse_0 - mse_v)
        for key, x in zip(out, vals, strict=True):
            out[key][label] = float(x)
        mse[label] = (float(mse_0), float(mse_v), float(mse_b))
        g = np.arange(2, MARGIN_GROUPS + 1)
        grpo_margin[label] = float(np.min(hoeffding_constants(logits, reward).grpo_mse(g) - mse_b * G / g))
        cov = score_reward_covariance(logits, reward)
        rows.append((label, v, cov, b, mse_0, mse_v, mse_b, f"{100 * (1 - mse_b / mse_v):.1f}%"))
    headers = [
        "bandit",
        "$V$",
        r"Cov$(r, \vert s \vert^2)$",
        "$b^*$",
        "MSE, $b = 0$",
        "MSE, $b = V$",
        "MSE, $b = b^*$",
        "gain",
    ]
    return BaselineStudy(Table(headers, rows, ".4g"), **out, mse=mse, grpo_margin=grpo_margin)


@dataclass(frozen=True)
class StrengthOrder:
    """The exact MSE of each estimator per bandit (labels in order of strength) over ``groups``; ``rising[est]``:
    whether MSE grows with the strength at every G (each bandit above the previous one), ``falling[est]``: whether it
    shrinks at every G (each bandit below the previous one)."""

    table: Table
    groups: tuple[int, ...]
    mse: dict[tuple[str, str], np.ndarray]
    rising: dict[str, bool]
    falling: dict[str, bool]


def strength_order(
    bandits_: Mapping[str, Bandit],
    groups: Sequence[int],
    *,
    shown: int = 8,
    estimators: Sequence[str] = ("vanilla", "grpo", "oracle"),
) -> StrengthOrder:
    """Section "More of the U-statistic paper" (Fig. 4, observation 3): the exact MSE of each estimator at each G,
    for bandits given from the weakest to the strongest; the table shows G = ``shown``."""
    labels = list(bandits_)
    mse = {
        (lab, e): np.array([exact_moments(*bandits_[lab], G, estimator=e).mse for G in groups])
        for lab in labels
        for e in estimators
    }
    stack = {e: np.stack([mse[lab, e] for lab in labels]) for e in estimators}
    rising = {e: bool(np.all(np.diff(stack[e], axis=0) > 0)) for e in estimators}
    falling = {e: bool(np.all(np.diff(stack[e], axis=0) < 0)) for e in estimators}
    i = list(groups).index(shown)
    rows = [(lab, *(mse[lab, e][i] for e in estimators)) for lab in labels]
    table = Table(["bandit", *(f"{e}, $G = {shown}$" for e in estimators)], rows, ".4f")
    return StrengthOrder(table, tuple(groups), mse, rising, falling)


@dataclass(frozen=True)
class ArcsinCheck:
    """Proposition 13 on the bandits: the worst gap between grad (2 arcsin sqrt V) (central differences) and
    grad V / sigma (``grad_gap``), the worst relative gap between the closed form and the delta-method constant
    (``closed_gap``), the sympy identities, and per bandit the drop tr(Sigma)/sigma^2 - constant (``drop``)."""

    table: Table
    grad_gap: float
    closed_gap: float
    identities: tuple
    drop: dict[str, float]


def arcsin_check(bandits_: Mapping[str, Bandit], step: float = 1e-6) -> ArcsinCheck:
    """Section "More of the U-statistic paper" (Proposition 13): grad (2 arcsin sqrt V) against grad V / sigma by
    central differences, and tr(Sigma)/sigma^2 - (3/4)(1 - 2V)^2 |grad V|^2/sigma^4 against the delta-method
    constant of :func:`normalised_leading_constants`, on every bandit."""
    rows, grad_gap, closed_gap, drop = [], 0.0, 0.0, {}
    for label, (logits, reward) in bandits_.items():
        v = float(bandit_expected_reward(logits, reward))
        basis = step * np.eye(logits.size)
        numeric = np.array([arcsin_value(logits + e, reward) - arcsin_value(logits - e, reward) for e in basis])
        target = exact_gradient(logits, reward) / np.sqrt(v * (1 - v))
        grad_gap = max(grad_gap, float(np.max(np.abs(numeric / (2 * step) - target))))
        delta, u_limit = normalised_leading_constants(logits, reward)
        closed = normalised_limit_closed_form(logits, reward)
        closed_gap = max(closed_gap, abs(closed / delta - 1))
        drop[label] = u_limit - delta
        shown = bound(abs(drop[label]), TOL) if abs(drop[label]) < TOL else f"{1 - delta / u_limit:.1%}"
        rows.append((label, v, u_limit, delta, bound(abs(closed / delta - 1), TOL), shown))
    headers = [
        "bandit",
        "$V$",
        r"tr$\Sigma/\sigma^2$",
        "delta method",
        "closed form, relative gap",
        "drop below tr$\\Sigma/\\sigma^2$",
    ]
    return ArcsinCheck(
        Table(headers, rows, ".4f"), grad_gap, closed_gap, (arcsin_identity(), delta_method_identity()), drop
    )


@dataclass(frozen=True)
class KLBias:
    """Per step size: the norm of the k3 term's bias (answers from the old policy against the current one),
    ``bias``, and its distance to the gradient of KL(pi || pi_ref) itself, ``to_kl``; ``slope`` = bias / step."""

    table: Table
    steps: np.ndarray
    bias: np.ndarray
    to_kl: np.ndarray

    @property
    def slope(self) -> np.ndarray:
        return self.bias / self.steps


def kl_bias(bandit: Bandit, steps: Sequence[float], *, shift: float = 1.0) -> KLBias:
    """Section "More of the U-statistic paper" (Theorem 12): the old policy has the bandit's logits plus ``shift``
    on the right answers, pi_ref is the bandit itself; one inner step of size ``step`` along grad V moves the logits,
    and the k3 loss term averaged over the old policy's answers is compared with the same term averaged over the
    current policy (the target with the importance ratio), and with the gradient of KL(pi || pi_ref)."""
    ref, reward = bandit
    log_ref = ref - np.logaddexp.reduce(ref)
    old = ref + shift * reward
    bias, to_kl = [], []
    for step in steps:
        new = old + step * exact_gradient(old, reward)
        term = off_policy_k3_gradient(new, old, log_ref)
        bias.append(np.linalg.norm(term - expected_estimator_gradient(new, log_ref, "k3", placement="loss")))
        to_kl.append(np.linalg.norm(term - softmax_kl_gradients(new, log_ref)[0]))
    steps, bias, to_kl = np.asarray(steps, dtype=float), np.array(bias), np.array(to_kl)
    rows = list(zip(steps, bias, bias / steps, to_kl, strict=True))
    headers = [
        "step",
        "bias (old answers vs current)",
        "bias / step",
        r"distance to $\nabla \mathrm{KL}(\pi \Vert \pi_{\mathrm{ref}})$",
    ]
    return KLBias(Table(headers, rows, ".4g"), steps, bias, to_kl)


@dataclass(frozen=True)
class PLCheck:
    """Along logits + t (2r - 1): the value V(t) and the Polyak-Lojasiewicz ratio |grad V|^2 / (1 - V) per t."""

    table: Table
    t: np.ndarray
    value: np.ndarray
    ratio: np.ndarray


def pl_check(bandit: Bandit, t_values: Sequence[float]) -> PLCheck:
    """Section "More of the U-statistic paper" (Lemma 6, Theorem 8): moving the logits of the right answers up and
    of the wrong ones down by t, the value V(t) and the ratio |grad V|^2 / (V* - V) with V* = 1, which a PL constant
    mu would bound below by 2 mu."""
    logits, reward = bandit
    t = np.asarray(t_values, dtype=float)
    value, ratio = [], []
    for x in t:
        theta = logits + x * (2 * reward - 1)
        g = exact_gradient(theta, reward)
        value.append(float(bandit_expected_reward(theta, reward)))
        ratio.append(float(g @ g) / (1 - value[-1]))
    value, ratio = np.array(value), np.array(ratio)
    table = Table(
        ["$t$", "$V(t)$", r"$1 - V(t)$", r"$\Vert \nabla V \Vert^2 / (1 - V)$"],
        zip(t, value, 1 - value, ratio, strict=True),
        ".3g",
    )
    return PLCheck(table, t, value, ratio)
