"""Tests of grpo_nb.chapters.variants, the variants chapter's analyses (one module per section): each passes on the
right formulas and the claim the page makes, and fails when a wrong formula is fed in (monkeypatched into the section
module the analysis reads) or on the statement the page replaced (asserted directly)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from grpo_nb.advantage import group_advantage as true_group_advantage
from grpo_nb.chapters import variants as checks
from grpo_nb.chapters.variants import (
    adaptive_beta,
    convergence,
    mean_only,
    mirror,
    optimal_policy,
    regimes_and_cycles,
    renyi,
    success_recursion,
)
from grpo_nb.constants import PAPER_EPS
from grpo_nb.dynamics import orbit_kind
from grpo_nb.dynamics.cycle_geometry import flip_interval
from grpo_nb.dynamics.regimes import Regime
from grpo_nb.plots.paper_figures import FIG5_CASES
from grpo_nb.symbolic import variants as sv
from grpo_nb.variants import Variant
from grpo_nb.variants import map as vmap
from grpo_nb.variants import policy as vpolicy

P = np.geomspace(1e-6, 1 - 1e-6, 6)[:, None]
B = np.geomspace(1e-2, 1e2, 6)[None, :]


def _rng() -> np.random.Generator:
    return np.random.default_rng(11)


# ------------------------------------------------------------------ the variants


def test_random_instance_rejects_a_single_outcome() -> None:
    with pytest.raises(ValueError, match="n_outcomes=1"):
        checks.random_instance(_rng(), 1)


# ------------------------------------------------------------------ the optimal policy of every variant


def test_solver_agreement_passes_and_catches_a_wrong_anchor(monkeypatch) -> None:
    ok = checks.solver_agreement(_rng(), alphas=(0.0, 0.5, 1.0), eps_values=(1e-5,), n_instances=1, n_outcomes=12)
    assert ok.worst < 1e-10 and ok.wrong_anchor_smallest > 1e-6
    assert len(ok.table.rows) == 2 and ok.table.headers[2:] == ["α = 0", "α = 0.5", "α = 1"]

    def paper_anchor(pi_ref, pi_prev, reward, beta, eps, normalization="mean_var", alpha=1.0):
        return vpolicy.policy_step(pi_ref, pi_prev, reward, beta, eps, normalization=normalization, alpha=1.0)

    monkeypatch.setattr(optimal_policy, "policy_step", paper_anchor)
    bad = checks.solver_agreement(_rng(), alphas=(0.5,), eps_values=(1e-5,), n_instances=1, n_outcomes=12)
    assert bad.worst > 1e-6


# ------------------------------------------------------------------ the success recursion in logit form


def test_recursion_agreement_catches_an_undamped_recursion(monkeypatch) -> None:
    ok = checks.recursion_agreement(_rng(), alphas=(0.0, 0.5), n=5, n_instances=1)
    assert ok.worst < 1e-10

    def undamped(p_ref, beta, eps, n, normalization="mean_var", alpha=1.0):
        return vmap.iterate_logit(p_ref, beta, eps, n=n, normalization=normalization, alpha=1.0)

    monkeypatch.setattr(success_recursion, "iterate_logit", undamped)
    assert checks.recursion_agreement(_rng(), alphas=(0.5,), n=5, n_instances=1).worst > 1e-3


def test_variant_orbits_and_fixed_points() -> None:
    orbits = [checks.variant_orbit(v, 1e-3, 5.0, 1e-5) for v in checks.ALL_VARIANTS]
    assert orbits[0].verdict == "cycle, period 2" and orbits[3].verdict == "runs to p = 1"
    assert orbits[3].limit == "1 (logit +∞)" and checks.orbit_table(orbits).headers[0] == "variant"
    fp = checks.variant_fixed_points(1e-3, 5.0, 1e-5, alphas=(1.0, 0.5))
    assert [f.alpha for f in fp] == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5] and fp[0].multiplier < -1 < fp[3].multiplier
    assert checks.fixed_point_table(fp).headers[-1] == "stable"


# ------------------------------------------------------------------ mean-only normalisation with KL to pi_ref: one step


def test_mean_only_one_step_is_checked_by_the_solver_not_by_construction(monkeypatch) -> None:
    ok = checks.mean_only_fixed_point(P, B, rng=_rng(), n_instances=2)
    assert ok.policy_spread < 1e-8 and ok.logit_error < 1e-8 and ok.mean_var_spread > 1e-3
    assert ok.affine_error < 1e-9 and ok.affine_monotone

    def variance_normalised(*args, normalization="mean", alpha=1.0):
        return vpolicy.solve_policy_step(*args, normalization="mean_var", alpha=alpha)

    monkeypatch.setattr(mean_only, "solve_policy_step", variance_normalised)
    assert checks.mean_only_fixed_point(P, B, rng=_rng(), n_instances=2).policy_spread > 1e-4


def test_mean_only_checks_catch_a_map_that_remembers_the_previous_logit(monkeypatch) -> None:
    def damped_map(z, a, beta, eps, *, normalization="mean_var", alpha=1.0):
        return vmap.variant_logit_map(z, a, beta, eps, normalization=normalization, alpha=0.5)

    def undamped_orbit(p_ref, beta, eps, *, n, normalization="mean_var", alpha=1.0):
        return vmap.iterate_logit(p_ref, beta, eps, n=n, normalization=normalization, alpha=1.0)

    monkeypatch.setattr(mean_only, "variant_logit_map", damped_map)
    monkeypatch.setattr(mean_only, "iterate_logit", undamped_orbit)
    bad = checks.mean_only_fixed_point(P, B, rng=_rng(), n_instances=2)
    assert bad.logit_error > 1e-3 and bad.affine_error > 1e-3


# ------------------------------------------------------------------ mirror (alpha = 0)


def test_mirror_survey_holds_and_catches_a_map_that_stops(monkeypatch) -> None:
    ok = checks.mirror_survey(P, B, (0.0, 1e-5), rng=_rng(), n=30)
    assert not ok.any_fixed_point and ok.increments_within_bounds and ok.all_escape and ok.tabular_monotone
    assert ok.table.rows[-1][:2] == ["mean-only", "any"]

    def with_anchor(p_ref, beta, eps, n, normalization="mean_var", alpha=1.0):
        return vmap.iterate_logit(
            p_ref, beta, eps, n=n, normalization=normalization, alpha=0.5
        )  # has a fixed point: increments shrink

    monkeypatch.setattr(mirror, "iterate_logit", with_anchor)
    assert not checks.mirror_survey(P, B, (1e-5,), rng=_rng(), n=60).increments_within_bounds


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

    monkeypatch.setattr(mirror, "iterate_logit", anchored)
    assert checks.mirror_survey(P, B, (1e-5,), rng=_rng(), n=30).tabular_recursion_error > 1e-3


# ------------------------------------------------------------------ both KLs (0 < alpha < 1)


def test_renyi_check_matches_theory_and_sees_the_missing_term(monkeypatch) -> None:
    ok = checks.renyi_check(_rng(), alphas=(0.5,), n=12)
    assert ok.from_ref_max < 1e-12 and ok.from_ref_recursion_error < 1e-12
    assert ok.corrected_error < 1e-10 and ok.uncorrected_smallest > 1e-3
    assert np.allclose(ok.decay_rates, ok.predicted_rates, rtol=0.02)

    def no_term(*args, corrected=True, **kwargs):
        return vpolicy.renyi_recursion_logit(*args, corrected=False, **kwargs)

    monkeypatch.setattr(renyi, "renyi_recursion_logit", no_term)
    assert checks.renyi_check(_rng(), alphas=(0.5,), n=6).corrected_error > 1e-3


def test_fixed_point_comparison_holds_and_catches_a_wrong_slope(monkeypatch) -> None:
    E = np.array([0.0, 1e-5, 1e-2])
    ok = checks.fixed_point_comparison(P[..., None], B[..., None], E, alphas=(0.5,))
    assert ok.max_residual < 1e-9 and ok.missed_roots == 0 and ok.lowest_rises and ok.top_stable_rises
    assert ok.multiplier_error < 1e-9

    def undamped_slope(z, beta, eps, normalization="mean_var", alpha=1.0):
        return vmap.variant_logit_map_slope(z, beta, eps, normalization=normalization, alpha=1.0)  # forgets 1 - alpha

    monkeypatch.setattr(Variant, "slope", lambda self, z, beta, eps: undamped_slope(z, beta, eps, self.normalization))
    bad = checks.fixed_point_comparison(P[..., None], B[..., None], E, alphas=(0.5,))
    assert bad.multiplier_error > 0.1


def test_regime_survey_flags_a_cycle_without_a_flip(monkeypatch) -> None:
    p_ref, beta = np.array([[1e-3]]), np.array([[5.0]])
    survey = checks.regime_survey(p_ref, beta, 1e-5, variants=[Variant(), Variant("mean", 0.5)], progress=False)
    assert survey.flips_where_oscillating and survey.maps[Variant()].regime[0, 0] == Regime.CYCLE
    assert survey.table.rows[0][0] == "mean+var, α = 1" and survey.table.rows[1][1] == 1  # mean-only: interior

    original = regimes_and_cycles.regime_map

    def flattened_slopes(*args, **kwargs):
        rm = original(*args, **kwargs)
        return type(rm)(**{**rm.__dict__, "fixed_point_slopes": np.zeros_like(rm.fixed_point_slopes)})

    monkeypatch.setattr(regimes_and_cycles, "regime_map", flattened_slopes)
    assert not checks.regime_survey(p_ref, beta, 1e-5, variants=[Variant()], progress=False).flips_where_oscillating


def test_cycle_frontier_orders_its_alphas() -> None:
    p_ref, beta = np.geomspace(1e-10, 0.5, 12)[:, None], np.geomspace(1.0, 50.0, 12)[None, :]
    frontier = checks.cycle_frontier(p_ref, beta, 1e-5, alphas=(1.0, 0.5))
    assert frontier.largest_cycle_p_ref[0] > frontier.largest_cycle_p_ref[1] > 0
    assert np.all(frontier.largest_cycle_p_ref <= frontier.largest_flip_p_ref)
    assert np.all(frontier.largest_flip_p_ref < frontier.flip_bound) and frontier.alphas == (1.0, 0.5)


def test_the_former_alpha_07_reading_fails_off_the_grid() -> None:
    # the former "alpha = 0.7: no cycle left for p_ref above 1e-4" held on the 50-point grid (largest 6.1e-5) only
    seven = Variant("mean_var", 0.7)
    kind = orbit_kind(1.2e-4, 5.1, 1e-5, variant=seven)
    assert kind.kind == "cycle" and kind.period == 2 and seven.flip_bound(1e-5) > 1e-4
    assert Variant("mean_var", 0.5).flip_bound(1e-5) < 1e-4  # alpha = 0.5: no prompt above 1e-4 can flip


def test_the_finer_scan_finds_the_cycles_the_grid_missed(monkeypatch) -> None:
    p_ref, beta = np.geomspace(1e-14, 0.5, 50)[:, None], np.geomspace(1e-2, 1e2, 50)[None, :]
    frontier = checks.cycle_frontier(p_ref, beta, 1e-5, alphas=(0.7,))
    monkeypatch.setattr(regimes_and_cycles, "FINE_P_POINTS", 12)
    monkeypatch.setattr(regimes_and_cycles, "FINE_BETA", np.geomspace(3.0, 8.0, 40))
    refined = checks.refine_cycle_frontier(frontier, 1e-5, alphas=(0.7,))
    assert frontier.largest_cycle_p_ref[0] < 1e-4 < refined.scan_p_ref[0] < refined.flip_bound[0]
    assert orbit_kind(refined.scan_p_ref[0], refined.scan_beta[0], 1e-5, variant=Variant("mean_var", 0.7)).kind != (
        "fixed_point"
    )
    monkeypatch.setattr(regimes_and_cycles, "FINE_P_POINTS", 2)  # the two bounds only: no finer than the grid
    coarse = checks.refine_cycle_frontier(frontier, 1e-5, alphas=(0.7,))
    assert coarse.scan_p_ref[0] == frontier.largest_cycle_p_ref[0] < 1.4e-4  # the page's assert would fail


# ------------------------------------------------------------------ variance normalisation: an adaptive beta


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

    monkeypatch.setattr(adaptive_beta, "group_advantage", exact_p_floor)
    bad = checks.effective_beta_factors(1e-5, group_sizes=(8, 64))
    assert np.all(bad.group_factors > 30 * bad.group_bounds)  # the chapter's `<= group_bounds` fails
    monkeypatch.setattr(adaptive_beta, "group_advantage", true_group_advantage)
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

    monkeypatch.setattr(adaptive_beta, "effective_beta", missing_root)
    assert checks.effective_beta_check(z, (1e-5,), (1.0,), rng=_rng()).solver_gap > 1e-4


# ------------------------------------------------------------------ when the iteration settles on a fixed point


def test_the_iteration_does_not_always_settle_on_a_fixed_point(monkeypatch) -> None:
    cases = [(Variant(), 1e-3, 5.0, 1e-5), (Variant("mean_var", 0.0), 0.5, 50.0, 1e-5)]
    ok = checks.convergence_counterexamples(cases)
    assert ok.orbits[0].verdict == "cycle, period 2" and ok.orbits[0].limit == "0.002338 ↔ 0.05872"  # Fig. 5
    assert ok.orbits[1].verdict == "runs to p = 1" and ok.orbits[1].n_fixed_points == 0
    original = checks.variant_orbit

    def converging(variant, p_ref, beta, eps):  # what "converges to a fixed point" would predict
        return original(Variant("mean", 0.5), p_ref, beta, eps)

    monkeypatch.setattr(convergence, "variant_orbit", converging)
    bad = checks.convergence_counterexamples(cases)
    assert all(o.verdict == "fixed point" and o.n_fixed_points == 1 for o in bad.orbits)


# ------------------------------------------------------------------ figures


def test_figure_functions_and_explorers_draw_without_error() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    from grpo_nb.dynamics.regimes import regime_map
    from grpo_nb.plots import variants as pv
    from grpo_nb.widgets.variants import variant_explorer, variant_regime_explorer

    maps = {v: regime_map(P, B, 1e-5, variant=v) for v in (Variant(), Variant("mean", 0.0))}
    renyi = checks.renyi_check(_rng(), alphas=(0.5,), n=4)
    for fig in (
        pv.draw_variant_orbits(1e-3, 5.0, 1e-5, alpha=0.5, n=10),
        pv.draw_variant_orbits(0.3, 1.0, 0.0, alpha=0.0, n=10),  # mirror with eps = 0: the orbit reaches logit +inf
        pv.draw_effective_beta(2.0, (1e-5,)),
        pv.plot_renyi_decay(renyi.corrections, "decay"),
        pv.draw_variant_regime_maps(maps, ncols=1),
    ):
        assert isinstance(fig, Figure) and fig.axes
        fig.canvas.draw()
        plt.close(fig)
    assert variant_explorer(n=5) is not None and variant_regime_explorer() is not None
    plt.close("all")


def test_the_grid_reads_the_cycle_frontier_from_below():
    # the former "the largest p_ref with a cycle is 0.00552 at alpha = 1" is a grid reading: off the grid, a 2-cycle
    # at p_ref = 0.0098, just under the largest p_ref that any beta flips
    assert orbit_kind(0.0098, 1.11, 1e-5).kind == "cycle" and 0.0098 > 0.00552
    top_flip = max(flip_interval(b, 1e-5)[1] for b in np.linspace(0.9, 1.1, 201))
    assert 0.0098 < top_flip < 0.01005
    assert orbit_kind(0.0099, 1.11, 1e-5).kind == "fixed_point"  # the frontier is near, not at, the flip bound


def test_the_settings_the_pages_share_span_the_stated_ranges():
    """The grid of the one-step and mirror surveys spans p_ref from 1e-9 to 1 - 1e-9 (a column) and beta from 1e-3 to
    1e3 (a row), the ranges the pages state; the divergent run is the paper's Fig. 5 case at its eps."""
    assert checks.P_REF_GRID.shape == (25, 1) and checks.BETA_GRID.shape == (1, 25)
    assert checks.P_REF_GRID[0, 0] == pytest.approx(1e-9) and checks.P_REF_GRID[-1, 0] == pytest.approx(1 - 1e-9)
    assert checks.BETA_GRID[0, 0] == pytest.approx(1e-3) and checks.BETA_GRID[0, -1] == pytest.approx(1e3)
    assert checks.FIG5 == (*FIG5_CASES[4], PAPER_EPS)
