"""Every sympy check of grpo_nb.symbolic can fail.

For each check function and each printed formula it compares with (an Identity's ``extra["claim"]``), the test feeds
a perturbed formula through ``claimed=`` and requires exactly that check to fail: an equality gets the formula plus
1/7, a sign claim gets the negated formula. A second test mutates a shared definition of
:mod:`grpo_nb.symbolic.expressions` (eps -> 2 eps in the smoothed variance) and requires the derivations that start
from it to fail.
"""

from __future__ import annotations

from functools import partial

import pytest
import sympy as sp

from grpo_nb.symbolic import amplification as am
from grpo_nb.symbolic import effective_loss as el
from grpo_nb.symbolic import expressions as ex
from grpo_nb.symbolic import policy_dynamics as pd
from grpo_nb.symbolic.identity import Identity, claims

CHECKS = {
    "bernoulli_moments": el.bernoulli_moments,
    "whitened_advantage": el.whitened_advantage,
    "stabilised_advantage": el.stabilised_advantage,
    "zero_mean_advantage": el.zero_mean_advantage,
    "eq3_printed_vs_eq4": el.eq3_printed_vs_eq4,
    "weight_identities": el.weight_identities,
    "weight_monotonicity": el.weight_monotonicity,
    "bessel_vs_population_std": el.bessel_vs_population_std,
    "contrastive_decomposition": el.contrastive_decomposition,
    "population_collapse": el.population_collapse,
    "importance_weighting_at_old_policy": partial(el.importance_weighting_at_old_policy, n_outcomes=2),
    "theorem1_first_order_conditions": partial(pd.theorem1_first_order_conditions, 1, 1),
    "theorem1_gibbs_variational_identity": partial(pd.theorem1_gibbs_variational_identity, 1, 2),
    "theorem1_concavity": pd.theorem1_concavity,
    "theorem1_partition_split": pd.theorem1_partition_split,
    "theorem2_success_recursion": pd.theorem2_success_recursion,
    "theorem2_logistic_form": pd.theorem2_logistic_form,
    "proposition1_derivative": pd.proposition1_derivative,
    "proposition1_sigmoid_chain": pd.proposition1_sigmoid_chain,
    "proposition1_sign": pd.proposition1_sign,
    "proposition1_minimum_gap": pd.proposition1_minimum_gap,
    "remark1_discontinuity": pd.remark1_discontinuity,
    "lemma2_f_at_pref": am.lemma2_f_at_pref,
    "lemma3_part1": am.lemma3_part1,
    "lemma3_part1_steps": am.lemma3_part1_steps,
    "lemma3_part2": partial(am.lemma3_part2, n_samples=500),
    "lemma4_cosh_pref": am.lemma4_cosh_pref,
    "lemma1_slope_at_fixed_point": am.lemma1_slope_at_fixed_point,
    "theorem3_case_low_pref": partial(am.theorem3_case_low_pref, n_grid=9),
    "theorem3_xi_derivative": am.theorem3_xi_derivative,
    "theorem3_case_high_pref": partial(am.theorem3_case_high_pref, n_grid=9),
    "theorem3_fixed_point_logit_gap": am.theorem3_fixed_point_logit_gap,
}


def _as_list(out: Identity | list[Identity]) -> list[Identity]:
    return out if isinstance(out, list) else [out]


def _perturbed(ident: Identity) -> sp.Expr:
    claimed = sp.sympify(ident.extra["claimed"])
    return -claimed if ident.relation in (">", ">=", "<") else claimed + sp.Rational(1, 7)


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_every_check_holds_with_the_printed_formulas(name: str) -> None:
    out = _as_list(CHECKS[name]())
    assert out and all(i.holds for i in out), [i.name for i in out if not i.holds]


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_every_claimed_formula_can_fail(name: str) -> None:
    fn = CHECKS[name]
    out = _as_list(fn())
    claimed = [(k, i) for k, i in enumerate(out) if i.extra.get("claim")]
    assert claimed, f"{name} names no printed formula"
    reruns: dict[tuple[str, str], list[Identity]] = {}
    for k, ident in claimed:
        perturbed = _perturbed(ident)
        key = (ident.extra["claim"], sp.srepr(perturbed))
        if key not in reruns:
            reruns[key] = _as_list(fn(claimed={ident.extra["claim"]: perturbed}))
        assert not reruns[key][k].holds, f"{name}[{k}] ({ident.name}) accepts a perturbed {ident.extra['claim']}"


def test_an_unknown_claim_key_is_rejected() -> None:
    with pytest.raises(ValueError, match="claimed"):
        el.stabilised_advantage(claimed={"omega_pluss": sp.Integer(1)})
    with pytest.raises(ValueError, match="claimed"):
        claims(sp.Integer(1), {"a": sp.Integer(1)})


def test_doubling_eps_in_the_shared_variance_breaks_the_derivations(monkeypatch: pytest.MonkeyPatch) -> None:
    """eps -> 2 eps in the smoothed variance of the shared expressions: every derivation that starts from it and is
    compared with a printed formula must fail; the ones that do not involve eps keep holding."""
    monkeypatch.setattr(ex, "smoothed_variance", lambda var, eps=ex.EPS: var + 2 * eps)
    failing = {name for name, fn in CHECKS.items() if not all(i.holds for i in _as_list(fn()))}
    expected = {
        "stabilised_advantage",
        "weight_identities",
        "weight_monotonicity",
        "eq3_printed_vs_eq4",
        "contrastive_decomposition",
        "population_collapse",
        "importance_weighting_at_old_policy",
        "theorem2_logistic_form",
        "proposition1_derivative",
        "proposition1_sigmoid_chain",
        "proposition1_sign",
        "proposition1_minimum_gap",
        "lemma2_f_at_pref",
        "lemma1_slope_at_fixed_point",
        "theorem3_case_low_pref",
        "theorem3_xi_derivative",
        "theorem3_case_high_pref",
        "theorem3_fixed_point_logit_gap",
    }
    assert expected <= failing, sorted(expected - failing)
    assert {"bernoulli_moments", "whitened_advantage", "lemma3_part1", "bessel_vs_population_std"}.isdisjoint(failing)
