"""grpo_nb.symbolic.advantage: every §2 identity holds, and the checks reject wrong claims."""

from __future__ import annotations

import pytest
import sympy as sp

from grpo_nb.symbolic import advantage as sa
from grpo_nb.symbolic.proofs import EPS, P

ALL = [
    sa.bernoulli_moments,
    sa.whitened_advantage,
    sa.stabilised_advantage,
    sa.zero_mean_advantage,
    sa.eq3_printed_vs_eq4,
    sa.weight_identities,
    sa.weight_monotonicity,
    sa.clipped_term_cases,
    sa.bessel_vs_population_std,
    sa.contrastive_decomposition,
    sa.importance_weighting_at_old_policy,
]


@pytest.mark.parametrize("fn", ALL, ids=lambda f: f.__name__)
def test_every_identity_holds(fn) -> None:
    out = fn()
    for ident in out if isinstance(out, list) else [out]:
        assert ident.holds, ident.name


def test_whitened_advantage_rejects_swapped_claims() -> None:
    wrong = sa.whitened_advantage(claimed_success=sp.sqrt(P / (1 - P)), claimed_failure=sp.sqrt(P / (1 - P)))
    assert not wrong[0].holds and not wrong[1].holds


def test_sign_check_rejects_wrong_sign_and_undecidable() -> None:
    assert not sa._sign_identity("wrong", (1 - P + 2 * EPS), "<").holds
    assert sa._sign_identity("right", (1 - P + 2 * EPS), ">").holds
    assert not sa._sign_identity("undecidable", 1 - 2 * P, ">").holds


def test_vector_check_rejects_nonzero() -> None:
    x = sp.Symbol("x")
    assert not sa._check_vector_equal("v", sp.Matrix([x, 1]), sp.Matrix([x, 0])).holds
    assert sa._check_vector_equal("v", sp.Matrix([x + x, 1]), sp.Matrix([2 * x, 1])).holds


def test_surrogate_gradient_differs_away_from_old_policy() -> None:
    idents = sa.importance_weighting_at_old_policy(n_outcomes=2)
    sur = next(i for i in idents if "surrogate" in i.name)
    assert any(abs(v) > 1e-6 for v in sur.extra["surrogate_residual_elsewhere"])


def test_decomposition_larger_sets() -> None:
    assert sa.contrastive_decomposition(n_success=1, n_failure=3).holds


def test_clipped_cases_reject_swapped_forms() -> None:
    wrong = sa.clipped_term_cases(swap_cases=True)
    # outside the trust region the swapped forms are wrong; inside both reduce to x A
    assert sum(not i.holds for i in wrong) == 4
