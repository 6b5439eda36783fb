"""The GRPO variants derived with sympy: optimal policy, logit recursion, Rényi term, fixed points, beta_eff.

A variant step maximises E_pi[A] - beta [alpha KL(pi || pi_ref) + (1 - alpha) KL(pi || pi_{n-1})], with A the
mean + variance advantage of Eq. 4 or the mean-only r - p (:mod:`grpo_nb.variants`). Each function returns a checked
:class:`~grpo_nb.symbolic.identity.Identity` (or a list), and takes an optional ``claimed`` right-hand side so that a
test can feed a wrong formula and see the check fail:

* :func:`gibbs_stationarity`: the policy pi ∝ pi_ref^alpha pi_{n-1}^{1-alpha} e^{A/beta} makes the gradient of the
  Lagrangian the same on every outcome (the objective is strictly concave, so this is the maximiser);
* :func:`logit_recursion`: from a pi_{n-1} that is pi_ref tilted by the reward, logit p_n = alpha a + (1 - alpha)
  z_{n-1} + s/beta, computed on two successes and two failures with symbolic reference masses;
* :func:`renyi_term_vanishes`: such a pi_{n-1} has the conditionals of pi_ref on successes, so the sum
  sum_S pi_ref(o|S)^alpha pi_{n-1}(o|S)^{1-alpha} in the Rényi divergence is 1 and the divergence is 0;
* :func:`fixed_point_reduction`: g_alpha(z) - z = alpha (g_{alpha beta}(z) - z), so the fixed points are Theorem 2's
  with beta replaced by alpha beta (differentiating it gives g_alpha' = 1 - alpha + alpha g'_{alpha beta});
* :func:`objective_rescaling`: the mean + variance objective at beta is the mean-only objective at
  beta_eff = beta sqrt(p(1-p) + eps), divided by sqrt(p(1-p) + eps), for every policy pi, so both have one maximiser;
* :func:`effective_beta`: (omega^+ + omega^-)/beta = ((1 - p) + p)/beta_eff, the definition of beta_eff written out
  (it holds by construction; it ties the symbol to the numpy home, not evidence for the claim above).
"""

from __future__ import annotations

from dataclasses import replace

import sympy as sp

from grpo_nb.symbolic.identity import Identity, check_equal

__all__ = [
    "ALPHA",
    "BETA",
    "EPS",
    "effective_beta",
    "fixed_point_reduction",
    "gibbs_stationarity",
    "logit_recursion",
    "objective_rescaling",
    "renyi_term_vanishes",
    "variant_identities",
]

ALPHA, BETA, EPS = sp.symbols("alpha beta varepsilon", positive=True)
_P, _Z, _A, _T = sp.symbols("p z a t", real=True)


def gibbs_stationarity(claimed_log_policy: sp.Expr | None = None) -> Identity:
    """dJ/dpi(o) at pi = pi_ref^alpha pi_{n-1}^{1-alpha} e^{A/beta}/Z equals beta (log Z - 1) for every outcome o.

    J(pi) = sum_o pi(o) A(o) - beta [alpha sum pi log(pi/pi_ref) + (1 - alpha) sum pi log(pi/pi_{n-1})], so
    dJ/dpi(o) = A(o) - beta [log pi(o) + 1 - alpha log pi_ref(o) - (1 - alpha) log pi_{n-1}(o)]. A value that does
    not depend on o is the first-order condition on the simplex. ``claimed_log_policy``: another log pi(o), an
    expression in the symbols ``A``, ``log_ref``, ``log_prev``, ``log_Z``.
    """
    adv, log_ref, log_prev, log_z = sp.symbols("A log_ref log_prev log_Z", real=True)
    if claimed_log_policy is None:
        claimed_log_policy = ALPHA * log_ref + (1 - ALPHA) * log_prev + adv / BETA - log_z
    gradient = adv - BETA * (claimed_log_policy + 1 - ALPHA * log_ref - (1 - ALPHA) * log_prev)
    return check_equal("dJ/dπ(o) at the Gibbs policy", gradient, BETA * (log_z - 1))


def _masses():
    w = sp.symbols("w1:5", positive=True)  # pi_ref masses: w1, w2 succeed, w3, w4 fail
    return w[:2], w[2:]


def logit_recursion(claimed: sp.Expr | None = None) -> Identity:
    """logit p_n = alpha a + (1 - alpha) z_{n-1} + s/beta when pi_{n-1} ∝ pi_ref e^{t r} (so z_{n-1} = a + t).

    Two succeeding and two failing outcomes with symbolic reference masses; the advantage gap s = A(1) - A(0) is a
    positive symbol (both normalisations). ``claimed``: another right-hand side in ``a``, ``z``, ``s``, alpha, beta.
    """
    (w1, w2), (w3, w4) = _masses()
    s, adv_fail = sp.symbols("s A_0", real=True)
    norm = (w1 + w2) * sp.exp(_T) + w3 + w4
    prev = {w: w * sp.exp(_T) / norm for w in (w1, w2)} | {w: w / norm for w in (w3, w4)}
    total = w1 + w2 + w3 + w4

    def unnormalised(w: sp.Symbol, success: bool) -> sp.Expr:
        advantage = adv_fail + s if success else adv_fail
        return (w / total) ** ALPHA * prev[w] ** (1 - ALPHA) * sp.exp(advantage / BETA)

    succ = unnormalised(w1, True) + unnormalised(w2, True)
    fail = unnormalised(w3, False) + unnormalised(w4, False)
    a = sp.log((w1 + w2) / (w3 + w4))
    lhs = sp.expand_log(sp.log(succ / fail), force=True)
    rhs = ALPHA * _A + (1 - ALPHA) * _Z + s / BETA if claimed is None else sp.sympify(claimed)
    rhs_here = rhs.subs({_Z: a + _T}).subs(_A, a)
    identity = check_equal("logit p_n", sp.expand_log(sp.powsimp(lhs, force=True), force=True), sp.expand_log(rhs_here))
    return Identity(identity.name, sp.Symbol(r"\operatorname{logit} p_n"), rhs, identity.holds, identity.residual)


def renyi_term_vanishes(claimed_tilt: sp.Expr | None = None) -> Identity:
    """sum_S pi_ref(o|S)^alpha pi_{n-1}(o|S)^{1-alpha} = 1 if pi_{n-1} ∝ pi_ref e^{t r}: then D_alpha on successes is 0.

    ``claimed_tilt``: the exponent of the second success outcome in place of t (t is that of the first), e.g. 2 t for
    a tilt that is not a function of the reward alone; the sum is then not 1 and the check fails.
    """
    (w1, w2), _ = _masses()
    tilt2 = _T if claimed_tilt is None else sp.sympify(claimed_tilt)
    ref = {w1: w1 / (w1 + w2), w2: w2 / (w1 + w2)}
    prev_mass = {w1: w1 * sp.exp(_T), w2: w2 * sp.exp(tilt2)}
    prev = {w: m / (prev_mass[w1] + prev_mass[w2]) for w, m in prev_mass.items()}
    total = sum(ref[w] ** ALPHA * prev[w] ** (1 - ALPHA) for w in (w1, w2))
    # simplify the sum first: sympy cancels e^t inside the powers there, but not in the difference with 1
    return replace(check_equal("the Rényi sum over successes is 1", sp.simplify(total), 1), lhs=total)


def fixed_point_reduction(claimed_coefficient: sp.Expr | None = None) -> Identity:
    """g_alpha(z) - z = alpha (g_{alpha beta}(z) - z): the fixed points are Theorem 2's at the coefficient alpha beta.

    g_alpha(z) = alpha a + (1 - alpha) z + s(z)/beta with s any differentiable function, g_b(z) = a + s(z)/b
    Theorem 2's map with KL coefficient b. So for alpha > 0 both maps have the same fixed points; differentiating
    both sides gives the multiplier g_alpha' = 1 - alpha + alpha g'_{alpha beta} (a consequence, not a second check).
    ``claimed_coefficient``: another KL coefficient b for the undamped map (default alpha beta), e.g. beta.
    """
    s = sp.Function("s")
    coefficient = ALPHA * BETA if claimed_coefficient is None else sp.sympify(claimed_coefficient)
    g_alpha = ALPHA * _A + (1 - ALPHA) * _Z + s(_Z) / BETA
    g_damped = _A + s(_Z) / coefficient
    return check_equal("g_α(z) − z", g_alpha - _Z, ALPHA * (g_damped - _Z))


def objective_rescaling(claimed: sp.Expr | None = None) -> Identity:
    """J_mean+var(pi; beta) = J_mean(pi; beta_eff) / sqrt(p(1-p) + eps), with beta_eff = beta sqrt(p(1-p) + eps).

    Both sides are the variant objective E_pi[A] - beta [alpha KL(pi || pi_ref) + (1 - alpha) KL(pi || pi_{n-1})]
    written out on four outcomes (two successes, two failures) with symbolic masses for pi, pi_ref and pi_{n-1}: on
    the left with Eq. 4's advantage (r - p)/sqrt(p(1-p) + eps) and coefficient beta, on the right with the mean-only
    r - p and coefficient ``claimed`` (default beta_eff). A positive factor does not move a maximiser, so one step
    of variance normalisation is one step of mean-only normalisation at beta_eff(p_{n-1}).
    """
    root = sp.sqrt(_P * (1 - _P) + EPS)
    beta_eff = BETA * root if claimed is None else sp.sympify(claimed)
    pi = sp.symbols("x1:5", positive=True)
    ref = sp.symbols("w1:5", positive=True)
    prev = sp.symbols("q1:5", positive=True)
    reward = (1, 1, 0, 0)

    def objective(advantage, coefficient: sp.Expr) -> sp.Expr:
        gain = sum(x * advantage(r) for x, r in zip(pi, reward, strict=True))
        kl_ref = sum(x * sp.log(x / w) for x, w in zip(pi, ref, strict=True))
        kl_prev = sum(x * sp.log(x / q) for x, q in zip(pi, prev, strict=True))
        return gain - coefficient * (ALPHA * kl_ref + (1 - ALPHA) * kl_prev)

    mean_var = objective(lambda r: (r - _P) / root, BETA)
    mean_only = objective(lambda r: r - _P, beta_eff)
    return check_equal("J_mean+var(π; β) · √(p(1−p)+ε)", sp.expand(mean_var * root), sp.expand(mean_only))


def effective_beta(claimed: sp.Expr | None = None) -> Identity:
    """(omega^+ + omega^-)/beta = ((1 - p) + p)/beta_eff with beta_eff = beta sqrt(p(1-p) + eps) (or ``claimed``).

    This is the definition of beta_eff written out, so it holds by construction; the claim that the two steps agree
    is :func:`objective_rescaling`.
    The left side is the logit push of mean + variance normalisation (Eq. 4), the right one that of mean-only
    normalisation with the KL coefficient beta_eff. ``claimed``: another beta_eff in p, beta, eps.
    """
    root = sp.sqrt(_P * (1 - _P) + EPS)
    beta_eff = BETA * root if claimed is None else sp.sympify(claimed)
    mean_var = ((1 - _P) / root + _P / root) / BETA
    return check_equal("mean+var push = mean-only push at β_eff", mean_var, ((1 - _P) + _P) / beta_eff)


def variant_identities() -> list[Identity]:
    """Every identity above, in the order the variants chapter uses them."""
    return [
        gibbs_stationarity(),
        logit_recursion(),
        renyi_term_vanishes(),
        fixed_point_reduction(),
        objective_rescaling(),
    ]
