"""Tests of grpo_nb.chapters.group_size.paper_results, the section "More of the U-statistic paper, on the bandits" of
the group-size chapter: each check passes on the right formula and fails on the old claim or a wrong formula
(monkeypatched into the module the analysis reads), and the section's figure draws."""

from __future__ import annotations

import matplotlib
import numpy as np
import sympy as sp

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from grpo_nb.chapters import group_size as checks  # noqa: E402
from grpo_nb.chapters.group_size import paper_results as paper  # noqa: E402
from grpo_nb.kl import softmax_kl_gradients  # noqa: E402
from grpo_nb.plots.ustat_paper_results import draw_constant_baselines  # noqa: E402
from grpo_nb.ustat import paper_results as math  # noqa: E402
from grpo_nb.ustat.bandit import bandit_expected_reward, exact_gradient  # noqa: E402

BANDITS = checks.bandits((0.2, 0.5, 0.85), n_answers=6, n_correct=2)
GROUPS = (2, 3, 4, 8, 16, 32, 64, 128, 256)
ONE = "one right answer"


def _baseline_verdict(study: paper.BaselineStudy) -> bool:
    """The section's asserts on Corollary 5 (b* is the least MSE; it beats V; vanilla loses exactly when b* > V/2)."""
    return (
        all(gap <= 1e-12 for gap in study.grid_gap.values())
        and all(study.gain[lab] > 1e-3 for lab in BANDITS)
        and all((study.vanilla_margin[lab] > 0) == (study.b_star[lab] > study.value[lab] / 2) for lab in study.gain)
        and all(study.vanilla_margin[lab] > 0 for lab in BANDITS)
        and study.vanilla_margin[ONE] < 0
        and all(study.grpo_margin[lab] > 0 for lab in BANDITS)
    )


def _study() -> paper.BaselineStudy:
    return paper.constant_baselines({**BANDITS, ONE: paper.peaked_bandit(p_right=0.6, n_wrong=40)}, G=8)


def test_corollary5_check_passes_and_shows_the_numbers() -> None:
    study = _study()
    assert _baseline_verdict(study)
    assert [round(study.b_star[lab], 2) for lab in BANDITS] == [0.32, 0.48, 0.69]
    assert [round(100 * study.gain[lab], 1) for lab in BANDITS] == [7.2, 0.3, 11.6]
    mse_0, mse_v, _ = study.mse[ONE]
    assert round(study.b_star[ONE], 2) == 0.15 and 0.2 < mse_0 / mse_v < 0.3
    assert len(study.table.rows) == 4


def test_corollary5_check_fails_on_the_value_as_best_baseline(monkeypatch) -> None:
    """The old claim, b* = V (Assumption 2): the value is not the least MSE, and no gain is left."""
    monkeypatch.setattr(paper, "optimal_constant_baseline", lambda lg, rw: float(bandit_expected_reward(lg, rw)))
    study = _study()
    assert not _baseline_verdict(study)
    assert all(study.grid_gap[lab] > 1e-6 for lab in BANDITS) and all(g == 0 for g in study.gain.values())


def test_corollary5_check_fails_on_a_wrong_mse(monkeypatch) -> None:
    """An MSE without the score norms, (E(r - b)^2 - |grad V|^2)/G, is minimised at V: the check rejects it."""

    def no_scores(logits, reward, baseline, *, G):
        pi = np.exp(logits) / np.exp(logits).sum()
        b = np.asarray(baseline, dtype=float)
        theta = exact_gradient(logits, reward)
        return (np.sum(pi * (reward - b[..., None]) ** 2, axis=-1) - theta @ theta) / G

    monkeypatch.setattr(paper, "constant_baseline_mse", no_scores)
    assert not _baseline_verdict(_study())


def test_fig4_observation3_is_reversed_on_the_bandits() -> None:
    strength = paper.strength_order(BANDITS, GROUPS, shown=8)
    assert strength.rising["oracle"] and strength.rising["vanilla"]
    at8 = [strength.mse[lab, "grpo"][GROUPS.index(8)] for lab in BANDITS]
    assert int(np.argmax(at8)) == 1
    oracle = [round(strength.mse[lab, "oracle"][GROUPS.index(8)], 4) for lab in BANDITS]
    vanilla = [round(strength.mse[lab, "vanilla"][GROUPS.index(8)], 3) for lab in BANDITS]
    assert oracle == [0.0157, 0.0159, 0.0170] and vanilla == [0.023, 0.037, 0.052]


def test_the_strength_check_fails_where_the_stronger_model_is_nearly_certain() -> None:
    """The paper's mechanism: a strong model nearly certain of one right answer has small scores; there every MSE
    falls with strength at every G, and the section's assert (MSE rises with V) fails."""
    certain = {"weak": BANDITS["V = 0.2"], "certain": paper.peaked_bandit(p_right=0.95, n_wrong=5)}
    strength = paper.strength_order(certain, GROUPS, shown=8)
    assert all(strength.falling.values()) and not any(strength.rising.values())
    assert not any(paper.strength_order(BANDITS, GROUPS, shown=8).falling.values())  # the paper's claim, on the bandits


def test_proposition13_check_passes() -> None:
    arc = paper.arcsin_check(BANDITS)
    assert all(i.holds for i in arc.identities)
    assert arc.grad_gap < 1e-7 and arc.closed_gap < 1e-12
    assert abs(arc.drop["V = 0.5"]) < 1e-12 and min(arc.drop["V = 0.2"], arc.drop["V = 0.85"]) > 0


def test_proposition13_check_fails_on_log_odds(monkeypatch) -> None:
    """arcsin -> log: the log-odds' gradient is grad V / (V(1-V)), not grad V / sigma."""

    def log_odds(logits, reward):
        v = float(bandit_expected_reward(logits, reward))
        return float(np.log(v / (1 - v)))

    monkeypatch.setattr(paper, "arcsin_value", log_odds)
    assert paper.arcsin_check(BANDITS).grad_gap > 1e-2
    monkeypatch.setattr(paper, "arcsin_identity", lambda: math.arcsin_identity(sp.log(math._V / (1 - math._V))))
    assert not all(i.holds for i in paper.arcsin_check(BANDITS).identities)


def test_proposition13_check_fails_on_a_wrong_coefficient(monkeypatch) -> None:
    """3/4 -> 1/2 in the closed form: the gap to the delta-method constant is no longer rounding."""

    def half(logits, reward):
        v = float(bandit_expected_reward(logits, reward))
        theta = exact_gradient(logits, reward)
        right = math.normalised_limit_closed_form(logits, reward)
        return right + 0.25 * (1 - 2 * v) ** 2 * (theta @ theta) / (v * (1 - v)) ** 2

    monkeypatch.setattr(paper, "normalised_limit_closed_form", half)
    assert paper.arcsin_check(BANDITS).closed_gap > 1e-3
    monkeypatch.setattr(paper, "delta_method_identity", lambda: math.delta_method_identity(sp.Rational(1, 2)))
    assert not all(i.holds for i in paper.arcsin_check(BANDITS).identities)


STEPS = (0.4, 0.2, 0.1, 0.05, 0.025, 0.0125)


def _kl_verdict(kb: paper.KLBias) -> bool:
    return bool(
        np.all(np.diff(kb.bias) < 0)
        and abs(kb.slope[-1] / kb.slope[-2] - 1) < 0.01
        and kb.to_kl[-1] > 0.5 * kb.to_kl[0]
        and kb.to_kl[-1] > 50 * kb.bias[-1]
    )


def test_theorem12_kl_bias_is_linear_in_the_step() -> None:
    kb = paper.kl_bias(BANDITS["V = 0.5"], steps=STEPS, shift=1.0)
    assert _kl_verdict(kb)
    assert round(kb.slope[-1], 3) == 0.023 and round(kb.to_kl[-1], 3) == 0.035


def test_theorem12_check_fails_against_the_kl_gradient(monkeypatch) -> None:
    """The claim that the k3 term's bias against grad KL(pi || pi_ref) vanishes with the step: it does not."""
    monkeypatch.setattr(
        paper, "expected_estimator_gradient", lambda lg, ref, estimator, placement: softmax_kl_gradients(lg, ref)[0]
    )
    assert not _kl_verdict(paper.kl_bias(BANDITS["V = 0.5"], steps=STEPS, shift=1.0))


def _pl_verdict(pl: paper.PLCheck) -> bool:
    shape = pl.ratio / (1 - pl.value)
    return bool(
        np.all(pl.value < 1)
        and np.all(np.diff(pl.value) > 0)
        and np.all(np.diff(pl.ratio) < 0)
        and pl.ratio[-1] < 1e-6 * pl.ratio[0]
        and abs(shape[-1] / shape[-2] - 1) < 0.01
    )


def test_the_pl_condition_fails_on_the_bandit() -> None:
    pl = paper.pl_check(BANDITS["V = 0.85"], t_values=(0, 2, 4, 6, 8))
    assert _pl_verdict(pl)
    assert round(pl.ratio[0], 3) == 0.088 and 1e-8 < pl.ratio[-1] < 3e-8


def test_the_pl_check_fails_where_the_gradient_is_of_order_the_gap(monkeypatch) -> None:
    """Were |grad V|^2 of order 1 - V (a PL objective), the ratio would not vanish and the check would fail."""

    def pl_gradient(theta, reward):
        return exact_gradient(theta, reward) / np.sqrt(1 - float(bandit_expected_reward(theta, reward)))

    monkeypatch.setattr(paper, "exact_gradient", pl_gradient)
    assert not _pl_verdict(paper.pl_check(BANDITS["V = 0.85"], t_values=(0, 2, 4, 6, 8)))


def test_the_constant_baseline_figure_draws() -> None:
    fig = draw_constant_baselines({**BANDITS, ONE: paper.peaked_bandit()}, G=8)
    assert len(fig.axes) == 1 and len(fig.axes[0].lines) >= 4 * 4
    plt.close(fig)
