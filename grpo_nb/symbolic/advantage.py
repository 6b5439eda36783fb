"""Paper §2-§2.4 in sympy: the advantage simplifications behind GRPO's weighted contrastive loss.

Every function returns :class:`~grpo_nb.symbolic.identity.Identity` objects whose ``holds`` comes
from a check that can fail (a difference that simplifies to 0, a solved equation, a sign that
sympy's assumptions decide). The weights omega^+ and omega^- are the ones of
:mod:`grpo_nb.symbolic.proofs` (Eq. 4), so the appendix and §2 share one definition.

Where a claim needs 0 < p < 1 and sympy cannot see it, the check substitutes p = u/(1+u) with
u > 0 (u is the odds of p), which keeps the displayed expressions in p.
"""

from __future__ import annotations

import sympy as sp
from sympy.stats import Bernoulli, E, variance

from grpo_nb.symbolic.identity import Identity, check_equal
from grpo_nb.symbolic.proofs import EPS, P, omega_minus, omega_plus, variance_term

__all__ = [
    "CLIP",
    "bernoulli_moments",
    "bessel_vs_population_std",
    "clipped_term_cases",
    "contrastive_decomposition",
    "eq3_printed_vs_eq4",
    "importance_weighting_at_old_policy",
    "stabilised_advantage",
    "weight_identities",
    "weight_monotonicity",
    "whitened_advantage",
    "zero_mean_advantage",
]

#: the clip range of PPO/GRPO (the paper's \epsilon, distinct from the smoothing \varepsilon = EPS)
CLIP = sp.Symbol("epsilon_clip", positive=True)
_U = sp.Symbol("u", positive=True)
_OPEN_P = {P: _U / (1 + _U)}


def _check_on_open_unit(name: str, lhs: sp.Expr, rhs: sp.Expr, notes: str = "") -> Identity:
    """lhs == rhs for 0 < p < 1: the difference simplifies to 0 after p = u/(1+u), u > 0."""
    residual = sp.simplify(sp.sympify(lhs - rhs).subs(_OPEN_P))
    return Identity(name=name, lhs=lhs, rhs=rhs, holds=bool(residual == 0), residual=residual, notes=notes)


def _sign_identity(name: str, expr: sp.Expr, relation: str, notes: str = "") -> Identity:
    """expr > 0 (relation '>') or expr < 0 ('<') for 0 < p < 1, eps > 0, decided by sympy's assumptions.

    After p = u/(1+u) the expression is brought to one fraction; the signs of its factored numerator
    and of its denominator are decided separately.
    """
    num, den = sp.fraction(sp.together(sp.sympify(expr).subs(_OPEN_P)))
    num = sp.factor(num)
    sign_num, sign_den = num.is_positive, den.is_positive
    if sign_num is None:
        sign_num = False if num.is_negative else None
    decided = None
    if sign_num is not None and sign_den is not None:
        decided = (sign_num == sign_den) if relation == ">" else (sign_num != sign_den)
    return Identity(
        name=name,
        lhs=expr,
        rhs=sp.Integer(0),
        holds=bool(decided),
        residual=num / den,
        relation=relation,
        notes=notes,
    )


def _check_vector_equal(name: str, lhs: sp.Matrix, rhs: sp.Matrix) -> Identity:
    """Component-wise: every entry of lhs - rhs simplifies to 0."""
    residual = (lhs - rhs).applyfunc(sp.simplify)
    return Identity(name=name, lhs=lhs, rhs=rhs, holds=all(r == 0 for r in residual), residual=residual)


def bernoulli_moments(p: sp.Expr = P) -> list[Identity]:
    """E[r] = p and Var[r] = p(1-p) for a reward r ~ Bernoulli(p) (the step before Eq. 3)."""
    r = Bernoulli("r", p)
    return [
        check_equal("E[r] = p", E(r), p),
        check_equal("Var[r] = p(1-p)", variance(r), p * (1 - p)),
    ]


def whitened_advantage(
    claimed_success: sp.Expr | None = None, claimed_failure: sp.Expr | None = None
) -> list[Identity]:
    """Eq. (1) with the Bernoulli moments: A = sqrt((1-p)/p) for r = 1 and -sqrt(p/(1-p)) for r = 0 (0 < p < 1)."""
    r = Bernoulli("r", P)
    mean, var = E(r), variance(r)
    success = claimed_success if claimed_success is not None else sp.sqrt((1 - P) / P)
    failure = claimed_failure if claimed_failure is not None else -sp.sqrt(P / (1 - P))
    return [
        _check_on_open_unit("A(r=1) = sqrt((1-p)/p)", (1 - mean) / sp.sqrt(var), success),
        _check_on_open_unit("A(r=0) = -sqrt(p/(1-p))", (0 - mean) / sp.sqrt(var), failure),
    ]


def stabilised_advantage() -> list[Identity]:
    """§2.2: (r - p)/sqrt(p(1-p) + eps) is omega^+ for r = 1 and -omega^- for r = 0 (Eq. 4)."""
    a = lambda r: (r - P) / sp.sqrt(variance_term())  # noqa: E731
    return [
        check_equal("A_eps(r=1) = omega^+", a(1), omega_plus()),
        check_equal("A_eps(r=0) = -omega^-", a(0), -omega_minus()),
    ]


def zero_mean_advantage() -> Identity:
    """E_old[A] = p omega^+ - (1-p) omega^- = 0: the stabilised advantage is centred for every eps."""
    return check_equal("p omega^+ - (1-p) omega^- = 0", P * omega_plus() - (1 - P) * omega_minus(), sp.Integer(0))


def eq3_printed_vs_eq4() -> list[Identity]:
    """Where eps sits: Eq. (3) prints (1-p)/(sqrt(p(1-p)) + eps); Eq. (4) has (1-p)/sqrt(p(1-p) + eps).

    Returns: the two differ (residual not 0); they agree at eps = 0; their first-order terms in eps
    (-eps w0/(2p(1-p)) inside, -eps w0/sqrt(p(1-p)) outside); at p = 0 they equal 1/sqrt(eps) and 1/eps;
    and (sqrt(v) + eps)^2 - (v + eps) = eps (2 sqrt(v) + eps - 1), v = p(1-p), so the printed denominator
    is the larger one only where 2 sqrt(p(1-p)) + eps > 1 (near p = 1/2).
    """
    v = P * (1 - P)
    printed = (1 - P) / (sp.sqrt(v) + EPS)
    eq4 = omega_plus()
    w0 = (1 - P) / sp.sqrt(v)
    diff = sp.simplify((printed - eq4).subs(_OPEN_P))
    differ = Identity(
        name="Eq. 3 as printed != Eq. 4",
        lhs=printed,
        rhs=eq4,
        holds=bool(diff != 0 and diff.subs({_U: 1, EPS: sp.Rational(1, 10)}) != 0),
        residual=diff,
        relation="!=",
    )
    series_in = sp.series(eq4, EPS, 0, 2).removeO()
    series_out = sp.series(printed, EPS, 0, 2).removeO()
    return [
        differ,
        check_equal("Eq. 3 printed = Eq. 4 at eps = 0", printed.subs(EPS, 0), eq4.subs(EPS, 0)),
        _check_on_open_unit("Eq. 4 to first order in eps", series_in, w0 - EPS * w0 / (2 * v)),
        _check_on_open_unit("Eq. 3 printed to first order in eps", series_out, w0 - EPS * w0 / sp.sqrt(v)),
        check_equal("Eq. 4 at p = 0", eq4.subs(P, 0), 1 / sp.sqrt(EPS)),
        check_equal("Eq. 3 printed at p = 0", printed.subs(P, 0), 1 / EPS),
        check_equal("(sqrt(v)+eps)^2 - (v+eps)", (sp.sqrt(v) + EPS) ** 2 - (v + EPS), EPS * (2 * sp.sqrt(v) + EPS - 1)),
    ]


def weight_identities() -> list[Identity]:
    """omega^+ + omega^- = 1/sqrt(p(1-p)+eps); omega^+/omega^- = (1-p)/p; omega^+ = omega^- only at p = 1/2."""
    wp, wm = omega_plus(), omega_minus()
    crossings = sp.solve(sp.Eq(wp, wm), P)
    cross = Identity(
        name="omega^+ = omega^- exactly at p = 1/2",
        lhs=sp.FiniteSet(*crossings),
        rhs=sp.FiniteSet(sp.Rational(1, 2)),
        holds=sp.FiniteSet(*crossings) == sp.FiniteSet(sp.Rational(1, 2)),
    )
    return [
        check_equal("omega^+ + omega^- = 1/sqrt(p(1-p)+eps)", wp + wm, 1 / sp.sqrt(variance_term())),
        check_equal("omega^+ / omega^- = (1-p)/p", wp / wm, (1 - P) / P),
        cross,
    ]


def weight_monotonicity() -> list[Identity]:
    """d omega^+/dp = -(1 - p + 2 eps)/(2 v^{3/2}) < 0 and d omega^-/dp = (p + 2 eps)/(2 v^{3/2}) > 0, v = p(1-p)+eps.

    The signs hold for 0 < p < 1 and every eps > 0 (and, by the same numerators, for eps = 0).
    """
    v32 = variance_term() ** sp.Rational(3, 2)
    dplus, dminus = sp.diff(omega_plus(), P), sp.diff(omega_minus(), P)
    closed_plus, closed_minus = -(1 - P + 2 * EPS) / (2 * v32), (P + 2 * EPS) / (2 * v32)
    return [
        check_equal("d omega^+/dp closed form", dplus, closed_plus),
        check_equal("d omega^-/dp closed form", dminus, closed_minus),
        _sign_identity("d omega^+/dp < 0", closed_plus, "<"),
        _sign_identity("d omega^-/dp > 0", closed_minus, ">"),
        _sign_identity("d omega^+/dp < 0 at eps = 0", closed_plus.subs(EPS, 0), "<"),
        _sign_identity("d omega^-/dp > 0 at eps = 0", closed_minus.subs(EPS, 0), ">"),
    ]


def _clip(x: sp.Expr, e: sp.Expr, evaluate: bool = True) -> sp.Expr:
    return sp.Min(sp.Max(x, 1 - e, evaluate=evaluate), 1 + e, evaluate=evaluate)


def clipped_term_cases(swap_cases: bool = False) -> list[Identity]:
    """§2.1: f(x, A) = min(xA, clip(x)A) is A min(x, 1+e) for A > 0 and A max(x, 1-e) for A < 0.

    Checked on each of the three regions of x with positive offsets d, u, w that let sympy order the
    terms: x = 1 + e + d (above), x = 1 + (u - w)/2 with e = (u + w)/2 (inside), x = 1 - e - d (below).
    ``swap_cases=True`` claims the wrong forms (max for A > 0, min for A < 0), for tests that the check can fail.
    """
    a, d, u, w = sp.symbols("a d u w", positive=True)
    e = CLIP
    regions = {"x > 1+e": (1 + e + d, e), "1-e <= x <= 1+e": (1 + (u - w) / 2, (u + w) / 2), "x < 1-e": (1 - e - d, e)}
    out = []
    for region, (x, ee) in regions.items():
        pos_case = a * sp.Min(x, 1 + ee, evaluate=False)
        neg_case = -a * sp.Max(x, 1 - ee, evaluate=False)
        if swap_cases:
            pos_case, neg_case = a * sp.Max(x, 1 - ee, evaluate=False), -a * sp.Min(x, 1 + ee, evaluate=False)
        for sign, adv, case in (("A > 0", a, pos_case), ("A < 0", -a, neg_case)):
            # unevaluated, so the display shows f and the case form; simplify() evaluates and compares them
            f = sp.Min(x * adv, _clip(x, ee, evaluate=False) * adv, evaluate=False)
            out.append(check_equal(f"f_eps, {sign}, {region}", f, case))
    return out


def bessel_vs_population_std() -> list[Identity]:
    """A group of G binary rewards with k successes: population variance k(G-k)/G^2 = p_hat(1-p_hat), and the
    Bessel-corrected variance (torch's default std, used by TRL) k(G-k)/(G(G-1)) = G/(G-1) times it."""
    G, k = sp.symbols("G k", positive=True)
    p_hat = k / G
    ss = k * (1 - p_hat) ** 2 + (G - k) * p_hat**2  # sum of squared deviations
    return [
        check_equal("population variance = p_hat(1-p_hat)", ss / G, p_hat * (1 - p_hat)),
        check_equal("Bessel variance = G/(G-1) p_hat(1-p_hat)", ss / (G - 1), G / (G - 1) * p_hat * (1 - p_hat)),
    ]


def contrastive_decomposition(n_success: int = 2, n_failure: int = 2) -> Identity:
    """§2.2-2.3: on a finite outcome set, E_old[x A] = omega^+ E_old[x 1_{r=1}] - omega^- E_old[x 1_{r=0}].

    Symbols: old probabilities pi_i > 0 of ``n_success`` successes and ``n_failure`` failures (normalised),
    ratios x_i > 0; p = sum of the success probabilities, and A_i = (r_i - p)/sqrt(p(1-p) + eps).
    """
    n = n_success + n_failure
    pis = sp.symbols(f"pi_1:{n + 1}", positive=True)
    xs = sp.symbols(f"x_1:{n + 1}", positive=True)
    total = sum(pis)
    pi_old = [pi / total for pi in pis]
    rewards = [1] * n_success + [0] * n_failure
    p = sum(pi_old[:n_success])
    adv = [(r - p) / sp.sqrt(variance_term(p)) for r in rewards]
    lhs = sum(pi_old[i] * xs[i] * adv[i] for i in range(n))
    rhs = omega_plus(p) * sum(pi_old[i] * xs[i] for i in range(n_success)) - omega_minus(p) * sum(
        pi_old[i] * xs[i] for i in range(n_success, n)
    )
    return check_equal("E_old[x A] = omega^+ E_old[x 1_{r=1}] - omega^- E_old[x 1_{r=0}]", lhs, rhs)


def importance_weighting_at_old_policy(n_outcomes: int = 3) -> list[Identity]:
    """Eq. (5) vs (GRPO-No-Clip) on a softmax policy over ``n_outcomes`` outcomes with fixed advantages A_i.

    - L_IS(theta) = sum_i pi_old_i (pi_theta_i / pi_old_i) A_i equals L_on(theta) = sum_i pi_theta_i A_i for
      every theta (exact expectations), hence the same value and gradient at theta_old in particular;
    - the log-likelihood surrogate sum_i pi_old_i A_i log pi_theta_i has the gradient of L_on at theta_old
      (the REINFORCE form), but not elsewhere (``extra['surrogate_residual_elsewhere']`` is non-zero);
    - the clipped objective sum_i pi_old_i f(x_i, A_i) has L_on's value and gradient at theta_old (x_i = 1),
      for every clip range > 0.
    """
    theta = sp.symbols(f"theta_1:{n_outcomes + 1}", real=True)
    theta_old = sp.symbols(f"theta^old_1:{n_outcomes + 1}", real=True)
    adv = sp.symbols(f"A_1:{n_outcomes + 1}", real=True)

    def softmax(t):
        z = sum(sp.exp(ti) for ti in t)
        return [sp.exp(ti) / z for ti in t]

    pi, pi_old = softmax(theta), softmax(theta_old)
    at_old = dict(zip(theta, theta_old, strict=True))
    l_on = sum(pi[i] * adv[i] for i in range(n_outcomes))
    l_is = sum(pi_old[i] * (pi[i] / pi_old[i]) * adv[i] for i in range(n_outcomes))
    surrogate = sum(pi_old[i] * adv[i] * sp.log(pi[i]) for i in range(n_outcomes))
    grad = lambda f: sp.Matrix([sp.diff(f, t) for t in theta])  # noqa: E731
    g_on = grad(l_on)
    out = [
        check_equal("L_IS(theta) = L_on(theta) for all theta", l_is, l_on),
        _check_vector_equal("grad L_IS = grad L_on for all theta", grad(l_is) - g_on, sp.zeros(n_outcomes, 1)),
    ]
    g_sur = grad(surrogate)
    sur_at_old = _check_vector_equal(
        "grad surrogate = grad L_on at theta_old", (g_sur - g_on).subs(at_old), sp.zeros(n_outcomes, 1)
    )
    point = {**{t: sp.Integer(i) for i, t in enumerate(theta)}, **{t: sp.Integer(0) for t in theta_old}}
    point.update({a: sp.Integer(i + 1) for i, a in enumerate(adv)})
    elsewhere = (g_sur - g_on).subs(point).evalf(8)
    out.append(
        Identity(
            name=sur_at_old.name,
            lhs=sur_at_old.lhs,
            rhs=sur_at_old.rhs,
            holds=sur_at_old.holds and any(abs(v) > 1e-6 for v in elsewhere),
            residual=sur_at_old.residual,
            extra={"surrogate_residual_elsewhere": elsewhere},
        )
    )
    # clipped objective: f(x, A) = min(x A, clip(x) A) with x_i = pi_i / pi_old_i
    xs = [pi[i] / pi_old[i] for i in range(n_outcomes)]
    l_clip = sum(pi_old[i] * sp.Min(xs[i] * adv[i], _clip(xs[i], CLIP) * adv[i]) for i in range(n_outcomes))
    for sign, sub in (
        ("A > 0", {a: sp.Symbol(f"a_{i + 1}", positive=True) for i, a in enumerate(adv)}),
        ("A < 0", {a: -sp.Symbol(f"a_{i + 1}", positive=True) for i, a in enumerate(adv)}),
    ):
        lc, lo = l_clip.subs(sub), l_on.subs(sub)
        out.append(check_equal(f"L_clip = L_on at theta_old ({sign})", lc.subs(at_old), lo.subs(at_old)))
        g_clip = grad(lc).subs(at_old)
        out.append(_check_vector_equal(f"grad L_clip = grad L_on at theta_old ({sign})", g_clip, grad(lo).subs(at_old)))
    return out
