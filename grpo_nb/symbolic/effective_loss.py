"""§2 of Mroueh (2025), "GRPO with verifiable rewards as an adaptive weighted contrastive loss", in sympy.

Every check starts from :mod:`grpo_nb.symbolic.expressions` (the Bernoulli reward statistics, the whitened
advantage, the softmax policy, the GRPO-No-Clip objective with exact expectations) and compares what sympy derives
with the formula the paper prints, typed out here; ``claimed={key: expr}`` replaces a printed formula (see
:func:`grpo_nb.symbolic.identity.claims`), so that a test can feed a misprint and see the check fail.

Where a claim needs 0 < p < 1 and sympy cannot see it, the check substitutes p = u/(1+u) with u > 0 (u is the
odds of p), which keeps the displayed expressions in p.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sympy as sp
from sympy.stats import Bernoulli, E

from grpo_nb.symbolic import expressions as ex
from grpo_nb.symbolic.expressions import BETA, CLIP, EPS, OPEN_UNIT_SUBS, P
from grpo_nb.symbolic.identity import (
    Identity,
    check_equal,
    check_on_open_unit,
    check_sign,
    check_vector_equal,
    claims,
)

__all__ = [
    "CLIP",
    "bernoulli_moments",
    "bessel_vs_population_std",
    "clipped_term_cases",
    "contrastive_decomposition",
    "contrastive_gradient_split",
    "eq3_printed_vs_eq4",
    "importance_weighting_at_old_policy",
    "not_self_evident",
    "population_collapse",
    "stabilised_advantage",
    "verdict",
    "weight_identities",
    "weight_monotonicity",
    "whitened_advantage",
    "zero_mean_advantage",
]

Claimed = Mapping[str, sp.Expr] | None
_V = P * (1 - P) + EPS  # the printed smoothed variance, typed (not derived)
_EQ4_PLUS = (1 - P) / sp.sqrt(_V)  # Eq. (4) as printed
_EQ4_MINUS = P / sp.sqrt(_V)


def verdict(identities: Identity | Sequence[Identity], claim: str) -> str:
    """The one line a chapter shows under a claim whose derivations it folds: ``"✓ " + claim`` once every identity
    holds; AssertionError naming the first one that does not (as :func:`grpo_nb.report.show_checked`)."""
    for ident in [identities] if isinstance(identities, Identity) else identities:
        if not ident.holds:
            raise AssertionError(f"{ident.name} does not hold")
    return f"✓ {claim}"


def not_self_evident(identities: Sequence[Identity]) -> list[Identity]:
    """The identities worth displaying: those whose two sides, as sympy prints them, differ (``p = p`` is left out;
    its check still ran)."""
    return [ident for ident in identities if ident.lhs != ident.rhs]


def _open(p: sp.Expr) -> sp.Expr:
    return p.subs(OPEN_UNIT_SUBS)


def bernoulli_moments(claimed: Claimed = None) -> list[Identity]:
    """E[r] = p and Var[r] = p(1-p) for a reward r ~ Bernoulli(p) (the step before Eq. 3); claims ``mean``,
    ``variance``."""
    c = claims(claimed, {"mean": P, "variance": P * (1 - P)})
    return [
        check_equal("E[r] = p", ex.reward_mean(), c["mean"], claim="mean"),
        check_equal("Var[r] = p(1-p)", ex.reward_variance(), c["variance"], claim="variance"),
    ]


def whitened_advantage(
    claimed_success: sp.Expr | None = None, claimed_failure: sp.Expr | None = None, claimed: Claimed = None
) -> list[Identity]:
    """Eq. (1) with the Bernoulli moments and eps = 0: A = sqrt((1-p)/p) for r = 1 (claim ``success``) and
    -sqrt(p/(1-p)) for r = 0 (claim ``failure``), for 0 < p < 1."""
    given = dict(claimed or {})
    if claimed_success is not None:
        given["success"] = claimed_success
    if claimed_failure is not None:
        given["failure"] = claimed_failure
    c = claims(given, {"success": sp.sqrt((1 - P) / P), "failure": -sp.sqrt(P / (1 - P))})
    mean, var = ex.reward_mean(), ex.reward_variance()
    return [
        check_on_open_unit(
            "A(r=1) = sqrt((1-p)/p)", ex.advantage(1, mean, var, eps=0), c["success"], p=P, claim="success"
        ),
        check_on_open_unit(
            "A(r=0) = -sqrt(p/(1-p))", ex.advantage(0, mean, var, eps=0), c["failure"], p=P, claim="failure"
        ),
    ]


def stabilised_advantage(claimed: Claimed = None) -> list[Identity]:
    """§2.2: the smoothed advantage (r - E r)/sqrt(Var r + eps) of a Bernoulli(p) reward is Eq. (4)'s printed
    omega^+ = (1-p)/sqrt(p(1-p)+eps) for r = 1 (claim ``omega_plus``) and -omega^- = -p/sqrt(p(1-p)+eps) for
    r = 0 (claim ``omega_minus``)."""
    c = claims(claimed, {"omega_plus": _EQ4_PLUS, "omega_minus": _EQ4_MINUS})
    mean, var = ex.reward_mean(), ex.reward_variance()
    return [
        check_equal("A_eps(r=1) = omega^+", ex.advantage(1, mean, var), c["omega_plus"], claim="omega_plus"),
        check_equal("A_eps(r=0) = -omega^-", ex.advantage(0, mean, var), -c["omega_minus"], claim="omega_minus"),
    ]


def zero_mean_advantage(claimed: Claimed = None) -> list[Identity]:
    """The stabilised advantage is centred for every eps: E_{r ~ Bernoulli(p)}[A(r)] = 0 (claim ``mean``), and so
    is the two-valued variable that takes Eq. (4)'s printed weights, omega^+ on r = 1 and -omega^- on r = 0
    (claims ``omega_plus``, ``omega_minus``): p omega^+ - (1-p) omega^- = 0. Expectations by sympy.stats."""
    c = claims(claimed, {"mean": sp.Integer(0), "omega_plus": _EQ4_PLUS, "omega_minus": _EQ4_MINUS})
    r = Bernoulli("r", P)
    derived = sp.simplify(E(ex.advantage(r, ex.reward_mean(), ex.reward_variance())))
    printed = sp.simplify(E(r * c["omega_plus"] - (1 - r) * c["omega_minus"]))
    return [
        check_equal("E_old[A] = 0", derived, c["mean"], claim="mean"),
        check_equal("p omega^+ - (1-p) omega^- = 0", printed, sp.Integer(0), claim="omega_plus"),
    ]


def eq3_printed_vs_eq4(claimed: Claimed = None) -> list[Identity]:
    """Where eps sits: Eq. (3) prints (1-p)/(sqrt(p(1-p)) + eps); the derived omega^+ has (1-p)/sqrt(p(1-p) + eps).

    Returns: the two differ (residual not 0); they agree at eps = 0; their first-order terms in eps
    (claims ``first_order_inside`` = -eps w0/(2p(1-p)), ``first_order_outside`` = -eps w0/sqrt(p(1-p)));
    at p = 0 they equal 1/sqrt(eps) and 1/eps (claims ``inside_at_0``, ``outside_at_0``); and
    (sqrt(v) + eps)^2 - (v + eps) = eps (2 sqrt(v) + eps - 1), v = p(1-p) (claim ``square_gap``), so the printed
    denominator is the larger one only where 2 sqrt(p(1-p)) + eps > 1 (near p = 1/2).
    """
    v = P * (1 - P)
    w0 = (1 - P) / sp.sqrt(v)
    c = claims(
        claimed,
        {
            "first_order_inside": -EPS * w0 / (2 * v),
            "first_order_outside": -EPS * w0 / sp.sqrt(v),
            "inside_at_0": 1 / sp.sqrt(EPS),
            "outside_at_0": 1 / EPS,
            "square_gap": EPS * (2 * sp.sqrt(v) + EPS - 1),
        },
    )
    printed = (1 - P) / (sp.sqrt(v) + EPS)
    derived = ex.omega_plus()
    diff = sp.simplify(_open(printed - derived))
    differ = Identity(
        name="Eq. 3 as printed != Eq. 4",
        lhs=printed,
        rhs=derived,
        holds=bool(diff != 0 and diff.subs({sp.Symbol("u", positive=True): 1, EPS: sp.Rational(1, 10)}) != 0),
        residual=diff,
        relation="!=",
    )
    series_in = sp.series(derived, EPS, 0, 2).removeO()
    series_out = sp.series(printed, EPS, 0, 2).removeO()
    return [
        differ,
        check_equal("Eq. 3 printed = Eq. 4 at eps = 0", printed.subs(EPS, 0), derived.subs(EPS, 0)),
        check_on_open_unit(
            "Eq. 4 to first order in eps", series_in, w0 + c["first_order_inside"], p=P, claim="first_order_inside"
        ),
        check_on_open_unit(
            "Eq. 3 printed to first order in eps",
            series_out,
            w0 + c["first_order_outside"],
            p=P,
            claim="first_order_outside",
        ),
        check_equal("Eq. 4 at p = 0", derived.subs(P, 0), c["inside_at_0"], claim="inside_at_0"),
        check_equal("Eq. 3 printed at p = 0", printed.subs(P, 0), c["outside_at_0"], claim="outside_at_0"),
        check_equal(
            "(sqrt(v)+eps)^2 - (v+eps)", (sp.sqrt(v) + EPS) ** 2 - (v + EPS), c["square_gap"], claim="square_gap"
        ),
    ]


def weight_identities(claimed: Claimed = None) -> list[Identity]:
    """From the derived weights: omega^+ + omega^- = 1/sqrt(p(1-p)+eps) (claim ``sum``); omega^+/omega^- = (1-p)/p
    (claim ``ratio``); omega^+ = omega^- only at p = 1/2 (claim ``crossing``, solved by sympy)."""
    c = claims(claimed, {"sum": 1 / sp.sqrt(_V), "ratio": (1 - P) / P, "crossing": sp.Rational(1, 2)})
    wp, wm = ex.omega_plus(), ex.omega_minus()
    crossings = sp.FiniteSet(*sp.solve(sp.Eq(wp, wm), P))
    cross = Identity(
        name="omega^+ = omega^- exactly at p = 1/2",
        lhs=crossings,
        rhs=sp.FiniteSet(c["crossing"]),
        holds=crossings == sp.FiniteSet(c["crossing"]),
        extra={"claim": "crossing", "claimed": c["crossing"]},
    )
    return [
        check_equal("omega^+ + omega^- = 1/sqrt(p(1-p)+eps)", wp + wm, c["sum"], claim="sum"),
        check_equal("omega^+ / omega^- = (1-p)/p", wp / wm, c["ratio"], claim="ratio"),
        cross,
    ]


def weight_monotonicity(claimed: Claimed = None) -> list[Identity]:
    """d omega^+/dp = -(1 - p + 2 eps)/(2 V^{3/2}) (claim ``d_plus``) and d omega^-/dp = (p + 2 eps)/(2 V^{3/2})
    (claim ``d_minus``), V = p(1-p)+eps; their signs (< 0 and > 0) decided by sympy for 0 < p < 1, eps > 0, and
    at eps = 0."""
    v32 = _V ** sp.Rational(3, 2)
    c = claims(claimed, {"d_plus": -(1 - P + 2 * EPS) / (2 * v32), "d_minus": (P + 2 * EPS) / (2 * v32)})
    dplus, dminus = sp.diff(ex.omega_plus(), P), sp.diff(ex.omega_minus(), P)
    return [
        check_equal("d omega^+/dp closed form", dplus, c["d_plus"], claim="d_plus"),
        check_equal("d omega^-/dp closed form", dminus, c["d_minus"], claim="d_minus"),
        check_sign("d omega^+/dp < 0", c["d_plus"], "<", subs=OPEN_UNIT_SUBS, claim="d_plus"),
        check_sign("d omega^-/dp > 0", c["d_minus"], ">", subs=OPEN_UNIT_SUBS, claim="d_minus"),
        check_sign("d omega^+/dp < 0 at eps = 0", c["d_plus"].subs(EPS, 0), "<", subs=OPEN_UNIT_SUBS, claim="d_plus"),
        check_sign("d omega^-/dp > 0 at eps = 0", c["d_minus"].subs(EPS, 0), ">", subs=OPEN_UNIT_SUBS, claim="d_minus"),
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


def bessel_vs_population_std(claimed: Claimed = None) -> list[Identity]:
    """A group of G binary rewards with k successes: population variance k(G-k)/G^2 = p_hat(1-p_hat) (claim
    ``population``), and the Bessel-corrected variance (torch's default std, used by TRL)
    k(G-k)/(G(G-1)) = G/(G-1) p_hat(1-p_hat) (claim ``bessel``), from the sum of squared deviations."""
    G, k = sp.symbols("G k", positive=True)
    p_hat = k / G
    c = claims(claimed, {"population": p_hat * (1 - p_hat), "bessel": G / (G - 1) * p_hat * (1 - p_hat)})
    ss = k * (1 - p_hat) ** 2 + (G - k) * p_hat**2  # sum of squared deviations from the group mean
    return [
        check_equal("population variance = p_hat(1-p_hat)", ss / G, c["population"], claim="population"),
        check_equal("Bessel variance = G/(G-1) p_hat(1-p_hat)", ss / (G - 1), c["bessel"], claim="bessel"),
    ]


def _old_policy(n_success: int, n_fail: int) -> list[sp.Expr]:
    """A general old policy with success mass p: p a_i/sum(a) on successes, (1-p) b_j/sum(b) on failures."""
    a = sp.symbols(f"a_1:{n_success + 1}", positive=True)
    b = sp.symbols(f"b_1:{n_fail + 1}", positive=True)
    return [P * x / sum(a) for x in a] + [(1 - P) * x / sum(b) for x in b]


def contrastive_decomposition(n_success: int = 2, n_fail: int = 2, claimed: Claimed = None) -> Identity:
    """§2.2-2.3: on a finite outcome set, the GRPO-No-Clip reward term with exact expectations over the old policy,
    E_old[x A] with A = (r - mean)/sqrt(var + eps) from the old policy's reward statistics, equals the printed
    contrastive form omega^+ E_old[x 1_{r=1}] - omega^- E_old[x 1_{r=0}] with Eq. (4)'s weights (claims
    ``omega_plus``, ``omega_minus``). Old policy: success mass p spread over ``n_success`` outcomes with free
    positive weights, 1 - p over ``n_fail``; ratios x_i > 0 free symbols."""
    c = claims(claimed, {"omega_plus": _EQ4_PLUS, "omega_minus": _EQ4_MINUS})
    n = n_success + n_fail
    old = _old_policy(n_success, n_fail)
    xs = sp.symbols(f"x_1:{n + 1}", positive=True)
    rewards = [1] * n_success + [0] * n_fail
    lhs = ex.grpo_objective([o * x for o, x in zip(old, xs, strict=True)], old, rewards)
    success = sum(old[i] * xs[i] for i in range(n_success))
    failure = sum(old[i] * xs[i] for i in range(n_success, n))
    rhs = c["omega_plus"] * success - c["omega_minus"] * failure
    ident = check_equal("E_old[x A] = omega^+ E_old[x 1_{r=1}] - omega^- E_old[x 1_{r=0}]", lhs, rhs)
    return Identity(**{**ident.__dict__, "extra": {"claim": "omega_plus", "claimed": c["omega_plus"]}})


def contrastive_gradient_split(n_success: int = 2, n_fail: int = 2, claimed: Claimed = None) -> list[Identity]:
    """§2.1's contrastive reading of Eq. (5) on a softmax policy with symbolic logits theta over ``n_success``
    succeeding and ``n_fail`` failing outcomes (written through its masses m_i = e^theta_i, with
    d/dtheta_i = m_i d/dm_i), the weights at the old policy's p held fixed:

    - the gradient of the pull-up term omega^+ P_theta(r=1) is omega^+ pi_o (r_o - p_theta) (claim ``omega_plus``)
      and that of the push-down term -omega^- P_theta(r=0) is omega^- pi_o (r_o - p_theta) (claim ``omega_minus``),
      both derived by differentiating the softmax sums; so the two are parallel to grad p_theta;
    - grad(pull-up) = ratio x grad(push-down) with ratio = (1-p)/p (claim ``ratio``), for every theta;
    - to first order in a step lr g, the change of p_theta is lr grad p_theta . g; the pull-up's share of the full
      step's change is omega^+/(omega^+ + omega^-) = 1 - p (claim ``share``), for every theta.
    """
    c = claims(claimed, {"omega_plus": _EQ4_PLUS, "omega_minus": _EQ4_MINUS, "ratio": (1 - P) / P, "share": 1 - P})
    n = n_success + n_fail
    # the softmax in its masses m_i = e^theta_i > 0: d/dtheta_i = m_i d/dm_i (chain rule), rational in the m_i
    masses = sp.symbols(f"m_1:{n + 1}", positive=True)
    pi = [m / sum(masses) for m in masses]
    rewards = [1] * n_success + [0] * n_fail
    p_theta, fail_theta = sum(pi[:n_success]), sum(pi[n_success:])
    pull, push = ex.omega_plus() * p_theta, -ex.omega_minus() * fail_theta  # Eq. (5)'s two terms, derived weights
    grad = lambda f: sp.Matrix([m * sp.diff(f, m) for m in masses])  # noqa: E731
    g_pull, g_push, g_p = grad(pull), grad(push), grad(p_theta)
    force = sp.Matrix([pi[i] * (rewards[i] - p_theta) for i in range(n)])
    first_order = {name: (g_p.T * g)[0, 0] for name, g in (("pull", g_pull), ("push", g_push))}
    share = first_order["pull"] / (first_order["pull"] + first_order["push"])
    out = [
        check_vector_equal(
            "grad(omega^+ P_theta(r=1)) = omega^+ pi (r - p_theta)", g_pull - c["omega_plus"] * force, sp.zeros(n, 1)
        ),
        check_vector_equal(
            "grad(-omega^- P_theta(r=0)) = omega^- pi (r - p_theta)", g_push - c["omega_minus"] * force, sp.zeros(n, 1)
        ),
        check_vector_equal("grad(pull-up) = (1-p)/p grad(push-down)", g_pull - c["ratio"] * g_push, sp.zeros(n, 1)),
        check_equal("first-order share of the pull-up = 1 - p", share, c["share"], claim="share"),
    ]
    keys = ("omega_plus", "omega_minus", "ratio", "share")
    return [Identity(**{**i.__dict__, "extra": {"claim": k, "claimed": c[k]}}) for i, k in zip(out, keys, strict=True)]


def population_collapse(n_success: int = 2, n_fail: int = 2, claimed: Claimed = None) -> list[Identity]:
    """The population-level collapse: with exact expectations over the old policy's samples, GRPO's per-prompt
    objective E_old[(pi/pi_old) A] - beta KL(pi || pi_ref) equals (p_theta - p_old)/sqrt(p_old(1-p_old) + eps)
    - beta KL (claim ``objective``), for every new policy pi (free masses) and every old policy with success mass
    p_old = p. The omega^+/omega^- asymmetry cancels: the Gibbs tilt of a success relative to a failure is
    (omega^+ + omega^-)/beta (derived from Eq. 9's log-odds), and equals 1/(beta sqrt(V)) (claim ``tilt``), so h
    depends on p only through 1/sqrt(V)."""
    n = n_success + n_fail
    qs = sp.symbols(f"q_1:{n + 1}", positive=True)
    refs = sp.symbols(f"rho_1:{n + 1}", positive=True)
    new = [q / sum(qs) for q in qs]
    ref = [q / sum(refs) for q in refs]
    p_theta = sum(new[:n_success])
    kl = ex.kl_divergence(new, ref)
    c = claims(
        claimed,
        {
            "objective": (sp.Symbol("p_theta") - P) / sp.sqrt(_V) - BETA * sp.Symbol("KL"),
            "tilt": 1 / (BETA * sp.sqrt(_V)),
        },
    )
    rewards = [1] * n_success + [0] * n_fail
    objective = ex.grpo_objective(new, _old_policy(n_success, n_fail), rewards, ref)
    printed = c["objective"].subs({sp.Symbol("p_theta"): p_theta, sp.Symbol("KL"): kl})
    ident = check_equal(
        "E_old[(pi/pi_old) A] - beta KL = (p_theta - p_old)/sqrt(p_old(1-p_old)+eps) - beta KL",
        objective,
        printed,
        claim="objective",
    )
    shown = Identity(
        **{
            **ident.__dict__,
            "lhs": sp.Symbol(r"\mathbb{E}_{\pi_{old}}[(\pi_\theta/\pi_{old}) A] - \beta KL"),
            "rhs": c["objective"],
        }
    )
    eq9 = ex.eq9_ratio()
    odds_ratio = sp.simplify(eq9 / (1 - eq9) / (ex.P_REF / (1 - ex.P_REF)))
    tilt = sp.simplify(sp.expand_log(sp.log(odds_ratio), force=True))
    return [shown, check_equal("logit h(p) - logit p_ref = (omega^+ + omega^-)/beta", tilt, c["tilt"], claim="tilt")]


def importance_weighting_at_old_policy(n_outcomes: int = 3, claimed: Claimed = None) -> list[Identity]:
    """Eq. (5) vs (GRPO-No-Clip) on a softmax policy over ``n_outcomes`` outcomes (outcome 1 succeeds, the others
    fail), with exact expectations over the old policy:

    - the importance-weighted objective E_old[(pi_theta/pi_old) A], A from the old policy's reward statistics,
      equals Eq. (5) as printed, omega^+(p_old) P_theta(r=1) - omega^-(p_old) P_theta(r=0) (claims ``omega_plus``,
      ``omega_minus``), for every theta, hence has the same gradient;
    - the log-likelihood surrogate sum_i pi_old_i A_i log pi_theta_i has the gradient of Eq. (5) at theta_old
      (the REINFORCE form), but not elsewhere (``extra['surrogate_residual_elsewhere']`` is non-zero);
    - the clipped objective sum_i pi_old_i f(x_i, A_i) has Eq. (5)'s value and gradient at theta_old (x_i = 1),
      for every clip range > 0.
    """
    c = claims(claimed, {"omega_plus": _EQ4_PLUS, "omega_minus": _EQ4_MINUS})
    theta = sp.symbols(f"theta_1:{n_outcomes + 1}", real=True)
    theta_old = sp.symbols(f"theta^old_1:{n_outcomes + 1}", real=True)
    rewards = [1] + [0] * (n_outcomes - 1)
    pi, pi_old = ex.softmax(theta), ex.softmax(theta_old)
    at_old = dict(zip(theta, theta_old, strict=True))
    p_old, p_theta = pi_old[0], pi[0]
    eq5 = (c["omega_plus"] * p_theta - c["omega_minus"] * (1 - p_theta)).subs(P, p_old)
    out = _importance_weighted_checks(ex.grpo_objective(pi, pi_old, rewards), eq5, theta, c)
    mean = p_old
    adv = [ex.advantage(r, mean, mean * (1 - mean)) for r in rewards]
    out.append(_surrogate_check(pi, pi_old, adv, eq5, theta=theta, theta_old=theta_old))
    out += _clipped_checks(pi, pi_old, adv, eq5, theta=theta, at_old=at_old)
    # every identity compares with Eq. (5) built from the printed weights: a wrong weight must break each of them
    tag = {"claim": "omega_plus", "claimed": c["omega_plus"]}
    return [Identity(**{**i.__dict__, "extra": {**i.extra, **tag}}) for i in out]


def _gradient(f: sp.Expr, theta: tuple) -> sp.Matrix:
    """The column of partial derivatives of ``f`` in the logits ``theta``."""
    return sp.Matrix([sp.diff(f, t) for t in theta])


def _importance_weighted_checks(l_is: sp.Expr, eq5: sp.Expr, theta: tuple, c: Mapping[str, sp.Expr]) -> list[Identity]:
    """The importance-weighted objective ``l_is`` = E_old[(pi_theta/pi_old) A] equals Eq. (5) (``eq5``) for every
    theta, and so does its gradient (the first two checks of :func:`importance_weighting_at_old_policy`)."""
    value = sp.simplify(l_is - eq5)
    return [
        Identity(
            name="L_IS(theta) = Eq. (5) for all theta",
            lhs=sp.Symbol("L_IS"),
            rhs=sp.Symbol("L_Eq5"),
            holds=bool(value == 0),
            residual=value,
            extra={"claim": "omega_plus", "claimed": c["omega_plus"]},
        ),
        check_vector_equal(
            "grad L_IS = grad Eq. (5) for all theta",
            _gradient(l_is, theta) - _gradient(eq5, theta),
            sp.zeros(len(theta), 1),
        ),
    ]


def _surrogate_check(pi: list, pi_old: list, adv: list, eq5: sp.Expr, *, theta: tuple, theta_old: tuple) -> Identity:
    """The log-likelihood surrogate sum_i pi_old_i A_i log pi_theta_i has the gradient of Eq. (5) at theta_old, and
    not at theta_i = i, theta_old = 0, eps = 1/10 (``extra['surrogate_residual_elsewhere']``)."""
    n_outcomes = len(theta)
    g_sur = _gradient(sum(pi_old[i] * adv[i] * sp.log(pi[i]) for i in range(n_outcomes)), theta)
    g_eq5 = _gradient(eq5, theta)
    sur_at_old = check_vector_equal(
        "grad surrogate = grad Eq. (5) at theta_old",
        (g_sur - g_eq5).subs(dict(zip(theta, theta_old, strict=True))),
        sp.zeros(n_outcomes, 1),
    )
    point = {
        **{t: sp.Integer(i) for i, t in enumerate(theta)},
        **{t: sp.Integer(0) for t in theta_old},
        EPS: sp.Rational(1, 10),
    }
    elsewhere = (g_sur - g_eq5).subs(point).evalf(8)
    return Identity(
        **{
            **sur_at_old.__dict__,
            "holds": sur_at_old.holds and any(abs(v) > 1e-6 for v in elsewhere),
            "extra": {"surrogate_residual_elsewhere": elsewhere},
        }
    )


def _clipped_checks(pi: list, pi_old: list, adv: list, eq5: sp.Expr, *, theta: tuple, at_old: dict) -> list[Identity]:
    """The clipped objective sum_i pi_old_i f(x_i, A_i), f(x, A) = min(x A, clip(x) A) with x_i = pi_i / pi_old_i,
    has the value and the gradient of Eq. (5) at theta_old (x_i = 1, inside the clip)."""
    xs = [pi[i] / pi_old[i] for i in range(len(theta))]
    l_clip = sum(pi_old[i] * sp.Min(xs[i] * adv[i], _clip(xs[i], CLIP) * adv[i]) for i in range(len(theta)))
    return [
        check_equal("L_clip = Eq. (5) at theta_old", l_clip.subs(at_old), eq5.subs(at_old)),
        check_vector_equal(
            "grad L_clip = grad Eq. (5) at theta_old",
            _grad_at(l_clip, theta, at_old),
            _gradient(eq5, theta).subs(at_old),
        ),
    ]


def _grad_at(f: sp.Expr, theta: tuple, at: dict) -> sp.Matrix:
    """Gradient of a clipped objective at theta_old: each Min/Max is decided there (ratios 1, inside the clip)."""
    return sp.Matrix([sp.diff(f, t).subs(at) for t in theta]).applyfunc(lambda e: sp.simplify(e.doit()))
