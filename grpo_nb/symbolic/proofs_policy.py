"""Proof of Theorem 1 (Mroueh 2025, Appendix A) on a finite outcome set, step by step.

The GRPO-iteration objective for one prompt, over a policy pi on outcomes 1..m with rewards r_i in {0, 1}, is

    J(pi) = sum_i pi_i R_i - beta sum_i pi_i log(pi_i / pi_ref_i),   R_i = w+ 1{r_i = 1} - w- 1{r_i = 0},

with w+ = omega^+_eps(p_{n-1}) and w- = omega^-_eps(p_{n-1}) from Eq. (4). The steps checked here:

1. first-order conditions of the Lagrangian J + lambda (sum pi - 1) solved by sympy give the Gibbs policy
   pi_i = pi_ref_i e^{R_i/beta} / Z;
2. the Gibbs variational identity J(pi) = beta log Z - beta KL(pi || pi_n), so pi_n is the maximiser;
3. the Hessian of J is diag(-beta/pi_i): J is strictly concave;
4. Z splits on r: Z = p_ref e^{w+/beta} + (1 - p_ref) e^{-w-/beta};
5. numerically, random feasible perturbations of pi_n never increase J.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import sympy as sp

from grpo_nb.symbolic.identity import Identity, check_equal
from grpo_nb.symbolic.proofs import BETA, omega_minus, omega_plus
from grpo_nb.validation import check_beta, check_eps, check_positive_int

__all__ = [
    "theorem1_concavity",
    "theorem1_first_order_conditions",
    "theorem1_gibbs_variational_identity",
    "theorem1_partition_split",
    "theorem1_random_perturbations",
]

W_PLUS, W_MINUS, LAMBDA = sp.symbols("omega_plus omega_minus lambda", positive=True)


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
    rewards = [W_PLUS] * n_success + [-W_MINUS] * n_fail
    return pi, ref, rewards


def _objective(pi: tuple, ref: tuple, rewards: list) -> sp.Expr:
    return sum(x * r for x, r in zip(pi, rewards, strict=True)) - BETA * sum(
        x * sp.log(x / q) for x, q in zip(pi, ref, strict=True)
    )


def _gibbs(ref: tuple, rewards: list) -> tuple[list[sp.Expr], sp.Expr]:
    z = sum(q * sp.exp(r / BETA) for q, r in zip(ref, rewards, strict=True))
    return [q * sp.exp(r / BETA) / z for q, r in zip(ref, rewards, strict=True)], z


def theorem1_first_order_conditions(n_success: int = 2, n_fail: int = 2) -> list[Identity]:
    """Theorem 1 from the Lagrangian: solve dL/dpi_i = 0 and sum pi_i = 1 with sympy; compare with the Gibbs form.

    Returns one Identity per outcome (solved pi_i == pi_ref_i e^{R_i/beta}/Z).
    """
    pi, ref, rewards = _outcomes(n_success, n_fail)
    lagrangian = _objective(pi, ref, rewards) + LAMBDA * (sum(pi) - 1)
    stationary = {}
    for x in pi:
        sol = sp.solve(sp.Eq(sp.diff(lagrangian, x), 0), x, dict=True)
        stationary[x] = sol[0][x]
    lam = sp.Symbol("lambda")  # solve the normalisation for an unrestricted multiplier
    norm = sp.solve(sp.Eq(sum(stationary.values()).subs(LAMBDA, lam), 1), lam, dict=True)
    lam_value = norm[0][lam]
    solved = [sp.simplify(stationary[x].subs(LAMBDA, lam_value)) for x in pi]
    gibbs, _ = _gibbs(ref, rewards)
    return [
        check_equal(f"Theorem 1: stationary pi_{i + 1} equals the Gibbs form", s, g)
        for i, (s, g) in enumerate(zip(solved, gibbs, strict=True))
    ]


def theorem1_gibbs_variational_identity(n_success: int = 2, n_fail: int = 2) -> Identity:
    """J(pi) = beta log Z - beta KL(pi || pi_n) for every pi on the simplex, with pi_n the Gibbs policy.

    Since KL >= 0 with equality only at pi = pi_n, the Gibbs policy is the unique maximiser (Gibbs
    variational principle). Checked by sympy with the last mass eliminated by sum pi = 1.
    """
    pi, ref, rewards = _outcomes(n_success, n_fail)
    gibbs, z = _gibbs(ref, rewards)
    objective = _objective(pi, ref, rewards)
    kl = sum(x * sp.log(x / g) for x, g in zip(pi, gibbs, strict=True))
    last = 1 - sum(pi[:-1])
    lhs = sp.expand(sp.expand_log(objective, force=True)).subs(pi[-1], last)
    rhs = sp.expand(sp.expand_log(BETA * sp.log(z) - BETA * kl, force=True)).subs(pi[-1], last)
    ident = check_equal("Theorem 1: J(pi) = beta log Z - beta KL(pi || pi_n)", lhs, rhs)
    return Identity(
        name=ident.name,
        lhs=objective,
        rhs=BETA * sp.log(z) - BETA * sp.Symbol("KL(pi||pi_n)"),
        holds=ident.holds,
        residual=ident.residual,
        notes="On the simplex; the maximum value is beta log Z, attained only at pi = pi_n.",
    )


def theorem1_concavity(n_success: int = 2, n_fail: int = 2) -> Identity:
    """The Hessian of J in pi is diag(-beta/pi_i): negative definite on the open simplex (strict concavity)."""
    pi, ref, rewards = _outcomes(n_success, n_fail)
    objective = _objective(pi, ref, rewards)
    hessian = sp.hessian(objective, pi)
    expected = sp.diag(*[-BETA / x for x in pi])
    residual = sp.simplify(hessian - expected)
    negative = all(sp.simplify(hessian[i, i]).is_negative for i in range(len(pi)))
    return Identity(
        name="Theorem 1: Hessian of the objective is diag(-beta/pi_i)",
        lhs=hessian,
        rhs=expected,
        holds=residual.is_zero_matrix and negative,
        residual=residual,
        notes="Diagonal with negative entries, so the objective is strictly concave.",
    )


def theorem1_partition_split(n_success: int = 2, n_fail: int = 2) -> Identity:
    """Z = sum_i pi_ref_i e^{R_i/beta} split on r equals p_ref e^{w+/beta} + (1 - p_ref) e^{-w-/beta}."""
    _, masses, rewards = _outcomes(n_success, n_fail)
    total = sum(masses)
    ref = tuple(m / total for m in masses)
    _, z = _gibbs(ref, rewards)
    p_ref = sum(ref[:n_success])
    split = p_ref * sp.exp(W_PLUS / BETA) + (1 - p_ref) * sp.exp(-W_MINUS / BETA)
    return check_equal("Theorem 1: Z_{n-1} split on r", z, split)


@cache
def _numeric_closed_form(n_success: int, n_fail: int) -> tuple:
    """Lambdified sympy derivation: the policy of :func:`theorem1_first_order_conditions` and the objective."""
    pi, ref, rewards = _outcomes(n_success, n_fail)
    gibbs, _ = _gibbs(ref, rewards)
    args = (ref, W_PLUS, W_MINUS, BETA)
    policy = sp.lambdify(args, gibbs, "numpy")
    objective = sp.lambdify((pi, ref, W_PLUS, W_MINUS, BETA), _objective(pi, ref, rewards), "numpy")
    return policy, objective


def theorem1_random_perturbations(
    n_cases: int = 50, n_perturbations: int = 200, n_success: int = 3, n_fail: int = 3, seed: int = 0
) -> Identity:
    """Numerical check of optimality: on random finite problems (random pi_ref, p_{n-1}, beta, eps), random
    feasible perturbations pi_n + t (q - pi_n) (q random on the simplex, t in (0, 1]) never increase J.

    ``lhs`` is the largest observed J(perturbed) - J(pi_n); the check holds when it is <= 1e-12.
    """
    n_cases = check_positive_int("n_cases", n_cases)
    n_perturbations = check_positive_int("n_perturbations", n_perturbations)
    policy, objective = _numeric_closed_form(n_success, n_fail)
    rng = np.random.default_rng(seed)
    m = n_success + n_fail
    worst = -np.inf
    for _ in range(n_cases):
        ref = rng.dirichlet(np.ones(m))
        p_prev = rng.uniform(0.01, 0.99)
        beta = float(check_beta(10 ** rng.uniform(-1, 1)))
        eps = float(check_eps(10 ** rng.uniform(-5, -1)))
        w_plus = float(omega_plus(sp.Float(p_prev), sp.Float(eps)))
        w_minus = float(omega_minus(sp.Float(p_prev), sp.Float(eps)))
        best = np.asarray(policy(ref, w_plus, w_minus, beta), dtype=float)
        j_best = objective(best, ref, w_plus, w_minus, beta)
        q = rng.dirichlet(np.ones(m), size=n_perturbations)
        t = 10 ** rng.uniform(-6, 0, size=(n_perturbations, 1))
        moved = best + t * (q - best)
        j_moved = np.array([objective(row, ref, w_plus, w_minus, beta) for row in moved])
        worst = max(worst, float(np.max(j_moved - j_best)))
    notes = f"{n_cases} random problems x {n_perturbations} perturbations, {m} outcomes, seed {seed}."
    return _at_most("Theorem 1: random feasible perturbations never do better", worst, 1e-12, notes, "max_gain")


def theorem1_matches_grpo_step(n_cases: int = 50, n_success: int = 3, n_fail: int = 3, seed: int = 0) -> Identity:
    """The policy derived here with sympy (lambdified) agrees with the numeric closed form
    :func:`grpo_nb.tabular.closed_form.grpo_step` on random problems (max abs difference <= 1e-12)."""
    from grpo_nb.tabular.closed_form import grpo_step

    n_cases = check_positive_int("n_cases", n_cases)
    policy, _ = _numeric_closed_form(n_success, n_fail)
    rng = np.random.default_rng(seed)
    m = n_success + n_fail
    reward = (np.arange(m) < n_success).astype(int)
    worst = 0.0
    for _ in range(n_cases):
        ref, prev = rng.dirichlet(np.ones(m), size=2)
        beta = float(10 ** rng.uniform(-1, 1))
        eps = float(10 ** rng.uniform(-5, -1))
        p_prev = float(prev @ reward)
        w_plus = float(omega_plus(sp.Float(p_prev), sp.Float(eps)))
        w_minus = float(omega_minus(sp.Float(p_prev), sp.Float(eps)))
        ours = np.asarray(policy(ref, w_plus, w_minus, beta), dtype=float)
        worst = max(worst, float(np.max(np.abs(ours - grpo_step(ref, prev, reward, beta, eps)))))
    notes = f"{n_cases} random problems, {m} outcomes, seed {seed}; lhs = max abs difference."
    return _at_most(
        "Theorem 1: the sympy-derived policy equals tabular.grpo_step", worst, 1e-12, notes, "max_abs_difference"
    )


__all__ += ["theorem1_matches_grpo_step"]
