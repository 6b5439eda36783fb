"""Theorem 3 of Mroueh (2025) (§4, App. B), amplification: every fixed point of h lies above p_ref. Its two cases
step by step (p_ref <= 1/2; p_ref > 1/2 under condition (2)), the derivative of xi(p) = cosh^2(b(p)/(2 beta)) that
the second case uses, and the short proof without condition (2): logit p* - logit p_ref = 1/(beta sqrt(V(p*))) > 0,
symbolic and on a grid of fixed points.

Notation: f(p) = h(p) - p, V(p) = p(1-p) + eps, a(p_ref) = log(p_ref/(1-p_ref)), b(p) = 1/sqrt(V(p)),
z(p) = a(p_ref) + b(p)/beta, so h = sigma(z).
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy.special import logit

from grpo_nb.constants import PAPER_EPS
from grpo_nb.dynamics.fixed_points import fixed_points_grid
from grpo_nb.dynamics.map import h as h_num
from grpo_nb.dynamics.map import h_prime as h_prime_num
from grpo_nb.dynamics.paper_bounds import theorem3_condition
from grpo_nb.symbolic import expressions as ex
from grpo_nb.symbolic.amplification.lemmas import fixed_point_reference, lemma2_f_at_pref, lemma4_cosh_pref
from grpo_nb.symbolic.amplification.steps import (
    _HALF,
    _S,
    Claimed,
    _exp_check,
    _grid_identity,
    _is_positive,
    _unclaimed,
)
from grpo_nb.symbolic.expressions import BETA, EPS, OPEN_UNIT_SUBS, P_REF, P_STAR, P, sigmoid
from grpo_nb.symbolic.identity import Identity, check_equal, check_sign, claims
from grpo_nb.symbolic.policy_dynamics import proposition1_sign

__all__ = [
    "theorem3_amplification_without_condition",
    "theorem3_case_high_pref",
    "theorem3_case_low_pref",
    "theorem3_fixed_point_logit_gap",
    "theorem3_xi_derivative",
]


# --------------------------------------------------------------------------------------------
# Theorem 3
# --------------------------------------------------------------------------------------------


def theorem3_case_low_pref(n_grid: int = 41, claimed: Claimed = None) -> list[Identity]:
    """Theorem 3 (1), p_ref <= 1/2: f' = h' - 1 < 0 on (0, 1/2), f(0) = h(0) > 0 (printed: f(0) = 1), f(p_ref) > 0,
    so f > 0 on [0, p_ref] and every zero of f (a fixed point) lies above p_ref.

    Symbolic: h' = (2p-1) c(p) with c > 0 (Prop. 1), hence f' < -1 < 0 for p < 1/2; h(0) derived from h is
    1/(1 + (1-p_ref)/p_ref e^{-1/(beta sqrt eps)}) (claim ``h_at_0``), which lies in (0, 1).
    Numeric: min of f over [0, p_ref] on a grid of p_ref in (0, 1/2], beta in [1e-2, 1e2], eps in {1e-5, 1e-2},
    checked strictly > 0.
    """
    c = claims(claimed, {"h_at_0": 1 / (1 + (1 - P_REF) / P_REF * sp.exp(-1 / (BETA * sp.sqrt(EPS))))}, main="h_at_0")
    sign = proposition1_sign()
    f0 = sp.simplify(ex.h_expr(p=sp.Integer(0)))
    f0_form = check_equal("f(0) = h(0)", f0, c["h_at_0"], claim="h_at_0")
    p_ref = np.linspace(1e-3, 0.5, n_grid)
    beta = np.logspace(-2, 2, n_grid)
    worst = np.inf
    for eps in (PAPER_EPS, 1e-2):
        pr, be = np.meshgrid(p_ref, beta, indexing="ij")
        s = np.linspace(0.0, 1.0, 201)[:, None, None]
        p = s * pr
        f = np.asarray(h_num(p, pr, be, eps)) - p
        worst = min(worst, float(np.min(f)))
    return [
        Identity(
            name="f'(p) = h'(p) - 1 < 0 on (0, 1/2)",
            lhs=sp.diff(ex.h_expr(), P) - 1,
            rhs=sp.Integer(0),
            holds=all(i.holds for i in sign),
            relation="<",
            notes="h' = (2p-1)c(p) with c > 0 (Proposition 1), negative for p < 1/2.",
        ),
        Identity(
            name="f(0) = h(0), with 0 < h(0) < 1",
            lhs=f0,
            rhs=sp.Integer(0),
            holds=f0_form.holds and _is_positive(c["h_at_0"]) and _is_positive(1 - c["h_at_0"]),
            relation=">",
            notes="The proof prints f(0) = 1; in fact h(0) = 1/(1 + (1-p_ref)/p_ref e^{-1/(beta sqrt eps)}) < 1.",
            extra={"claim": "h_at_0", "claimed": c["h_at_0"]},
        ),
        _unclaimed(lemma2_f_at_pref()),
        _grid_identity(
            "min of f on [0, p_ref] over the grid (p_ref <= 1/2) is > 0",
            worst,
            f"p_ref in [1e-3, 0.5] x beta in [1e-2, 1e2] ({n_grid}x{n_grid}), eps in {{1e-5, 1e-2}}, "
            "201 points per interval.",
            strict=True,
        ),
    ]


def theorem3_xi_derivative(claimed: Claimed = None) -> Identity:
    """Theorem 3's proof: xi(p) = cosh^2(b(p)/(2beta)) has xi'(p) = (2p-1) sinh(b(p)/beta) / (4 beta V(p)^{3/2})
    (claim ``xi_prime``), b = 1/sqrt(V) with V the smoothed Bernoulli variance."""
    v = P * (1 - P) + EPS
    b_printed = 1 / sp.sqrt(v)
    c = claims(
        claimed,
        {"xi_prime": (2 * P - 1) * sp.sinh(b_printed / BETA) / (4 * BETA * v ** sp.Rational(3, 2))},
        main="xi_prime",
    )
    xi = sp.cosh(1 / (2 * BETA * sp.sqrt(ex.variance_term()))) ** 2
    ident = _exp_check("", sp.diff(xi, P), c["xi_prime"], "xi_prime")
    return Identity(
        **{**ident.__dict__, "name": "Theorem 3 proof: xi'(p) = (2p-1) sinh(b(p)/beta) / (4 beta (p(1-p)+eps)^{3/2})"}
    )


def theorem3_case_high_pref(n_grid: int = 31, claimed: Claimed = None, bound_scale: float = 1.0) -> list[Identity]:
    """Theorem 3 (2), p_ref > 1/2, step by step.

    Symbolic steps (each derived by sympy, compared with the printed form):
    h(1/2) > p_ref: odds h(1/2) / odds p_ref = e^{2/(beta sqrt(1+4eps))} (claim ``half_odds``);
    f' = sigma(z)(1-sigma(z))(2p-1)/(2 beta V^{3/2}) - 1 with z = a + b/beta (claim ``f_prime``); b(p) > 0;
    d/dp[(2p-1)/(2 beta V^{3/2})] = (2V + 3/2 (2p-1)^2)/(2 beta V^{5/2}) > 0 (claim ``g_prime``);
    Lemma 3 (2)'s bound 1/(4 cosh^2(a/2) cosh^2(b/(2beta))) with a = log(p_ref/(1-p_ref)) equals
    p_ref(1-p_ref)/cosh^2(b/(2beta)) (claim ``bound_step``);
    xi' (see :func:`theorem3_xi_derivative`); xi's only critical point in (0, 1) is p = 1/2, where
    xi = cosh^2(1/(2 beta sqrt(1/4 + eps))) (claim ``xi_half``), and xi' > 0 above it, so xi(p) >= xi(1/2).
    Numeric steps (grid of p_ref in (1/2, 1), beta in [1e-2, 1e2], eps in {1e-5, 1e-2}, p in (1/2, p_ref]):
    h'(p) <= the final bound of the proof (times ``bound_scale``); and where condition (2) holds, f'(p) <= 0 there.
    """
    c = _high_pref_claims(claimed)
    odds_and_slope = _high_pref_slope_steps(c)
    bound_step = _high_pref_bound_step(c)
    xi_half = _xi_minimum_at_half(c)
    worst_bound, worst_sign, n_cond = _high_pref_grid_margins(n_grid, bound_scale)
    return [
        *odds_and_slope,
        _unclaimed(lemma4_cosh_pref()[-1]),
        bound_step,
        _unclaimed(theorem3_xi_derivative()),
        xi_half,
        _grid_identity(
            "h'(p) <= the proof's final bound for p in (1/2, p_ref]",
            worst_bound,
            f"p_ref in [0.51, 0.999] x beta in [1e-2, 1e2] ({n_grid}x{n_grid}), eps in {{1e-5, 1e-2}}, 101 p each; "
            "margin (B - h'(p))/B relative to the bound B = f'-bound + 1, rounding tolerance 1e-12.",
            tol=1e-12,
        ),
        _grid_identity(
            "where condition (2) holds, f'(p) <= 0 on (1/2, p_ref]",
            worst_sign,
            f"{n_cond} grid points satisfy condition (2).",
            n_condition=n_cond,
        ),
    ]


def _high_pref_claims(claimed: Claimed) -> dict[str, sp.Expr]:
    """The formulas the proof of Theorem 3 (2) prints, typed (V = p(1-p) + eps, b = 1/sqrt(V), a = logit p_ref,
    z = a + b/beta), each replaced by ``claimed``'s entry of the same key."""
    v = P * (1 - P) + EPS
    b_printed = 1 / sp.sqrt(v)
    z_printed = sp.log(P_REF / (1 - P_REF)) + b_printed / BETA
    v32 = v ** sp.Rational(3, 2)
    return claims(
        claimed,
        {
            "half_odds": sp.exp(2 / (BETA * sp.sqrt(1 + 4 * EPS))),
            "f_prime": sigmoid(z_printed) * (1 - sigmoid(z_printed)) * (2 * P - 1) / (2 * BETA * v32) - 1,
            "g_prime": (2 * v + sp.Rational(3, 2) * (2 * P - 1) ** 2) / (2 * BETA * v ** sp.Rational(5, 2)),
            "bound_step": P_REF * (1 - P_REF) / sp.cosh(b_printed / (2 * BETA)) ** 2,
            "xi_half": sp.cosh(1 / (2 * BETA * sp.sqrt(sp.Rational(1, 4) + EPS))) ** 2,
        },
    )


def _high_pref_slope_steps(c: dict[str, sp.Expr]) -> list[Identity]:
    """The first steps of Theorem 3 (2), derived from h: the odds of h(1/2) over those of p_ref (claim
    ``half_odds``), f' in terms of sigma(z) (claim ``f_prime``), b(p) > 0, and the derivative of
    (2p-1)/(2 beta V^{3/2}) (claim ``g_prime``), positive."""
    h = ex.h_expr()
    b = 1 / sp.sqrt(ex.variance_term())
    odds = (h / (1 - h)).subs(P, _HALF) / (P_REF / (1 - P_REF))
    half_gap = check_equal(
        "odds h(1/2) / odds p_ref = exp(2/(beta sqrt(1+4 eps)))", odds, c["half_odds"], claim="half_odds"
    )
    f_prime = check_equal(
        "f'(p) = sigma(z)(1 - sigma(z)) (2p-1)/(2 beta V^{3/2}) - 1, z = a(p_ref) + b(p)/beta",
        sp.diff(h, P) - 1,
        c["f_prime"],
        claim="f_prime",
    )
    b_positive = Identity(
        name="b(p) = 1/sqrt(p(1-p)+eps) > 0", lhs=b, rhs=sp.Integer(0), holds=_is_positive(b), relation=">"
    )
    g = (2 * P - 1) / (2 * BETA * ex.variance_term() ** sp.Rational(3, 2))
    g_mono = check_equal(
        "d/dp (2p-1)/(2 beta V^{3/2}) = (2V + 3/2 (2p-1)^2)/(2 beta V^{5/2}) > 0",
        sp.diff(g, P),
        c["g_prime"],
        claim="g_prime",
    )
    g_mono = Identity(**{**g_mono.__dict__, "holds": g_mono.holds and _is_positive(c["g_prime"])})
    return [half_gap, f_prime, b_positive, g_mono]


def _high_pref_bound_step(c: dict[str, sp.Expr]) -> Identity:
    """Lemma 4 put into Lemma 3 (2)'s bound: 1/(4 cosh^2(a/2) cosh^2(b/(2 beta))) = p_ref(1-p_ref)/cosh^2(b/(2 beta))
    (claim ``bound_step``), decided on the open unit square and shown with the unsubstituted sides."""
    a = sp.log(P_REF / (1 - P_REF))
    b = 1 / sp.sqrt(ex.variance_term())
    lemma3_bound = 1 / (4 * sp.cosh(a / 2) ** 2 * sp.cosh(b / (2 * BETA)) ** 2)
    bound_step = _exp_check(
        "Lemma 4 in Lemma 3 (2)'s bound: 1/(4 cosh^2(a/2) cosh^2(b/(2beta))) = p_ref(1-p_ref)/cosh^2(b/(2beta))",
        lemma3_bound.subs(OPEN_UNIT_SUBS),
        c["bound_step"].subs(OPEN_UNIT_SUBS),
        "bound_step",
    )
    return Identity(**{**bound_step.__dict__, "lhs": lemma3_bound, "rhs": c["bound_step"]})


def _xi_minimum_at_half(c: dict[str, sp.Expr]) -> Identity:
    """xi(p) = cosh^2(b(p)/(2 beta)) is smallest at p = 1/2 on [1/2, 1): b's only critical point in (0, 1) is 1/2,
    where xi = cosh^2(1/(2 beta sqrt(1/4 + eps))) (claim ``xi_half``), and xi' > 0 for 1/2 < p < 1."""
    b = 1 / sp.sqrt(ex.variance_term())
    xi = sp.cosh(b / (2 * BETA)) ** 2
    critical = sp.FiniteSet(*[s for s in sp.solve(sp.diff(b, P), P) if s.is_positive and (1 - s).is_positive])
    xi_at = xi.subs(P, _HALF) if critical == sp.FiniteSet(_HALF) else sp.nan
    xi_rising = check_sign("xi'(p) > 0 for 1/2 < p < 1", sp.diff(xi, P).subs(P, (1 + _S / (1 + _S)) / 2), ">")
    xi_half = _exp_check("xi(p) >= xi(1/2) = cosh^2(1/(2 beta sqrt(1/4 + eps)))", xi_at, c["xi_half"], "xi_half")
    return Identity(
        **{
            **xi_half.__dict__,
            "holds": xi_half.holds and xi_rising.holds,
            "extra": {**xi_half.extra, "critical_points": critical},
        }
    )


def _high_pref_grid_margins(n_grid: int, bound_scale: float) -> tuple[float, float, int]:
    """On p_ref in [0.51, 0.999] x beta in [1e-2, 1e2] (``n_grid`` each), eps in {1e-5, 1e-2}, 101 p in
    (1/2, p_ref]: the smallest relative margin of h'(p) under the proof's final bound
    B = p_ref(1-p_ref)(2p_ref-1)/(2 V(p_ref)^{3/2} beta cosh^2(1/(2 beta sqrt(1/4+eps)))) (times ``bound_scale``),
    the smallest -f'(p) where condition (2) holds, and the number of grid points where it holds."""
    p_ref = np.linspace(0.51, 0.999, n_grid)
    beta = np.logspace(-2, 2, n_grid)
    worst_bound, worst_sign, n_cond = np.inf, np.inf, 0
    s = np.linspace(1e-6, 1.0, 101)[:, None, None]
    pr, be = np.meshgrid(p_ref, beta, indexing="ij")
    for eps in (PAPER_EPS, 1e-2):
        p = 0.5 + s * (pr - 0.5)
        fp = np.asarray(h_prime_num(p, pr, be, eps)) - 1.0
        cosh2 = np.cosh(np.minimum(1.0 / (2 * be * np.sqrt(0.25 + eps)), 700.0)) ** 2
        slope_bound = bound_scale * pr * (1 - pr) * (2 * pr - 1) / (2 * (pr * (1 - pr) + eps) ** 1.5) / (be * cosh2)
        worst_bound = min(worst_bound, float(np.min((slope_bound - (fp + 1.0)) / slope_bound)))
        cond = theorem3_condition(pr, be, eps)
        n_cond += int(cond.sum())
        if cond.any():
            worst_sign = min(worst_sign, float(np.min(-fp[:, cond])))
    return worst_bound, worst_sign, n_cond


def theorem3_fixed_point_logit_gap(claimed: Claimed = None) -> Identity:
    """The short proof that makes condition (2) unnecessary: sympy solves h(p*) = p* for p_ref and simplifies
    logit p* - logit p_ref; the paper's relation is 1/(beta sqrt(p*(1-p*)+eps)) (claim ``gap``), which sympy's
    assumptions show positive: p* > p_ref for every beta > 0 and eps >= 0."""
    c = claims(claimed, {"gap": 1 / (BETA * sp.sqrt(P_STAR * (1 - P_STAR) + EPS))}, main="gap")
    p_ref_star = fixed_point_reference()
    odds_ratio = sp.simplify((P_STAR / (1 - P_STAR)) / (p_ref_star / (1 - p_ref_star)))
    gap = sp.simplify(sp.expand_log(sp.log(odds_ratio), force=True))
    ident = check_equal("logit p* - logit p_ref = 1/(beta sqrt(V(p*)))", gap, c["gap"], claim="gap")
    return Identity(
        **{
            **ident.__dict__,
            "name": "Theorem 3 without condition (2): logit p* − logit p_ref = 1/(β√(p*(1−p*) + ε)) > 0",
            "holds": ident.holds and _is_positive(c["gap"].subs(P_STAR, P)),
            "notes": "p_ref solved from h(p*) = p* by sympy; every fixed point exceeds p_ref, so condition (2) of "
            "Theorem 3 is not needed.",
        }
    )


def theorem3_amplification_without_condition(n_grid: int = 60, bound_scale: float = 1.0) -> Identity:
    """Numeric companion of :func:`theorem3_fixed_point_logit_gap`: every fixed point found by
    :func:`grpo_nb.dynamics.fixed_points.fixed_points_grid` on a (p_ref, beta) grid at eps = 1e-5 has
    logit p* - logit p_ref >= 2/(beta sqrt(1+4 eps)) > 0 (the gap 1/(beta sqrt(V(p*))) is smallest at p* = 1/2),
    including the grid points where condition (2) fails. The margin is relative to the bound (times
    ``bound_scale``), with rounding tolerance 1e-9."""
    p_ref = np.linspace(0.01, 0.99, n_grid)
    beta = np.logspace(-2, 1, n_grid)
    pr, be = np.meshgrid(p_ref, beta, indexing="ij")
    eps = PAPER_EPS
    grid = fixed_points_grid(pr, be, eps)
    floor = bound_scale * 2.0 / (be * np.sqrt(1 + 4 * eps))
    gaps = grid.logits - logit(pr)[..., None]
    margin = float(np.nanmin((gaps - floor[..., None]) / floor[..., None]))
    fails = (~theorem3_condition(pr, be, eps)) & (pr > 0.5)
    return _grid_identity(
        "every fixed point has logit p* - logit p_ref >= 2/(beta sqrt(1+4 eps)) > 0 (condition (2) not assumed)",
        margin,
        f"{n_grid}x{n_grid} grid, p_ref in [0.01, 0.99], beta in [1e-2, 10], eps = 1e-5; "
        f"condition (2) fails at {int(fails.sum())} of its points; margin relative to the bound.",
        tol=1e-9,
        n_condition_fails=int(fails.sum()),
        n_fixed_points=int(np.sum(~np.isnan(grid.logits))),
        min_gap=float(np.nanmin(gaps)),
    )
