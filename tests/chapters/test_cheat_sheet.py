"""The cheat sheet's entries (book/cheat_sheet.md), each shown both ways: its check passes on the statement the page
makes and fails when a wrong statement is monkeypatched into the module-level name the check reads; its family table
is generated from ``grpo_nb.family.METHODS``; its numbers agree with the chapters they summarise; its links point at
labels that exist."""

from __future__ import annotations

import re

import numpy as np
import pytest

from grpo_nb import family
from grpo_nb.chapters import cheat_sheet as cs
from grpo_nb.constants import PAPER_EPS
from tests.book_layout import BOOK

TOL = cs.TOL


def _practice_holds(pr: cs.Practice) -> bool:
    """The asserts of the page's "Practical β and G" cell, as written there."""
    saturated = all(pr.first_step[b][0] >= pr.margin[b] and pr.first_step[b][1] < PAPER_EPS for b in cs.PRACTICE_BETAS)
    return (
        saturated
        and 49.95 <= pr.margin[0.04] < 50.05
        and 0.072955 <= pr.unsafe[0] < 0.072965
        and 60.8555 <= pr.unsafe[1] < 60.8565
        and 2.5 < pr.g_star[0] < 3.5
        and 23.5 <= pr.g_star[1] < 24.5
        and abs(pr.rho2 - 0.3) < 0.005
        and abs(pr.rho2_trl - 0.21) < 0.005
        and 0.125 <= pr.bias_g8[0] < 0.135
        and 0.255 <= pr.bias_g8[1] < 0.265
    )


# ---- the family table ----------------------------------------------------------------------------------------------


def test_family_table_is_generated_from_the_methods_and_checked():
    rows = cs.family_rows()
    assert [r[0] for r in rows.table.rows] == [m.label for m in family.METHODS]
    assert rows.eq4_gap < TOL and rows.rloo_gap < TOL
    rloo = [r for r in rows.table.rows if r[0] == "RLOO"][0]
    assert rows.table.rows[0][1] == "1.73 / -0.58" and rloo[1] == "1.00 / -0.33"


def test_family_table_follows_a_changed_method_row(monkeypatch):
    swapped = tuple(
        family.Method(**{**m.__dict__, "label": m.label + "*"}) if m.name == "gspo" else m for m in family.METHODS
    )
    monkeypatch.setattr(family, "METHODS", swapped)
    assert "GSPO*" in [r[0] for r in cs.family_rows().table.rows]


def test_family_check_fails_on_a_wrong_advantage(monkeypatch):
    def no_eps(p, eps):  # Eq. 3 without the smoothing: not GRPO's row
        return (1 - np.asarray(p)) / np.sqrt(np.asarray(p) * (1 - np.asarray(p)) + 0.01)

    monkeypatch.setattr(cs, "OMEGA_PLUS", no_eps)
    assert cs.family_rows().eq4_gap > 1e-3
    monkeypatch.undo()

    def rloo_as_dr_grpo(name, rewards, **kw):  # the old reading "RLOO = Dr. GRPO" (no G/(G-1))
        return family.advantage("dr_grpo" if name == "rloo" else name, rewards, **kw)

    monkeypatch.setattr(cs, "ADVANTAGE", rloo_as_dr_grpo)
    assert cs.family_rows().rloo_gap > 0.1


# ---- notation, effective beta, recursion ----------------------------------------------------------------------------


def test_notation_matches_the_code_and_fails_on_a_mistyped_formula(monkeypatch):
    gaps = cs.notation_gaps()
    assert gaps.weights < TOL and gaps.logit_map < TOL
    monkeypatch.setattr(cs, "OMEGA_MINUS", lambda p, eps: np.asarray(p) / np.sqrt(np.asarray(p) * (1 - np.asarray(p))))
    assert cs.notation_gaps().weights > 1e-3
    monkeypatch.undo()
    monkeypatch.setattr(cs, "LOGIT_MAP", lambda z, a, beta, eps: a + 1 / (beta * np.sqrt(0.25 + eps)))
    assert cs.notation_gaps().logit_map > 1e-3


def test_effective_beta_holds_and_fails_on_the_plain_beta(monkeypatch):
    eff = cs.effective_beta()
    assert eff.step_gap < TOL and eff.trl_gap < 1e-3
    monkeypatch.setattr(cs, "exact_step_coefficient", lambda beta, p, eps: beta)  # "the step's coefficient is β"
    assert cs.effective_beta().step_gap > 1e-3
    monkeypatch.setattr(cs, "trl_beta_factor", lambda G: 1.0)  # "TRL's β is the paper's β"
    assert cs.effective_beta().trl_gap > 1e-2
    monkeypatch.setattr(cs, "trl_beta_factor", lambda G: float(np.sqrt((G - 1) / G)))  # the factor inverted
    assert cs.effective_beta().trl_gap > 1e-2


def _trl_holds(eff: cs.EffectiveBeta) -> bool:
    """The TRL asserts of the page's "Effective β" cell, as written there."""
    return (
        eff.trl_gap < TOL
        and 4.6e-5 < eff.trl_eps_range[0] < 4.8e-5
        and 9.6e-5 < eff.trl_eps_range[1] < 9.8e-5
        and max(eff.fixed_eps_gaps.values()) < 5e-4
        and eff.fixed_eps_gaps[1e-8] > 1e3 * TOL
    )


def test_trls_eps_is_the_groups_own_and_a_fixed_one_fails(monkeypatch):
    eff = cs.effective_beta()
    assert _trl_holds(eff)
    # the former check, relative gap < 1e-3 at eps = 1e-8, passes at every fixed eps: it cannot test eps
    assert all(gap < 1e-3 for gap in eff.fixed_eps_gaps.values())
    for fixed in (1e-8, PAPER_EPS, 1e-4):  # "TRL's step is the paper's at eps = 1e-8" (or any one eps)
        monkeypatch.setattr(cs, "trl_equivalent_eps", lambda G, k, fixed=fixed: fixed)
        assert cs.effective_beta().trl_gap > 1e-5 and not _trl_holds(cs.effective_beta())
    monkeypatch.setattr(cs, "trl_equivalent_eps", lambda G, k: (k / G * (1 - k / G)) ** 0.5 * 2e-4)  # no (G-1)/G
    assert not _trl_holds(cs.effective_beta())


def test_trl_equivalent_eps_at_the_findings_groups_and_on_silent_groups():
    assert cs.trl_equivalent_eps(8, 4) == pytest.approx(9.355e-5, rel=1e-3)
    assert cs.trl_equivalent_eps(8, 1) == pytest.approx(6.188e-5, rel=1e-3)
    assert cs.trl_equivalent_eps(16, 1) == pytest.approx(4.688e-5, rel=1e-3)
    assert cs.trl_equivalent_eps(8, 0) == pytest.approx(1e-8 * 7 / 8, rel=1e-12) == cs.trl_equivalent_eps(8, 8)


def test_recursion_holds_and_fails_on_a_wrong_map(monkeypatch):
    assert cs.recursion_gap() < TOL
    real = cs.RECURSION
    monkeypatch.setattr(cs, "RECURSION", lambda p_ref, beta, eps, n: real(p_ref, 2 * beta, eps, n=n))  # β off by 2
    assert cs.recursion_gap() > 1e-3
    monkeypatch.setattr(cs, "RECURSION", lambda p_ref, beta, eps, n: real(p_ref, beta, 0.25, n=n))  # p(1-p) dropped
    assert cs.recursion_gap() > 1e-3


# ---- practical beta and G -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def practice():
    return cs.practice()


def test_practice_numbers_hold(practice):
    assert _practice_holds(practice)


def test_practice_check_fails_on_other_statements(practice, monkeypatch):
    from dataclasses import replace

    assert not _practice_holds(replace(practice, unsafe=(0.098, practice.unsafe[1])))  # the lower end at p_lo = 1e-9
    assert not _practice_holds(replace(practice, g_star=(practice.g_star[0], 32.0)))  # "about 32 at p = 1e-3"
    assert not _practice_holds(replace(practice, bias_g8=(0.65, 0.75)))  # the bias at G = 2, not 8
    monkeypatch.setattr(cs, "LOGIT_MAP", lambda z, a, beta, eps: a + 1 / (beta * np.sqrt(0.25 + eps)))  # no V(p)
    assert not _practice_holds(cs.practice())


def test_a_group_of_two_keeps_less_with_trls_advantage(practice, monkeypatch):
    from dataclasses import replace

    from grpo_nb.ustat.moments import expected_step_factor

    # the former statement gave the paper's rho_2 (Eq. 4 at p_hat) as the std-normalised one: TRL's is not 0.3
    assert abs(practice.rho2_trl - 0.3) > 0.05 and abs(practice.rho2 - 0.3) < 0.005
    assert not _practice_holds(replace(practice, rho2_trl=practice.rho2))
    paper_form = lambda p, G, estimator: expected_step_factor(p, G, "grpo_paper")  # noqa: E731  TRL's read as Eq. 4
    monkeypatch.setattr(cs, "expected_step_factor", paper_form)
    assert abs(cs.practice().rho2_trl - practice.rho2) < 1e-12  # the two routes to the paper's rho_2 agree
    assert not _practice_holds(cs.practice())


def test_practice_numbers_are_the_chapters_numbers(practice):
    from grpo_nb.chapters import group_size

    scan = group_size.difficulty_scan((0.5, 0.2, 0.05, 0.01, 0.001), n_prompts=16)
    assert practice.g_star == (float(scan.optimal_group_size[0]), float(scan.optimal_group_size[-1]))
    bandits = group_size.bandits((0.2, 0.5, 0.85), n_answers=6, n_correct=2)
    norm = group_size.normalisation_table(bandits, (2, 8))
    at_g8 = [float(b[1]) for b in norm.bias.values()]
    assert np.allclose(practice.bias_g8, (min(at_g8), max(at_g8)), rtol=1e-12)


# ---- links ----------------------------------------------------------------------------------------------------------


def test_every_link_of_the_sheet_names_an_existing_label():
    labels = {m for md in BOOK.glob("*.md") for m in re.findall(r"^\((\S+)\)=$", md.read_text(), flags=re.M)}
    sheet = (BOOK / "cheat_sheet.md").read_text()
    used = re.findall(r"\{ref\}`[^`<]*<([^>]+)>`", sheet)
    assert len(used) >= 12 and set(used) <= labels, set(used) - labels
    for section in (
        "cheat-sheet-family",
        "cheat-sheet-effective-beta",
        "cheat-sheet-recursion",
        "cheat-sheet-practice",
    ):
        body = sheet.split(f"({section})=")[1].split("\n(cheat-sheet-")[0]
        assert "{ref}" in body, f"{section} links to no section that checks it"


def test_bad_input_raises_value_error_naming_the_parameter():
    for call, name in (
        (lambda: cs.exact_step_coefficient(0.0, 0.5, 1e-5), "beta"),
        (lambda: cs.exact_step_coefficient(1.0, 1.5, 1e-5), "p"),
        (lambda: cs.exact_step_coefficient(1.0, 0.5, -1.0), "eps"),
        (lambda: cs.trl_beta_factor(1), "G"),
        (lambda: cs.trl_equivalent_eps(1, 0), "G"),
        (lambda: cs.trl_equivalent_eps(8, -1), "k"),
        (lambda: cs.trl_equivalent_eps(8, 9), "k"),
    ):
        with pytest.raises(ValueError, match=f"^{name}="):
            call()


def test_the_first_step_gain_is_measured_not_the_margin_re_evaluated(monkeypatch):
    assert 49.999 <= cs.practice().first_step[0.04][0] < 50.02
    real = cs.LOGIT_MAP
    monkeypatch.setattr(cs, "LOGIT_MAP", lambda z, a, beta, eps: a + 0.5 * (real(z, a, beta, eps) - a))  # half a step
    assert cs.practice().first_step[0.04][0] < 49.999  # the cell's check now fails; the margin itself would not move
    assert 49.9985 <= cs.practice().margin[0.04] < 49.9995
