"""§4 of Mroueh (2025), "convergence and probability of success amplification": Theorem 3 (both cases, and the
short proof without condition (2)), Lemmas 1-4, step by step (App. B). Theorems 4 and 6 are in
:mod:`grpo_nb.symbolic.convergence`.

Each symbolic step starts from the map h of :mod:`grpo_nb.symbolic.expressions` (derived from the objective by
:func:`grpo_nb.symbolic.policy_dynamics.theorem2_logistic_form`) or from the definitions of sigma and cosh, lets
sympy derive the result (a derivative, a solved equation, a simplified odds ratio) and compares it with the formula
the paper prints, typed out here; ``claimed={key: expr}`` replaces a printed formula. Signs are decided by sympy's
assumptions after writing p = u/(1+u), p_ref = 1/(1+A) with u, A > 0. Inequalities that sympy cannot decide in
closed form (the bound on f' in the case p_ref > 1/2) are checked over explicit grids with
:mod:`grpo_nb.dynamics.map`; every function reports the worst margin it saw.

Notation: f(p) = h(p) - p, V(p) = p(1-p) + eps, a(p_ref) = log(p_ref/(1-p_ref)), b(p) = 1/sqrt(V(p)),
z(p) = a(p_ref) + b(p)/beta, so h = sigma(z).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import sympy as sp
from scipy.special import logit

from grpo_nb.constants import PAPER_EPS
from grpo_nb.dynamics.fixed_points import fixed_points_grid
from grpo_nb.dynamics.map import h as h_num
from grpo_nb.dynamics.map import h_prime as h_prime_num
from grpo_nb.dynamics.paper_bounds import theorem3_condition
from grpo_nb.symbolic import expressions as ex
from grpo_nb.symbolic.expressions import BETA, EPS, OPEN_UNIT_SUBS, P_REF, P_STAR, P, sigmoid
from grpo_nb.symbolic.identity import Identity, check_equal, check_sign, claims, differs_at_a_point
from grpo_nb.symbolic.policy_dynamics import proposition1_sign

__all__ = [
    "A_POS",
    "X",
    "Z",
    "fixed_point_reference",
    "lemma1_slope_at_fixed_point",
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
_S = sp.Symbol("s", positive=True)
Claimed = Mapping[str, sp.Expr] | sp.Expr | None


def _is_positive(expr: sp.Expr) -> bool:
    """Sign of ``expr`` decided by sympy's assumptions, with 0 < p < 1 and 0 < p_ref < 1 made explicit."""
    return check_sign("positive", expr, ">", subs=OPEN_UNIT_SUBS).holds


def _grid_identity(
    name: str, margin: float, notes: str, tol: float = 0.0, strict: bool = False, **extra: object
) -> Identity:
    """An inequality checked on a grid: holds when the smallest margin is >= -tol (> 0 when ``strict``)."""
    ok = margin > 0 if strict else margin >= -tol
    return Identity(
        name=name,
        lhs=sp.Float(margin),
        rhs=sp.Float(0 if strict else -tol),
        holds=bool(np.isfinite(margin) and ok),
        relation=">" if strict else ">=",
        notes=notes,
        extra={"min_margin": margin, **extra},
    )


def _unclaimed(ident: Identity) -> Identity:
    """A check of another function shown inside this one: its printed formula is injected there, not here."""
    extra = {k: v for k, v in ident.extra.items() if k not in ("claim", "claimed")}
    return Identity(**{**ident.__dict__, "extra": extra})


def _exp_check(name: str, lhs: sp.Expr, rhs: sp.Expr, claim: str = "") -> Identity:
    """lhs == rhs after rewriting hyperbolic functions with exp."""
    diff = sp.sympify(lhs) - sp.sympify(rhs)
    residual = diff if differs_at_a_point(diff) else sp.simplify(diff.rewrite(sp.exp))
    extra = {"claim": claim, "claimed": rhs} if claim else {}
    return Identity(name=name, lhs=lhs, rhs=rhs, holds=bool(residual == 0), residual=residual, extra=extra)


# --------------------------------------------------------------------------------------------
# Lemma 2: f(p_ref) > 0
# --------------------------------------------------------------------------------------------


def lemma2_f_at_pref(claimed: Claimed = None) -> Identity:
    """Lemma 2: f(p_ref) = h(p_ref) - p_ref > 0 for all beta > 0, eps >= 0.

    Checked as: the odds of h(p_ref), derived from h, are the odds of p_ref times e^{c} (claim ``exponent``,
    printed c = 1/(beta sqrt(p_ref(1-p_ref)+eps))), c > 0 by sympy's assumptions, so h(p_ref) > p_ref because the
    odds p/(1-p) are strictly increasing in p.
    """
    c = claims(claimed, {"exponent": 1 / (BETA * sp.sqrt(P_REF * (1 - P_REF) + EPS))}, main="exponent")
    h_at = ex.h_expr(p=P_REF)
    odds_ratio = (h_at / (1 - h_at)) / (P_REF / (1 - P_REF))
    ident = check_equal(
        "Lemma 2: odds h(p_ref) / odds p_ref = e^c", odds_ratio, sp.exp(c["exponent"]), claim="exponent"
    )
    return Identity(
        name="Lemma 2: f(p_ref) = h(p_ref) - p_ref > 0",
        lhs=h_at - P_REF,
        rhs=sp.Integer(0),
        holds=ident.holds and _is_positive(c["exponent"]),
        relation=">",
        residual=ident.residual,
        notes="exp(-c) < 1 strictly because c = 1/(beta sqrt(p_ref(1-p_ref)+eps)) > 0.",
        extra={"odds_identity": ident, "claim": "exponent", "claimed": c["exponent"]},
    )


# --------------------------------------------------------------------------------------------
# Lemma 3 and Lemma 4 (cosh identities)
# --------------------------------------------------------------------------------------------


def lemma3_part1(claimed: Claimed = None) -> Identity:
    """Lemma 3 (1): sigma(z)(1 - sigma(z)) = 1/(4 cosh^2(z/2)) (claim ``cosh_form``, an expression in :data:`Z`)."""
    c = claims(claimed, {"cosh_form": 1 / (4 * sp.cosh(Z / 2) ** 2)}, main="cosh_form")
    ident = _exp_check("", sigmoid(Z) * (1 - sigmoid(Z)), c["cosh_form"], claim="cosh_form")
    return Identity(**{**ident.__dict__, "name": "Lemma 3 (1): sigma(z)(1 - sigma(z)) = 1/(4 cosh^2(z/2))"})


def lemma3_part1_steps(claimed: Claimed = None) -> list[Identity]:
    """The proof of Lemma 3 (1) as printed, corrected: cosh^2 x expansions (claims ``expanded``, ``factored_exp``,
    ``square``), sigma(1-sigma) = e^{-z}/(1+e^{-z})^2 (claim ``sigma_product``), and
    cosh^2(x) = 1/(4 sigma(2x)(1 - sigma(2x))) (claim ``cosh_sigma``)."""
    c = claims(
        claimed,
        {
            "expanded": (sp.exp(2 * X) + sp.exp(-2 * X) + 2) / 4,
            "factored_exp": sp.exp(2 * X) * (1 + sp.exp(-4 * X) + 2 * sp.exp(-2 * X)) / 4,
            "square": (1 + sp.exp(-2 * X)) ** 2 * sp.exp(2 * X) / 4,
            "sigma_product": sp.exp(-Z) / (1 + sp.exp(-Z)) ** 2,
            "cosh_sigma": 1 / (4 * sigmoid(2 * X) * (1 - sigmoid(2 * X))),
        },
    )
    c2 = sp.cosh(X) ** 2
    return [
        _exp_check("cosh^2 x = (e^{2x} + e^{-2x} + 2)/4", c2, c["expanded"], "expanded"),
        _exp_check("= e^{2x}(1 + e^{-4x} + 2e^{-2x})/4", c2, c["factored_exp"], "factored_exp"),
        _exp_check("= (1 + e^{-2x})^2 e^{2x}/4", c2, c["square"], "square"),
        _exp_check(
            "sigma(z)(1 - sigma(z)) = e^{-z}/(1 + e^{-z})^2",
            sigmoid(Z) * (1 - sigmoid(Z)),
            c["sigma_product"],
            "sigma_product",
        ),
        _exp_check("cosh^2(x) = 1/(4 sigma(2x)(1 - sigma(2x)))", c2, c["cosh_sigma"], "cosh_sigma"),
    ]


def lemma3_part2(
    seed: int = 0, n_samples: int = 20000, claimed: Claimed = None, *, bound_scale: float = 1.0
) -> list[Identity]:
    """Lemma 3 (2): for z, a > 0, sigma(z+a)(1-sigma(z+a)) <= 1/(4 cosh^2(z/2) cosh^2(a/2)).

    Steps: the addition formula cosh((z+a)/2) = cosh(z/2)cosh(a/2) + sinh(z/2)sinh(a/2) (claim ``addition``), the
    sinh product is positive for z, a > 0 (sympy assumptions), and a random check of the inequality on
    (z, a) log-uniform in [1e-3, 50]^2 (margin = rhs - lhs, relative). ``bound_scale`` multiplies the right side
    (a value below 1 claims a bound that is too strong, for tests that the grid check can fail).
    """
    zp = sp.Symbol("z", positive=True)
    cross = sp.sinh(zp / 2) * sp.sinh(A_POS / 2)
    c = claims(claimed, {"addition": sp.cosh(zp / 2) * sp.cosh(A_POS / 2) + cross}, main="addition")
    rng = np.random.default_rng(seed)
    z, a = 10 ** rng.uniform(-3, np.log10(50), size=(2, n_samples))
    lhs = 1.0 / (4.0 * np.cosh((z + a) / 2) ** 2)
    rhs = bound_scale / (4.0 * np.cosh(z / 2) ** 2 * np.cosh(a / 2) ** 2)
    margin = float(np.min((rhs - lhs) / rhs))
    return [
        _exp_check(
            "cosh((z+a)/2) = cosh(z/2)cosh(a/2) + sinh(z/2)sinh(a/2)",
            sp.cosh((zp + A_POS) / 2),
            c["addition"],
            "addition",
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


def lemma4_cosh_pref(claimed: Claimed = None) -> list[Identity]:
    """Lemma 4: with a = log(p_ref/(1-p_ref)), cosh(a/2) = (sqrt(p/(1-p)) + sqrt((1-p)/p))/2 (claim ``cosh_half``),
    (p/(1-p) + (1-p)/p + 2)/4 = 1/(4p(1-p)) (claim ``expanded``) and cosh^2(a/2) = 1/(4 p_ref (1 - p_ref)) (claim
    ``cosh_squared``), each derived from the definition of cosh by sympy."""
    c = claims(
        claimed,
        {
            "cosh_half": (sp.sqrt(P_REF / (1 - P_REF)) + sp.sqrt((1 - P_REF) / P_REF)) / 2,
            "expanded": 1 / (4 * P_REF * (1 - P_REF)),
            "cosh_squared": 1 / (4 * P_REF * (1 - P_REF)),
        },
        main="cosh_half",
    )
    x = sp.log(P_REF / (1 - P_REF)) / 2
    step = sp.simplify((sp.cosh(x).rewrite(sp.exp) - c["cosh_half"]).subs(OPEN_UNIT_SUBS))
    square = sp.simplify(
        (sp.cosh(x) ** 2).rewrite(sp.exp).subs(OPEN_UNIT_SUBS) - c["cosh_squared"].subs(OPEN_UNIT_SUBS)
    )
    expanded = (P_REF / (1 - P_REF) + (1 - P_REF) / P_REF + 2) / 4
    return [
        Identity(
            name="Lemma 4 proof: cosh(a/2) = (sqrt(p_ref/(1-p_ref)) + sqrt((1-p_ref)/p_ref))/2",
            lhs=sp.cosh(x),
            rhs=c["cosh_half"],
            holds=bool(step == 0),
            residual=step,
            extra={"claim": "cosh_half", "claimed": c["cosh_half"]},
        ),
        check_equal("cosh^2(a/2) = (p/(1-p) + (1-p)/p + 2)/4 = 1/(4p(1-p))", expanded, c["expanded"], claim="expanded"),
        Identity(
            name="Lemma 4: cosh^2(a(p_ref)/2) = 1/(4 p_ref (1 - p_ref))",
            lhs=sp.cosh(x) ** 2,
            rhs=c["cosh_squared"],
            holds=bool(square == 0),
            residual=square,
            extra={"claim": "cosh_squared", "claimed": c["cosh_squared"]},
        ),
    ]


# --------------------------------------------------------------------------------------------
# Lemma 1 (slope at a fixed point) and the fixed-point relation
# --------------------------------------------------------------------------------------------


def fixed_point_reference(p_star: sp.Expr = P_STAR) -> sp.Expr:
    """The p_ref for which p_star is a fixed point of h, solved by sympy from h(p_star) = p_star."""
    solutions = sp.solve(sp.Eq(ex.h_expr(p=p_star), p_star), P_REF)
    if len(solutions) != 1:
        raise ValueError(f"h(p*) = p* has {len(solutions)} solutions for p_ref; expected exactly 1")
    return solutions[0]


def lemma1_slope_at_fixed_point(claimed: Claimed = None) -> Identity:
    """Lemma 1: at a fixed point p* = h(p*), h'(p*) = p*(1-p*)(2p*-1)/(2 beta (p*(1-p*)+eps)^{3/2}) (claim ``slope``,
    an expression in :data:`P_STAR`).

    Every p* in (0, 1) is a fixed point for exactly one p_ref, which sympy solves from h(p*) = p*
    (:func:`fixed_point_reference`); with that p_ref, sympy checks h(p*) = p* and compares d h/dp at p* with the
    printed formula.
    """
    c = claims(
        claimed,
        {
            "slope": P_STAR
            * (1 - P_STAR)
            * (2 * P_STAR - 1)
            / (2 * BETA * (P_STAR * (1 - P_STAR) + EPS) ** sp.Rational(3, 2))
        },
        main="slope",
    )
    p_ref_star = fixed_point_reference()
    h_star = ex.h_expr(p_ref=p_ref_star)
    fixed = check_equal("h(p*) = p* for the solved p_ref", h_star.subs(P, P_STAR), P_STAR)
    slope = sp.factor(sp.simplify(sp.diff(h_star, P).subs(P, P_STAR)))
    ident = check_equal("Lemma 1: h'(p*) at a fixed point", slope, c["slope"], claim="slope")
    return Identity(
        **{
            **ident.__dict__,
            "holds": ident.holds and fixed.holds,
            "notes": "h(1-h) becomes p*(1-p*) because h(p*) = p*.",
            "extra": {**ident.extra, "fixed_point": fixed},
        },
    )


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
    v = P * (1 - P) + EPS
    b_printed = 1 / sp.sqrt(v)
    a = sp.log(P_REF / (1 - P_REF))
    z_printed = a + b_printed / BETA
    v32 = v ** sp.Rational(3, 2)
    c = claims(
        claimed,
        {
            "half_odds": sp.exp(2 / (BETA * sp.sqrt(1 + 4 * EPS))),
            "f_prime": sigmoid(z_printed) * (1 - sigmoid(z_printed)) * (2 * P - 1) / (2 * BETA * v32) - 1,
            "g_prime": (2 * v + sp.Rational(3, 2) * (2 * P - 1) ** 2) / (2 * BETA * v ** sp.Rational(5, 2)),
            "bound_step": P_REF * (1 - P_REF) / sp.cosh(b_printed / (2 * BETA)) ** 2,
            "xi_half": sp.cosh(1 / (2 * BETA * sp.sqrt(sp.Rational(1, 4) + EPS))) ** 2,
        },
    )
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
    lemma4 = _unclaimed(lemma4_cosh_pref()[-1])
    lemma3_bound = 1 / (4 * sp.cosh(a / 2) ** 2 * sp.cosh(b / (2 * BETA)) ** 2)
    bound_step = _exp_check(
        "Lemma 4 in Lemma 3 (2)'s bound: 1/(4 cosh^2(a/2) cosh^2(b/(2beta))) = p_ref(1-p_ref)/cosh^2(b/(2beta))",
        lemma3_bound.subs(OPEN_UNIT_SUBS),
        c["bound_step"].subs(OPEN_UNIT_SUBS),
        "bound_step",
    )
    bound_step = Identity(**{**bound_step.__dict__, "lhs": lemma3_bound, "rhs": c["bound_step"]})
    xi = sp.cosh(b / (2 * BETA)) ** 2
    critical = sp.FiniteSet(*[s for s in sp.solve(sp.diff(b, P), P) if s.is_positive and (1 - s).is_positive])
    xi_at = xi.subs(P, _HALF) if critical == sp.FiniteSet(_HALF) else sp.nan
    xi_rising = check_sign("xi'(p) > 0 for 1/2 < p < 1", sp.diff(xi, P).subs(P, (1 + _S / (1 + _S)) / 2), ">")
    xi_half = _exp_check("xi(p) >= xi(1/2) = cosh^2(1/(2 beta sqrt(1/4 + eps)))", xi_at, c["xi_half"], "xi_half")
    xi_half = Identity(
        **{
            **xi_half.__dict__,
            "holds": xi_half.holds and xi_rising.holds,
            "extra": {**xi_half.extra, "critical_points": critical},
        }
    )

    # numeric: h'(p) <= bound(p_ref) on (1/2, p_ref]; and f' <= 0 where condition (2) holds
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
    return [
        half_gap,
        f_prime,
        b_positive,
        g_mono,
        lemma4,
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
