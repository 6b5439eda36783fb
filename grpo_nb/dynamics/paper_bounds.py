"""The paper's §4 conditions as numbers: Theorem 3's condition (2), Theorem 4's bound B(p*), the amplification gap.

* Theorem 3 (amplification) assumes, when p_ref > 1/2, condition (2):

      beta cosh^2(1 / (2 beta sqrt(1/4 + eps))) >= p_ref (1 - p_ref)(2 p_ref - 1) / (2 (p_ref(1 - p_ref) + eps)^{3/2}).

  ``theorem3_condition`` evaluates it in log space (cosh^2 overflows for small beta).
* The fixed-point equation itself gives logit p* - logit p_ref = 1 / (beta sqrt(p*(1-p*) + eps)) > 0 at every fixed
  point, whatever beta, eps and p_ref: ``amplification_gap`` returns that gap (its minimum over the fixed points).
* Theorem 4 / Lemma 1: |h'(p*)| = B(p*) / beta with B(p*) = p*(1-p*)|2p*-1| / (2 (p*(1-p*) + eps)^{3/2}), so
  beta > B(p*) is exactly the local stability condition |h'(p*)| < 1. ``theorem4_beta_bound`` evaluates B from p*,
  ``theorem4_beta_bound_logit`` from the logit of p* (exact where p* rounds to 1.0; 2p-1 = tanh(z/2)).
* Remark 2 (a beta for all prompts): B(p) < v / (2 (v + eps)^{3/2}) with v = p(1-p), whose maximum over v (at
  v = 2 eps) is 1/(3^{3/2} sqrt(eps)); above it every fixed point of every prompt is stable.
  ``prompt_free_beta_bound`` evaluates it.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logit

from grpo_nb.dynamics.fixed_points import fixed_points_grid
from grpo_nb.dynamics.map import logit_map_margin, logit_map_slope
from grpo_nb.validation import check_beta, check_eps, check_p, check_p_ref

__all__ = [
    "amplification_gap",
    "prompt_free_beta_bound",
    "theorem3_condition",
    "theorem3_condition2_log_lhs",
    "theorem3_condition2_log_margin",
    "theorem4_beta_bound",
    "theorem4_beta_bound_logit",
]


def theorem3_condition2_log_lhs(beta: object, eps: object) -> np.ndarray:
    """log of the left-hand side of Theorem 3's condition (2), log(beta cosh^2(x)) with x = 1/(2 beta sqrt(1/4+eps)).

    Computed as log beta + 2 (logaddexp(x, -x) - log 2), finite where cosh^2 itself overflows (beta ~ 1e-3).
    """
    beta, eps = check_beta(beta), check_eps(eps)
    x = logit_map_margin(beta, eps) / 2.0
    return np.log(beta) + 2.0 * (np.logaddexp(x, -x) - np.log(2.0))


def theorem3_condition2_log_margin(p_ref: object, beta: object, eps: object) -> np.ndarray:
    """log(LHS) - log(RHS) of Theorem 3's condition (2); +inf where the RHS is <= 0 (p_ref <= 1/2).

    Condition (2) holds where the margin is >= 0. LHS = beta cosh^2(x) (:func:`theorem3_condition2_log_lhs`);
    RHS = p_ref(1-p_ref)(2p_ref-1) / (2 (p_ref(1-p_ref)+eps)^{3/2}), which is Theorem 4's B evaluated at p_ref.
    """
    p_ref, beta, eps = check_p_ref(p_ref), check_beta(beta), check_eps(eps)
    log_lhs = theorem3_condition2_log_lhs(beta, eps)
    v = p_ref * (1.0 - p_ref)
    rhs = v * (2.0 * p_ref - 1.0) / (2.0 * (v + eps) ** 1.5)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(rhs > 0, log_lhs - np.log(np.where(rhs > 0, rhs, 1.0)), np.inf)


def theorem3_condition(p_ref: object, beta: object, eps: object) -> np.ndarray:
    """Theorem 3's hypothesis: case (1) p_ref <= 1/2, or case (2) p_ref > 1/2 with condition (2). Boolean array."""
    return np.asarray(theorem3_condition2_log_margin(p_ref, beta, eps) >= 0)


def amplification_gap(p_ref: object, beta: object, eps: object) -> np.ndarray:
    """min over fixed points p* of logit p* - logit p_ref (Theorem 3 in logit form; NaN where h has none).

    Equal to 1/(beta sqrt(p*(1-p*)+eps)) at the lowest fixed point, hence >= 1/(beta sqrt(1/4+eps)) > 0.
    """
    grid = fixed_points_grid(p_ref, beta, eps)
    with np.errstate(invalid="ignore"):
        lowest = np.where(grid.counts > 0, grid.logits[..., 0], np.nan)
    return lowest - logit(np.broadcast_to(check_p_ref(p_ref), lowest.shape))


def theorem4_beta_bound(p_star: object, eps: object) -> np.ndarray:
    """Lemma 1 / Theorem 4: B(p*) = p*(1-p*)|2p*-1| / (2 (p*(1-p*) + eps)^{3/2}); beta > B(p*) iff |h'(p*)| < 1.

    Evaluated as :func:`theorem4_beta_bound_logit` at z* = logit p* (p* = 0 or 1 give B = 0 for eps > 0).
    """
    eps = check_eps(eps)
    p = check_p(p_star, eps, name="p_star")
    with np.errstate(divide="ignore"):
        return theorem4_beta_bound_logit(logit(p), eps)


def theorem4_beta_bound_logit(z_star: object, eps: object) -> np.ndarray:
    """B(p*) from z* = logit p* (exact near 1): B = beta |g'(z*)|, the logit map's slope at beta = 1 (Lemma 1)."""
    eps = check_eps(eps)
    z = np.asarray(z_star, dtype=float)
    if np.isnan(z).any():
        raise ValueError(f"z_star={z_star!r} contains NaN; valid range is a real logit (-inf, inf)")
    return np.abs(logit_map_slope(z, 1.0, eps))


def prompt_free_beta_bound(eps: object) -> float:
    """1/(3^{3/2} sqrt(eps)), a bound on Theorem 4's B(p) over every p (Remark 2; +inf for eps = 0).

    B(p) = v sqrt(1 - 4v) / (2 (v + eps)^{3/2}) with v = p(1-p) is below v / (2 (v + eps)^{3/2}), whose maximum over v
    (at v = 2 eps) is this value: once beta is above it, every fixed point of every prompt is stable. With eps = 0
    there is none: B(p) = sqrt(1 - 4v) / (2 sqrt(v)) grows without bound as v -> 0.
    """
    eps = float(check_eps(eps))
    return float("inf") if eps == 0 else float(1.0 / (3**1.5 * np.sqrt(eps)))
