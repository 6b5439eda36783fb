"""The parametric chapter's corrected claims (``book/parametric_grpo.md``), each shown both ways: the chapter's check
passes on the claim as the page now states it, and fails on the statement it replaced (or on a run that breaks it)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from grpo_nb.chapters import parametric_grpo
from grpo_nb.chapters.parametric_grpo import admissible_deltas, k3_gradient_direction, propagate, theorem5_budget
from grpo_nb.dynamics import attractor, h, h_prime, iterate, orbit_kind
from grpo_nb.tabular.policy import total_variation
from tests.book_layout import BOOK

EPS = 1e-5


# --- the k3 sentence: its expected gradient is the forward KL's -----------------------------------------------------


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


# --- Theorem 5: the old check holds for any two policies, the new one can fail ---------------------------------------


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


# --- the unstable map: the step inequality holds by construction, the measured multiplication can fail ---------------


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


# --- the introduction cites nothing outside the repository -----------------------------------------------------------


def test_the_intro_quotes_no_unsourced_experiment():
    text = (BOOK / "parametric_grpo.md").read_text()
    assert "GSM8K" not in text and "37.5" not in text
