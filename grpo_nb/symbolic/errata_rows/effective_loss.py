"""The errata of §2 to §2.2 of Mroueh (2025) v1, the objective: the clip range of GRPO-Clip (§2), the display
after "conditioning on q" (§2.1) and the smoothed advantage of Eq. (3) (§2.2).

Each formula row derives its side from the paper's starting point (the old policy's reward statistics on a finite
outcome set, the Bernoulli statistics of Eq. 3) and compares both the printed and the corrected formula with it.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from grpo_nb.clipping import clipped_term
from grpo_nb.constants import CLIP_EPS
from grpo_nb.symbolic.errata_rows.record import Erratum, _all, _any, _numeric
from grpo_nb.symbolic.expressions import CLIP, EPS, P, advantage, reward_mean, reward_variance
from grpo_nb.symbolic.identity import Identity, check_equal, check_on_open_unit

__all__ = [
    "EQ3_PRINTED_READINGS",
    "eq3_printed_check",
    "eq3_weights_check",
    "rows",
    "section21_display_check",
    "section21_numeric_gap",
    "unclipped_deviation",
]


def unclipped_deviation(clip_eps: object) -> float:
    """max |f_eps(x, A) - x A| over x in [0, 5] (shape (501, 1)) and four advantages; ``clip_eps`` is a number or
    a function of x."""
    x = np.linspace(0.0, 5.0, 501)[:, None]
    adv = np.array([-1.0, -0.3, 0.4, 1.0])[None, :]
    clip = clip_eps(x) if callable(clip_eps) else clip_eps
    return float(np.max(np.abs(clipped_term(x, adv, clip) - x * adv)))


def _clip_range() -> Erratum:
    at_one = unclipped_deviation(1.0)
    wide = unclipped_deviation(lambda x: np.abs(x - 1.0))
    limit = unclipped_deviation(np.inf)
    printed = _numeric("max |f_1(x, A) - x A| (eps = 1, the top of [0, 1])", at_one, 0.0, at_one < 1e-12)
    corrected = _numeric(
        "max |f_eps(x, A) - x A| for eps >= |x - 1| and eps = inf",
        max(wide, limit),
        0.0,
        wide < 1e-12 and limit < 1e-12,
    )
    return Erratum(
        "§2, GRPO-Clip and §2.3",
        "ϵ ∈ [0, 1] in f_ϵ, then 'without the clipping (ϵ → +∞)'",
        "the unclipped objective is the limit ϵ → ∞, outside the stated range: at ϵ = 1 the upper clip still "
        "binds (f_1(3, A) = 2A for A > 0), while f_ϵ(x, A) = xA once ϵ ≥ |x − 1|. The range is ϵ ≥ 0",
        "statement",
        corrected,
        printed,
        "effective_loss",
    )


def section21_display_check(conditional: bool) -> Identity:
    """§2.1, the last line of the display after "conditioning on q", derived on a finite outcome set: an old policy
    with success mass p spread over two outcomes (free positive weights a_i) and 1 - p over two (b_j), rewards 1, 1,
    0, 0, and per-outcome clipped ratios m_i > 0 (min(x_i, 1 + epsilon) on a success, max(x_i, 1 - epsilon) on a
    failure, §2.1's case form). The left side, E_old[f(x, A)] = sum_i pi_old,i A(r_i) m_i with A from the old
    policy's reward statistics (no smoothing), against the display: sqrt((1-p)/p) E[m 1_{r=1}] -
    sqrt(p/(1-p)) E[m 1_{r=0}] (``conditional=False``), or with each expectation read as conditional on the
    reward, E[m | r=1] = E[m 1_{r=1}]/p and E[m | r=0] = E[m 1_{r=0}]/(1-p) (``conditional=True``)."""
    a, b = sp.symbols("a_1:3", positive=True), sp.symbols("b_1:3", positive=True)
    old = [P * x / sum(a) for x in a] + [(1 - P) * x / sum(b) for x in b]
    m, rewards = sp.symbols("m_1:5", positive=True), [1, 1, 0, 0]
    mean = sp.cancel(sum(o * r for o, r in zip(old, rewards, strict=True)))
    var = sp.factor(sp.cancel(sum(o * (r - mean) ** 2 for o, r in zip(old, rewards, strict=True))))
    lhs = sum(o * advantage(r, mean, var, eps=0) * x for o, r, x in zip(old, rewards, m, strict=True))
    success, failure = old[0] * m[0] + old[1] * m[1], old[2] * m[2] + old[3] * m[3]
    if conditional:
        success, failure = success / P, failure / (1 - P)
    rhs = sp.sqrt((1 - P) / P) * success - sp.sqrt(P / (1 - P)) * failure
    reading = "E[m | r]" if conditional else "E[m 1_{r}]"
    return check_on_open_unit(f"E_old[f(x, A)] derived = the display read as {reading}", lhs, rhs, p=P)


def section21_numeric_gap(clip_eps: float = CLIP_EPS, *, n_cases: int = 50, seed: int = 0) -> float:
    """The same display with the clip itself: the largest |E_old[f_eps(x, A)] - (sqrt((1-p)/p) E[min(x, 1+eps)
    1_{r=1}] - sqrt(p/(1-p)) E[max(x, 1-eps) 1_{r=0}])| over ``n_cases`` random old and new policies on six
    outcomes (three successes), f_eps from :func:`grpo_nb.clipping.clipped_term`, exact expectations."""
    rng, gap = np.random.default_rng(seed), 0.0
    success = np.array([True, True, True, False, False, False])
    for _ in range(n_cases):
        old, new = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
        x, p = new / old, old[success].sum()
        adv = np.where(success, np.sqrt((1 - p) / p), -np.sqrt(p / (1 - p)))
        lhs = float(np.sum(old * clipped_term(x, adv, clip_eps)))
        up = np.sum(old * np.minimum(x, 1 + clip_eps) * success)
        down = np.sum(old * np.maximum(x, 1 - clip_eps) * ~success)
        gap = max(gap, abs(lhs - (np.sqrt((1 - p) / p) * up - np.sqrt(p / (1 - p)) * down)))
    return gap


def _section21_conditional() -> Erratum:
    gap = section21_numeric_gap()
    corrected = _all(
        "the display with the indicators inside the expectations",
        [
            section21_display_check(conditional=False),
            _numeric("50 random policies, clip 0.2: largest gap to E_old[f_eps(x, A)]", gap, 1e-12, gap < 1e-12,
                     relation="<"),
        ],
    )  # fmt: skip
    return Erratum(
        "§2.1, last line of the display after 'conditioning on q'",
        "√((1−p)/p) E[min(x, 1+ϵ)] − √(p/(1−p)) E[max(x, 1−ϵ)], each E over o ∼ π_old with r(q, o) = 1 "
        "(resp. 0) written under it, one line after E[f_ϵ(x, A) 1_{r=1}] + E[f_ϵ(x, A) 1_{r=0}]",
        "E[min(x, 1+ϵ) 1_{r=1}] and E[max(x, 1−ϵ) 1_{r=0}] over o ∼ π_old, as the line before and the next display "
        "have them. Read as conditional expectations, the usual meaning of a condition under E, the printed line "
        "drops the factors p and 1−p: E[X 1_{r=1}] = p E[X | r = 1]",
        "formula",
        corrected,
        section21_display_check(conditional=True),
        "effective_loss",
    )


def eq3_weights_check(success: sp.Expr, failure: sp.Expr, label: str) -> Identity:
    """Eq. (3) of §2.2: the smoothed advantage (r - mu)/sqrt(sigma^2 + eps) with mu, sigma^2 the Bernoulli(p)
    statistics (computed by sympy.stats, not typed), derived at r = 1 and r = 0 and compared with a claimed pair
    ``success``, ``failure`` (typed formulas in p and eps); ``label`` names the claimed pair."""
    derived = [advantage(sp.Integer(r), reward_mean(P), reward_variance(P)) for r in (1, 0)]
    return _all(
        f"Eq. (3) derived from the Bernoulli statistics equals {label}",
        [
            check_equal(f"A(r=1) derived = {label}", derived[0], success),
            check_equal(f"A(r=0) derived = {label}", derived[1], failure),
        ],
    )


#: The denominators that Eq. (3) as printed, sqrt(p(1-p)) + epsilon, can be read as: the clip's letter (CLIP) or the
#: smoothing's (EPS), outside the root, and the clip's letter inside it (a lost brace).
EQ3_PRINTED_READINGS: dict[str, sp.Expr] = {
    "clip's epsilon outside the root": sp.sqrt(P * (1 - P)) + CLIP,
    "smoothing eps outside the root": sp.sqrt(P * (1 - P)) + EPS,
    "clip's epsilon inside the root": sp.sqrt(P * (1 - P) + CLIP),
}


def eq3_printed_check(readings: dict[str, sp.Expr] | None = None) -> Identity:
    """Eq. (3) as printed, under each reading of its denominator (default :data:`EQ3_PRINTED_READINGS`), against the
    advantage derived from the Bernoulli statistics (:func:`eq3_weights_check`): holds when some reading matches."""
    readings = EQ3_PRINTED_READINGS if readings is None else readings
    return _any(
        "Eq. (3) as printed, under some reading of its symbol, equals the derived advantage",
        [eq3_weights_check((1 - P) / d, -P / d, label) for label, d in readings.items()],
    )


def _eq3() -> Erratum:
    root = sp.sqrt(P * (1 - P) + EPS)  # the corrected pair, typed as the line above Eq. (3) has it
    corrected = eq3_weights_check((1 - P) / root, -P / root, "(1-p)/sqrt(p(1-p)+eps), -p/sqrt(p(1-p)+eps)")
    return Erratum(
        "Eq. (3), §2.2",
        "A = (1−p)/(√(p(1−p)) + ϵ) and −p/(√(p(1−p)) + ϵ): ε outside the root, and set in ϵ, the letter of the "
        "clip f_ϵ of §2 (the only place where the two letters are mixed)",
        "A = (1−p)/√(p(1−p)+ε) and −p/√(p(1−p)+ε), with §2.2's smoothing ε inside the root, as the line above and "
        "Eq. (4) have it. The printed pair fails with either letter outside the root, and with ϵ inside it",
        "formula",
        corrected,
        eq3_printed_check(),
        "stabilised_grpo",
        extraction=True,  # a brace lost around p(1−p)+ε would print the same text, and ϵ/ε is one glyph pair
    )


def rows() -> list[Erratum]:
    """The rows of §2 to §2.2, in the paper's order: the clip range (§2), the display of §2.1, Eq. (3)."""
    return [_clip_range(), _section21_conditional(), _eq3()]
