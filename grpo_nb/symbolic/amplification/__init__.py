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

One module per part of the appendix, all importable from here (``from grpo_nb.symbolic import amplification``):

* :mod:`~grpo_nb.symbolic.amplification.lemmas`: Lemma 2 (f(p_ref) > 0), Lemmas 3 and 4 (the cosh identities),
  Lemma 1 (the slope at a fixed point) and the p_ref of a given fixed point;
* :mod:`~grpo_nb.symbolic.amplification.theorem3`: Theorem 3, its two cases, the derivative of xi, and the short
  proof that makes condition (2) unnecessary, symbolic and on a grid;
* :mod:`~grpo_nb.symbolic.amplification.steps`: the symbols z, x, a and the checks both build on (a sign decided by
  sympy, an inequality on a grid, an identity after rewriting with exp).
"""

from grpo_nb.symbolic.amplification.lemmas import (
    fixed_point_reference,
    lemma1_slope_at_fixed_point,
    lemma2_f_at_pref,
    lemma3_part1,
    lemma3_part1_steps,
    lemma3_part2,
    lemma4_cosh_pref,
)
from grpo_nb.symbolic.amplification.steps import A_POS, X, Z
from grpo_nb.symbolic.amplification.steps import _grid_identity as _grid_identity  # the grid check, for its tests
from grpo_nb.symbolic.amplification.theorem3 import (
    theorem3_amplification_without_condition,
    theorem3_case_high_pref,
    theorem3_case_low_pref,
    theorem3_fixed_point_logit_gap,
    theorem3_xi_derivative,
)

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
