"""Tests of grpo_nb.chapters.hard_prompts, the hard-prompts chapter's analyses (one module per section): each reports
what holds, and reports a failure when it is fed a wrong map, a wrong bound or a doctored diagram (a wrong formula
monkeypatched into the section module the analysis reads), including the corrected claims of section "What it means
for training"; bad input raises ValueError naming the parameter."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy.special import expit, logit

from grpo_nb import dynamics
from grpo_nb.chapters import hard_prompts as checks
from grpo_nb.chapters.hard_prompts import training, two_cycle, unimodal_map
from grpo_nb.constants import PAPER_EPS
from grpo_nb.dynamics.bifurcation import FEIGENBAUM_DELTA, bifurcation_diagram
from grpo_nb.dynamics.map import logit_map
from grpo_nb.dynamics.orbits import ChaoticOrbitError, OrbitClass, classify_orbits
from grpo_nb.dynamics.uniform_beta import prompt_beta_bound, safe_betas
from grpo_nb.plots.paper_figures import FIG5_CASES

FIG5 = (1e-3, 5.0, 1e-5)  # the paper's "divergent" run: a 2-cycle
CHAOTIC_CASE = (1e-4, 5.2, 1e-5)


@pytest.fixture(scope="module")
def diagram():
    """A coarse diagram of the chapter's first panel: fixed points, cycles up to period 8 and a chaotic band."""
    return bifurcation_diagram(1e-4, np.geomspace(0.2, 30, 200), 1e-5, transient=1000, n_keep=128, n_lyapunov=1024)


@pytest.fixture(scope="module")
def cascade():
    return checks.cascade_check(1e-4, 1e-5, n_doublings=6, n_checked=4)


def _wrong_map(z, a, beta, eps):
    """g with the variance v(z) of the sigmoid replaced by sigmoid(z): not even, not bounded by a + 1/(b sqrt eps)."""
    return a + 1.0 / (beta * np.sqrt(expit(np.asarray(z, dtype=float)) + eps))


# ------------------------------------------------------------------ the shape of g


def test_invariant_interval_holds_on_a_grid() -> None:
    grid = np.meshgrid(np.geomspace(1e-9, 0.999, 5), np.geomspace(1e-3, 1e3, 5), [1e-8, 1e-2, 1.0], indexing="ij")
    assert checks.invariant_interval_excess(*grid, n_points=51) <= 1e-12


def test_invariant_interval_rejects_a_wrong_map(monkeypatch) -> None:
    monkeypatch.setattr(unimodal_map, "logit_map", _wrong_map)
    assert checks.invariant_interval_excess(1e-3, 5.0, 1e-5) > 1e-3


def test_easy_prompts_are_monotone_and_a_hard_prompt_is_not() -> None:
    p_easy = np.linspace(0.5, 0.999, 4)[:, None]
    assert np.all(checks.monotone_after_first_step(p_easy, np.geomspace(1e-3, 1e3, 7)[None, :], 1e-5, n=100))
    assert not checks.monotone_after_first_step(*FIG5, n=100)  # the 2-cycle goes up and down


# ------------------------------------------------------------------ a cycle, checked


def test_two_cycle_of_the_paper_run() -> None:
    fig5 = checks.two_cycle_check(*FIG5, beta_stable=10.0)
    cyc, stable = fig5.cycle, fig5.stable
    assert cyc.kind.kind == "cycle" and cyc.kind.period == 2 and len(cyc.points) == 2
    assert cyc.map_error < 1e-12 and cyc.landing_error < 1e-12
    assert cyc.multiplier < 1 and np.isclose(np.log(cyc.multiplier) / 2, cyc.kind.lyapunov, rtol=1e-6)
    assert cyc.lower_fixed_logits.size == 1 and cyc.lower_fixed_slopes[0] < -1
    assert expit(cyc.logits[0]) < expit(cyc.lower_fixed_logits[0]) < expit(cyc.logits[1])  # in between
    assert stable.kind.kind == "fixed_point" and stable.lower_fixed_slopes[0] > -1 and stable.map_error < 1e-12
    assert len(fig5.rows) == 5 and fig5.rows[-1][0].startswith(r"$\beta = 10$ instead")
    assert cyc.orbit.shape == (401,) and cyc.orbit[0] == pytest.approx(logit(FIG5[0]))


def test_attractor_report_sees_a_wrong_map(monkeypatch) -> None:
    monkeypatch.setattr(two_cycle, "logit_map", _wrong_map)
    assert checks.attractor_report(*FIG5).map_error > 1e-3


def test_attractor_report_refuses_chaos() -> None:
    with pytest.raises(ChaoticOrbitError):
        checks.attractor_report(*CHAOTIC_CASE)


def test_two_cycle_check_needs_a_cycle() -> None:
    with pytest.raises(ValueError, match="beta_stable"):
        checks.two_cycle_check(1e-3, 10.0, 1e-5, beta_stable=20.0)  # a fixed point at both


# ------------------------------------------------------------------ diagrams


def test_lower_fixed_point_slope_matches_lemma1() -> None:
    beta = np.array([3.0, 5.0, 10.0])
    slope = checks.lower_fixed_point_slope(1e-3, beta, 1e-5)
    assert slope.shape == (3,) and np.all(np.diff(slope) > 0) and slope[1] < -1 < slope[2] < 0
    assert np.isinf(checks.lower_fixed_point_slope(0.7, 1.0, 1e-5))  # no fixed point below 1/2


def test_escape_beta(diagram) -> None:
    b = checks.escape_beta(diagram)
    last = diagram.limit_logits[:, -1]
    fixed_above = (diagram.beta > b) & (diagram.kind == OrbitClass.FIXED_POINT)
    assert last[diagram.beta == b][0] > 20 and np.all(last[fixed_above] < 0)  # the top fixed point, then p* < 1/2
    assert np.isnan(checks.escape_beta(diagram, escape_logit=1e6))


def test_diagram_summary_holds(diagram) -> None:
    s = checks.diagram_summary([diagram, diagram])
    assert s.fixed_offset.shape == (2,) and np.all(s.fixed_offset <= 1e-7) and np.all(s.unstable_fixed == 0)
    assert np.all(s.lower_slope_max < -1)
    assert np.all(s.chaotic_lyapunov_min > 0) and np.all(s.cycle_lyapunov_max < 0)
    p_ref, eps, two, longest, band, escape = s.rows[0]
    assert (p_ref, eps, longest) == (1e-4, 1e-5, diagram.period.max()) and 10 < two < 30 and " - " in band
    assert escape == checks.escape_beta(diagram)


def test_diagram_summary_catches_a_doctored_diagram(diagram) -> None:
    fixed = diagram.kind == OrbitClass.FIXED_POINT
    moved = replace(diagram, limit_logits=np.where(fixed[:, None], diagram.limit_logits + 0.1, diagram.limit_logits))
    assert checks.diagram_summary([moved]).fixed_offset[0] > 1e-3
    cycles_called_chaos = replace(diagram, kind=np.where(diagram.kind == OrbitClass.CYCLE, 2, diagram.kind))
    assert checks.diagram_summary([cycles_called_chaos]).chaotic_lyapunov_min[0] < 0
    all_called_cycles = replace(diagram, kind=np.full_like(diagram.kind, OrbitClass.CYCLE))
    assert checks.diagram_summary([all_called_cycles]).lower_slope_max[0] > -1


def test_fixed_point_branch(diagram, cascade) -> None:
    b = checks.fixed_point_branch(diagram, cascade.doubling[0])
    assert b.n_not_fixed == 0 and b.max_increment < 0 and b.min_gain > 0
    assert b.row[:3] == [1e-4, 1e-5, cascade.doubling[0]] and b.row[4] == diagram.beta[-1]
    below = checks.fixed_point_branch(diagram, 1.0)  # includes cycles, chaos and the escape to p ~ 1
    assert below.n_not_fixed > 0 and below.max_increment > 0


# ------------------------------------------------------------------ cascade, Feigenbaum


def test_cascade_check(cascade) -> None:
    assert cascade.superstable.size == cascade.doubling.size == 6 and cascade.interleaved
    assert cascade.return_error < 1e-6 and cascade.earliest_return > 1e-3
    assert [row[1] for row in cascade.rows] == [2, 4, 8, 16, 32, 64] and np.isnan(cascade.rows[-1][-1])
    assert cascade.rows[0][2] == cascade.doubling[0] and cascade.rows[0][3] == cascade.superstable[0]


def test_feigenbaum_summary(cascade) -> None:
    f = checks.feigenbaum_summary([cascade])
    assert len(f.ratios) == 2 and f.last_error.shape == (2,) and np.all(f.last_error < f.first_error)
    row = f.rows[0]
    assert row[2] == "B" and row[3] == pytest.approx(
        f.ratios[r"$B_k$, $p_{\mathrm{ref}} = 10^{-4}$, $\varepsilon = 10^{-5}$"][0]
    )
    assert abs(row[6] - FEIGENBAUM_DELTA) < 0.2 and row[7] < cascade.superstable[-1]  # beta_inf below the last R_k


def test_feigenbaum_summary_sees_a_wrong_sequence(cascade) -> None:
    evenly_spaced = replace(cascade, doubling=np.linspace(10, 5, 6))  # ratios 1, not delta
    assert checks.feigenbaum_summary([evenly_spaced]).last_error[0] > 3


# ------------------------------------------------------------------ chaos


def test_chaos_check_confirms_the_chaotic_case() -> None:
    c = checks.chaos_check(*CHAOTIC_CASE, n_pairs=2, n_rate=400, dps_check=80)
    assert c.kind.kind == "chaotic" and np.all(c.separation.growth_steps > 0)
    assert c.linearisation_error < 1e-3 and c.precision_error < 1e-9
    assert 0 < c.rate_se < 0.1 * c.kind.lyapunov  # a 400-step exponent scatters by a few per cent of lambda
    assert abs(c.renormalised_rate - c.kind.lyapunov) < 4 * np.sqrt(2) * c.rate_se
    assert len(c.rows) == 1 and len(c.rows[0]) == 6


def test_chaos_check_on_a_cycle_finds_no_growth() -> None:
    c = checks.chaos_check(*FIG5, n_pairs=2, n_rate=200, dps_check=80)
    assert np.all(c.separation.growth_steps == -1) and np.isnan(c.linearisation_error) and c.renormalised_rate < 0


def test_confirm_chaos(diagram) -> None:
    s = checks.confirm_chaos([diagram], quantiles=(0.5,), n_pairs=2, n_rate=300, n_long=2000)
    assert s.rate.shape == (1,) and len(s.rows) == 1 and np.all(s.min_growth_steps > 0)
    assert np.all(s.linearisation_error < 1e-3) and np.all(np.abs(s.rate - s.lyapunov_long) < 0.2 * s.lyapunov_long)


def test_confirm_chaos_needs_chaos(diagram) -> None:
    no_chaos = replace(diagram, kind=np.zeros_like(diagram.kind))
    with pytest.raises(ValueError, match=r"diagrams\[0\]"):
        checks.confirm_chaos([no_chaos])


# ------------------------------------------------------------------ what it means for training


def test_finite_group_summary() -> None:
    s = checks.finite_group_summary(*FIG5, groups=[16, 65536], n=60, seed=7)
    assert list(s.orbits) == [r"exact recursion ($G = \infty$)", "$G = 16$", "$G = 65536$"]
    assert s.no_signal[0] > 0.5 and s.no_signal[1] == 0 and s.alternating[1] > 0.9
    assert [r[0] for r in s.rows] == ["16", "65536", "exact"] and s.rows[-1][2] == 1.0  # the exact 2-cycle alternates
    assert np.isclose(s.rows[-1][3], max(checks.attractor_report(*FIG5).points))
    again = checks.finite_group_summary(*FIG5, groups=[16, 65536], n=60, seed=7)
    assert all(np.array_equal(s.orbits[k], again.orbits[k]) for k in s.orbits)  # seeded


def test_swing_window_holds_and_not_every_beta_below_b1_swings(diagram) -> None:
    w = checks.swing_window(diagram)
    assert w.n_below_exit == w.n_below_exit_near_one > 0
    assert w.exit_beta < w.lowest_swing and w.highest_swing < w.beta_1
    assert 0 < w.n_swing < w.n_below_b1  # the earlier "below B_1 it swings" fails on the chapter's data


def test_the_swing_window_starts_at_the_bisected_exit_not_at_the_grid(diagram) -> None:
    w = checks.swing_window(diagram)
    assert w.exit_beta < w.exit_edge < w.lowest_swing and w.n_steady_inside == 0
    assert abs(w.exit_edge - 5.1762) < 2 * checks.EXIT_EDGE_TOL  # where the orbit from 1e-4 starts to swing
    kind = dynamics.orbit_kind(1e-4, 5.178, 1e-5).kind
    assert kind != "fixed_point" and w.lowest_swing > 5.178  # the grid's lowest swing is not the window's edge


def test_exit_edge_needs_a_bracket_and_sees_a_steady_point_inside(diagram) -> None:
    with pytest.raises(ValueError, match="below=5.3"):
        checks.exit_edge(1e-4, 1e-5, below=5.3, above=6.0)  # the orbit swings at both ends
    kind = diagram.kind.copy()
    inside = np.flatnonzero((diagram.beta > 6) & (diagram.beta < 17))[0]
    limits = diagram.limit_logits.copy()
    kind[inside], limits[inside] = OrbitClass.FIXED_POINT, -5.0  # a grid point inside the window that converges
    assert checks.swing_window(replace(diagram, kind=kind, limit_logits=limits)).n_steady_inside == 1


def test_swing_window_sees_a_wrong_b1(monkeypatch, diagram) -> None:
    def halved(p_ref, eps):
        bound = prompt_beta_bound(p_ref, eps)
        return replace(bound, beta_q=bound.beta_q / 2)

    monkeypatch.setattr(training, "prompt_beta_bound", halved)
    w = checks.swing_window(diagram)
    assert w.highest_swing > w.beta_1  # the chapter's assert `highest_swing < beta_1` now fails


def test_swing_window_sees_a_diagram_that_swings_below_the_exit(diagram) -> None:
    kind = diagram.kind.copy()
    kind[0] = 1  # a cycle at the smallest beta, below the exit
    w = checks.swing_window(replace(diagram, kind=kind))
    assert w.lowest_swing < w.exit_beta or w.n_below_exit != w.n_below_exit_near_one


def test_no_cycle_at_small_beta_and_cycles_inside_the_interval() -> None:
    ((lo, hi),) = safe_betas(1e-5).unsafe
    p_ref = np.geomspace(1e-12, 0.5, 60)[:, None]
    assert 0.04 < lo and np.all(classify_orbits(p_ref, [1e-3, 0.04], 1e-5).period == 1)
    assert np.any(classify_orbits(p_ref, [5.0], 1e-5).period != 1)  # inside the interval the check can fail


def test_swing_window_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="diagram"):
        checks.swing_window("not a diagram")


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda d, c: checks.invariant_interval_excess(1e-3, 5.0, 0.0), "eps"),
        (lambda d, c: checks.invariant_interval_excess(1e-3, -1.0, 1e-5), "beta"),
        (lambda d, c: checks.invariant_interval_excess(1e-3, 5.0, 1e-5, n_points=1), "n_points"),
        (lambda d, c: checks.monotone_after_first_step(1.5, 5.0, 1e-5), "p_ref"),
        (lambda d, c: checks.monotone_after_first_step(0.6, 5.0, 1e-5, tol="x"), "tol"),
        (lambda d, c: checks.monotone_after_first_step(0.6, 5.0, 1e-5, n=1), "n"),
        (lambda d, c: checks.attractor_report([1e-3, 1e-2], 5.0, 1e-5), "p_ref"),
        (lambda d, c: checks.attractor_report(1e-3, 5.0, 1e-5, n=0), "n=0"),
        (lambda d, c: checks.two_cycle_check(1e-3, 5.0, 1e-5, beta_stable=-1.0), "beta_stable"),
        (lambda d, c: checks.lower_fixed_point_slope(1e-3, 5.0, -1.0), "eps"),
        (lambda d, c: checks.escape_beta("diagram"), "diagram"),
        (lambda d, c: checks.escape_beta(d, escape_logit=-1.0), "escape_logit"),
        (lambda d, c: checks.diagram_summary(d), "diagrams"),
        (lambda d, c: checks.diagram_summary([]), "diagrams"),
        (lambda d, c: checks.diagram_summary([d, "x"]), r"diagrams\[1\]"),
        (lambda d, c: checks.diagram_summary([d], moderate_logit=0.0), "moderate_logit"),
        (lambda d, c: checks.fixed_point_branch(d, 0.0), "beta_min"),
        (lambda d, c: checks.fixed_point_branch(d, 29.99), "beta_min"),
        (lambda d, c: checks.fixed_point_branch(c, 5.0), "diagram"),
        (lambda d, c: checks.cascade_check(0.7, 1e-5), "p_ref"),
        (lambda d, c: checks.cascade_check(1e-4, -1.0), "eps"),
        (lambda d, c: checks.cascade_check(1e-4, 1e-5, n_doublings=1), "n_doublings"),
        (lambda d, c: checks.cascade_check(1e-4, 1e-5, n_checked=0), "n_checked"),
        (lambda d, c: checks.feigenbaum_summary([d]), "cascades"),
        (lambda d, c: checks.feigenbaum_summary([replace(c, doubling=c.doubling[:4])]), r"cascades\[0\]"),
        (lambda d, c: checks.chaos_check(*CHAOTIC_CASE, n_pairs=0), "n_pairs"),
        (lambda d, c: checks.chaos_check(1e-4, 5.2, float("nan")), "eps"),
        (lambda d, c: checks.confirm_chaos(d), "diagrams"),
        (lambda d, c: checks.confirm_chaos([d], quantiles=(1.5,)), "quantiles"),
        (lambda d, c: checks.confirm_chaos([d], lyapunov_min=-1), "lyapunov_min"),
        (lambda d, c: checks.confirm_chaos([d], n_long=0), "n_long"),
        (lambda d, c: checks.finite_group_summary(*FIG5, groups=[1], n=30), "G"),
        (lambda d, c: checks.finite_group_summary(*FIG5, groups=16, n=30), "groups"),
        (lambda d, c: checks.finite_group_summary(*FIG5, groups=[16], n=10, transient=9), "transient"),
        (lambda d, c: checks.finite_group_summary(*FIG5, groups=[16], n=1), "n"),
    ],
)
def test_bad_input_raises_naming_the_parameter(diagram, cascade, call, name) -> None:
    with pytest.raises(ValueError, match=rf"^{name}(?!\w)|\b{name}="):
        call(diagram, cascade)


def test_logit_map_is_the_one_the_checks_use() -> None:
    # the numpy home of g (grpo_nb.dynamics.map), not a copy, in each section module that reads g
    assert unimodal_map.logit_map is logit_map and two_cycle.logit_map is logit_map


def test_above_b1_the_fixed_point_is_several_times_p_ref_not_near_it():
    # at the first doubling point the lowest fixed point has slope -1 and sits at about 7.6 p_ref
    for p_ref, b1 in ((1e-4, 17.75), (1e-3, 5.66)):
        low = dynamics.fixed_points(p_ref, b1, 1e-5)[0]
        assert abs(low.slope + 1) < 1e-3 and 7.5 < low.p / p_ref < 7.7  # the former "near p_ref" fails


def test_at_practical_beta_no_prompt_has_a_fixed_point_below_half():
    # the former "the fixed point below 1/2 of every such prompt is stable" speaks of fixed points that do not exist
    for p_ref in np.geomspace(1e-12, 0.5, 60):
        assert not [fp for fp in dynamics.fixed_points(p_ref, 0.04, 1e-5) if fp.p < 0.5]
    assert [fp for fp in dynamics.fixed_points(1.8e-22, 0.04, 1e-5) if fp.p < 0.5]  # one needs p_ref below ~2e-22


def test_the_settings_every_page_reads_are_the_papers_and_the_chapters():
    """The pages of the chapter, each run alone, read one set of settings: the paper's Fig. 5 run is its fifth case
    at the paper's eps, the cascades are those of the diagrams' prompts, and the smoothings are two."""
    assert checks.FIG5 == (*FIG5_CASES[4], PAPER_EPS) and checks.EPS_PAPER == PAPER_EPS < checks.EPS_LARGE
    assert {p for p, _ in checks.CASCADES} <= set(checks.DIAGRAM_P_REFS)
    assert {e for _, e in checks.CASCADES} == {checks.EPS_PAPER, checks.EPS_LARGE}
    beta = checks.DIAGRAM_BETAS
    assert beta[0] == pytest.approx(0.2) and beta[-1] == pytest.approx(30.0) and np.all(np.diff(beta) > 0)
    assert beta[0] < checks.FIG5[1] < beta[-1]  # the diagrams cover the paper's run
