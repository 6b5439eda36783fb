"""How checked identities and tables are shown: real math, tables that survive `|`, names shown as typed.

The book parses Markdown outputs as MyST (markdown-it with dollarmath and GFM tables); these tests parse
the outputs with the same parser family and look at the tokens a reader's page is built from.
"""

from __future__ import annotations

import html
import math
import re

import numpy as np
import pytest
import sympy as sp
from IPython.lib.pretty import pretty
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from grpo_nb.report import NO_VALUE, Table, escape_markdown, markdown_table, show_checked
from grpo_nb.symbolic import policy_dynamics
from grpo_nb.symbolic.identity import Identity, check_equal

P = sp.Symbol("p")


def _myst() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table").use(dollarmath_plugin, double_inline=False)


def _table_rows(markdown: str) -> list[list[str]]:
    tokens = _myst().parse(markdown)
    rows, row = [], None
    for tok in tokens:
        if tok.type == "tr_open":
            row = []
        elif tok.type == "inline" and row is not None:
            row.append(tok.content)
        elif tok.type == "tr_close":
            rows.append(row)
            row = None
    return rows


def test_table_cells_keep_their_pipes():
    table = markdown_table(["instance", "max |closed − numeric|"], [["a", 1e-16], ["stable |h′| < 1", 0.5]]).data
    rows = _table_rows(table)
    assert rows == [["instance", "max |closed − numeric|"], ["a", "1e-16"], ["stable |h′| < 1", "0.5"]]


def test_an_escaped_pipe_is_not_escaped_twice():
    rows = _table_rows(markdown_table(["check"], [["a \\| b"]]).data)
    assert rows == [["check"], ["a | b"]]


def test_a_table_without_pipe_escaping_loses_a_cell():
    """The negative case: the same row written naively splits into an extra cell, and GFM drops it."""
    naive = "| instance | value |\n|---|---|\n| max |closed − numeric| | 3e-16 |"
    assert _table_rows(naive)[1] != ["max |closed − numeric|", "3e-16"]


def test_nan_is_shown_as_no_value():
    rows = _table_rows(markdown_table(["x", "y"], [[1.0, math.nan]]).data)
    assert rows[1] == ["1", NO_VALUE]


@pytest.mark.parametrize("name", ["Lemma 1: h'(p*) = p*(1-p*)", "A_eps(r=1) = omega_+", "|h'| < 1 at $5", "a\\b [x]"])
def test_escaped_text_reads_as_typed(name):
    page = _myst().render(f"**{escape_markdown(name)}** (holds)")
    shown = re.fullmatch(r"<p><strong>(.*)</strong> \(holds\)</p>\n", page, re.S)
    assert shown and "<" not in shown.group(1) and html.unescape(shown.group(1)) == name, page


def _math_blocks(markdown: str) -> list[str]:
    return [tok.content.strip() for tok in _myst().parse(markdown) if tok.type == "math_block"]


def test_an_identity_is_shown_as_display_math():
    ident = check_equal("Var[r] = p(1-p*)", P**2 * (1 - P) + P * (1 - P) ** 2, P * (1 - P))
    md = ident._repr_markdown_()
    assert _math_blocks(md) == [ident.latex()]
    assert "\\frac" not in ident.latex() and "\\;=\\;" in ident.latex()
    assert "<em>" not in _myst().render(md) and "(holds)" in md


def test_a_theorem_identity_keeps_its_tex():
    ident = policy_dynamics.theorem2_logistic_form()
    (block,) = _math_blocks(ident._repr_markdown_())
    assert block == ident.latex() and "\\frac" in block and "\\sqrt" in block


def test_a_failing_identity_says_so():
    wrong = check_equal("E[r] = p", P, P**2)
    assert not wrong.holds and "(FAILS)" in wrong._repr_markdown_()
    assert pretty(wrong) == "E[r] = p (FAILS): p == p**2"


@pytest.mark.parametrize(
    ("relation", "tex"),
    [("<=", "\\;\\le\\;"), ("!=", "\\;\\neq\\;"), ("->", "\\;\\to\\;"), ("undefined", "\\quad\\text{and}\\quad")],
)
def test_relations_are_typeset(relation, tex):
    ident = Identity(name="n", lhs=P, rhs=sp.Integer(1), holds=True, relation=relation)
    assert ident.latex() == f"p {tex} 1"


def test_plain_text_fallback_is_deterministic():
    ident = policy_dynamics.proposition1_derivative()
    assert pretty(ident) == pretty(policy_dynamics.proposition1_derivative())
    assert pretty(ident).startswith("Proposition 1: derivative of h (holds): ") and " at 0x" not in pretty(ident)


def test_a_long_identity_is_set_on_two_lines_and_a_very_long_one_smaller():
    prop1, gibbs = policy_dynamics.proposition1_derivative(), policy_dynamics.theorem1_gibbs_variational_identity()
    assert prop1.latex().startswith("\\begin{aligned}") and prop1.latex().count("\\\\") == 1
    assert gibbs.latex().startswith("\\small \\begin{aligned}")
    short = check_equal("omega", P / sp.sqrt(P * (1 - P)), sp.sqrt(P / (1 - P)))
    assert "aligned" not in short.latex()


def test_table_and_show_checked():
    t = Table(["a", "b|c"], [[1, 0.123456], ["x", np.nan]], ".3g")
    text = repr(t)
    assert "| 1 | 0.123 |" in text and "b\\|c" in text and t.column("a") == [1, "x"]
    p = sp.Symbol("p")
    show_checked(check_equal("ok", p * (1 - p), p - p**2))
    with pytest.raises(AssertionError, match="wrong does not hold"):
        show_checked([Identity("wrong", p, p + 1, holds=False)])
