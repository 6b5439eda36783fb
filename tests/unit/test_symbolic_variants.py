"""Tests of grpo_nb.symbolic.variants: each identity of the variants chapter holds, and rejects a wrong formula."""

from __future__ import annotations

import numpy as np
import sympy as sp

from grpo_nb import variants
from grpo_nb.symbolic import variants as sv
from grpo_nb.symbolic.identity import Identity


def test_every_identity_holds() -> None:
    claims = sv.variant_identities()
    assert len(claims) == 5
    assert all(isinstance(c, Identity) and c.holds and c.residual == 0 for c in claims)


def test_stationarity_rejects_the_wrong_anchor() -> None:
    adv, log_ref, log_prev, log_z = sp.symbols("A log_ref log_prev log_Z", real=True)
    only_ref = log_ref + adv / sv.BETA - log_z  # the paper's anchor pi_ref, though alpha < 1
    assert not sv.gibbs_stationarity(only_ref).holds
    both_alpha = sv.ALPHA * (log_ref + log_prev) + adv / sv.BETA - log_z
    assert not sv.gibbs_stationarity(both_alpha).holds


def test_logit_recursion_rejects_an_undamped_and_a_wrongly_weighted_form() -> None:
    a, z, s = sp.symbols("a z s", real=True)
    assert not sv.logit_recursion(sv.ALPHA * a + z + s / sv.BETA).holds
    assert not sv.logit_recursion(a + (1 - sv.ALPHA) * z + s / sv.BETA).holds
    assert not sv.logit_recursion(sv.ALPHA * a + (1 - sv.ALPHA) * z + s / (sv.ALPHA * sv.BETA)).holds


def test_renyi_term_does_not_vanish_for_a_tilt_that_depends_on_more_than_the_reward() -> None:
    t = sp.Symbol("t", real=True)
    assert not sv.renyi_term_vanishes(2 * t).holds
    assert not sv.renyi_term_vanishes(t + 1).holds


def test_fixed_point_reduction_rejects_the_undamped_coefficient() -> None:
    assert sv.fixed_point_reduction().holds
    assert not sv.fixed_point_reduction(sv.BETA).holds


def test_effective_beta_rejects_a_missing_square_root() -> None:
    p = sp.Symbol("p", real=True)
    assert not sv.effective_beta(sv.BETA * (p * (1 - p) + sv.EPS)).holds
    assert not sv.effective_beta(sv.BETA * sp.sqrt(p * (1 - p))).holds


def test_symbolic_push_matches_the_numpy_home() -> None:
    p = sp.Symbol("p", real=True)
    push = sp.lambdify((p, sv.BETA, sv.EPS), sv.effective_beta().lhs, "numpy")
    z = np.linspace(-20, 20, 41)
    for beta, eps in [(0.5, 1e-5), (3.0, 1e-2)]:
        expected = variants.logit_increment(z, beta, eps)
        assert np.allclose(push(1 / (1 + np.exp(-z)), beta, eps), expected, rtol=1e-10)
