"""The sympy derivations behind the chapter "The GRPO family": what each normalisation climbs, RLOO's advantage.

:func:`climbed_gradients` starts from the expected policy gradient E_{o~pi}[A(o) grad log pi(o)] of a softmax policy
over three answers (two successes, one failure), with the advantage A = w+(p) on a success and -w-(p) on a failure,
and shows that it equals grad F(p(theta)) for each normalisation of :mod:`grpo_nb.family.objectives`.
:func:`rloo_identity` shows r_i - mean_{j != i} r_j = G/(G - 1) (r_i - mean_j r_j) for G = 2..``G_max``.
Each takes ``claimed={key: formula}`` (:func:`grpo_nb.symbolic.identity.claims`) so a test can feed a wrong formula.
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

from grpo_nb.symbolic.identity import Identity, check_equal, claims

__all__ = ["CLIMBED", "climbed_gradients", "rloo_identity"]

_p, _eps = sp.symbols("p varepsilon", positive=True)

#: The printed F(p) of each normalisation, and its weights (w+, w-).
CLIMBED: dict[str, sp.Expr] = {
    "std": sp.asin((2 * _p - 1) / sp.sqrt(1 + 4 * _eps)),
    "std_eps0": 2 * sp.asin(sp.sqrt(_p)),
    "mean": _p,
    "log": sp.log(_p),
}
_WEIGHTS = {
    "std": ((1 - _p) / sp.sqrt(_p * (1 - _p) + _eps), _p / sp.sqrt(_p * (1 - _p) + _eps)),
    "std_eps0": ((1 - _p) / sp.sqrt(_p * (1 - _p)), _p / sp.sqrt(_p * (1 - _p))),
    "mean": (1 - _p, _p),
    "log": (1 / _p, sp.Integer(0)),
}


def climbed_gradients(claimed: Mapping[str, sp.Expr] | None = None) -> list[Identity]:
    """E_pi[A grad log pi] = grad F(p) on a three-answer softmax, per normalisation (each a vector identity).

    The policy is pi_o = u_o / (u_1 + u_2 + u_3) with u_o = e^{theta_o}, answers 1 and 2 succeed, so
    p = (u_1 + u_2)/S; d/dtheta_j = u_j d/du_j. Both sides are differentiated by sympy, never written by hand.
    """
    formulas = claims(claimed, CLIMBED)
    u = sp.symbols("u1:4", positive=True)
    S = sum(u)
    pi = [ui / S for ui in u]
    p_theta = (u[0] + u[1]) / S
    out = []
    for key, (w_plus, w_minus) in _WEIGHTS.items():
        adv = [w.subs(_p, p_theta) for w in (w_plus, w_plus, -w_minus)]
        residual = 0
        for j in range(3):
            lhs = sum(pi[o] * adv[o] * u[j] * sp.diff(sp.log(pi[o]), u[j]) for o in range(3))
            rhs = u[j] * sp.diff(formulas[key].subs(_p, p_theta), u[j])
            residual += sp.simplify(sp.factor(sp.radsimp(lhs - rhs))) ** 2
        out.append(check_equal(f"E[A grad log pi] = grad F(p), {key}", sp.simplify(residual), sp.Integer(0), claim=key))
    return out


def rloo_identity(G_max: int = 6, claimed: Mapping[str, sp.Expr] | None = None) -> list[Identity]:
    """r_i - (sum_{j != i} r_j)/(G - 1) = c(G) (r_i - (sum_j r_j)/G) with c(G) = G/(G - 1), for G = 2..G_max."""
    G = sp.Symbol("G", positive=True)
    factor = claims(claimed, {"factor": G / (G - 1)})["factor"]
    out = []
    for g in range(2, G_max + 1):
        r = sp.symbols(f"r1:{g + 1}")
        total = sum(r)
        lhs = r[0] - (total - r[0]) / (g - 1)
        rhs = factor.subs(G, g) * (r[0] - total / g)
        out.append(check_equal(f"RLOO = G/(G-1) x Dr. GRPO, G = {g}", lhs, rhs, claim="factor"))
    return out
