"""The first erratum of Mroueh (2025) v1, in the abstract, §1 (contribution 3) and §6: the success probability
does not always converge to a fixed point; and the two remarks on orbits the appendix makes beside the table (the
"divergent" run of §4 is a 2-cycle, p_ref = 0 is absorbing).

:func:`threshold_reading_check` reads :func:`p_c_prediction` from this module and :func:`stable_two_cycle` reads
h' (:func:`~grpo_nb.dynamics.map.h_prime`) from it, so a test can replace either.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from grpo_nb.constants import PAPER_EPS
from grpo_nb.dynamics.chaos_region import twin_orbit_growth
from grpo_nb.dynamics.cycle_geometry import flip_interval, no_cycle_threshold
from grpo_nb.dynamics.fixed_points import fixed_points
from grpo_nb.dynamics.map import h, h_prime, iterate_logit
from grpo_nb.dynamics.orbits import attractor, orbit_kind
from grpo_nb.symbolic.errata_rows.record import Erratum, _all, _numeric
from grpo_nb.symbolic.expressions import eq9_ratio
from grpo_nb.symbolic.identity import Identity

__all__ = [
    "CONVERGENCE_CASES",
    "absorbing_p_ref_check",
    "divergent_remark",
    "orbit_converges",
    "p_c_prediction",
    "rows",
    "stable_two_cycle",
    "threshold_reading_check",
]


def orbit_converges(p_ref: float, beta: float, eps: float, *, n: int = 4000, tail: int = 200) -> bool:
    """Whether the orbit of Eq. (8) from p_ref has settled: its last ``tail`` logit steps are all below 1e-8."""
    z = iterate_logit(p_ref, beta, eps, n=n)
    return bool(np.max(np.abs(np.diff(z[-tail:]))) < 1e-8 * max(1.0, float(np.abs(z[-1]))))


def stable_two_cycle(p_ref: float, beta: float, eps: float) -> Identity:
    """Whether the orbit of Eq. (8) from p_ref settles on a stable 2-cycle {a, b}: :func:`orbit_kind` finds period 2,
    h(h(a)) = a and h(a) = b within 1e-9 (relative), a != b, and the cycle's multiplier h'(a) h'(b) (Proposition 1's
    h') lies in (-1, 1). ``notes`` gives the cycle and its multiplier."""
    kind = orbit_kind(p_ref, beta, eps)
    name = f"beta = {beta:g}, p_ref = {p_ref:g}, eps = {eps:g}: a stable 2-cycle (|multiplier| < 1)"
    if kind.kind != "cycle" or kind.period != 2:
        return _numeric(name, np.inf, 1.0, False, relation="<", notes=f"the orbit's kind is {kind.kind}")
    lo, hi = attractor(p_ref, beta, eps)
    back = float(h(float(h(lo, p_ref, beta, eps)), p_ref, beta, eps))
    image = float(h(lo, p_ref, beta, eps))
    closed = abs(back - lo) <= 1e-9 * lo and abs(image - hi) <= 1e-9 * hi and hi > lo * (1 + 1e-6)
    multiplier = float(h_prime(lo, p_ref, beta, eps) * h_prime(hi, p_ref, beta, eps))
    notes = f"the orbit alternates between p = {lo:.4f} and {hi:.3f}, multiplier h'(a) h'(b) = {multiplier:.2f}"
    return _numeric(name, abs(multiplier), 1.0, closed and abs(multiplier) < 1, relation="<", notes=notes)


def p_c_prediction(p_ref: float, beta: float, eps: float) -> bool | None:
    """What the no-cycle threshold p_c(beta, eps) = sigmoid(-1/(beta sqrt(1/4 + eps))) predicts for the orbit of Eq. (8)
    from p_ref: convergence (True) when p_ref >= p_c, and nothing (None) below it, where p_c is no longer sufficient
    (it is not necessary: most prompts below p_c converge too)."""
    return True if p_ref >= float(no_cycle_threshold(beta, eps)) else None


def _convergence_cases() -> tuple[tuple[float, float, float], ...]:
    """The (p_ref, beta, eps) on which :func:`threshold_reading_check` tests the threshold's reading: p_ref = 0.2 and
    0.45 on a beta grid from 0.05 to 50, p_ref = p_c itself at beta = 5, the two counterexamples to convergence, and
    prompts 10% below and above the first doubling threshold p_up(5, 1e-5)."""
    eps, p_up = PAPER_EPS, flip_interval(5.0, PAPER_EPS)[1]
    grid = [(p, float(b), eps) for p in (0.2, 0.45) for b in np.geomspace(0.05, 50.0, 13)]
    edge = [(float(no_cycle_threshold(5.0, eps)), 5.0, eps), (1e-3, 5.0, eps), (1e-4, 5.2, eps)]
    return (*grid, *edge, (0.9 * p_up, 5.0, eps), (1.1 * p_up, 5.0, eps))


CONVERGENCE_CASES = _convergence_cases()


def threshold_reading_check() -> Identity:
    """The orbit from p_ref on every case of :data:`CONVERGENCE_CASES` against :func:`p_c_prediction` (read from this
    module, so a test can replace it): holds when every prediction made is right (convergence = the orbit settles on a
    fixed point, :func:`grpo_nb.dynamics.orbits.orbit_kind`). Reading p_c as necessary as well fails at p_ref = 0.2,
    beta = 5, which converges although 0.2 < p_c(5, 1e-5) = 0.40."""
    made = wrong = 0
    for case in CONVERGENCE_CASES:
        prediction = p_c_prediction(*case)
        if prediction is not None:
            made += 1
            wrong += prediction != (orbit_kind(*case).kind == "fixed_point")
    return _numeric(
        f"p_c's reading on {len(CONVERGENCE_CASES)} orbits: wrong predictions (of {made} made)",
        wrong,
        0,
        wrong == 0 and made > 0,
    )


#: The counterexamples to convergence, as (p_ref, beta, eps): the paper's own Fig. 5 run (a 2-cycle), a stable
#: 2-cycle at beta = 3, and a chaotic orbit.
_FIG5_CYCLE, _BETA3_CYCLE, _CHAOS = (1e-3, 5.0, PAPER_EPS), (1e-3, 3.0, PAPER_EPS), (1e-4, 5.2, PAPER_EPS)


def _counterexample_checks(stable: Identity) -> list[Identity]:
    """The counterexamples, checked: the Fig. 5 run settles on a 2-cycle, ``stable`` (the check of the beta = 3
    cycle, :func:`stable_two_cycle`), and twin orbits of the chaotic example 1e-10 apart separate to 1e-3 or more."""
    kind_cycle, kind_chaos = orbit_kind(*_FIG5_CYCLE), orbit_kind(*_CHAOS)
    twin = float(twin_orbit_growth(*_CHAOS))
    return [
        _numeric(
            "beta = 5, p_ref = 1e-3: period of the limit cycle",
            kind_cycle.period or 0,
            2,
            kind_cycle.kind == "cycle" and kind_cycle.period == 2,
        ),
        stable,
        _numeric(
            "beta = 5.2, p_ref = 1e-4: twin orbits 1e-10 apart separate to",
            twin,
            1e-3,
            kind_chaos.kind == "chaotic" and twin >= 1e-3,
            relation=">=",
        ),
    ]


def _threshold_checks(p_c: float, p_up: float) -> list[Identity]:
    """The no-cycle threshold ``p_c`` = p_c(5, 1e-5) is sufficient, not necessary: every prediction it makes is right
    (:func:`threshold_reading_check`), p_ref = 0.2 < p_c converges at beta = 5, and there the cycles need p_ref below
    the first doubling threshold ``p_up`` (10% below it a 2-cycle, 10% above a fixed point)."""
    eps = PAPER_EPS
    below, above = orbit_kind(0.9 * p_up, 5.0, eps), orbit_kind(1.1 * p_up, 5.0, eps)
    return [
        threshold_reading_check(),
        _numeric(
            "beta = 5: p_ref = 0.2 < p_c converges",
            0.2,
            p_c,
            0.2 < p_c and orbit_kind(0.2, 5.0, eps).kind == "fixed_point",
            relation="<",
        ),
        _numeric(
            "beta = 5: 0.9 p_up gives a 2-cycle, 1.1 p_up a fixed point",
            p_up,
            0.0,
            below.kind == "cycle" and below.period == 2 and above.kind == "fixed_point",
            relation=">",
        ),
    ]


def _convergence_claim() -> Erratum:
    p_c, p_up = float(no_cycle_threshold(5.0, PAPER_EPS)), flip_interval(5.0, PAPER_EPS)[1]
    examples = (_FIG5_CYCLE, _BETA3_CYCLE, _CHAOS)
    printed = _numeric(
        "the orbit from p_ref converges, at the two 2-cycles and at the chaotic example",
        sum(orbit_converges(*c) for c in examples),
        3,
        all(orbit_converges(*c) for c in examples),
    )
    stable = stable_two_cycle(*_BETA3_CYCLE)
    lo, hi = attractor(*_BETA3_CYCLE) if stable.holds else (np.nan, np.nan)
    corrected = _all(
        "counterexamples, p_c sufficient but not necessary, cycles below p_up",
        [*_counterexample_checks(stable), *_threshold_checks(p_c, p_up)],
    )
    return Erratum(
        "Abstract; §1, contribution (3); §6, Conclusion",
        "the recursion of the success probability converges to a fixed point (the abstract without condition; "
        "contribution (3) and the conclusion 'under mild assumptions')",
        "Theorem 4 is local: it needs p_ref near a fixed point with |h′(p*)| < 1. From p_0 = p_ref the orbit can "
        "settle on a 2-cycle (β = 5, p_ref = 10⁻³, ε = 10⁻⁵: the paper's own Fig. 5 run; "
        f"β = 3: a stable 2-cycle between p = {lo:.3f} and {hi:.2f}) or be chaotic (β = 5.2, p_ref = 10⁻⁴). "
        "p_ref ≥ p_c(β, ε) = σ(−1/(β√(1/4+ε))) is sufficient for convergence, not "
        f"necessary: at β = 5, ε = 10⁻⁵, p_c = {p_c:.2f}, yet p_ref = 0.2 converges; cycles there need "
        f"p_ref < p_up = {p_up:.3g}",
        "statement",
        corrected,
        printed,
        "hard_prompts",
    )


def divergent_remark() -> Identity:
    """The paper's "divergent" run (beta = 5, p_ref = 0.001, eps = 1e-5) does not converge, so "divergent" is right;
    more precisely its orbit settles on a 2-cycle around an unstable fixed point (slope below -1)."""
    kind = orbit_kind(0.001, 5.0, PAPER_EPS)
    lowest = fixed_points(0.001, 5.0, PAPER_EPS)[0]
    two_cycle = kind.kind == "cycle" and kind.period == 2 and lowest.slope < -1
    check = Identity(
        name="beta = 5, p_ref = 0.001, eps = 1e-5: the orbit is a 2-cycle around an unstable fixed point",
        lhs=sp.Symbol(kind.kind),
        rhs=sp.Integer(kind.period or 0),
        holds=two_cycle and not orbit_converges(0.001, 5.0, PAPER_EPS),
        relation="period",
        notes=f"lowest fixed point p* = {lowest.p:.4f} with h'(p*) = {lowest.slope:.3f}; the orbit does not converge",
    )
    return check


def absorbing_p_ref_check(p_ref: sp.Expr) -> Identity:
    """Eq. (9), the success mass of Theorem 1's policy (:func:`grpo_nb.symbolic.expressions.eq9_ratio`, defined at
    p_ref = 0 where the logistic form of h is not), at the given ``p_ref``: holds when it is 0 for every p, so the
    orbit from p_0 = p_ref = 0 stays at 0 and its only fixed point is p_ref itself (no amplification)."""
    value = sp.simplify(eq9_ratio(p_ref=sp.sympify(p_ref)))
    return Identity(
        name=f"Eq. (9) at p_ref = {p_ref}: h(p) = 0 for every p",
        lhs=value,
        rhs=sp.Integer(0),
        holds=bool(value == 0),
        residual=value,
    )


def rows() -> list[Erratum]:
    """The row of the abstract, §1 and §6: the claim that the success probability converges."""
    return [_convergence_claim()]
