"""The errata table: every correction is confirmed, and printed (wrong) formulas are rejected by the same checks."""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pytest
import sympy as sp

from grpo_nb.family import loss
from grpo_nb.symbolic import amplification as amp
from grpo_nb.symbolic import errata as er
from grpo_nb.symbolic.policy_dynamics import theorem2_logistic_form


@pytest.fixture(scope="module")
def entries() -> list[er.Erratum]:
    return er.errata(loss)  # TRL's loss as the family models it, which the chapter passes in too


def test_every_erratum_confirmed(entries: list[er.Erratum]) -> None:
    assert len(entries) >= 12
    for e in entries:
        assert e.corrected_check.holds, e.location
        assert e.confirmed, e.location
        assert e.kind in {"formula", "reference", "step", "statement"}


def test_printed_formulas_fail(entries: list[er.Erratum]) -> None:
    testable = [e for e in entries if e.printed_check is not None]
    assert len(testable) >= 7
    assert not any(e.printed_check.holds for e in testable)
    # every formula slip that can be written as an expression is tested
    assert {e.location for e in testable} >= {"Eq. (3), §2.2", "Eq. (9), proof of Theorem 2", "Proof of Lemma 4"}


def test_statements_link_to_the_settling_chapter(entries: list[er.Erratum]) -> None:
    chapters = {
        "effective_loss",
        "stabilised_grpo",
        "grpo_iterations",
        "policy_dynamics",
        "amplification",
        "parametric_grpo",
        "hard_prompts",
        "trl_grpo",
    }
    for e in entries:
        if e.kind == "statement":
            assert e.chapter in chapters, e.location


def test_issue_examples_are_listed(entries: list[er.Erratum]) -> None:
    text = " ".join(e.printed for e in entries)
    for fragment in ("(1 − e^{−z})²", "¼((1−p_ref)²", "Lemma 2 (1)", "f(0) = 1", "p_{n−1}(1)", "ε outside the root"):
        assert fragment in text, fragment


def test_printed_eq9_is_rejected_by_the_theorem2_check() -> None:
    assert not theorem2_logistic_form(er.printed_eq9_ratio()).holds
    assert theorem2_logistic_form().holds


def test_printed_lemma3_expression_is_rejected_by_the_lemma3_check() -> None:
    # feed the printed sigma(1 - sigma) = e^{-z}/(1 - e^{-z})^2 in place of 1/(4 cosh^2(z/2))
    assert not amp.lemma3_part1(er.printed_lemma3_sigma_product()).holds
    assert amp.lemma3_part1(sp.exp(-amp.Z) / (1 + sp.exp(-amp.Z)) ** 2).holds


def test_table_renders_all_rows(entries: list[er.Erratum]) -> None:
    table = er.errata_table(entries).data
    lines = table.splitlines()
    assert len(lines) == len(entries) + 2
    assert "FAILS" not in table and "HOLDS" not in table


# --- the rows added for the convergence claim, p* = 1, Fig. 3, Theorem 5's factor 2 and the clip range:
# each check fails on the printed statement and passes on the corrected one, and each can go both ways.


def _row(entries: list[er.Erratum], start: str) -> er.Erratum:
    (row,) = [e for e in entries if e.location.startswith(start)]
    return row


@pytest.mark.parametrize(
    "start",
    [
        "Abstract; §1, contribution (3)",
        "§3, after Proposition 1",
        "§4, Fig. 3's caption",
        "Proof of Theorem 5, second line",
        "§2, GRPO-Clip and §2.3",
        "§2.1, last line of the display",
        "Eq. (3), §2.2",
    ],
)
def test_new_rows_fail_printed_and_pass_corrected(entries: list[er.Erratum], start: str) -> None:
    row = _row(entries, start)
    assert row.printed_check is not None and not row.printed_check.holds
    assert row.corrected_check.holds and row.confirmed


def test_convergence_check_can_go_both_ways() -> None:
    assert er.orbit_converges(1e-3, 10.0, 1e-5)  # a stable fixed point: converges
    assert not er.orbit_converges(1e-3, 5.0, 1e-5)  # the paper's Fig. 5 run: a 2-cycle


def test_fig3_readings_accept_a_region_that_matches_the_caption() -> None:
    beta = np.logspace(-3, 3, 61)[None, :]
    p_ref = np.linspace(0.51, 0.999, 50)[:, None]
    caption_region = (p_ref > 0.9) & (beta < 1.0)  # what the caption describes
    caption, _, island = er.fig3_readings(caption_region, p_ref, beta)
    assert caption and not island
    text_region = np.broadcast_to(beta >= 0.1, caption_region.shape)  # "beta not too small"
    assert er.fig3_readings(text_region, p_ref, beta)[1]


def test_theorem5_bound_is_rejected_only_with_the_misplaced_factor(entries: list[er.Erratum]) -> None:
    row = _row(entries, "Proof of Theorem 5, second line")
    assert row.extraction  # a lost pair of parentheses would print the same text
    assert row.printed_check.residual == sp.Symbol("TV_0", positive=True)  # the printed bound misses TV_0
    assert "unverified: extraction" in er.errata_table([row]).data


def test_unclipped_deviation_needs_eps_beyond_the_stated_range() -> None:
    assert er.unclipped_deviation(1.0) > 0.9  # eps = 1 still clips x = 2..5 for A > 0
    assert er.unclipped_deviation(lambda x: np.abs(x - 1.0)) < 1e-12
    assert er.unclipped_deviation(lambda x: np.abs(x - 1.0) / 2) > 0.1  # half that range clips again


def test_p_star_one_printed_identity_fails_and_holds_at_eps_zero_limit(entries: list[er.Erratum]) -> None:
    row = _row(entries, "§3, after Proposition 1")
    eps = sp.Symbol("varepsilon", positive=True)
    assert sp.limit(row.printed_check.lhs, eps, 0, "+") == 1  # only the eps -> 0 limit gives h(1) = 1


def test_typeset_sets_scripts_as_math_and_escapes_the_rest() -> None:
    assert er.typeset("p_ref") == r"$p_{\mathrm{ref}}$"
    assert er.typeset("(p(1-p)+eps)^{3/2}") == "(p(1-p)+ε)$^{3/2}$"
    assert er.typeset("lim_{p->0+} h(p)") == r"$\lim_{p\to 0+}$ h(p)"
    assert er.typeset("e^{−z} and pi_n, 2beta") == r"$e^{−z}$ and $π_{n}$, 2β"
    assert er.typeset("tabular.grpo_step: |p~ - p| <= 2 TV") == r"tabular.grpo\_step: \|p̃ - p\| ≤ 2 TV"


def test_table_typesets_the_formulas(entries: list[er.Erratum]) -> None:
    table = er.errata_table(entries).data
    assert r"$p_{\mathrm{ref}}$" in table and r"p\_ref" not in table and r"$\limsup_{n\to \infty}$" in table


def test_convergence_row_counts_the_beta_3_cycle(entries: list[er.Erratum]) -> None:
    row = _row(entries, "Abstract; §1, contribution (3)")
    assert int(row.printed_check.rhs) == 3 and int(row.printed_check.lhs) == 0  # no counterexample converges
    names = [s.name for s in row.corrected_check.extra["steps"]]
    assert any(name.startswith("beta = 3, p_ref = 0.001") for name in names)


def test_trl_defaults_the_row_relies_on() -> None:
    """The TRL row's statements about TRL 1.16, read from the installed package (pinned in requirements.txt)."""
    trl = pytest.importorskip("trl")
    if not trl.__version__.startswith("1.16."):
        pytest.skip(f"the row describes TRL 1.16, not {trl.__version__}")
    from trl import GRPOConfig, GRPOTrainer

    defaults = {f.name: f.default for f in dataclasses.fields(GRPOConfig)}
    assert defaults["num_iterations"] == 1 and defaults["epsilon"] == 0.2 and defaults["beta"] == 0.0
    assert defaults["use_bias_correction_kl"] is True and defaults["scale_rewards"] == "group"
    source = inspect.getsource(GRPOTrainer)
    assert "per_token_kl = per_token_kl * coef_1" in source  # k3 times the ratio, under the flag
    assert "advantages / (std_rewards + 1e-4)" in source  # the constant outside the root
