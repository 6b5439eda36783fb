"""Appendix B of Mroueh (2025), step by step: Lemma 2, Theorem 3 (both cases), Lemmas 3 and 4.

Symbolic steps are sympy identities (difference simplifies to 0) or signs decided by sympy's assumptions
after writing p = u/(1+u), p_ref = 1/(1+A) with u, A > 0. Inequalities that sympy cannot decide in
closed form (the bound on f' in the case p_ref > 1/2) are checked over explicit grids with
:mod:`grpo_nb.dynamics.map`; every function reports the worst margin it saw.

Notation: f(p) = h(p) - p, V(p) = p(1-p) + eps, a(p_ref) = log(p_ref/(1-p_ref)), b(p) = 1/sqrt(V(p)),
z(p) = a(p_ref) + b(p)/beta, so h = sigma(z).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import sympy as sp
from scipy.special import logit

from grpo_nb.dynamics.fixed_points import fixed_points_grid
from grpo_nb.dynamics.map import h as h_num
from grpo_nb.dynamics.map import h_prime as h_prime_num
from grpo_nb.dynamics.paper_bounds import theorem3_condition
from grpo_nb.symbolic.identity import Identity, check_equal
from grpo_nb.symbolic.proofs import (
    BETA,
    EPS,
    OPEN_UNIT_SUBS,
    P_REF,
    P_STAR,
    P,
    h_expr,
    sigmoid,
    variance_term,
)

__all__ = [
    "X",
    "Z",
    "A_POS",
    "lemma2_f_at_pref",
    "lemma3_part1",
    "lemma3_part1_steps",
    "lemma3_part2",
    "lemma4_cosh_pref",
    "theorem3_amplification_without_condition",
    "theorem3_case_high_pref",
    "theorem3_case_low_pref",
    "theorem3_fixed_point_logit_gap",
    "theorem3_xi_derivative",
]

Z, X = sp.symbols("z x", real=True)
A_POS = sp.Symbol("a", positive=True)
_HALF = sp.Rational(1, 2)


def _is_positive(expr: sp.Expr) -> bool:
    """Sign of ``expr`` decided by sympy's assumptions, with 0 < p < 1 and 0 < p_ref < 1 made explicit."""
    return bool(sp.simplify(sp.sympify(expr).subs(OPEN_UNIT_SUBS)).is_positive)


def _grid_identity(name: str, margin: float, notes: str, tol: float = 0.0, **extra: object) -> Identity:
    """An inequality checked on a grid: holds when the smallest margin (rhs - lhs) is >= -tol."""
    return Identity(
        name=name,
        lhs=sp.Float(margin),
        rhs=sp.Float(-tol),
        holds=bool(np.isfinite(margin) and margin >= -tol),
        relation=">=",
        notes=notes,
        extra={"min_margin": margin, **extra},
    )


# --------------------------------------------------------------------------------------------
# Lemma 2: f(p_ref) > 0
# --------------------------------------------------------------------------------------------


def lemma2_f_at_pref() -> Identity:
    """Lemma 2: f(p_ref) = h(p_ref) - p_ref > 0 for all beta > 0, eps >= 0.

    Checked as: the odds of h(p_ref) are the odds of p_ref times e^{c} with c = 1/(beta sqrt(V(p_ref))) > 0,
    so h(p_ref) > p_ref because the odds p/(1-p) are strictly increasing in p.
    """
    h_at = h_expr(p=P_REF)
    c = 1 / (BETA * sp.sqrt(variance_term(P_REF)))
    odds_ratio = (h_at / (1 - h_at)) / (P_REF / (1 - P_REF))
    ident = check_equal("Lemma 2: odds h(p_ref) / odds p_ref = e^c", odds_ratio, sp.exp(c))
    positive = _is_positive(c)
    return Identity(
        name="Lemma 2: f(p_ref) = h(p_ref) - p_ref > 0",
        lhs=h_at - P_REF,
        rhs=sp.Integer(0),
        holds=ident.holds and positive,
        relation=">",
        residual=ident.residual,
        notes="exp(-c) < 1 strictly because c = 1/(beta sqrt(p_ref(1-p_ref)+eps)) > 0.",
        extra={"odds_identity": ident},
    )


# --------------------------------------------------------------------------------------------
# Lemma 3 and Lemma 4 (cosh identities)
# --------------------------------------------------------------------------------------------


def lemma3_part1(claimed: sp.Expr | None = None) -> Identity:
    """Lemma 3 (1): sigma(z)(1 - sigma(z)) = 1/(4 cosh^2(z/2)) (or ``claimed``, an expression in :data:`Z`)."""
    rhs = 1 / (4 * sp.cosh(Z / 2) ** 2) if claimed is None else sp.sympify(claimed)
    lhs = sigmoid(Z) * (1 - sigmoid(Z))
    residual = sp.simplify((lhs - rhs).rewrite(sp.exp))
    return Identity(
        name="Lemma 3 (1): sigma(z)(1 - sigma(z)) = 1/(4 cosh^2(z/2))",
        lhs=lhs,
        rhs=rhs,
        holds=bool(residual == 0),
        residual=residual,
    )


def lemma3_part1_steps() -> list[Identity]:
    """The proof of Lemma 3 (1) as printed, corrected: cosh^2 x expansions, sigma(1-sigma) = e^{-z}/(1+e^{-z})^2,
    and cosh^2(x) = 1/(4 sigma(2x)(1 - sigma(2x)))."""

    def eq(name: str, lhs: sp.Expr, rhs: sp.Expr) -> Identity:
        residual = sp.simplify((lhs - rhs).rewrite(sp.exp))
        return Identity(name=name, lhs=lhs, rhs=rhs, holds=bool(residual == 0), residual=residual)

    c2 = sp.cosh(X) ** 2
    return [
        eq("cosh^2 x = (e^{2x} + e^{-2x} + 2)/4", c2, (sp.exp(2 * X) + sp.exp(-2 * X) + 2) / 4),
        eq("= e^{2x}(1 + e^{-4x} + 2e^{-2x})/4", c2, sp.exp(2 * X) * (1 + sp.exp(-4 * X) + 2 * sp.exp(-2 * X)) / 4),
        eq("= (1 + e^{-2x})^2 e^{2x}/4", c2, (1 + sp.exp(-2 * X)) ** 2 * sp.exp(2 * X) / 4),
        eq(
            "sigma(z)(1 - sigma(z)) = e^{-z}/(1 + e^{-z})^2",
            sigmoid(Z) * (1 - sigmoid(Z)),
            sp.exp(-Z) / (1 + sp.exp(-Z)) ** 2,
        ),
        eq("cosh^2(x) = 1/(4 sigma(2x)(1 - sigma(2x)))", c2, 1 / (4 * sigmoid(2 * X) * (1 - sigmoid(2 * X)))),
    ]


def lemma3_part2(seed: int = 0, n_samples: int = 20000) -> list[Identity]:
    """Lemma 3 (2): for z, a > 0, sigma(z+a)(1-sigma(z+a)) <= 1/(4 cosh^2(z/2) cosh^2(a/2)).

    Steps: the addition formula cosh((z+a)/2) = cosh(z/2)cosh(a/2) + sinh(z/2)sinh(a/2) (sympy), the
    sinh product is positive for z, a > 0 (sympy assumptions), and a random check of the inequality on
    (z, a) log-uniform in [1e-3, 50]^2 (margin = rhs - lhs, relative).
    """
    zp = sp.Symbol("z", positive=True)
    addition = sp.simplify(
        (
            sp.cosh((zp + A_POS) / 2) - sp.cosh(zp / 2) * sp.cosh(A_POS / 2) - sp.sinh(zp / 2) * sp.sinh(A_POS / 2)
        ).rewrite(sp.exp)
    )
    cross = sp.sinh(zp / 2) * sp.sinh(A_POS / 2)
    rng = np.random.default_rng(seed)
    z, a = 10 ** rng.uniform(-3, np.log10(50), size=(2, n_samples))
    lhs = 1.0 / (4.0 * np.cosh((z + a) / 2) ** 2)
    rhs = 1.0 / (4.0 * np.cosh(z / 2) ** 2 * np.cosh(a / 2) ** 2)
    margin = float(np.min((rhs - lhs) / rhs))
    return [
        Identity(
            name="cosh((z+a)/2) = cosh(z/2)cosh(a/2) + sinh(z/2)sinh(a/2)",
            lhs=sp.cosh((zp + A_POS) / 2),
            rhs=sp.cosh(zp / 2) * sp.cosh(A_POS / 2) + cross,
            holds=bool(addition == 0),
            residual=addition,
        ),
        Identity(
            name="sinh(z/2) sinh(a/2) > 0 for z, a > 0",
            lhs=cross,
            rhs=sp.Integer(0),
            holds=bool(cross.is_positive),
            relation=">",
        ),
        _grid_identity(
            "Lemma 3 (2) on random z, a > 0: 1/(4cosh^2(z/2)cosh^2(a/2)) - sigma(z+a)(1-sigma(z+a)) >= 0",
            margin,
            f"{n_samples} log-uniform samples in [1e-3, 50]^2, seed {seed}; margin relative to the right side.",
        ),
    ]


def lemma4_cosh_pref(claimed: sp.Expr | None = None) -> list[Identity]:
    """Lemma 4: with a = log(p_ref/(1-p_ref)), cosh(a/2) = (sqrt(p/(1-p)) + sqrt((1-p)/p))/2 and
    cosh^2(a/2) = 1/(4 p_ref (1 - p_ref)) (or ``claimed`` for cosh(a/2)); a > 0 iff p_ref > 1/2."""
    a = sp.log(P_REF / (1 - P_REF))
    x = a / 2
    cosh_x = ((sp.exp(x) + sp.exp(-x)) / 2).subs(OPEN_UNIT_SUBS)
    half = (sp.sqrt(P_REF / (1 - P_REF)) + sp.sqrt((1 - P_REF) / P_REF)) / 2 if claimed is None else claimed
    step = sp.simplify(cosh_x - sp.sympify(half).subs(OPEN_UNIT_SUBS))
    square = sp.simplify(
        (sp.cosh(x) ** 2).rewrite(sp.exp).subs(OPEN_UNIT_SUBS) - (1 / (4 * P_REF * (1 - P_REF))).subs(OPEN_UNIT_SUBS)
    )
    expanded = (P_REF / (1 - P_REF) + (1 - P_REF) / P_REF + 2) / 4
    return [
        Identity(
            name="Lemma 4 proof: cosh(a/2) = (sqrt(p_ref/(1-p_ref)) + sqrt((1-p_ref)/p_ref))/2",
            lhs=sp.cosh(x),
            rhs=sp.sympify(half),
            holds=bool(step == 0),
            residual=step,
        ),
        check_equal("cosh^2(a/2) = (p/(1-p) + (1-p)/p + 2)/4 = 1/(4p(1-p))", expanded, 1 / (4 * P_REF * (1 - P_REF))),
        Identity(
            name="Lemma 4: cosh^2(a(p_ref)/2) = 1/(4 p_ref (1 - p_ref))",
            lhs=sp.cosh(x) ** 2,
            rhs=1 / (4 * P_REF * (1 - P_REF)),
            holds=bool(square == 0),
            residual=square,
        ),
    ]


# --------------------------------------------------------------------------------------------
# Theorem 3
# --------------------------------------------------------------------------------------------


def theorem3_case_low_pref(n_grid: int = 41) -> list[Identity]:
    """Theorem 3 (1), p_ref <= 1/2: f' = h' - 1 < 0 on (0, 1/2), f(0) = h(0) > 0 (printed: f(0) = 1), f(p_ref) > 0,
    so f > 0 on [0, p_ref] and every zero of f (a fixed point) lies above p_ref.

    Symbolic: h' = (2p-1) c(p) with c > 0 (Prop. 1), hence f' < -1 < 0 for p < 1/2; f(0) = h(0) is in (0, 1).
    Numeric: min of f over [0, p_ref] on a grid of p_ref in (0, 1/2], beta in [1e-2, 1e2], eps in {1e-5, 1e-2}.
    """
    from grpo_nb.symbolic.proofs import proposition1_sign

    sign = proposition1_sign()
    f0 = h_expr(p=sp.Integer(0))
    f0_pos = _is_positive(f0)
    f0_below_one = _is_positive(1 - f0)
    p_ref = np.linspace(1e-3, 0.5, n_grid)
    beta = np.logspace(-2, 2, n_grid)
    worst = np.inf
    for eps in (1e-5, 1e-2):
        pr, be = np.meshgrid(p_ref, beta, indexing="ij")
        s = np.linspace(0.0, 1.0, 201)[:, None, None]
        p = s * pr
        f = np.asarray(h_num(p, pr, be, eps)) - p
        worst = min(worst, float(np.min(f)))
    return [
        Identity(
            name="f'(p) = h'(p) - 1 < 0 on (0, 1/2)",
            lhs=sp.diff(h_expr(), P) - 1,
            rhs=sp.Integer(0),
            holds=all(i.holds for i in sign),
            relation="<",
            notes="h' = (2p-1)c(p) with c > 0 (Proposition 1), negative for p < 1/2.",
        ),
        Identity(
            name="f(0) = h(0), with 0 < h(0) < 1",
            lhs=f0,
            rhs=sp.Integer(0),
            holds=f0_pos and f0_below_one,
            relation=">",
            notes="The proof prints f(0) = 1; in fact h(0) = 1/(1 + (1-p_ref)/p_ref e^{-1/(beta sqrt eps)}) < 1.",
        ),
        lemma2_f_at_pref(),
        _grid_identity(
            "min of f on [0, p_ref] over the grid (p_ref <= 1/2) is > 0",
            worst,
            f"p_ref in [1e-3, 0.5] x beta in [1e-2, 1e2] ({n_grid}x{n_grid}), eps in {{1e-5, 1e-2}}, "
            "201 points per interval.",
        ),
    ]


def theorem3_xi_derivative(claimed: sp.Expr | None = None) -> Identity:
    """Theorem 3's proof: xi(p) = cosh^2(b(p)/(2beta)) has xi'(p) = (2p-1) sinh(b(p)/beta) / (4 beta V(p)^{3/2})."""
    b = 1 / sp.sqrt(variance_term())
    xi = sp.cosh(b / (2 * BETA)) ** 2
    rhs = (
        (2 * P - 1) * sp.sinh(b / BETA) / (4 * BETA * variance_term() ** sp.Rational(3, 2))
        if claimed is None
        else claimed
    )
    residual = sp.simplify((sp.diff(xi, P) - sp.sympify(rhs)).rewrite(sp.exp))
    return Identity(
        name="Theorem 3 proof: xi'(p) = (2p-1) sinh(b(p)/beta) / (4 beta (p(1-p)+eps)^{3/2})",
        lhs=sp.diff(xi, P),
        rhs=sp.sympify(rhs),
        holds=bool(residual == 0),
        residual=residual,
    )


def theorem3_case_high_pref(n_grid: int = 31) -> list[Identity]:
    """Theorem 3 (2), p_ref > 1/2, step by step.

    Symbolic steps: h(1/2) > p_ref (odds ratio e^{2/(beta sqrt(1+4eps))}); f' = sigma(z)(1-sigma(z))(2p-1)/(2 beta
    V^{3/2}) - 1 with z = a + b/beta; b(p) > 0; d/dp[(2p-1)/(2 beta V^{3/2})] = (2V + 3(p-1/2)^2... ) / ... > 0;
    Lemma 3 (2) + Lemma 4 give 1/(4 cosh^2(a/2) cosh^2(b/(2beta))) = p_ref(1-p_ref)/cosh^2(b/(2beta));
    xi' (see :func:`theorem3_xi_derivative`) and xi(1/2).
    Numeric steps (grid of p_ref in (1/2, 1), beta in [1e-2, 1e2], eps in {1e-5, 1e-2}, p in (1/2, p_ref]):
    f'(p) <= the final bound of the proof; and where condition (2) holds, f'(p) <= 0 there.
    """
    h = h_expr()
    odds = (h / (1 - h)).subs(P, _HALF) / (P_REF / (1 - P_REF))
    half_gap = check_equal(
        "odds h(1/2) / odds p_ref = exp(2/(beta sqrt(1+4 eps)))", odds, sp.exp(2 / (BETA * sp.sqrt(1 + 4 * EPS)))
    )
    a = sp.log(P_REF / (1 - P_REF))
    b = 1 / sp.sqrt(variance_term())
    z = a + b / BETA
    v32 = variance_term() ** sp.Rational(3, 2)
    f_prime = check_equal(
        "f'(p) = sigma(z)(1 - sigma(z)) (2p-1)/(2 beta V^{3/2}) - 1, z = a(p_ref) + b(p)/beta",
        sp.diff(h, P) - 1,
        sigmoid(z) * (1 - sigmoid(z)) * (2 * P - 1) / (2 * BETA * v32) - 1,
    )
    b_positive = Identity(
        name="b(p) = 1/sqrt(p(1-p)+eps) > 0", lhs=b, rhs=sp.Integer(0), holds=_is_positive(b), relation=">"
    )
    g = (2 * P - 1) / (2 * BETA * v32)
    g_prime_claim = (2 * variance_term() + sp.Rational(3, 2) * (2 * P - 1) ** 2) / (
        2 * BETA * variance_term() ** sp.Rational(5, 2)
    )
    g_mono = check_equal(
        "d/dp (2p-1)/(2 beta V^{3/2}) = (2V + 3/2 (2p-1)^2)/(2 beta V^{5/2}) > 0", sp.diff(g, P), g_prime_claim
    )
    g_mono = replace(g_mono, holds=g_mono.holds and _is_positive(g_prime_claim))
    lemma4 = lemma4_cosh_pref()[-1]
    bound_step = check_equal(
        "Lemma 4 in the bound: 1/(4 cosh^2(a/2) cosh^2(b/(2beta))) = p_ref(1-p_ref)/cosh^2(b/(2beta))",
        1 / (4 * (1 / (4 * P_REF * (1 - P_REF))) * sp.cosh(b / (2 * BETA)) ** 2),
        P_REF * (1 - P_REF) / sp.cosh(b / (2 * BETA)) ** 2,
    )
    xi_half = check_equal(
        "xi(1/2) = cosh^2(1/(2 beta sqrt(1/4 + eps)))",
        (sp.cosh(b / (2 * BETA)) ** 2).subs(P, _HALF),
        sp.cosh(1 / (2 * BETA * sp.sqrt(sp.Rational(1, 4) + EPS))) ** 2,
    )

    # numeric: f'(p) <= bound(p_ref) on (1/2, p_ref]; and <= 0 where condition (2) holds
    p_ref = np.linspace(0.51, 0.999, n_grid)
    beta = np.logspace(-2, 2, n_grid)
    worst_bound, worst_sign, n_cond = np.inf, np.inf, 0
    s = np.linspace(1e-6, 1.0, 101)[:, None, None]
    pr, be = np.meshgrid(p_ref, beta, indexing="ij")
    for eps in (1e-5, 1e-2):
        p = 0.5 + s * (pr - 0.5)
        fp = np.asarray(h_prime_num(p, pr, be, eps)) - 1.0
        cosh2 = np.cosh(np.minimum(1.0 / (2 * be * np.sqrt(0.25 + eps)), 700.0)) ** 2
        slope_bound = pr * (1 - pr) * (2 * pr - 1) / (2 * (pr * (1 - pr) + eps) ** 1.5) / (be * cosh2)
        worst_bound = min(worst_bound, float(np.min((slope_bound - (fp + 1.0)) / slope_bound)))
        cond = theorem3_condition(pr, be, eps)
        n_cond += int(cond.sum())
        if cond.any():
            worst_sign = min(worst_sign, float(np.min(-fp[:, cond])))
    return [
        half_gap,
        f_prime,
        b_positive,
        g_mono,
        lemma4,
        bound_step,
        theorem3_xi_derivative(),
        xi_half,
        _grid_identity(
            "f'(p) <= the proof's final bound for p in (1/2, p_ref]",
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


def theorem3_fixed_point_logit_gap() -> Identity:
    """The short proof that makes condition (2) unnecessary: at any fixed point p* = h(p*),
    logit p* - logit p_ref = 1/(beta sqrt(p*(1-p*)+eps)) > 0, so p* > p_ref for every beta > 0 and eps >= 0."""
    from grpo_nb.symbolic.proofs import fixed_point_reference

    p_ref_star = fixed_point_reference()
    gap = sp.log(P_STAR / (1 - P_STAR)) - sp.log(p_ref_star / (1 - p_ref_star))
    claimed = 1 / (BETA * sp.sqrt(variance_term(P_STAR)))
    ident = check_equal(
        "logit p* - logit p_ref = 1/(beta sqrt(V(p*)))", sp.expand_log(sp.simplify(gap), force=True), claimed
    )
    return Identity(
        name="Theorem 3 without condition (2): logit p* - logit p_ref = 1/(beta sqrt(p*(1-p*)+eps)) > 0",
        lhs=ident.lhs,
        rhs=claimed,
        holds=ident.holds and _is_positive(claimed.subs(P_STAR, P)),
        residual=ident.residual,
        notes="Every fixed point exceeds p_ref; condition (2) of Theorem 3 is not needed.",
    )


def theorem3_amplification_without_condition(n_grid: int = 60) -> Identity:
    """Numeric companion of :func:`theorem3_fixed_point_logit_gap`: every fixed point found by
    :func:`grpo_nb.dynamics.fixed_points.fixed_points_grid` on a (p_ref, beta) grid at eps = 1e-5 has
    logit p* > logit p_ref, including the grid points where condition (2) fails."""
    p_ref = np.linspace(0.01, 0.99, n_grid)
    beta = np.logspace(-2, 1, n_grid)
    pr, be = np.meshgrid(p_ref, beta, indexing="ij")
    eps = 1e-5
    grid = fixed_points_grid(pr, be, eps)
    gaps = grid.logits - logit(pr)[..., None]
    worst = float(np.nanmin(gaps))
    fails = (~theorem3_condition(pr, be, eps)) & (pr > 0.5)
    return _grid_identity(
        "every fixed point has logit p* - logit p_ref > 0 (condition (2) not assumed)",
        worst,
        f"{n_grid}x{n_grid} grid, p_ref in [0.01, 0.99], beta in [1e-2, 10], eps = 1e-5; "
        f"condition (2) fails at {int(fails.sum())} of its points.",
        n_condition_fails=int(fails.sum()),
        n_fixed_points=int(np.sum(~np.isnan(grid.logits))),
    )
