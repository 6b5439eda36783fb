"""Section "What β means in practice" of the chapter "Amplification and convergence" (``book/amplification_beta.md``,
paper §4).

* :data:`PRACTICE_BETAS`, :func:`kl_penalty_gradients`, :func:`practice_regime_table`, :func:`small_beta_limit`: the
  KL weights used in practice, the gradients of the k3 KL penalty, where the practical betas fall on the regime maps,
  and the recursion as beta -> 0; :func:`first_step` takes the first exact step with Theorem 1's Gibbs policy for
  every representable p_ref, which also shows why Theorem 5's per-step errors cannot be small at such beta.

The negative tests replace names this module reads (``gibbs_log_policy``, ``k3``) with wrong formulas and see the
verdicts fail.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, log_softmax, logit

from grpo_nb.constants import PRACTICAL_BETA
from grpo_nb.dynamics.map import iterate_logit, logit_map_margin
from grpo_nb.dynamics.regimes import Regime, RegimeMap, regime_map
from grpo_nb.kl import k3
from grpo_nb.report import Table
from grpo_nb.tabular.policy import gibbs_log_policy
from grpo_nb.validation import (
    check_beta,
    check_eps,
    check_logits,
    check_p,
    check_p_ref,
    check_positive_int,
    check_scalar,
)

__all__ = [
    "FirstStep",
    "KLGradients",
    "PRACTICE_BETAS",
    "PracticeRegimes",
    "SmallBetaLimit",
    "first_step",
    "kl_penalty_gradients",
    "practice_regime_table",
    "small_beta_limit",
]


#: The KL weights used in practice, each checked in the source named: 0.04, the KL coefficient of DeepSeekMath's GRPO
#: and the default ``beta`` of TRL's ``GRPOConfig`` up to TRL 0.18 (``trl/trainer/grpo_config.py``); 0.001, the value
#: TRL's ``GRPOConfig`` documentation attributes to DeepSeek-R1; 0, the default from TRL 0.19 on (still in TRL 1.16)
#: and the choice of DAPO and Dr. GRPO (no KL term). The theory needs beta > 0; :func:`small_beta_limit` follows the
#: recursion as beta -> 0.
PRACTICE_BETAS: tuple[tuple[str, float], ...] = (
    ("DeepSeekMath; TRL default up to 0.18", PRACTICAL_BETA),
    ("DeepSeek-R1, as TRL's documentation quotes it", 0.001),
    ("TRL default from 0.19; DAPO; Dr. GRPO", 0.0),
)


@dataclass(frozen=True)
class PracticeRegimes:
    """:func:`practice_regime_table`'s table, the regime map per eps, and two verdicts over every row: the first
    step's gain logit p_1 - logit p_ref is at least Theorem 3's margin 2/(beta sqrt(1 + 4 eps)) (``gain_above_margin``)
    and p_1 is saturated (``saturated``: p_1(1 - p_1) < eps; for eps = 0, the orbit escapes to p = 1)."""

    table: Table
    maps: dict[float, RegimeMap]
    gain_above_margin: bool
    saturated: bool


def practice_regime_table(
    p_refs: Sequence[float], betas: Sequence[float], eps_values: Sequence[float]
) -> PracticeRegimes:
    """Where the orbit from each p_ref goes at each (beta > 0, eps) (section "What β means in practice"): the regime
    of :func:`grpo_nb.dynamics.regimes.regime_map`, the first step's gain logit p_1 - logit p_ref, whether p_1 already
    has p_1(1 - p_1) < eps (saturated next to 1; for eps = 0, whether the orbit escapes to p = 1), and the limit
    logit. The first step is Theorem 1's Gibbs policy on a two-outcome space (``gibbs_log_policy``, in log space), not
    the logit map g, so its gain could fall short of Theorem 3's margin if the closed form or the margin were
    wrong."""
    p = check_p_ref(np.asarray(p_refs, dtype=float))[:, None]
    b = check_beta(np.asarray(betas, dtype=float))[None, :]
    rows, maps, gain_ok, saturated = [], {}, True, True
    for eps in eps_values:
        rm = regime_map(p, b, float(check_eps(eps)))
        maps[eps] = rm
        for i, j in np.ndindex(rm.regime.shape):
            log_ref = np.log([p[i, 0], 1 - p[i, 0]])
            lp = gibbs_log_policy(log_ref, np.array([1.0, 0.0]), p[i, 0], b[0, j], eps)  # Theorem 1, not g
            z1 = lp[0] - lp[1]
            v1 = np.exp(-np.logaddexp(0.0, z1) - np.logaddexp(0.0, -z1))
            limit = rm.limit_logit[i, j]
            gain = z1 - (log_ref[0] - log_ref[1])
            sat = bool(v1 < eps) if eps > 0 else bool(np.isposinf(limit))
            gain_ok &= bool(gain >= 2 / (b[0, j] * np.sqrt(1 + 4 * eps)))
            saturated &= sat
            rows.append([b[0, j], eps, p[i, 0], Regime(rm.regime[i, j]).label, f"{gain:.4g}", sat, f"{limit:.6g}"])
    headers = ["β", "ε", r"$p_{\mathrm{ref}}$", r"orbit from $p_{\mathrm{ref}}$",
               r"$\operatorname{logit} p_1 - \operatorname{logit} p_{\mathrm{ref}}$", "saturated after one step",
               "limit logit"]  # fmt: skip
    return PracticeRegimes(Table(headers, rows), maps, gain_ok, saturated)


@dataclass(frozen=True)
class FirstStep:
    """:func:`first_step` at one (beta, eps) over a grid of logit p_ref: the first exact step's log-odds z_1, the
    smallest gain over Theorem 3's margin, the largest log(1 - p_1) and the largest p_1 (1 - p_1) / eps."""

    beta: float
    eps: float
    logit_p_ref: np.ndarray
    logit_p1: np.ndarray
    min_gain_over_margin: float
    max_log_miss: float
    max_variance_over_eps: float

    @property
    def saturated(self) -> bool:
        """Every prompt of the grid has p_1 (1 - p_1) < eps after one exact step."""
        return self.max_variance_over_eps < 1

    def theorem5_floor(self, p_tilde: float, *, constant: float) -> tuple[float, float]:
        """The least value of Theorem 5's bound ``constant`` * sum_i delta_i over every prompt of the grid, when the
        inexact first step's success probability stays at most ``p_tilde``, as (lead, deficit): the bound is at least
        lead - deficit (no floor where that is <= 0).

        delta_1 >= TV(pi~_1, pi_1) since pi~_0 = pi_0, TV >= p_1 - p~_1 for a 0/1 reward, and every prompt has
        1 - p_1 <= e^{max_log_miss}; so constant * sum delta_i >= constant (1 - p_tilde) - constant e^{max_log_miss}.
        ``constant`` is 2 in the paper's Theorem 5 and 1 for 0/1 rewards (the parametric chapter's proposition).
        The deficit is kept apart: near saturation it is far below float64's resolution of the lead."""
        p_tilde = float(check_scalar("p_tilde", check_p(p_tilde, np.asarray(0.0), name="p_tilde")))
        if constant not in (1, 2):
            raise ValueError(
                f"constant={constant!r} is out of range; valid values are 2 (the paper's) and 1 (0/1 reward)"
            )
        return constant * (1.0 - p_tilde), constant * float(np.exp(self.max_log_miss))


def first_step(beta: float, eps: float, *, n_grid: int = 4001) -> FirstStep:
    """The first exact GRPO step for every representable prompt (section "What β means in practice"), taken with
    Theorem 1's Gibbs policy (:func:`grpo_nb.tabular.policy.gibbs_log_policy`, the module-level name the negative test
    replaces) in log space, not with the logit map.

    The prompts are ``n_grid`` values of logit p_ref evenly spaced from -745 (about the smallest positive double,
    5e-324) to +37 (1 - p_ref about 1e-16); each is a two-outcome policy (right, wrong) with log masses
    (log sigmoid(a), log sigmoid(-a)). Returned: z_1 = logit p_1, the smallest (z_1 - a) / margin with Theorem 3's
    margin 1/(beta sqrt(1/4 + eps)), the largest log(1 - p_1) = -softplus(z_1), and the largest p_1 (1 - p_1) / eps
    (saturation, eps > 0).
    """
    beta, eps = float(check_scalar("beta", check_beta(beta))), float(check_eps(eps))
    if not eps > 0:
        raise ValueError(f"eps={eps!r} is out of range; valid range is eps > 0 (saturation is p(1 - p) < eps)")
    a = np.linspace(-745.0, 37.0, check_positive_int("n_grid", n_grid, minimum=2))
    log_ref = -np.logaddexp(0.0, -np.stack([a, -a], axis=-1))  # log sigmoid(a), log sigmoid(-a)
    lp = gibbs_log_policy(log_ref, np.array([1.0, 0.0]), expit(a), beta, eps)
    z1 = lp[:, 0] - lp[:, 1]
    log_miss = -np.logaddexp(0.0, z1)  # log(1 - p_1) = log sigmoid(-z_1)
    variance = np.exp(-np.logaddexp(0.0, z1) - np.logaddexp(0.0, -z1))
    gain = (z1 - a) / logit_map_margin(beta, eps)
    return FirstStep(beta, eps, a, z1, float(gain.min()), float(log_miss.max()), float((variance / eps).max()))


@dataclass(frozen=True)
class SmallBetaLimit:
    """:func:`small_beta_limit` at one eps > 0 and one p_ref: per beta, the first step's gain and its bound, the
    limit logit."""

    table: Table
    first_gain_ok: bool
    first_gain_rate: np.ndarray
    limit_rate: np.ndarray


def small_beta_limit(p_ref: float, betas: Sequence[float], eps: float, *, n: int = 50) -> SmallBetaLimit:
    """The recursion as beta -> 0, at one eps > 0 and one p_ref (section "What β means in practice").

    The first gain is logit p_1 - logit p_ref = 1/(beta sqrt(v_ref + eps)) >= 2/(beta sqrt(1 + 4 eps)), so p_1 -> 1
    (``first_gain_rate`` = beta times the gain, exactly 1/sqrt(v_ref + eps)); beta times the distance of the logit
    after ``n`` steps from logit p_ref (``limit_rate``) tends to 1/sqrt(eps), the rate of the fixed point next to 1
    (logit p* ~ logit p_ref + 1/(beta sqrt eps)). ``first_gain_ok``: the first gain is at least its bound at every
    beta (relative tolerance 1e-12).
    """
    p_ref = float(check_p_ref(p_ref))
    eps = float(check_eps(eps))
    if not eps > 0:
        raise ValueError(f"eps={eps!r} is out of range; valid range is eps > 0 (with eps = 0 the orbit escapes to 1)")
    b = check_beta(np.asarray(betas, dtype=float))
    z = iterate_logit(p_ref, b, eps, n=n)
    gain = z[1] - z[0]
    bound = 2.0 / (b * np.sqrt(1 + 4 * eps))
    rate = b * (z[-1] - logit(p_ref))
    rows = [[bb, g, bd, r, 1 / np.sqrt(eps)] for bb, g, bd, r in zip(b, gain, bound, rate, strict=True)]
    gap = r"\operatorname{logit} p_{\mathrm{ref}}"
    headers = ["β", rf"$\operatorname{{logit}} p_1 - {gap}$", r"$2/(\beta\sqrt{1+4\varepsilon})$",
               rf"$\beta\,(\operatorname{{logit}} p_{{{n}}} - {gap})$", r"$1/\sqrt{\varepsilon}$"]  # fmt: skip
    ok = bool((gain >= bound * (1 - 1e-12)).all())
    return SmallBetaLimit(Table(headers, rows, ".6g"), ok, b * gain, rate)


@dataclass(frozen=True)
class KLGradients:
    """:func:`kl_penalty_gradients`: gradients with respect to the logits of a softmax policy pi (at pi = pi_old), by
    central differences.

    k3_loss: of E_{o ~ pi_old}[k3(o)] with pi_old held fixed (k3 used as a loss term, as in DeepSeekMath's GRPO);
    k3_ratio_loss: of E_{o ~ pi_old}[(pi/pi_old)(o) k3(o)] (TRL's ``use_bias_correction_kl``);
    kl_forward: of KL(pi || pi_ref), the theory's penalty; kl_reverse: of KL(pi_ref || pi);
    k3_mean_error: |E_pi[k3] - KL(pi || pi_ref)| (k3's value is unbiased).
    """

    k3_loss: np.ndarray
    k3_ratio_loss: np.ndarray
    kl_forward: np.ndarray
    kl_reverse: np.ndarray
    k3_mean_error: float


def kl_penalty_gradients(logits: object, logits_ref: object, step: float = 1e-6) -> KLGradients:
    """The gradients of :class:`KLGradients` for pi = softmax(logits), pi_ref = softmax(logits_ref) (shape (K,)), the
    estimator statements of section "What β means in practice".

    Schulman's k3 (:func:`grpo_nb.kl.k3`), pi_ref/pi - log(pi_ref/pi) - 1 per sampled token, has expectation
    KL(pi || pi_ref) under pi, but its gradient, taken as a loss, is in expectation the gradient of KL(pi_ref || pi);
    multiplying k3 by the importance ratio (TRL's ``use_bias_correction_kl``) restores the gradient of
    KL(pi || pi_ref). The gradients are finite differences of the surrogate losses as written, the sampling
    distribution held fixed.
    """
    theta = check_logits("logits", logits)
    theta_ref = check_logits("logits_ref", logits_ref)
    if theta.shape != theta_ref.shape or theta.ndim != 1:
        raise ValueError(f"logits_ref has shape {theta_ref.shape}; valid is the shape of logits, {theta.shape}, 1-D")
    lp_old, lp_ref = log_softmax(theta), log_softmax(theta_ref)
    pi_old = np.exp(lp_old)

    def surrogates(t: np.ndarray) -> np.ndarray:
        lp = log_softmax(t)
        ratio = np.exp(lp - lp_old)
        return np.array([
            pi_old @ k3(lp, lp_ref),
            pi_old @ (ratio * k3(lp, lp_ref)),
            np.exp(lp) @ (lp - lp_ref),
            np.exp(lp_ref) @ (lp_ref - lp),
        ])  # fmt: skip

    grads = np.empty((4, theta.size))
    for k in range(theta.size):
        e = np.zeros_like(theta)
        e[k] = step
        grads[:, k] = (surrogates(theta + e) - surrogates(theta - e)) / (2 * step)
    mean_error = abs(float(pi_old @ k3(lp_old, lp_ref) - pi_old @ (lp_old - lp_ref)))
    return KLGradients(*grads, mean_error)
