"""One beta for all prompts (paper §4, Remark 2): which beta leave every prompt's lowest fixed point stable.

Theorem 4 asks, for one prompt, that beta > B(p*) at the fixed point p* the orbit from p_ref starts next to, the
lowest one; Lemma 1 gives |h'(p*)| = B(p*)/beta with B(p) = p(1-p)|2p-1| / (2 (p(1-p) + eps)^{3/2})
(:func:`grpo_nb.dynamics.paper_bounds.theorem4_beta_bound_logit`). Remark 2 asks for one beta that serves a whole set
of prompts. This module answers exactly, with root finders, by parametrising by the fixed point z = logit p* instead
of by the prompt. In logit coordinates (Theorem 2) z is a fixed point for the prompt a = logit p_ref iff

    a = z - s(z)/beta,   s(z) = 1/sqrt(v(z) + eps) = logit_map(z, 0, 1, eps),   v(z) = sigmoid(z) sigmoid(-z),

so the pair (z, beta) fixes the prompt, and z is unstable iff beta < B(z) (Lemma 1). Three facts make the rest exact:

* A lowest fixed point is strictly unstable only if z < 0 (p* < 1/2). On z <= 0, a = z - s(z)/beta increases with z,
  so every z < 0 is the lowest fixed point of its prompt; for z > 0 the lowest fixed point has 0 < g'(z) <= 1 (g(w) > w
  below it), which is never |h'| > 1.
* B is unimodal on z <= 0, with its one maximum at v = 2 eps/(1 + 12 eps) (p* ~ 2 eps: d log B/dv = 0 is linear in
  v); for eps = 0 it is |sinh(z/2)|, unbounded as z -> -inf. Maximisers are found by bounded Brent, to about 1e-8
  relative in z (the maximum itself to rounding).
* For a prompt a, its lowest fixed point is unstable at beta = s(z)/(z - a) iff Q_a(z) = B(z)(z - a)/s(z) > 1, and
  log Q_a = log(z - a) + log|tanh(z/2)| - log(1 + eps/v(z)) - log 2 is strictly concave on (a, 0): the first two
  terms are concave there and log(1 + eps/v) = log(1 + 2 eps (1 + cosh z)) is convex. So {Q_a > 1} is one interval
  (z1, z2), found by brentq on each side of the maximum, and the prompt's unstable betas are the open interval
  (B(z2), B(z1)): its bound beta_q is B(z1).

Consequences (:func:`safe_betas`): over prompts with p_ref in [p_lo, p_hi] the betas at which some lowest fixed
point is unstable form one open interval. Its lower end is set by the hardest prompt p_lo (a boundary); its upper end
by the supremum of B over the fixed points reachable from the range, which is max_p B(p) (:func:`supremum_bound`, an
interior prompt) as long as the prompt that has B's maximiser as its lowest fixed point lies in the range. At a given
beta the prompts with an unstable lowest fixed point form one interval of p_ref (:func:`unstable_prompts`), whose
upper end p_up(beta) peaks at a finite beta (:func:`p_up_threshold`): prompts above that peak never need a lower
bound on beta.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq, minimize_scalar
from scipy.special import expit, logit

from grpo_nb.dynamics.fixed_points import fixed_points
from grpo_nb.dynamics.map import logit_map
from grpo_nb.dynamics.paper_bounds import theorem4_beta_bound_logit
from grpo_nb.validation import check_beta, check_eps, check_ordered_pair, check_p_ref, check_scalar

__all__ = [
    "PUpThreshold",
    "PromptBetaBound",
    "SupremumBound",
    "SafeBetas",
    "UnstablePrompts",
    "p_up_threshold",
    "prompt_beta_bound",
    "supremum_bound",
    "safe_betas",
    "unstable_prompts",
]

#: Tolerances of every root finder and maximiser here: brentq to the last bits, bounded Brent to 1e-12 in logit.
_XTOL, _RTOL, _MAX_XATOL = 1e-300, 4 * np.finfo(float).eps, 1e-12


def _bound(z: float, eps: float) -> float:
    """B at z = logit p (Lemma 1 / Theorem 4), from its one home."""
    return float(theorem4_beta_bound_logit(z, eps))


def _step(z: float, beta: float, eps: float) -> float:
    """logit h(p) - logit p_ref = 1/(beta sqrt(v(z) + eps)), Theorem 2's step, from the logit map's home."""
    return float(logit_map(z, 0.0, beta, eps))


def _prompt_of(z: float, beta: float, eps: float) -> float:
    """logit p_ref of the prompt for which z is a fixed point at beta (Theorem 2: z = a + step)."""
    return z - _step(z, beta, eps)


def _stability_ratio(z: float, a: float, eps: float) -> float:
    """Q_a(z) = B(z)(z - a)/s(z): > 1 iff z, as the lowest fixed point of prompt a, is unstable (z in (a, 0))."""
    return _bound(z, eps) * (z - a) / _step(z, 1.0, eps)


def _peak_logit(eps: float) -> float:
    """argmax of B over z <= 0 (bounded Brent on -log B, unimodal there); -inf for eps = 0 (B unbounded)."""
    if eps == 0:
        return -np.inf
    lower = min(np.log(eps), 0.0) - 10.0
    res = minimize_scalar(
        lambda z: -np.log(_bound(z, eps)), bounds=(lower, 0.0), method="bounded", options={"xatol": _MAX_XATOL}
    )
    return float(res.x)


def _scalar_eps(eps: object) -> float:
    return check_scalar("eps", check_eps(eps))


@dataclass(frozen=True)
class SupremumBound:
    """The supremum over prompts of the per-prompt bound beta_q (Remark 2, Theorem 4, Lemma 1): max_p B(p).

    ``beta`` is max_p B(p), reached at ``p_star`` (<= 1/2; B(p) = B(1-p)); ``p_ref`` is the prompt whose lowest fixed
    point at beta = ``beta`` is p_star, where |h'(p*)| = 1, so that prompt's bound beta_q equals ``beta`` (it is
    attained). ``lowest_fixed_point_logit`` and ``lowest_fixed_point_slope`` are that prompt's lowest fixed point and
    h' there as :func:`grpo_nb.dynamics.fixed_points.fixed_points` finds them; ``attained`` says that fixed point is
    p_star (relative 1e-9 in logit). With eps = 0, B is unbounded: beta = inf, p_star = p_ref = 0, the logits -inf,
    the fixed-point fields NaN and ``attained`` False.
    """

    eps: float
    beta: float
    p_star: float
    logit_p_star: float
    p_ref: float
    logit_p_ref: float
    lowest_fixed_point_logit: float
    lowest_fixed_point_slope: float
    attained: bool


def supremum_bound(eps: object) -> SupremumBound:
    """sup over prompts of the per-prompt bound beta_q, = max_p B(p) (Remark 2; B of Lemma 1 / Theorem 4), attained.

    Every p* < 1/2 is the lowest fixed point of some prompt at every beta (a = logit p* - 1/(beta sqrt(v* + eps))), so
    the supremum over prompts of beta_q is max_p B(p), found by bounded Brent on -log B in logit coordinates; it lies
    just below Remark 2's prompt-free bound 1/(3^{3/2} sqrt(eps)), whose proof drops the factor |2p - 1|.
    """
    eps = _scalar_eps(eps)
    if eps == 0:
        nan = float("nan")
        return SupremumBound(eps, np.inf, 0.0, -np.inf, 0.0, -np.inf, nan, nan, False)
    z_star = _peak_logit(eps)
    beta = _bound(z_star, eps)
    a = _prompt_of(z_star, beta, eps)
    lowest = fixed_points(float(expit(a)), beta, eps)[0]
    attained = abs(lowest.logit - z_star) <= 1e-9 * max(1.0, abs(z_star))
    return SupremumBound(
        eps, beta, float(expit(z_star)), z_star, float(expit(a)), a, lowest.logit, lowest.slope, bool(attained)
    )


@dataclass(frozen=True)
class PromptBetaBound:
    """Where one prompt's lowest fixed point is unstable (Theorem 4 read at the lowest fixed point, Lemma 1).

    The unstable betas form the open interval (``beta_from``, ``beta_q``); ``beta_q`` is the prompt's bound in the
    paper's reading (every beta above it is safe), but not a lower bound on the safe betas: every beta <= ``beta_from``
    is safe too (0 and ``beta_from`` NaN when nothing is unstable). At beta in it the lowest fixed point lies between
    logits ``logit_low`` and ``logit_high`` (the ends of {Q > 1}; NaN when empty): at beta_q it is at logit_low, at
    beta_from at logit_high, each neutral (|h'| = 1).
    """

    p_ref: float
    eps: float
    beta_from: float
    beta_q: float
    logit_low: float
    logit_high: float


def _unstable_logits(a: float, eps: float) -> tuple[float, float] | None:
    """The interval (z1, z2) = {z in (a, 0): Q_a(z) > 1}, one interval since log Q_a is concave; None if empty."""
    if a >= 0:
        return None
    res = minimize_scalar(
        lambda z: -np.log(_stability_ratio(z, a, eps)), bounds=(a, 0.0), method="bounded", options={"xatol": _MAX_XATOL}
    )
    z_max = float(res.x)
    if not _stability_ratio(z_max, a, eps) > 1.0:
        return None

    def excess(z: float) -> float:
        return _stability_ratio(z, a, eps) - 1.0  # -1 at both ends: Q_a(a) = 0, Q_a(0) = 0 (B(0) = 0)

    z1 = brentq(excess, a, z_max, xtol=_XTOL, rtol=_RTOL)
    z2 = brentq(excess, z_max, 0.0, xtol=_XTOL, rtol=_RTOL)
    return float(z1), float(z2)


def prompt_beta_bound(p_ref: object, eps: object) -> PromptBetaBound:
    """The open interval of beta where the prompt's lowest fixed point is unstable, and its bound beta_q (Theorem 4).

    With z the lowest fixed point at beta = s(z)/(z - a), instability is Q_a(z) = B(z)(z - a)/s(z) > 1 (Lemma 1);
    {Q_a > 1} = (z1, z2) (log-concave Q_a, brentq on each side of its maximum) and beta runs down as z runs up, so the
    unstable betas are (B(z2), B(z1)). Prompts with p_ref >= 1/2 never have one (beta_q = 0).
    """
    p_ref = check_scalar("p_ref", check_p_ref(p_ref))
    eps = _scalar_eps(eps)
    span = _unstable_logits(float(logit(p_ref)), eps)
    if span is None:
        nan = float("nan")
        return PromptBetaBound(p_ref, eps, nan, 0.0, nan, nan)
    z1, z2 = span
    return PromptBetaBound(p_ref, eps, _bound(z2, eps), _bound(z1, eps), z1, z2)


@dataclass(frozen=True)
class UnstablePrompts:
    """At one beta, the prompts whose lowest fixed point is unstable: the open interval (p_from, p_up) of p_ref
    (Remark 2, Lemma 1), empty (p_from = p_up = 0) when beta >= max_p B(p).

    ``p_up`` is the largest such p_ref (always < 1/2); ``p_from`` the smallest (0 for eps = 0, where every harder
    prompt is unstable too). The logits are given as well (p_from underflows for small beta). ``fixed_point_logits``:
    the lowest fixed points of the two end prompts, the roots of B(z) = beta on z < 0 (neutral there).
    """

    beta: float
    eps: float
    p_from: float
    p_up: float
    logit_p_from: float
    logit_p_up: float
    fixed_point_logits: tuple[float, float]

    @property
    def empty(self) -> bool:
        """Whether no prompt's lowest fixed point is unstable at this beta."""
        return not self.logit_p_up > self.logit_p_from


def unstable_prompts(beta: object, eps: object) -> UnstablePrompts:
    """The prompts whose lowest fixed point is unstable at ``beta`` (Lemma 1's |h'(p*)| = B(p*)/beta > 1, Remark 2).

    The unstable lowest fixed points are {z < 0: B(z) > beta} = (z_a, z_b) (B unimodal on z <= 0; z_a = -inf for
    eps = 0), found by brentq, and a = z - s(z)/beta is increasing there, so the prompts form (a(z_a), a(z_b)).
    """
    beta = check_scalar("beta", check_beta(beta))
    eps = _scalar_eps(eps)
    z_peak = _peak_logit(eps)
    top = np.inf if eps == 0 else _bound(z_peak, eps)
    if not beta < top:
        nan = float("nan")
        return UnstablePrompts(beta, eps, 0.0, 0.0, -np.inf, -np.inf, (nan, nan))

    def excess(z: float) -> float:
        return _bound(z, eps) / beta - 1.0

    lower = z_peak if eps > 0 else -1.0
    while excess(lower) <= 0:  # eps = 0: B = |sinh(z/2)| grows without bound as z -> -inf
        lower *= 2.0
    z_b = float(brentq(excess, lower, 0.0, xtol=_XTOL, rtol=_RTOL))
    if eps == 0:
        z_a, a_from = -np.inf, -np.inf
    else:
        far = z_peak - 1.0
        while excess(far) >= 0:  # B ~ v/(2 eps^{3/2}) -> 0 as z -> -inf
            far = z_peak + 2.0 * (far - z_peak)
        z_a = float(brentq(excess, far, z_peak, xtol=_XTOL, rtol=_RTOL))
        a_from = _prompt_of(z_a, beta, eps)
    a_up = _prompt_of(z_b, beta, eps)
    return UnstablePrompts(beta, eps, float(expit(a_from)), float(expit(a_up)), a_from, a_up, (z_a, z_b))


@dataclass(frozen=True)
class PUpThreshold:
    """sup over beta of p_up(beta) (:func:`unstable_prompts`), at ``beta``; ``fixed_point_logit``: the neutral lowest
    fixed point of that prompt there. Every prompt with p_ref above ``p_up`` has a stable lowest fixed point at every
    beta > 0 (Remark 2: it needs no lower bound on beta)."""

    eps: float
    p_up: float
    logit_p_up: float
    beta: float
    fixed_point_logit: float


def p_up_threshold(eps: object) -> PUpThreshold:
    """max over beta of the largest p_ref whose lowest fixed point is unstable (Remark 2, Lemma 1, Theorem 4).

    Parametrised by the neutral fixed point z in (z_peak, 0) of the top prompt (beta = B(z)), the prompt is
    a(z) = z - s(z)/B(z); bounded Brent maximises it (for eps = 0, a = z - 2/|tanh(z/2)| is concave with its maximum at
    z = -2 asinh(1), beta = 1, p_ref = 0.01004). Above that p_ref no beta makes the lowest fixed point unstable.
    """
    eps = _scalar_eps(eps)
    z_peak = _peak_logit(eps)
    lower = z_peak if eps > 0 else -60.0

    def minus_prompt(z: float) -> float:
        return -(z - _step(z, 1.0, eps) / _bound(z, eps))

    res = minimize_scalar(minus_prompt, bounds=(lower, 0.0), method="bounded", options={"xatol": _MAX_XATOL})
    z = float(res.x)
    a = -float(res.fun)
    return PUpThreshold(eps, float(expit(a)), a, _bound(z, eps), z)


@dataclass(frozen=True)
class SafeBetas:
    """The betas in [beta_min, beta_max] at which some prompt with p_ref in [p_lo, p_hi] has an unstable lowest fixed
    point (Remark 2 with Theorem 4 and Lemma 1), and their complement, the betas safe for every prompt at once.

    ``unsafe``: open intervals (at most one; empty tuple if none) clipped to [beta_min, beta_max]; ``safe``: the closed
    intervals of their complement there. ``beta_lower``, ``beta_upper``: the unclipped ends of the unsafe interval over
    all beta > 0 (NaN if empty); ``p_ref_lower`` = p_lo, the prompt that is unstable just above beta_lower, and
    ``p_ref_upper``, the prompt that is unstable just below beta_upper (its bound beta_q is beta_upper).
    ``fixed_point_logits``: the interval (z1, z2) of lowest fixed points that are unstable for some prompt in range
    at some beta (NaN if none).
    """

    eps: float
    p_lo: float
    p_hi: float
    beta_min: float
    beta_max: float
    unsafe: tuple[tuple[float, float], ...]
    safe: tuple[tuple[float, float], ...]
    beta_lower: float
    beta_upper: float
    p_ref_lower: float
    p_ref_upper: float
    fixed_point_logits: tuple[float, float]


def _upper_end(z1: float, z2: float, a_hi: float, eps: float) -> tuple[float, float]:
    """max over z in [z1, z2] of min(B(z), s(z)/(z - a_hi)) and its argmax (the cap keeps the prompt <= p_hi)."""
    if a_hi >= 0:  # every z < 0 belongs to a prompt below 1/2 <= p_hi: the max of unimodal B, clipped to [z1, z2]
        z = float(np.clip(_peak_logit(eps), z1, z2))
        return _bound(z, eps), z

    def capped(z: float) -> float:
        cap = _step(z, 1.0, eps) / (z - a_hi) if z > a_hi else np.inf
        return min(_bound(z, eps), cap)

    res = minimize_scalar(lambda z: -capped(z), bounds=(z1, z2), method="bounded", options={"xatol": _MAX_XATOL})
    z = max((z1, float(res.x), z2), key=capped)
    return capped(z), z


def safe_betas(
    eps: object,
    *,
    p_lo: float = 1e-12,
    p_hi: float = 0.5,
    beta_min: float = 1e-3,
    beta_max: float = 1e3,
) -> SafeBetas:
    """The betas for which some prompt in [p_lo, p_hi] has an unstable lowest fixed point, and the safe rest (Remark 2).

    At (z, beta) the prompt is a = z - s(z)/beta; z < 0 is its lowest fixed point, unstable iff beta < B(z) (Lemma 1).
    The prompt lies in range iff beta >= L(z) = s(z)/(z - a_lo) and, for z > a_hi, beta <= s(z)/(z - a_hi). So z
    serves some beta iff L(z) < B(z), i.e. Q_{a_lo}(z) > 1: the interval (z1, z2) of p_lo's own unstable fixed points
    (:func:`prompt_beta_bound`). L decreases in z and every such z gives a non-empty interval of beta, so their union is
    one open interval (L(z2), max_z min(B, s/(z - a_hi))) = (B(z2), ...): the lower end is p_lo's own beta_from, the
    upper end max_p B(p) (:func:`supremum_bound`) when its prompt lies in range, else the bound of an end prompt.
    """
    eps = _scalar_eps(eps)
    p_lo, p_hi = check_ordered_pair(("p_lo", "p_hi"), p_lo, p_hi, floor=0.0, ceiling=1.0)
    beta_min, beta_max = check_ordered_pair(("beta_min", "beta_max"), beta_min, beta_max, floor=0.0, ceiling=np.inf)
    a_lo, a_hi = float(logit(p_lo)), float(logit(p_hi))
    span = _unstable_logits(a_lo, eps)
    nan = float("nan")
    if span is None:
        return SafeBetas(
            eps, p_lo, p_hi, beta_min, beta_max, (), ((beta_min, beta_max),), nan, nan, nan, nan, (nan, nan)
        )
    z1, z2 = span
    lower = _bound(z2, eps)
    upper, z_top = _upper_end(z1, z2, a_hi, eps)
    p_ref_upper = float(np.clip(expit(_prompt_of(z_top, upper, eps)), p_lo, p_hi))
    unsafe: tuple[tuple[float, float], ...] = ()
    safe: tuple[tuple[float, float], ...] = ((beta_min, beta_max),)
    if lower < beta_max and upper > beta_min:
        unsafe = ((max(lower, beta_min), min(upper, beta_max)),)
        safe = tuple((lo, hi) for lo, hi in ((beta_min, lower), (upper, beta_max)) if lo <= hi)
    return SafeBetas(eps, p_lo, p_hi, beta_min, beta_max, unsafe, safe, lower, upper, p_lo, p_ref_upper, (z1, z2))
