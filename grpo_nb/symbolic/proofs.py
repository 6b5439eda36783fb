"""Appendix A of Mroueh (2025), step by step: Theorems 1 and 2, Proposition 1, Remark 1, Lemma 1.

Every function returns an :class:`~grpo_nb.symbolic.identity.Identity` (or a list of them) whose
``holds`` comes from a sympy check that can fail: a difference that simplifies to zero, a limit, or
a sign established from sympy's assumptions. Functions that check a printed formula take it as an
optional ``claimed`` argument, so a test can feed a wrong expression and see it rejected.

The symbols are module constants (:data:`P`, :data:`P_REF`, :data:`BETA`, :data:`EPS`), all declared
positive, so that callers can build their own candidate expressions.
"""

from __future__ import annotations

import sympy as sp
from IPython.display import Markdown

from grpo_nb.report import escape_markdown, markdown_table
from grpo_nb.symbolic.identity import Identity, check_equal
from grpo_nb.validation import check_positive_int

__all__ = [
    "BETA",
    "EPS",
    "OPEN_UNIT_SUBS",
    "P",
    "P_REF",
    "P_STAR",
    "h_expr",
    "h_ratio_expr",
    "lemma1_slope_at_fixed_point",
    "omega_minus",
    "omega_plus",
    "proposition1_derivative",
    "proposition1_sigmoid_chain",
    "sigmoid",
    "proposition1_sign",
    "remark1_discontinuity",
    "theorem2_logistic_form",
    "theorem2_success_recursion",
]

P, P_REF, BETA, EPS = sp.symbols("p p_ref beta epsilon", positive=True)
P_STAR = sp.Symbol("p^*", positive=True)
_T = sp.Symbol("t", positive=True)
# Positive reparametrisations that make 0 < p < 1 and 0 < p_ref < 1 visible to sympy's assumptions:
# p = u/(1+u) with u > 0 (u = odds of p), p_ref = 1/(1+A) with A = (1-p_ref)/p_ref > 0.
_U, _A = sp.symbols("u A", positive=True)
#: Substitution that puts p and p_ref strictly inside (0, 1), so sympy can decide signs on the open unit interval.
OPEN_UNIT_SUBS = {P: _U / (1 + _U), P_REF: 1 / (1 + _A)}


def sigmoid(z: sp.Expr) -> sp.Expr:
    """The logistic function 1/(1 + e^{-z}) as a sympy expression (p = sigmoid(logit p))."""
    return 1 / (1 + sp.exp(-z))


def variance_term(p: sp.Expr = P, eps: sp.Expr = EPS) -> sp.Expr:
    """p(1-p) + eps, the smoothed Bernoulli variance under the square root of Eq. (4)."""
    return p * (1 - p) + eps


def omega_plus(p: sp.Expr = P, eps: sp.Expr = EPS) -> sp.Expr:
    """omega^+_eps(p) = (1-p)/sqrt(p(1-p)+eps), Eq. (4)."""
    return (1 - p) / sp.sqrt(variance_term(p, eps))


def omega_minus(p: sp.Expr = P, eps: sp.Expr = EPS) -> sp.Expr:
    """omega^-_eps(p) = p/sqrt(p(1-p)+eps), Eq. (4)."""
    return p / sp.sqrt(variance_term(p, eps))


def h_ratio_expr(p: sp.Expr = P, p_ref: sp.Expr = P_REF, beta: sp.Expr = BETA, eps: sp.Expr = EPS) -> sp.Expr:
    """Eq. (9) (with p_{n-1}(q) everywhere): p_ref e^{w+/beta} / (p_ref e^{w+/beta} + (1-p_ref) e^{-w-/beta})."""
    up = p_ref * sp.exp(omega_plus(p, eps) / beta)
    down = (1 - p_ref) * sp.exp(-omega_minus(p, eps) / beta)
    return up / (up + down)


def h_expr(p: sp.Expr = P, p_ref: sp.Expr = P_REF, beta: sp.Expr = BETA, eps: sp.Expr = EPS) -> sp.Expr:
    """Theorem 2's map in logistic form: 1/(1 + (1-p_ref)/p_ref exp(-1/(beta sqrt(p(1-p)+eps))))."""
    return 1 / (1 + (1 - p_ref) / p_ref * sp.exp(-1 / (beta * sp.sqrt(variance_term(p, eps)))))


def _slope_formula(p: sp.Expr, hp: sp.Expr) -> sp.Expr:
    """Prop. 1's printed h'(p) = -h(1-h)(1-2p)/(2 beta (p(1-p)+eps)^{3/2}), with h given as ``hp``."""
    return -hp * (1 - hp) * (1 - 2 * p) / (2 * BETA * variance_term(p) ** sp.Rational(3, 2))


# --------------------------------------------------------------------------------------------
# Theorem 2 (Eq. 9 and the logistic form of h)
# --------------------------------------------------------------------------------------------


def theorem2_logistic_form(ratio: sp.Expr | None = None) -> Identity:
    """Theorem 2: Eq. (9)'s ratio equals 1/(1 + (1-p_ref)/p_ref exp(-1/(beta sqrt(p(1-p)+eps)))).

    ``ratio`` defaults to Eq. (9) with p_{n-1}(q) in every slot; pass another expression (for instance
    the printed one with ``p_{n-1}(1)``) to check it instead.
    """
    lhs = h_ratio_expr() if ratio is None else sp.sympify(ratio)
    return check_equal(
        "Theorem 2: Eq. (9) equals the logistic form of h",
        lhs,
        h_expr(),
        notes="Divide numerator and denominator by p_ref e^{w+/beta}; w+ + w- = 1/sqrt(p(1-p)+eps).",
    )


# --------------------------------------------------------------------------------------------
# Proposition 1 (h' through sigma(z(p)), its sign, the minimum at 1/2)
# --------------------------------------------------------------------------------------------


def proposition1_derivative(claimed: sp.Expr | None = None) -> Identity:
    """Proposition 1: d/dp h(p) equals -h(1-h)(1-2p)/(2 beta (p(1-p)+eps)^{3/2}) (or ``claimed``)."""
    h = h_expr()
    rhs = _slope_formula(P, h) if claimed is None else sp.sympify(claimed)
    return check_equal("Proposition 1: derivative of h", sp.diff(h, P), rhs)


def proposition1_sigmoid_chain() -> list[Identity]:
    """Proof of Prop. 1: h = sigma(z(p)) with z = -log A + B(p), z' = B' = -(1-2p)/(2 beta V^{3/2}),
    and h' = sigma(z)(1 - sigma(z)) z'(p)."""
    z_sym = sp.Symbol("z")
    sigma = 1 / (1 + sp.exp(-z_sym))
    a_coef = (1 - P_REF) / P_REF
    b_of_p = 1 / (BETA * sp.sqrt(variance_term()))
    z_of_p = -sp.log(a_coef) + b_of_p
    z_prime_printed = -(1 - 2 * P) / (2 * BETA * variance_term() ** sp.Rational(3, 2))
    sig_prime = sp.diff(sigma, z_sym)
    return [
        check_equal("h = sigma(z(p)), z(p) = -log A + B(p)", sigma.subs(z_sym, z_of_p), h_expr()),
        check_equal("z'(p) = B'(p) = -(1-2p)/(2 beta V^{3/2})", sp.diff(z_of_p, P), z_prime_printed),
        check_equal("sigma'(z) = sigma(z)(1 - sigma(z))", sig_prime, sigma * (1 - sigma)),
        check_equal(
            "h'(p) = sigma(z(p))(1 - sigma(z(p))) z'(p)",
            sp.diff(h_expr(), P),
            (sigma * (1 - sigma)).subs(z_sym, z_of_p) * z_prime_printed,
        ),
    ]


def proposition1_sign() -> list[Identity]:
    """Prop. 1's sign pattern: h'(p) = (2p - 1) * c(p) with c(p) > 0, so h' < 0 for p < 1/2, h' > 0 for
    p > 1/2 and h'(1/2) = 0; hence p = 1/2 is the global minimum of h on [0, 1].

    The positivity of c(p) is decided by sympy's assumption system after writing p = u/(1+u) and
    p_ref = 1/(1+A) with u, A > 0 (so that 0 < p, p_ref < 1 is visible to it).
    """
    h = h_expr()
    hp = sp.diff(h, P)
    factor = sp.simplify(hp / (2 * P - 1))
    positive = sp.simplify(factor.subs(OPEN_UNIT_SUBS)).is_positive
    factorisation = check_equal("h'(p) = (2p - 1) c(p)", hp, (2 * P - 1) * factor)
    sign_id = Identity(
        name="c(p) > 0 for 0 < p < 1",
        lhs=factor,
        rhs=sp.Integer(0),
        holds=bool(positive) and factorisation.holds,
        relation=">",
        notes="sympy's assumptions decide the sign of c with p = u/(1+u), p_ref = 1/(1+A), u, A, beta, eps > 0.",
    )
    at_half = check_equal("h'(1/2) = 0", hp.subs(P, sp.Rational(1, 2)), sp.Integer(0))
    return [factorisation, sign_id, at_half]


def proposition1_minimum_gap() -> Identity:
    """h(p) - h(1/2) >= 0 follows from logit h(p) - logit h(1/2) = (1/beta)(1/sqrt(V(p)) - 2/sqrt(1+4eps)) >= 0,
    because V(p) = p(1-p) + eps <= 1/4 + eps. Checked: the logit difference identity, and 1/4 - p(1-p) =
    (p - 1/2)^2 >= 0."""
    odds = h_expr() / (1 - h_expr())
    odds_ratio = odds / odds.subs(P, sp.Rational(1, 2))
    claimed = (1 / sp.sqrt(variance_term()) - 1 / sp.sqrt(sp.Rational(1, 4) + EPS)) / BETA
    diff_id = check_equal("odds h(p) / odds h(1/2) = exp(logit difference)", odds_ratio, sp.exp(claimed))
    square = check_equal("1/4 - p(1-p) = (p - 1/2)^2", sp.Rational(1, 4) - P * (1 - P), (P - sp.Rational(1, 2)) ** 2)
    return Identity(
        name="Proposition 1: minimum of h at p = 1/2",
        lhs=claimed,
        rhs=sp.Integer(0),
        holds=diff_id.holds and square.holds,
        relation=">=",
        notes="The logit is increasing, so h(p) >= h(1/2) for every p in [0, 1].",
        extra={"logit_difference": diff_id, "variance_gap": square},
    )


__all__ += ["proposition1_minimum_gap", "variance_term"]


# --------------------------------------------------------------------------------------------
# Remark 1 (eps = 0)
# --------------------------------------------------------------------------------------------


def remark1_discontinuity() -> list[Identity]:
    """Remark 1 at eps = 0: the formula of h is undefined at p = 0 and p = 1 (1/sqrt(0)), while its
    one-sided limits there are both 1 (the exponent tends to -infinity); for eps > 0 the map takes the
    values h(0) = h(1) = 1/(1 + (1-p_ref)/p_ref e^{-1/(beta sqrt eps)}) < 1.

    So at eps = 0 h is not a continuous map on the closed interval [0, 1] as printed (it is not defined
    at the end points). It does have a continuous extension (value 1 at both ends), which makes p = 1
    a fixed point of the extension; see the errata table.
    """
    h0 = h_expr(eps=sp.Integer(0))
    h_eps = h_expr()
    lim0 = sp.limit(h0, P, 0, "+")
    lim1 = sp.limit(h0.subs(P, 1 - _T), _T, 0, "+")
    at0_eps0 = h0.subs(P, 0)
    at1_eps0 = h0.subs(P, 1)
    h_eps0 = sp.simplify(h_eps.subs(P, 0))
    h_eps1 = sp.simplify(h_eps.subs(P, 1))
    gap = sp.simplify((1 - h_eps0).subs(OPEN_UNIT_SUBS))
    return [
        check_equal("eps = 0: lim_{p->0+} h(p) = 1", lim0, sp.Integer(1)),
        check_equal("eps = 0: lim_{p->1-} h(p) = 1", lim1, sp.Integer(1)),
        Identity(
            name="eps = 0: h(0) and h(1) are undefined (1/sqrt(0))",
            lhs=at0_eps0,
            rhs=at1_eps0,
            holds=not at0_eps0.is_finite and not at1_eps0.is_finite,
            relation="undefined",
            notes="sympy evaluates the eps = 0 formula at p = 0 and p = 1 to nan.",
        ),
        check_equal("eps > 0: h(0) = h(1)", h_eps0, h_eps1),
        Identity(
            name="eps > 0: h(0) < 1 = lim of the eps = 0 map",
            lhs=h_eps0,
            rhs=sp.Integer(1),
            holds=bool(gap.is_positive),
            relation="<",
            residual=gap,
            notes="1 - h(0) = A/(A + e^{1/(beta sqrt eps)}) > 0 with A = (1-p_ref)/p_ref (sympy assumptions).",
        ),
    ]


# --------------------------------------------------------------------------------------------
# Lemma 1 (slope at a fixed point)
# --------------------------------------------------------------------------------------------


def fixed_point_reference(p_star: sp.Expr = P_STAR) -> sp.Expr:
    """The p_ref for which p_star is a fixed point of h: logit p_ref = logit p* - 1/(beta sqrt(V(p*)))."""
    return 1 / (1 + (1 - p_star) / p_star * sp.exp(1 / (BETA * sp.sqrt(variance_term(p_star)))))


__all__ += ["fixed_point_reference"]


def lemma1_slope_at_fixed_point(claimed: sp.Expr | None = None) -> Identity:
    """Lemma 1: at a fixed point p* = h(p*), h'(p*) = p*(1-p*)(2p*-1)/(2 beta (p*(1-p*)+eps)^{3/2}).

    Every p* in (0, 1) is a fixed point for exactly one p_ref (:func:`fixed_point_reference`); with that
    p_ref, sympy checks h(p*) = p* and then compares d h/dp at p* with the formula (or ``claimed``,
    an expression in :data:`P_STAR`).
    """
    p_ref_star = fixed_point_reference()
    h_star = h_expr(p_ref=p_ref_star)
    fixed = check_equal("h(p*) = p* for p_ref = fixed_point_reference(p*)", h_star.subs(P, P_STAR), P_STAR)
    slope = sp.diff(h_star, P).subs(P, P_STAR)
    rhs = (
        P_STAR * (1 - P_STAR) * (2 * P_STAR - 1) / (2 * BETA * variance_term(P_STAR) ** sp.Rational(3, 2))
        if claimed is None
        else sp.sympify(claimed)
    )
    ident = check_equal("Lemma 1: h'(p*) at a fixed point", slope, rhs)
    return Identity(
        name=ident.name,
        lhs=ident.lhs,
        rhs=ident.rhs,
        holds=ident.holds and fixed.holds,
        residual=ident.residual,
        notes="h(1-h) becomes p*(1-p*) because h(p*) = p*.",
        extra={"fixed_point": fixed},
    )


# --------------------------------------------------------------------------------------------
# Theorem 2's recursion from Theorem 1's policy on a finite outcome set
# --------------------------------------------------------------------------------------------


def theorem2_success_recursion(n_success: int = 2, n_fail: int = 2) -> Identity:
    """Proof of Theorem 2: the success probability of Theorem 1's policy on a finite outcome set
    (``n_success`` outcomes with r = 1, ``n_fail`` with r = 0, symbolic reference masses) is
    p_ref e^{w+/beta}/Z, i.e. Eq. (9), where p_ref is the reference mass on r = 1."""
    n_success = check_positive_int("n_success", n_success)
    n_fail = check_positive_int("n_fail", n_fail)
    masses = sp.symbols(f"pi_1:{n_success + n_fail + 1}", positive=True)
    w_plus, w_minus = sp.symbols("omega_plus omega_minus", positive=True)
    rewards = [w_plus] * n_success + [-w_minus] * n_fail
    total = sum(masses)
    ref = [m / total for m in masses]
    weights = [r * sp.exp(rw / BETA) for r, rw in zip(ref, rewards, strict=True)]
    z = sum(weights)
    success = sum(weights[:n_success]) / z
    p_ref = sum(ref[:n_success])
    eq9 = p_ref * sp.exp(w_plus / BETA) / (p_ref * sp.exp(w_plus / BETA) + (1 - p_ref) * sp.exp(-w_minus / BETA))
    return check_equal("Theorem 2: success mass of pi_n equals Eq. (9)", success, eq9)


# --------------------------------------------------------------------------------------------
# Display
# --------------------------------------------------------------------------------------------


def checks_table(items: Identity | list[Identity]) -> Markdown:
    """A Markdown table of checks: name, relation, verdict and notes (for the appendix chapter)."""
    items = items if isinstance(items, list) else [items]
    rows = [
        [
            escape_markdown(i.name),
            escape_markdown(i.relation),
            "holds" if i.holds else "FAILS",
            escape_markdown(i.notes),
        ]
        for i in items
    ]
    return markdown_table(["check", "relation", "result", "notes"], rows)


__all__ += ["checks_table"]
