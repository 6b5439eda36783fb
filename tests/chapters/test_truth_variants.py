"""The variants chapter's corrected claims: each check passes on the claim the page now makes and fails on the one it
replaced (a wrong formula monkeypatched into the name the analysis reads, or the old statement asserted directly)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from grpo_nb.advantage import group_advantage as true_group_advantage
from grpo_nb.chapters import variants as checks
from grpo_nb.symbolic import variants as sv
from grpo_nb.variants import Variant
from grpo_nb.variants import map as vmap
from grpo_nb.variants import policy as vpolicy

P = np.geomspace(1e-6, 1 - 1e-6, 6)[:, None]
B = np.geomspace(1e-2, 1e2, 6)[None, :]


def _rng() -> np.random.Generator:
    return np.random.default_rng(11)


def test_the_group_bound_holds_where_the_exact_p_factor_does_not() -> None:
    factors = checks.effective_beta_factors(1e-5, group_sizes=(8, 64))
    assert np.all(factors.group_factors <= factors.group_bounds)
    assert np.all(factors.group_factors > 0.999 * factors.group_bounds)
    assert np.allclose(factors.group_factors, [1.5118, 4.0304], atol=1e-3)  # G / (2 sqrt(G - 1)) at eps = 1e-5
    assert abs(factors.population_factor / factors.population_limit - 1) < 1e-6 and factors.population_limit > 158
    # the old statement, "up to about 158", is false for any group the chapter's check sees
    assert factors.group_factors.max() < factors.population_factor / 30


def test_the_group_check_fails_on_an_advantage_that_ignores_the_group_rate(monkeypatch) -> None:
    def exact_p_floor(rewards, form="paper", eps=None):  # the old reading: p(1 - p) of the exact p, near 0
        return (rewards - rewards.mean()) / np.sqrt(eps)

    monkeypatch.setattr(checks, "group_advantage", exact_p_floor)
    bad = checks.effective_beta_factors(1e-5, group_sizes=(8, 64))
    assert np.all(bad.group_factors > 30 * bad.group_bounds)  # the chapter's `<= group_bounds` fails
    monkeypatch.setattr(checks, "group_advantage", true_group_advantage)
    assert np.all(checks.effective_beta_factors(1e-5, group_sizes=(8,)).group_factors <= np.array([8 / 2 / 7**0.5]))


def test_beta_eff_is_derived_from_the_objective_and_a_wrong_one_is_rejected(monkeypatch) -> None:
    assert sv.objective_rescaling().holds
    p = sp.Symbol("p", real=True)
    assert not sv.objective_rescaling(sv.BETA * (p * (1 - p) + sv.EPS)).holds  # root missing
    assert not sv.objective_rescaling(sv.BETA).holds  # no rescaling at all
    z = np.linspace(-30, 30, 61)
    ok = checks.effective_beta_check(z, (1e-5,), (0.5, 1.0), rng=_rng())
    assert ok.solver_gap < 1e-8 < 1e-6 < ok.control_gap and ok.sandwich and ok.touches_at_half < 1e-12

    def missing_root(z, beta, eps):
        return beta * vmap.effective_beta(z, 1.0, eps) ** 2

    monkeypatch.setattr(checks, "effective_beta", missing_root)
    assert checks.effective_beta_check(z, (1e-5,), (1.0,), rng=_rng()).solver_gap > 1e-4


def test_mean_only_one_step_is_checked_by_the_solver_not_by_construction(monkeypatch) -> None:
    ok = checks.mean_only_fixed_point(P, B, rng=_rng(), n_instances=2)
    assert ok.policy_spread < 1e-8 and ok.logit_error < 1e-8 and ok.mean_var_spread > 1e-3
    assert ok.affine_error < 1e-9 and ok.affine_monotone

    def variance_normalised(*args, normalization="mean", alpha=1.0):
        return vpolicy.solve_policy_step(*args, normalization="mean_var", alpha=alpha)

    monkeypatch.setattr(checks, "solve_policy_step", variance_normalised)
    assert checks.mean_only_fixed_point(P, B, rng=_rng(), n_instances=2).policy_spread > 1e-4


def test_mean_only_checks_catch_a_map_that_remembers_the_previous_logit(monkeypatch) -> None:
    def damped_map(z, a, beta, eps, *, normalization="mean_var", alpha=1.0):
        return vmap.variant_logit_map(z, a, beta, eps, normalization=normalization, alpha=0.5)

    def undamped_orbit(p_ref, beta, eps, *, n, normalization="mean_var", alpha=1.0):
        return vmap.iterate_logit(p_ref, beta, eps, n=n, normalization=normalization, alpha=1.0)

    monkeypatch.setattr(checks, "variant_logit_map", damped_map)
    monkeypatch.setattr(checks, "iterate_logit", undamped_orbit)
    bad = checks.mean_only_fixed_point(P, B, rng=_rng(), n_instances=2)
    assert bad.logit_error > 1e-3 and bad.affine_error > 1e-3


def test_mirror_steps_variance_is_not_always_faster(monkeypatch) -> None:
    ok = checks.mirror_survey(P, B, (0.0, 1e-5, 1e-2, 1.0), rng=_rng(), n=30)
    assert np.array_equal(ok.mean_only_steps, ok.mean_only_predicted)
    small = ok.eps_values < 0.75
    assert np.all(ok.mean_var_steps[small] <= ok.mean_only_steps)
    assert np.all(ok.mean_var_steps[~small] >= ok.mean_only_steps)
    assert np.all(np.diff(ok.mean_var_steps, axis=0) >= 0) and ok.tabular_recursion_error < 1e-10
    # the old statement, "variance normalisation is faster", fails at eps = 1
    assert not np.all(ok.mean_var_steps < ok.mean_only_steps)

    def anchored(p_ref, beta, eps, *, n, normalization="mean_var", alpha=1.0):
        return vmap.iterate_logit(p_ref, beta, eps, n=n, normalization=normalization, alpha=0.5)

    monkeypatch.setattr(checks, "iterate_logit", anchored)
    assert checks.mirror_survey(P, B, (1e-5,), rng=_rng(), n=30).tabular_recursion_error > 1e-3


def test_the_iteration_does_not_always_settle_on_a_fixed_point(monkeypatch) -> None:
    cases = [(Variant(), 1e-3, 5.0, 1e-5), (Variant("mean_var", 0.0), 0.5, 50.0, 1e-5)]
    ok = checks.convergence_counterexamples(cases)
    assert ok.orbits[0].verdict == "cycle, period 2" and ok.orbits[0].limit == "0.002338 ↔ 0.05872"  # Fig. 5
    assert ok.orbits[1].verdict == "runs to p = 1" and ok.orbits[1].n_fixed_points == 0
    original = checks.variant_orbit

    def converging(variant, p_ref, beta, eps):  # what "converges to a fixed point" would predict
        return original(Variant("mean", 0.5), p_ref, beta, eps)

    monkeypatch.setattr(checks, "variant_orbit", converging)
    bad = checks.convergence_counterexamples(cases)
    assert all(o.verdict == "fixed point" and o.n_fixed_points == 1 for o in bad.orbits)
