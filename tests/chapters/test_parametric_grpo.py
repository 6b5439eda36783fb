"""The analyses and corrected claims of "Parametric GRPO" (``book/parametric_grpo.md``,
:mod:`grpo_nb.chapters.parametric_grpo`), each shown both ways: the check passes on the claim as the page states it,
and fails on the statement it replaced, a wrong formula or a run that breaks it."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from grpo_nb.chapters import parametric_grpo
from grpo_nb.chapters.parametric_grpo import (
    admissible_deltas,
    gpu_run_report,
    k3_gradient_direction,
    propagate,
    run_summary,
    segment_slope_bound,
    summary_table,
    theorem5_budget,
    timing_table,
)
from grpo_nb.dynamics import attractor, h, h_prime, iterate, orbit_kind
from grpo_nb.tabular.policy import total_variation
from grpo_nb.toylm.configs import CYCLING
from grpo_nb.toylm.task import make_task as make_digit_task
from tests.book_layout import chapter_text
from tests.unit.test_gpu_run import a_record

EPS = 1e-5


def test_k3_gradient_is_the_forward_kl_and_the_reverse_claim_fails(monkeypatch):
    k3 = k3_gradient_direction()
    assert k3.forward_residual < 1e-12 and k3.reverse_distance > 1e-2  # the chapter's check
    swapped = parametric_grpo.softmax_kl_gradients

    def reverse_as_forward(logits, log_ref):
        reverse, forward = swapped(logits, log_ref)
        return forward, reverse

    monkeypatch.setattr(parametric_grpo, "softmax_kl_gradients", reverse_as_forward)
    wrong = k3_gradient_direction()  # "the gradient of the KL it estimates", KL(pi || pi_ref)
    assert not (wrong.forward_residual < 1e-12 and wrong.reverse_distance > 1e-2)


def test_the_autograd_route_alone_can_fail_the_k3_check(monkeypatch):
    """The autograd route is a second, independent check: with the closed forms untouched, an autograd k3 term that
    carries the ratio (the reverse KL's gradient) fails the chapter's check."""
    from grpo_nb.tabular import token_policy

    real = token_policy.kl_term
    monkeypatch.setattr(
        token_policy, "kl_term", lambda p, r, e, *, placement, old=None: real(p, r, e, placement="ratio_weighted")
    )
    wrong = k3_gradient_direction()
    assert not (wrong.forward_residual < 1e-12 and wrong.reverse_distance > 1e-2)


def test_the_tv_inequality_holds_for_any_two_policies():
    """The page's first check, |E_a[r] - E_b[r]| <= TV(a, b) for a 0/1 reward, is true of any pair of tables: it
    cannot tell a trained network from a random one, so the page presents it as bookkeeping."""
    rng = np.random.default_rng(0)
    a, b = rng.dirichlet(np.ones(12), size=500), rng.dirichlet(np.ones(12), size=500)
    reward = rng.integers(0, 2, size=(500, 12))
    gap = np.abs((a * reward).sum(axis=1) - (b * reward).sum(axis=1))
    assert (gap <= total_variation(a, b) + 1e-12).all()


def _run(label: str, tv: np.ndarray, one_step: np.ndarray) -> SimpleNamespace:
    """A stand-in run whose gap is its TV (the bound's worst case) and whose tables are normalised."""
    return SimpleNamespace(
        label=label, tv_to_ideal=tv, one_step_tv=one_step, gap=tv, gap_bound=tv, mass_error=np.zeros_like(tv)
    )


def _budget_check(budget) -> bool:
    """The chapter's assert on :func:`theorem5_budget` ("Theorem 5 made visible")."""
    star = budget.delta_star
    return bool(star["main"].max() < 0.1 and np.median(star["sampled"]) > 10 * np.median(star["main"]))


def test_theorem5_budget_passes_on_a_tracking_run_and_fails_on_a_drifting_one():
    n, prompts = 8, 5
    flat = np.vstack([np.zeros(prompts), np.full((n, prompts), 0.01)])  # TV of one step's size, no accumulation
    drift = 0.05 * np.arange(n + 1)[:, None] * np.ones(prompts)  # TV grows by 0.05 per iteration
    steps = np.full((n, prompts), 0.01)
    sampled = _run("sampled", 0.2 * np.arange(n + 1)[:, None] * np.ones(prompts) / n, steps)
    good = theorem5_budget({"main": _run("main", flat, steps), "sampled": sampled})
    bad = theorem5_budget({"main": _run("main", drift, steps), "sampled": sampled})
    for tv in (flat, drift):  # the old check holds on both runs: it cannot fail
        run = _run("main", tv, steps)
        assert (run.gap <= run.gap_bound + 1e-12).all()
    assert _budget_check(good) and not _budget_check(bad)
    assert np.allclose(good.delta_star["main"], 0.01) and np.allclose(bad.delta_star["main"], 0.4)
    assert good.summed_one_step["main"] == pytest.approx(8.0) and len(good.table.rows) == 2


def test_admissible_deltas_are_the_positive_increments_and_reject_bad_input():
    tv = np.array([[0.0, 0.1], [0.02, 0.05], [0.01, 0.2]])
    assert np.allclose(admissible_deltas(tv), [[0.02, 0.0], [0.0, 0.15]])
    with pytest.raises(ValueError, match="tv_to_ideal"):
        admissible_deltas(np.zeros(3))
    with pytest.raises(ValueError, match="tv_to_ideal"):
        admissible_deltas(np.array([[0.0], [np.nan]]))


def _kicked(p_ref: float, beta: float, eps: float, kick: float, n: int = 10) -> np.ndarray:
    """The recursion from p_ref with an error of ``kick`` (relative) at every even iteration n >= 2."""
    p = np.empty(n + 1)
    p[0] = p_ref
    for k in range(1, n + 1):
        p[k] = h(p[k - 1], p_ref, beta, eps) * (1 + kick * (k % 2 == 0))
    return p[:, None]


def test_multiplication_check_passes_at_the_cycles_low_points_and_fails_where_the_map_contracts():
    steep = propagate(_kicked(1e-3, 5.0, EPS, 0.05), 5.0, EPS)
    flat = propagate(_kicked(0.3, 2.0, 0.01, 0.05), 2.0, 0.01)  # a stable fixed point, |h'| < 1
    for prop in (steep, flat):  # the step inequality holds on both: it is the mean value theorem
        assert prop.bound_holds
    assert steep.multiplication[2::2, 0].max() > 10  # the chapter's check
    assert not flat.multiplication[2::2, 0].max() > 10


def _flat_map(p, p_ref, beta, eps):
    """A wrong map with slope 1/2 everywhere."""
    return 0.5 * (np.asarray(p) + 0.1)


def _flat_iterate(p_ref, beta, eps, n):
    orbit = [np.asarray(p_ref, dtype=float)]
    for _ in range(n):
        orbit.append(_flat_map(orbit[-1], p_ref, beta, eps))
    return np.stack(orbit)


def test_multiplication_check_fails_with_a_flat_map(monkeypatch):
    traj = _kicked(1e-3, 5.0, EPS, 0.05)
    assert propagate(traj, 5.0, EPS).multiplication[2::2, 0].max() > 10
    monkeypatch.setattr(parametric_grpo, "h", _flat_map)
    monkeypatch.setattr(parametric_grpo, "iterate", _flat_iterate)
    assert not propagate(traj, 5.0, EPS).multiplication[2::2, 0].max() > 10


@pytest.mark.parametrize("p_ref", np.geomspace(5e-4, 2e-3, 13))
def test_the_recursion_alternates_over_the_chapters_p_ref_range(p_ref):
    orbit = iterate(p_ref, 5.0, EPS, 10)
    turns = np.diff(orbit)[:-1] * np.diff(orbit)[1:]
    assert (turns < 0).all() and (orbit[2::2] < 0.01).all() and (orbit[1::2] > 0.02).all()


def test_the_old_cycle_claims_fail_inside_the_range_sft_reaches():
    """The page used to assert a 2-cycle from the measured p_ref, with one slope above 10: both fail for a p_ref that
    SFT on noisy demonstrations can land on; the nominal 1e-3 the page now uses has both."""
    assert orbit_kind(1.5e-3, 5.0, EPS).kind == "fixed_point"
    cycle = np.array(attractor(1.24e-3, 5.0, EPS))
    assert len(cycle) == 2 and np.abs(h_prime(cycle, 1.24e-3, 5.0, EPS)).max() < 10
    nominal = np.array(attractor(1e-3, 5.0, EPS))
    assert orbit_kind(1e-3, 5.0, EPS).period == 2 and np.abs(h_prime(nominal, 1e-3, 5.0, EPS)).max() > 10


def test_the_intro_quotes_no_unsourced_experiment():
    text = chapter_text("parametric_grpo")
    assert "GSM8K" not in text and "37.5" not in text


def _perturbed_cycle(p_ref: float, beta: float, eps: float, kick: float, n: int = 8) -> np.ndarray:
    """The recursion from p_ref with one error: p~_2 = p_2 (1 + kick) at the cycle's low point, exact afterwards."""
    p = iterate(p_ref, beta, eps, n).copy()
    p[2] *= 1 + kick
    for k in range(3, n + 1):
        p[k] = h(p[k - 1], p_ref, beta, eps)
    return p[:, None]


def test_propagation_bound_holds_and_fails_with_a_wrong_slope(monkeypatch):
    p_ref, beta = 1e-3, 5.0
    assert orbit_kind(p_ref, beta, EPS).period == 2
    traj = _perturbed_cycle(p_ref, beta, EPS, 0.05)
    prop = propagate(traj, beta, EPS)
    assert prop.bound_holds
    assert prop.step_error[3:].max() < 1e-12 and prop.gap[3] > 10 * prop.gap[2]  # one error, multiplied by |h'|
    assert (prop.gap > prop.theorem5 + 1e-12).any()  # Theorem 5 with the step errors as delta_n fails here
    monkeypatch.setattr(parametric_grpo, "h_prime", lambda p, *args: 0.1 * np.asarray(h_prime(p, *args)))
    assert not propagate(traj, beta, EPS).bound_holds


def test_propagation_on_the_recursion_itself_has_no_error():
    traj = iterate(np.array([0.2, 0.6]), 2.0, 0.01, 6)
    prop = propagate(traj, 2.0, 0.01)
    assert np.abs(prop.gap).max() < 1e-12 and np.abs(prop.step_error).max() < 1e-12


def test_segment_slope_bound_is_at_least_both_endpoints():
    a, b = np.array([0.002, 0.3]), np.array([0.08, 0.31])
    bound = segment_slope_bound(a, b, 1e-3, 5.0, EPS)
    ends = np.maximum(np.abs(h_prime(a, 1e-3, 5.0, EPS)), np.abs(h_prime(b, 1e-3, 5.0, EPS)))
    assert (bound >= ends).all()


@pytest.mark.parametrize("bad", [np.zeros(3), np.zeros((1, 2)), np.full((3, 2), 1.5)])
def test_propagate_rejects_bad_input(bad):
    with pytest.raises(ValueError):
        propagate(bad, 5.0, EPS)


def test_cycling_config_has_a_hard_prompt_in_a_two_cycle_regime():
    assert CYCLING.grpo.eps == 1e-5 and CYCLING.grpo.beta == 5.0 and CYCLING.grpo.estimator == "exact"
    task = make_digit_task(CYCLING.task)
    assert "0+0=" in task.prompts_text and len(task.outputs) == 1000
    cycle = attractor(1e-3, CYCLING.grpo.beta, CYCLING.grpo.eps)  # one right answer in 1000
    assert len(cycle) == 2 and max(cycle) < 0.5


def _summary_run(label: str, p_tilde: np.ndarray, p_theory: np.ndarray) -> SimpleNamespace:
    """A stand-in for a toy-LM run record: what the chapter's summaries read."""
    gap = np.abs(p_tilde - p_theory)
    one_step = np.full((p_tilde.shape[0] - 1, p_tilde.shape[1]), 0.01)
    times = {"wall_s": 2.0, "step_s": [0.5, 0.7], "rollout_tokens_per_s": None}
    return SimpleNamespace(label=label, p_tilde=p_tilde, p_theory=p_theory, gap=gap, one_step_tv=one_step,
                           tv_to_ideal=gap + 0.01, **times)  # fmt: skip


def test_run_summary_and_its_tables():
    p_theory = np.array([[0.2, 0.6], [0.5, 0.9]])
    run = _summary_run("main", p_theory + np.array([[0.0, 0.0], [0.1, -0.05]]), p_theory)
    s = run_summary(run)
    assert s.mean_p_ref == pytest.approx(0.4) and s.mean_p_tilde == pytest.approx(0.725)
    assert s.mean_p_theory == pytest.approx(0.7) and s.max_gap == pytest.approx(0.1)
    assert s.median_max_gap == pytest.approx(0.075) and s.median_one_step_tv == pytest.approx(0.01)
    table = summary_table({"main": run}, ["mean_p_ref", "max_gap"])
    assert table.headers == ["run", "mean p_ref", "max gap"] and table.rows == [["main", s.mean_p_ref, s.max_gap]]
    assert timing_table({"main": run}).rows == [["main", "2.0", "0.600", ""]]
    with pytest.raises(ValueError, match="columns"):
        summary_table({"main": run}, ["mean p_ref"])  # a column's label is not its name


def test_the_gpu_report_names_the_steps_that_did_not_finish_and_where_trl_s_numbers_come_from(tmp_path):
    record = a_record()
    path = tmp_path / "gpu_run.json"
    path.write_text(json.dumps(record))
    complete = gpu_run_report(str(path))
    assert complete.measured and "Not finished" not in complete.sentence and "trl_full.json" not in complete.sentence
    assert [row[0] for row in complete.table.rows] == ["book", "trl"]
    record["runs"] = record["runs"][:1]
    record["failed_steps"] = ["trl full [beta=2]: timed out after 470 s"]
    path.write_text(json.dumps(record))
    partial = gpu_run_report(str(path))
    assert "Not finished (timed out after 470 s): trl full [beta=2]." in partial.sentence
    assert "grpo_nb/data/trl_full.json" in partial.sentence


def test_the_direction_of_a_large_step_follows_from_tracking_within_tau():
    """The page no longer checks "wherever the recursion moves a prompt by more than 2 tau, the network moves it the
    same way" on its own: for a prompt within tau of the recursion at every n it cannot fail, as here on random
    trajectories; only a prompt that leaves the tau band can break it."""
    rng = np.random.default_rng(0)
    tau = 0.03
    theory = rng.uniform(0.05, 0.95, size=(9, 2000))
    tracked = theory + rng.uniform(-tau, tau, size=theory.shape)  # claim (ii) holds
    step_theory, step_tracked = np.diff(theory, axis=0), np.diff(tracked, axis=0)
    big = np.abs(step_theory) > 2 * tau
    assert big.any() and (np.sign(step_tracked[big]) == np.sign(step_theory[big])).all()
    loose = theory + rng.uniform(-3 * tau, 3 * tau, size=theory.shape)  # outside the band the old check can fail
    assert not (np.sign(np.diff(loose, axis=0)[big]) == np.sign(step_theory[big])).all()


def _beta_verdict(per_n: np.ndarray) -> None:
    """The asserts of the cell under the beta figure ("The effect of beta") on the median one-step error per iteration,
    one row per beta from the smallest to the largest (the run-level medians aside)."""
    excess = per_n[0] - per_n[-1]
    assert per_n[0, 0] > 1.5 * per_n[-1, 0]
    assert np.abs(excess[1:]).mean() < excess[0]


def test_the_beta_check_reads_every_iteration_not_only_the_first():
    measured = np.array(  # quick configuration, seed 0: beta = 1 and beta = 4
        [
            [0.0291, 0.0145, 0.0144, 0.0134, 0.0134, 0.0111, 0.0124, 0.0108],
            [0.0109, 0.0134, 0.0136, 0.0133, 0.0118, 0.0116, 0.0127, 0.0119],
        ]
    )
    _beta_verdict(measured)
    growing = measured.copy()
    growing[0, 1:] += 0.04 * np.arange(1, 8) / 7  # the smallest beta falls further behind as n grows
    assert growing[0, 0] > 1.5 * growing[-1, 0]  # the old check, n = 1 alone, passes on it
    with pytest.raises(AssertionError):
        _beta_verdict(growing)
