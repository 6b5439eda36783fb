"""The loss of every method of the GRPO family on a batch of answers, and its exact gradient.

A batch holds B answers of at most T tokens: per-token log-probabilities ``logp`` of the current policy, ``old_logp``
of the policy that sampled them, ``ref_logp`` of pi_ref, a 0/1 ``mask`` of the real tokens and one advantage per
answer. Every method is the same three steps, with the pieces of its record (:mod:`grpo_nb.family.methods`):

1. the importance ratio x: per token exp(logp - old_logp); per answer exp of the *mean* token log-ratio (GSPO,
   Zheng et al. 2025) or of their *sum* (RLOO as TRL writes it, the ratio of the answers' probabilities);
2. the term of a token: -f(x, A) with f the clipped term of :func:`grpo_nb.clipping.clipped_term` (the upper range
   ``clip_eps_high`` where A >= 0, the lower ``clip_eps`` where A < 0: DAPO's clip-higher, Yu et al. 2025), or
   CISPO's -sg(min(x, cap)) A logp (MiniMax 2025: the weight is capped and detached, the token keeps its gradient);
   SAPO's -(4/tau) sigmoid(tau (x - 1)) A, tau the temperature of A's sign (Gao et al. 2025: a soft gate whose slope
   at x = 1 is 1, so that on-policy it is GRPO's term); VESPO's -sg(phi(w)) A logp with w the answer's ratio (the
   product of its token ratios) and phi(w) = e^lambda w^k e^(-lambda w), (k, lambda) by A's sign (Shen et al. 2026;
   phi(1) = 1); plus beta k3 (times x with ``bias_correction``, TRL's ``use_bias_correction_kl``) where the KL sits
   in the loss;
3. the aggregation: each answer's token mean, then the mean over answers (GRPO, GSPO, RLOO); the sum over the batch's
   tokens over their number (BNPO, DAPO, CISPO, REINFORCE++; DAPO, CISPO and REINFORCE++ divide by ``n_tokens``, the
   tokens of the whole generation batch, where it is given, BNPO always by its own); the sum over B L_max (Dr. GRPO,
   ``max_len`` = L_max).

:func:`loss` returns the value and its gradient with respect to ``logp`` in closed form (the chain rule through the
ratio, the clip and the stop-gradient), so that the gradient identities of the chapter are exact.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import expit

from grpo_nb.clipping import clipped_term, clipped_term_slope
from grpo_nb.family.methods import METHODS, Aggregation, Clip, KLEstimator, KLPlacement, Method, Ratio, method
from grpo_nb.kl import k3
from grpo_nb.validation import check_clip_eps

__all__ = ["DEFAULT_CLIP", "LossValue", "aggregation_weights", "gamma_weight", "loss", "soft_gate"]

#: (clip_eps, clip_eps_high) of each method when none is given (each record's ``clip_range``); for CISPO the second
#: entry is the cap on the weight.
DEFAULT_CLIP: dict[str, tuple[float, float]] = {m.name: m.clip_range for m in METHODS}


class LossValue(NamedTuple):
    """A method's loss on a batch (``value``) and its gradient with respect to ``logp`` (``grad``, shape (B, T))."""

    value: float
    grad: np.ndarray


def _arrays(logp, advantages, old_logp, ref_logp, mask) -> tuple[np.ndarray, ...]:
    logp = np.asarray(logp, dtype=float)
    if logp.ndim != 2 or not np.isfinite(logp).all() or (logp > 0).any():
        raise ValueError(f"logp has shape {logp.shape}; valid: a (B, T) array of finite log-probabilities <= 0")
    out = [logp]
    for name, x in (("old_logp", old_logp), ("ref_logp", ref_logp), ("mask", mask)):
        x = logp if x is None and name != "mask" else np.ones_like(logp) if x is None else np.asarray(x, dtype=float)
        if x.shape != logp.shape:
            raise ValueError(f"{name} has shape {x.shape}; valid: the shape {logp.shape} of logp")
        out.append(x)
    adv = np.asarray(advantages, dtype=float)
    if adv.shape != logp.shape[:1]:
        raise ValueError(f"advantages has shape {adv.shape}; valid: one per answer, shape {logp.shape[:1]}")
    if not ((out[3] == 0) | (out[3] == 1)).all() or (out[3].sum(axis=1) == 0).any():
        raise ValueError("mask is not valid; valid: entries in {0, 1}, at least one token per answer")
    return out[0], adv[:, None], out[1], out[2], out[3]


def aggregation_weights(
    name: str | Method, mask: np.ndarray, *, max_len: int | None = None, n_tokens: float | None = None
) -> np.ndarray:
    """The weight w of each token's term in the method's loss sum_t w_t l_t, shape (B, T) (step 3 above), by the
    record's :class:`~grpo_nb.family.methods.Aggregation`."""
    row = method(name)
    mask = np.asarray(mask, dtype=float)
    B, T = mask.shape
    if row.aggregation in (Aggregation.SEQUENCE_MEAN, Aggregation.SEQUENCE):
        return mask / mask.sum(axis=1, keepdims=True) / B
    if row.aggregation is Aggregation.CONSTANT:
        max_len = T if max_len is None else max_len
        if not (isinstance(max_len, int) and max_len >= T):
            raise ValueError(f"max_len={max_len!r} is out of range; valid range is integers >= T = {T}")
        return mask / (B * max_len)
    if row.aggregation not in (Aggregation.BATCH_TOKENS, Aggregation.LOCAL_TOKENS):
        raise ValueError(f"aggregation={row.aggregation.value!r} has no token weights; valid: {list(Aggregation)}")
    n = mask.sum() if n_tokens is None or row.aggregation is Aggregation.LOCAL_TOKENS else n_tokens
    if not n > 0:
        raise ValueError(f"n_tokens={n_tokens!r} is out of range; valid range is n_tokens > 0")
    return mask / n


def _log_ratio(row, logp, old_logp, mask) -> tuple[np.ndarray, np.ndarray]:
    """log x broadcast to (B, T), and dx/dlogp_t / x: 1 per token, m_t / n_i (sequence mean) or m_t (sum)."""
    d = (logp - old_logp) * mask
    if row.ratio is Ratio.TOKEN:
        return logp - old_logp, np.ones_like(logp)
    if row.ratio not in (Ratio.SEQUENCE_MEAN, Ratio.SEQUENCE_SUM):
        raise ValueError(f"ratio={row.ratio.value!r} has no rule; valid values are {[r.value for r in Ratio]}")
    per_token = mask / mask.sum(axis=1, keepdims=True) if row.ratio is Ratio.SEQUENCE_MEAN else mask
    return np.broadcast_to((d * per_token).sum(axis=1, keepdims=True), logp.shape), per_token


def soft_gate(x: np.ndarray, a: np.ndarray, temperatures: dict[str, float]) -> tuple[np.ndarray, np.ndarray]:
    """SAPO's gate f(x) = (4/tau) sigmoid(tau (x - 1)) and its slope f'(x) = 4 sigmoid (1 - sigmoid), tau =
    ``temperature_pos`` where a > 0 and ``temperature_neg`` where a <= 0 (TRL 1.16's ``loss_type="sapo"``)."""
    tau = np.where(a > 0, temperatures["temperature_pos"], temperatures["temperature_neg"])
    sig = expit(tau * (x - 1.0))
    return 4.0 / tau * sig, 4.0 * sig * (1.0 - sig)


def gamma_weight(log_ratio: np.ndarray, mask: np.ndarray, a: np.ndarray, *, params: dict[str, float]) -> np.ndarray:
    """VESPO's weight phi(w) = exp(lambda + k log w - lambda w) of the answer's ratio w, per answer, shape (B, 1).

    log w = the sum of the answer's token log-ratios, each clamped to [-20, 20], the sum clamped to [log 1e-8, 20]
    (TRL 1.16's ``get_gamma_weights``); (k, lambda) = (``k_pos``, ``lambda_pos``) where a >= 0, else the ``_neg``
    pair. phi(1) = 1, and phi is largest at w = k/lambda."""
    log_w = np.clip((np.clip(log_ratio, -20.0, 20.0) * mask).sum(axis=1, keepdims=True), np.log(1e-8), 20.0)
    k = np.where(a >= 0, params["k_pos"], params["k_neg"])
    lam = np.where(a >= 0, params["lambda_pos"], params["lambda_neg"])
    return np.exp(lam + k * log_w - lam * np.exp(log_w))


def _policy_term(
    row: Method,
    x: np.ndarray,
    adv: np.ndarray,
    logp: np.ndarray,
    old_logp: np.ndarray,
    mask: np.ndarray,
    *,
    clip: tuple[float, float],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Step 2 without the KL: each token's term, its derivative in logp at fixed x (``direct``) and in x (``via_x``),
    by the record's clip kind; ``clip`` = (lower, upper) range (for ``is_weight`` the upper is the cap)."""
    lo, hi = clip
    a = np.broadcast_to(adv, logp.shape)
    none = np.zeros_like(x)
    if row.clip is Clip.IS_WEIGHT:
        return -np.minimum(x, hi) * a * logp, -np.minimum(x, hi) * a, none
    if row.clip is Clip.SOFT_GATE:
        gate, slope = soft_gate(x, a, row.gate_config)
        return -gate * a, none, -slope * a
    if row.clip is Clip.GAMMA_WEIGHT:
        phi = np.broadcast_to(gamma_weight(logp - old_logp, mask, adv, params=row.gate_config), logp.shape)
        return -phi * a * logp, -phi * a, none
    # symmetric, clip-higher, and none (whose clip_range is (inf, inf))
    term = -np.where(a >= 0, clipped_term(x, a, hi), clipped_term(x, a, lo))
    return term, none, -np.where(a >= 0, clipped_term_slope(x, a, hi), clipped_term_slope(x, a, lo))


def loss(
    name: str | Method,
    logp: object,
    advantages: object,
    *,
    old_logp: object = None,
    ref_logp: object = None,
    mask: object = None,
    beta: float = 0.0,
    clip_eps: float | None = None,
    clip_eps_high: float | None = None,
    bias_correction: bool = True,
    max_len: int | None = None,
    n_tokens: float | None = None,
) -> LossValue:
    """The loss of method ``name`` (a name of :data:`grpo_nb.family.METHOD_NAMES` or a :class:`Method` record) on a
    batch (module docstring) and its gradient with respect to ``logp``.

    ``old_logp`` and ``ref_logp`` default to ``logp`` (on-policy, at pi_ref), ``mask`` to all ones; ``clip_eps`` and
    ``clip_eps_high`` to the record's ``clip_range`` (:data:`DEFAULT_CLIP`). ``beta`` > 0 adds the record's KL
    estimator (k3, the one the loss implements) to the loss, which RLOO and REINFORCE++ do not do (their KL sits in
    the reward: ValueError). Raises ValueError for arrays of the wrong shape or a bad clip range.
    """
    row = method(name)
    logp, adv, old_logp, ref_logp, mask = _arrays(logp, advantages, old_logp, ref_logp, mask)
    if not (np.isfinite(beta) and beta >= 0):
        raise ValueError(f"beta={beta!r} is out of range; valid range is 0 <= beta < inf")
    if beta > 0 and row.kl is KLPlacement.REWARD:
        raise ValueError(
            f"beta={beta!r} is out of range for name={row.name!r}, whose KL sits in the reward; valid: beta=0"
        )
    if beta > 0 and row.kl_estimator is not KLEstimator.K3:
        raise ValueError(f"kl_estimator={row.kl_estimator.value!r} has no term in the loss; valid: 'k3'")
    lo, hi = (c if v is None else v for c, v in zip(row.clip_range, (clip_eps, clip_eps_high), strict=True))
    check_clip_eps(lo)
    check_clip_eps(hi)
    w = aggregation_weights(row, mask, max_len=max_len, n_tokens=n_tokens)
    log_x, dlogx = _log_ratio(row, logp, old_logp, mask)
    x = np.exp(log_x)
    term, direct, via_x = _policy_term(row, x, adv, logp, old_logp, mask, clip=(lo, hi))
    if beta > 0:
        kl = k3(logp, ref_logp)
        dkl = -np.expm1(ref_logp - logp)
        term = term + beta * kl * (x if bias_correction else 1.0)
        direct = direct + beta * dkl * (x if bias_correction else 1.0)
        via_x = via_x + (beta * kl if bias_correction else 0.0)
    value = float((w * term).sum())
    if row.ratio is Ratio.TOKEN:
        grad = w * (direct + via_x * x)
    else:
        grad = w * direct + (w * via_x).sum(axis=1, keepdims=True) * x * dlogx
    return LossValue(value, grad * mask)
