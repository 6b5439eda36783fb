"""§3 of Mroueh (2025), "GRPO dynamics": Theorems 1 and 2, Proposition 1 and Remark 1, with their proofs (App. A).

Each check starts from :mod:`grpo_nb.symbolic.expressions` (the objective of a GRPO iteration, the KL term, the
Bernoulli advantages) and compares what sympy derives with the formula the paper prints, typed out here. The printed
formulas can be replaced through ``claimed={key: expr}`` (see :func:`grpo_nb.symbolic.identity.claims`).

Theorem 1 on a finite outcome set (``n_success`` outcomes with r = 1, ``n_fail`` with r = 0):

1. first-order conditions of the Lagrangian of Eq. (6), solved by sympy, give the tilted (Gibbs) policy;
2. the Gibbs variational identity J(pi) = beta log Z - beta KL(pi || pi_n), so pi_n is the maximiser;
3. the Hessian of J is diag(-beta/pi_i): J is strictly concave;
4. Z splits on r: Z = p_ref e^{w+/beta} + (1 - p_ref) e^{-w-/beta};
5. numerically, random feasible perturbations of pi_n never increase J.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache

import numpy as np
import sympy as sp

from grpo_nb.symbolic import expressions as ex
from grpo_nb.symbolic.expressions import BETA, EPS, OPEN_UNIT_SUBS, P_REF, P
from grpo_nb.symbolic.identity import Identity, check_equal, check_sign, claims
from grpo_nb.tabular.closed_form import grpo_step
from grpo_nb.validation import check_beta, check_eps, check_positive_int

__all__ = [
    "PRINTED_H",
    "proposition1_derivative",
    "proposition1_minimum_gap",
    "proposition1_sigmoid_chain",
    "proposition1_sign",
    "remark1_discontinuity",
    "theorem1_concavity",
    "theorem1_first_order_conditions",
    "theorem1_gibbs_variational_identity",
    "theorem1_matches_grpo_step",
    "theorem1_partition_split",
    "theorem1_random_perturbations",
    "theorem2_logistic_form",
    "theorem2_success_recursion",
]

W_PLUS, W_MINUS, LAMBDA = sp.symbols("omega_plus omega_minus lambda", positive=True)
_T = sp.Symbol("t", positive=True)
Claimed = Mapping[str, sp.Expr] | sp.Expr | None

#: Theorem 2's map as the paper prints it (typed, not derived)
PRINTED_H = 1 / (1 + (1 - P_REF) / P_REF * sp.exp(-1 / (BETA * sp.sqrt(P * (1 - P) + EPS))))


def _at_most(name: str, worst: float, tol: float, notes: str, key: str) -> Identity:
    """A numerical claim "worst <= tol" as an Identity (the value is also kept in ``extra[key]``)."""
    return Identity(
        name=name,
        lhs=sp.Float(worst),
        rhs=sp.Float(tol),
        holds=bool(worst <= tol),
        relation="<=",
        notes=notes,
        extra={key: worst},
    )


def _outcomes(n_success: int, n_fail: int) -> tuple[tuple[sp.Symbol, ...], tuple[sp.Symbol, ...], list[sp.Expr]]:
    n_success = check_positive_int("n_success", n_success)
    n_fail = check_positive_int("n_fail", n_fail)
    m = n_success + n_fail
    pi = sp.symbols(f"pi_1:{m + 1}", positive=True)
    ref = sp.symbols(f"pi_ref_1:{m + 1}", positive=True)
    tilts = [W_PLUS] * n_success + [-W_MINUS] * n_fail
    return pi, ref, tilts


def _printed_policy(ref: tuple, tilts: list, inverse_temperature: sp.Expr) -> tuple[list[sp.Expr], sp.Expr]:
    """Theorem 1 as printed: pi_n(o) = pi_ref(o) e^{R(o)/beta} / Z, with 1/beta replaceable for negative tests."""
    z = sum(q * sp.exp(t * inverse_temperature) for q, t in zip(ref, tilts, strict=True))
    return [q * sp.exp(t * inverse_temperature) / z for q, t in zip(ref, tilts, strict=True)], z


# --------------------------------------------------------------------------------------------
# Theorem 1
# --------------------------------------------------------------------------------------------


def theorem1_first_order_conditions(n_success: int = 2, n_fail: int = 2, claimed: Claimed = None) -> list[Identity]:
    """Theorem 1 from the Lagrangian of Eq. (6): sympy solves dL/dpi_i = 0 and sum pi_i = 1; each solution is
    compared with the printed pi_ref e^{R_i/beta}/Z (claim ``inverse_temperature``, printed 1/beta)."""
    c = claims(claimed, {"inverse_temperature": 1 / BETA}, main="inverse_temperature")
    pi, ref, tilts = _outcomes(n_success, n_fail)
    lagrangian = ex.iteration_objective(pi, ref, tilts) + LAMBDA * (sum(pi) - 1)
    stationary = {x: sp.solve(sp.Eq(sp.diff(lagrangian, x), 0), x, dict=True)[0][x] for x in pi}
    lam = sp.Symbol("lambda")  # solve the normalisation for an unrestricted multiplier
    lam_value = sp.solve(sp.Eq(sum(stationary.values()).subs(LAMBDA, lam), 1), lam, dict=True)[0][lam]
    solved = [sp.simplify(stationary[x].subs(LAMBDA, lam_value)) for x in pi]
    printed, _ = _printed_policy(ref, tilts, c["inverse_temperature"])
    return [
        check_equal(f"Theorem 1: stationary pi_{i + 1} equals the Gibbs form", s, g, claim="inverse_temperature")
        for i, (s, g) in enumerate(zip(solved, printed, strict=True))
    ]


def theorem1_gibbs_variational_identity(n_success: int = 2, n_fail: int = 2, claimed: Claimed = None) -> Identity:
    """J(pi) = beta log Z - beta KL(pi || pi_n) for every pi on the simplex, with pi_n the derived Gibbs policy.

    Since KL >= 0 with equality only at pi = pi_n, the Gibbs policy is the unique maximiser (Gibbs
    variational principle). Checked by sympy with the last mass eliminated by sum pi = 1. Claim
    ``kl_weight`` (beta): the weight of the KL term on the right.
    """
    c = claims(claimed, {"kl_weight": BETA}, main="kl_weight")
    pi, ref, tilts = _outcomes(n_success, n_fail)
    gibbs, z = ex.tilted_policy(ref, tilts)
    objective = ex.iteration_objective(pi, ref, tilts)
    last = 1 - sum(pi[:-1])
    lhs = sp.expand(sp.expand_log(objective, force=True)).subs(pi[-1], last)
    right = c["kl_weight"] * sp.log(z) - c["kl_weight"] * ex.kl_divergence(pi, gibbs)
    rhs = sp.expand(sp.expand_log(right, force=True)).subs(pi[-1], last)
    ident = check_equal("Theorem 1: J(pi) = beta log Z - beta KL(pi || pi_n)", lhs, rhs)
    return Identity(
        name=ident.name,
        lhs=objective,
        rhs=c["kl_weight"] * sp.log(z) - c["kl_weight"] * sp.Symbol("KL(pi||pi_n)"),
        holds=ident.holds,
        residual=ident.residual,
        notes="On the simplex; the maximum value is beta log Z, attained only at pi = pi_n.",
        extra={"claim": "kl_weight", "claimed": c["kl_weight"]},
    )


def theorem1_concavity(n_success: int = 2, n_fail: int = 2, claimed: Claimed = None) -> Identity:
    """The Hessian of J in pi is diag(-beta/pi_i) (claim ``hessian_scale``, printed -beta): negative definite
    on the open simplex, so J is strictly concave."""
    c = claims(claimed, {"hessian_scale": -BETA}, main="hessian_scale")
    pi, ref, tilts = _outcomes(n_success, n_fail)
    hessian = sp.hessian(ex.iteration_objective(pi, ref, tilts), pi)
    expected = sp.diag(*[c["hessian_scale"] / x for x in pi])
    residual = sp.simplify(hessian - expected)
    negative = all(sp.simplify(expected[i, i]).is_negative for i in range(len(pi)))
    return Identity(
        name="Theorem 1: Hessian of the objective is diag(-beta/pi_i)",
        lhs=hessian,
        rhs=expected,
        holds=residual.is_zero_matrix and negative,
        residual=residual,
        notes="Diagonal with negative entries, so the objective is strictly concave.",
        extra={"claim": "hessian_scale", "claimed": c["hessian_scale"]},
    )


def theorem1_partition_split(n_success: int = 2, n_fail: int = 2, claimed: Claimed = None) -> Identity:
    """Z = sum_i pi_ref_i e^{R_i/beta} split on r equals p_ref e^{w+/beta} + (1 - p_ref) e^{-w-/beta} (claim
    ``partition``, an expression in P_REF, omega_plus, omega_minus and BETA)."""
    printed = P_REF * sp.exp(W_PLUS / BETA) + (1 - P_REF) * sp.exp(-W_MINUS / BETA)
    c = claims(claimed, {"partition": printed}, main="partition")
    _, masses, tilts = _outcomes(n_success, n_fail)
    total = sum(masses)
    ref = tuple(m / total for m in masses)
    _, z = ex.tilted_policy(ref, tilts)
    split = c["partition"].subs(P_REF, sum(ref[:n_success]))
    return check_equal("Theorem 1: Z_{n-1} split on r", z, split, claim="partition")


@cache
def _numeric_closed_form(n_success: int, n_fail: int) -> tuple:
    """Lambdified sympy derivation: the policy of :func:`theorem1_first_order_conditions` and the objective."""
    pi, ref, tilts = _outcomes(n_success, n_fail)
    gibbs, _ = ex.tilted_policy(ref, tilts)
    policy = sp.lambdify((ref, W_PLUS, W_MINUS, BETA), gibbs, "numpy")
    objective = sp.lambdify((pi, ref, W_PLUS, W_MINUS, BETA), ex.iteration_objective(pi, ref, tilts), "numpy")
    return policy, objective


@cache
def _numeric_weights() -> Callable:
    """omega^+ and omega^- of :mod:`grpo_nb.symbolic.expressions`, lambdified."""
    return sp.lambdify((P, EPS), [ex.omega_plus(), ex.omega_minus()], "numpy")


def theorem1_random_perturbations(
    n_cases: int = 50,
    n_perturbations: int = 200,
    *,
    n_success: int = 3,
    n_fail: int = 3,
    seed: int = 0,
    start_mix: float = 0.0,
) -> Identity:
    """Numerical check of optimality: on random finite problems (random pi_ref, p_{n-1}, beta, eps), random
    feasible perturbations pi_n + t (q - pi_n) (q random on the simplex, t in (0, 1]) never increase J.

    ``lhs`` is the largest observed J(perturbed) - J(pi_n); the check holds when it is <= 1e-12. ``start_mix`` > 0
    starts from (1 - start_mix) pi_n + start_mix * uniform instead (not the maximiser: the check must then fail).
    """
    n_cases = check_positive_int("n_cases", n_cases)
    n_perturbations = check_positive_int("n_perturbations", n_perturbations)
    policy, objective = _numeric_closed_form(n_success, n_fail)
    weights = _numeric_weights()
    rng = np.random.default_rng(seed)
    m = n_success + n_fail
    worst = -np.inf
    for _ in range(n_cases):
        ref = rng.dirichlet(np.ones(m))
        p_prev = rng.uniform(0.01, 0.99)
        beta = float(check_beta(10 ** rng.uniform(-1, 1)))
        eps = float(check_eps(10 ** rng.uniform(-5, -1)))
        w_plus, w_minus = (float(w) for w in weights(p_prev, eps))
        best = np.asarray(policy(ref, w_plus, w_minus, beta), dtype=float)
        best = (1 - start_mix) * best + start_mix / m
        j_best = objective(best, ref, w_plus, w_minus, beta)
        q = rng.dirichlet(np.ones(m), size=n_perturbations)
        t = 10 ** rng.uniform(-6, 0, size=(n_perturbations, 1))
        moved = best + t * (q - best)
        j_moved = np.array([objective(row, ref, w_plus, w_minus, beta) for row in moved])
        worst = max(worst, float(np.max(j_moved - j_best)))
    notes = f"{n_cases} random problems x {n_perturbations} perturbations, {m} outcomes, seed {seed}."
    return _at_most("Theorem 1: random feasible perturbations never do better", worst, 1e-12, notes, "max_gain")


def theorem1_matches_grpo_step(n_cases: int = 50, n_success: int = 3, n_fail: int = 3, *, seed: int = 0) -> Identity:
    """The policy derived here with sympy (lambdified) agrees with the numeric closed form
    :func:`grpo_nb.tabular.closed_form.grpo_step` on random problems (max abs difference <= 1e-12). The closed form is
    read through the module-level name ``grpo_step``: the negative test replaces it by a wrong one."""
    n_cases = check_positive_int("n_cases", n_cases)
    policy, _ = _numeric_closed_form(n_success, n_fail)
    weights = _numeric_weights()
    rng = np.random.default_rng(seed)
    m = n_success + n_fail
    reward = (np.arange(m) < n_success).astype(int)
    worst = 0.0
    for _ in range(n_cases):
        ref, prev = rng.dirichlet(np.ones(m), size=2)
        beta = float(10 ** rng.uniform(-1, 1))
        eps = float(10 ** rng.uniform(-5, -1))
        w_plus, w_minus = (float(w) for w in weights(float(prev @ reward), eps))
        ours = np.asarray(policy(ref, w_plus, w_minus, beta), dtype=float)
        worst = max(worst, float(np.max(np.abs(ours - grpo_step(ref, prev, reward, beta, eps)))))
    notes = f"{n_cases} random problems, {m} outcomes, seed {seed}; lhs = max abs difference."
    return _at_most(
        "Theorem 1: the sympy-derived policy equals tabular.grpo_step", worst, 1e-12, notes, "max_abs_difference"
    )


# --------------------------------------------------------------------------------------------
# Theorem 2 (Eq. 9 and the logistic form of h)
# --------------------------------------------------------------------------------------------


def theorem2_success_recursion(n_success: int = 2, n_fail: int = 2, claimed: Claimed = None) -> Identity:
    """Proof of Theorem 2: the success mass of Theorem 1's policy on a finite outcome set (``n_success`` outcomes
    with r = 1, ``n_fail`` with r = 0, symbolic reference masses) is Eq. (9) as printed (claim ``eq9``, in P_REF,
    omega_plus, omega_minus and BETA), p_ref being the reference mass on r = 1."""
    up = P_REF * sp.exp(W_PLUS / BETA)
    c = claims(claimed, {"eq9": up / (up + (1 - P_REF) * sp.exp(-W_MINUS / BETA))}, main="eq9")
    n_success = check_positive_int("n_success", n_success)
    n_fail = check_positive_int("n_fail", n_fail)
    masses = sp.symbols(f"pi_1:{n_success + n_fail + 1}", positive=True)
    tilts = [W_PLUS] * n_success + [-W_MINUS] * n_fail
    ref = [m / sum(masses) for m in masses]
    policy, _ = ex.tilted_policy(ref, tilts)
    eq9 = c["eq9"].subs(P_REF, sum(ref[:n_success]))
    return check_equal("Theorem 2: success mass of pi_n equals Eq. (9)", sum(policy[:n_success]), eq9, claim="eq9")


def theorem2_logistic_form(ratio: sp.Expr | None = None, claimed: Claimed = None) -> Identity:
    """Theorem 2: Eq. (9) with the Bernoulli advantages w+- of §2 equals the printed logistic form
    1/(1 + (1-p_ref)/p_ref exp(-1/(beta sqrt(p(1-p)+eps)))) (claim ``h``).

    ``ratio`` defaults to :func:`grpo_nb.symbolic.expressions.eq9_ratio` (p_{n-1}(q) in every slot); pass another
    expression (for instance the printed one with ``p_{n-1}(1)``) to check it instead.
    """
    c = claims(claimed, {"h": PRINTED_H}, main="h")
    lhs = ex.eq9_ratio() if ratio is None else sp.sympify(ratio)
    return check_equal(
        "Theorem 2: Eq. (9) equals the logistic form of h",
        lhs,
        c["h"],
        notes="Divide numerator and denominator by p_ref e^{w+/beta}; w+ + w- = 1/sqrt(p(1-p)+eps).",
        claim="h",
    )


# --------------------------------------------------------------------------------------------
# Proposition 1 (h' through sigma(z(p)), its sign, the minimum at 1/2)
# --------------------------------------------------------------------------------------------


def _printed_slope(h: sp.Expr) -> sp.Expr:
    """Prop. 1's printed h'(p) = -h(1-h)(1-2p)/(2 beta (p(1-p)+eps)^{3/2})."""
    return -h * (1 - h) * (1 - 2 * P) / (2 * BETA * (P * (1 - P) + EPS) ** sp.Rational(3, 2))


def proposition1_derivative(claimed: Claimed = None) -> Identity:
    """Proposition 1: d/dp h(p) equals the printed -h(1-h)(1-2p)/(2 beta (p(1-p)+eps)^{3/2}) (claim ``h_prime``)."""
    c = claims(claimed, {"h_prime": _printed_slope(PRINTED_H)}, main="h_prime")
    return check_equal("Proposition 1: derivative of h", sp.diff(ex.h_expr(), P), c["h_prime"], claim="h_prime")


def proposition1_sigmoid_chain(claimed: Claimed = None) -> list[Identity]:
    """Proof of Prop. 1: h = sigma(z(p)) with z = log(p_ref/(1-p_ref)) + 1/(beta sqrt(V)) (claim ``z``),
    z' = -(1-2p)/(2 beta V^{3/2}) (claim ``z_prime``), sigma' = sigma(1 - sigma) (claim ``sigma_prime``) and
    h' = sigma(z)(1 - sigma(z)) z'(p)."""
    z_sym = sp.Symbol("z")
    v = P * (1 - P) + EPS
    c = claims(
        claimed,
        {
            "z": sp.log(P_REF / (1 - P_REF)) + 1 / (BETA * sp.sqrt(v)),
            "z_prime": -(1 - 2 * P) / (2 * BETA * v ** sp.Rational(3, 2)),
            "sigma_prime": ex.sigmoid(z_sym) * (1 - ex.sigmoid(z_sym)),
        },
    )
    h = ex.h_expr()
    return [
        check_equal("h = sigma(z(p)), z(p) = -log A + B(p)", h, ex.sigmoid(c["z"]), claim="z"),
        check_equal("z'(p) = B'(p) = -(1-2p)/(2 beta V^{3/2})", sp.diff(c["z"], P), c["z_prime"], claim="z_prime"),
        check_equal(
            "sigma'(z) = sigma(z)(1 - sigma(z))",
            sp.diff(ex.sigmoid(z_sym), z_sym),
            c["sigma_prime"],
            claim="sigma_prime",
        ),
        check_equal(
            "h'(p) = sigma(z(p))(1 - sigma(z(p))) z'(p)",
            sp.diff(h, P),
            c["sigma_prime"].subs(z_sym, c["z"]) * c["z_prime"],
            claim="z_prime",
        ),
    ]


def proposition1_sign(claimed: Claimed = None) -> list[Identity]:
    """Prop. 1's sign pattern: h'(p) = (2p - 1) c(p) with the printed c(p) = h(1-h)/(2 beta V^{3/2}) (claim ``c``),
    c(p) > 0 for 0 < p < 1 (sympy's assumptions after p = u/(1+u), p_ref = 1/(1+A)), and h'(1/2) = 0 (claim
    ``slope_at_half``): h' < 0 below 1/2, > 0 above, so p = 1/2 is the global minimum of h on [0, 1]."""
    v = P * (1 - P) + EPS
    c = claims(
        claimed,
        {"c": PRINTED_H * (1 - PRINTED_H) / (2 * BETA * v ** sp.Rational(3, 2)), "slope_at_half": sp.Integer(0)},
    )
    hp = sp.diff(ex.h_expr(), P)
    return [
        check_equal("h'(p) = (2p - 1) c(p)", hp, (2 * P - 1) * c["c"], claim="c"),
        check_sign(
            "c(p) > 0 for 0 < p < 1",
            c["c"],
            ">",
            subs=OPEN_UNIT_SUBS,
            claim="c",
            notes="sympy's assumptions decide the sign with p = u/(1+u), p_ref = 1/(1+A).",
        ),
        check_equal("h'(1/2) = 0", hp.subs(P, sp.Rational(1, 2)), c["slope_at_half"], claim="slope_at_half"),
    ]


def proposition1_minimum_gap(claimed: Claimed = None) -> list[Identity]:
    """Proof of the minimum: logit h(p) - logit h(1/2) = (1/beta)(1/sqrt(V(p)) - 2/sqrt(1+4 eps)) (claim ``gap``,
    derived from h by sympy), and this gap is >= 0: it equals (p - 1/2)^2 / (beta sqrt(V) sqrt(1/4+eps)
    (sqrt(V) + sqrt(1/4+eps))) (claim ``rationalised``), whose sign sympy decides for 0 < p < 1."""
    v, v_half = P * (1 - P) + EPS, sp.Rational(1, 4) + EPS
    c = claims(
        claimed,
        {
            "gap": (1 / sp.sqrt(v) - 2 / sp.sqrt(1 + 4 * EPS)) / BETA,
            "rationalised": (P - sp.Rational(1, 2)) ** 2
            / (BETA * sp.sqrt(v) * sp.sqrt(v_half) * (sp.sqrt(v) + sp.sqrt(v_half))),
        },
    )
    h = ex.h_expr()
    odds = h / (1 - h)
    odds_ratio = sp.simplify(odds / odds.subs(P, sp.Rational(1, 2)))
    derived = sp.simplify(sp.expand_log(sp.log(odds_ratio), force=True))
    return [
        check_equal(
            "logit h(p) - logit h(1/2) = (1/beta)(1/sqrt(V(p)) - 2/sqrt(1+4 eps))", derived, c["gap"], claim="gap"
        ),
        check_equal("the gap rationalised", c["gap"], c["rationalised"], claim="rationalised"),
        check_sign(
            "Proposition 1: logit h(p) - logit h(1/2) >= 0",
            c["rationalised"],
            ">=",
            subs=OPEN_UNIT_SUBS,
            claim="rationalised",
            notes="The logit is increasing, so h(p) >= h(1/2) for every p in [0, 1].",
        ),
    ]


# --------------------------------------------------------------------------------------------
# Remark 1 (eps = 0)
# --------------------------------------------------------------------------------------------


def remark1_discontinuity(claimed: Claimed = None) -> list[Identity]:
    """Remark 1 at eps = 0: the formula of h is undefined at p = 0 and p = 1 (1/sqrt(0)), while its
    one-sided limits there are both 1 (claims ``limit_at_0``, ``limit_at_1``); for eps > 0 the map takes the
    values h(0) = h(1) = 1/(1 + (1-p_ref)/p_ref e^{-1/(beta sqrt eps)}) < 1.

    So at eps = 0 h is not a continuous map on the closed interval [0, 1] as printed (it is not defined
    at the end points). It does have a continuous extension (value 1 at both ends), which makes p = 1
    a fixed point of the extension; see the errata table.
    """
    c = claims(claimed, {"limit_at_0": sp.Integer(1), "limit_at_1": sp.Integer(1)})
    h0 = ex.h_expr(eps=sp.Integer(0))
    h_eps0 = sp.simplify(ex.h_expr().subs(P, 0))
    h_eps1 = sp.simplify(ex.h_expr().subs(P, 1))
    at0_eps0, at1_eps0 = h0.subs(P, 0), h0.subs(P, 1)
    return [
        check_equal("ε = 0: h(p) → 1 as p → 0⁺", sp.limit(h0, P, 0, "+"), c["limit_at_0"], claim="limit_at_0"),
        check_equal(
            "ε = 0: h(p) → 1 as p → 1⁻",
            sp.limit(h0.subs(P, 1 - _T), _T, 0, "+"),
            c["limit_at_1"],
            claim="limit_at_1",
        ),
        Identity(
            name="ε = 0: h(0) and h(1) are undefined (1/√0)",
            lhs=at0_eps0,
            rhs=at1_eps0,
            holds=not at0_eps0.is_finite and not at1_eps0.is_finite,
            relation="undefined",
            notes="sympy evaluates the eps = 0 formula at p = 0 and p = 1 to nan.",
        ),
        check_equal("ε > 0: h(0) = h(1)", h_eps0, h_eps1),
        check_sign(
            "ε > 0: h(0) < 1, the limit of the ε = 0 map",
            1 - h_eps0,
            ">",
            subs=OPEN_UNIT_SUBS,
            notes="1 - h(0) = A/(A + e^{1/(beta sqrt eps)}) > 0 with A = (1-p_ref)/p_ref (sympy assumptions).",
        ),
    ]
