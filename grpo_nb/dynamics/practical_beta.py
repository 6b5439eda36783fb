"""The KL weights beta used in practice, placed on the maps of paper §4, and the KL estimator they come with.

Values (each checked in the source named):

* 0.04: the KL coefficient of DeepSeekMath's GRPO, and the default ``beta`` of TRL's ``GRPOConfig`` up to
  TRL 0.18 (``trl/trainer/grpo_config.py``);
* 0.001: the value TRL's ``GRPOConfig`` documentation attributes to DeepSeek-R1;
* 0: the default from TRL 0.19 on (still in TRL 1.16), and the choice of DAPO and Dr. GRPO (no KL term).

The theory needs beta > 0; :func:`small_beta_limit` follows the recursion as beta -> 0.

How a practitioner's beta maps to the theory's (Mroueh's objective per prompt is
E_{pi_old}[ratio A] - beta KL(pi || pi_ref), with A = (r - p)/sqrt(p(1-p) + eps) and the KL over whole answers):
the practical loss averages both the clipped ratio term and the per-token KL estimate over the answer's tokens, so
for answers of a common length L both terms are divided by L and their ratio, beta, is unchanged; the per-token KL
estimates sum to the sequence KL by the chain rule. The estimator differs: Schulman's k3 (:func:`grpo_nb.kl.k3`),
k3 = pi_ref/pi - log(pi_ref/pi) - 1 per sampled token, has expectation KL(pi || pi_ref) under pi, but its gradient,
taken as a loss, is in expectation the gradient of KL(pi_ref || pi); multiplying k3 by the importance ratio (TRL's
``use_bias_correction_kl``) restores the gradient of KL(pi || pi_ref). :func:`kl_penalty_gradients` computes these
gradients exactly on a softmax policy (finite differences of the surrogate losses as written, the sampling
distribution held fixed), so each statement can be checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import log_softmax, logit

from grpo_nb.dynamics.map import iterate_logit
from grpo_nb.dynamics.regimes import Regime, regime_map
from grpo_nb.kl import k3
from grpo_nb.report import Table
from grpo_nb.validation import check_beta, check_eps, check_logits, check_p_ref

__all__ = [
    "PRACTICE_BETAS",
    "KLGradients",
    "kl_penalty_gradients",
    "practice_regime_table",
    "small_beta_limit",
]

PRACTICE_BETAS: tuple[tuple[str, float], ...] = (
    ("DeepSeekMath; TRL default up to 0.18", 0.04),
    ("DeepSeek-R1, as TRL's documentation quotes it", 0.001),
    ("TRL default from 0.19; DAPO; Dr. GRPO", 0.0),
)


def practice_regime_table(
    p_refs: Sequence[float], betas: Sequence[float], eps_values: Sequence[float]
) -> tuple[Table, dict[float, object]]:
    """Where the orbit from each p_ref goes at each (beta > 0, eps): the regime of :func:`regime_map`, the first
    step's gain logit p_1 - logit p_ref, and whether p_1 already has p_1(1 - p_1) < eps (saturated next to 1; for
    eps = 0, whether the orbit escapes to p = 1). Returns the table and the regime maps per eps."""
    p = check_p_ref(np.asarray(p_refs, dtype=float))[:, None]
    b = check_beta(np.asarray(betas, dtype=float))[None, :]
    rows, maps = [], {}
    for eps in eps_values:
        rm = regime_map(p, b, float(check_eps(eps)))
        maps[eps] = rm
        with np.errstate(over="ignore"):
            z = iterate_logit(p, b, eps, n=1)
        for i, j in np.ndindex(rm.regime.shape):
            v1 = np.exp(-abs(z[1, i, j])) / (1 + np.exp(-abs(z[1, i, j]))) ** 2
            limit = rm.limit_logit[i, j]
            rows.append(
                [b[0, j], eps, p[i, 0], Regime(rm.regime[i, j]).label, f"{z[1, i, j] - z[0, i, j]:.4g}",
                 bool(v1 < eps) if eps > 0 else bool(np.isposinf(limit)), f"{limit:.6g}"]
            )  # fmt: skip
    headers = ["β", "ε", "p_ref", "orbit from p_ref", "logit p₁ − logit p_ref", "saturated after one step",
               "limit logit"]  # fmt: skip
    return Table(headers, rows), maps


@dataclass(frozen=True)
class SmallBetaLimit:
    """As beta -> 0 at one eps > 0 and one p_ref: per beta, the first step's gain and its bound, the limit logit."""

    table: Table
    first_gain_ok: bool
    first_gain_rate: np.ndarray
    limit_rate: np.ndarray


def small_beta_limit(p_ref: float, betas: Sequence[float], eps: float, *, n: int = 50) -> SmallBetaLimit:
    """The recursion as beta -> 0, at one eps > 0 and one p_ref.

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
    headers = ["β", "logit p₁ − logit p_ref", "2/(β√(1+4ε))", f"β (logit p_{n} − logit p_ref)", "1/√ε"]
    ok = bool((gain >= bound * (1 - 1e-12)).all())
    return SmallBetaLimit(Table(headers, rows, ".6g"), ok, b * gain, rate)


@dataclass(frozen=True)
class KLGradients:
    """Gradients with respect to the logits of a softmax policy pi (at pi = pi_old), by central differences.

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
    """The gradients of :class:`KLGradients` for pi = softmax(logits), pi_ref = softmax(logits_ref) (shape (K,))."""
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
