"""Tests of grpo_nb.symbolic.hard_prompts: the logit map is even, with Prop. 1's slope, a minimum at z = 0 and a
supremum a + 1/(beta sqrt(eps)); each check rejects a wrong formula."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from scipy.special import logit

from grpo_nb.dynamics.map import logit_map, logit_map_slope
from grpo_nb.symbolic import hard_prompts as hp
from grpo_nb.symbolic.identity import Identity

V = sp.exp(hp.Z) / (1 + sp.exp(hp.Z)) ** 2


def test_the_four_identities_hold() -> None:
    claims = hp.logit_map_unimodal()
    assert [c.name for c in claims] == ["g is even", "g'(z)", "g(0)", "sup g"]
    assert all(isinstance(c, Identity) and c.holds and c.residual == 0 for c in claims)


def test_evenness_rejects_a_map_that_is_not_even() -> None:
    sigmoid = sp.exp(hp.Z) / (1 + sp.exp(hp.Z))  # p instead of p(1 - p)
    assert not hp.logit_map_even(hp.A + 1 / (hp.BETA * sp.sqrt(sigmoid + hp.EPS))).holds


def test_derivative_rejects_a_wrong_exponent_and_a_wrong_sign() -> None:
    wrong_power = V * sp.tanh(hp.Z / 2) / (2 * hp.BETA * (V + hp.EPS) ** sp.Rational(1, 2))
    assert not hp.logit_map_derivative(wrong_power).holds
    wrong_sign = -V * sp.tanh(hp.Z / 2) / (2 * hp.BETA * (V + hp.EPS) ** sp.Rational(3, 2))
    assert not hp.logit_map_derivative(wrong_sign).holds


def test_minimum_and_supremum_reject_wrong_values() -> None:
    assert not hp.logit_map_minimum(hp.A + 1 / (hp.BETA * sp.sqrt(sp.Rational(1, 2) + hp.EPS))).holds
    assert not hp.logit_map_supremum(hp.A + 1 / (hp.BETA * hp.EPS)).holds


def test_sympy_map_and_slope_match_the_numpy_home() -> None:
    g = sp.lambdify((hp.Z, hp.A, hp.BETA, hp.EPS), hp.G, "numpy")
    dg = sp.lambdify((hp.Z, hp.A, hp.BETA, hp.EPS), sp.diff(hp.G, hp.Z), "numpy")
    z = np.linspace(-30, 30, 61)
    for p_ref, beta, eps in [(1e-4, 5.2, 1e-5), (0.3, 0.1, 1e-2), (0.9, 20.0, 1.0)]:
        a = logit(p_ref)
        assert np.allclose(g(z, a, beta, eps), logit_map(z, a, beta, eps), rtol=1e-12)
        assert np.allclose(dg(z, a, beta, eps), logit_map_slope(z, beta, eps), rtol=1e-9, atol=1e-300)


def test_derivative_is_displayed_as_stated() -> None:
    ident = hp.logit_map_derivative()
    assert ident.rhs.has(sp.tanh) and ident.holds  # shown with tanh(z/2), checked in exponentials


# --- g derived from Theorem 2's h, and the no-cycle threshold: each check holds, and rejects a perturbed formula


QUARTER = sp.Rational(1, 4)


def test_logit_map_is_derived_from_theorem2() -> None:
    assert hp.logit_map_from_theorem2().holds
    assert not hp.logit_map_from_theorem2(hp.theorem2_h(eps_factor=2)).holds  # eps -> 2 eps in the variance term


def test_branch_signs_hold_and_reject_a_map_that_is_not_unimodal() -> None:
    assert all(c.holds for c in hp.logit_map_branch_signs())
    sigmoid = sp.exp(hp.Z) / (1 + sp.exp(hp.Z))  # p in place of p(1 - p): g' has one sign everywhere
    assert not all(c.holds for c in hp.logit_map_branch_signs(hp.A + 1 / (hp.BETA * sp.sqrt(sigmoid + hp.EPS))))


def test_no_cycle_threshold_rejects_the_variance_free_formula() -> None:
    assert hp.no_cycle_threshold().holds
    assert not hp.no_cycle_threshold(1 / (1 + sp.exp(1 / (hp.BETA * sp.sqrt(hp.EPS))))).holds
    assert not hp.no_cycle_threshold(sp.Rational(1, 2)).holds  # the weaker p_ref >= 1/2 is not the threshold


def test_curvature_and_flip_gap_reject_a_wrong_factor() -> None:
    assert hp.critical_curvature().holds and hp.flip_gap_leading_order().holds
    assert not hp.critical_curvature(1 / (16 * hp.BETA * (QUARTER + hp.EPS) ** sp.Rational(3, 2))).holds
    assert not hp.flip_gap_leading_order(12 * hp.BETA * (QUARTER + hp.EPS) ** sp.Rational(3, 2)).holds


def test_threshold_steps_all_hold() -> None:
    steps = hp.threshold_steps()
    assert len(steps) == 5 and all(s.holds for s in steps)


def test_a_mutated_shared_map_fails_the_derivation(monkeypatch: pytest.MonkeyPatch) -> None:
    """eps -> 2 eps in the variance term of the shared g: the derivation from Theorem 2's h rejects it."""
    mutated = hp.A + 1 / (hp.BETA * sp.sqrt(V + 2 * hp.EPS))
    monkeypatch.setattr(hp, "G", mutated)
    assert not hp.logit_map_from_theorem2().holds
    assert not hp.logit_map_minimum().holds and not hp.no_cycle_threshold().holds
