"""Lemma 1 of the U-statistic paper with sympy: GRPO's leave-one-out gradient is an average of a pairwise kernel.

For a group of G answers with rewards r_i and scores s_i (one coordinate of the score vector; the identity holds
coordinate by coordinate),

    (1/G) sum_i (r_i - (1/(G-1)) sum_{j != i} r_j) s_i  =  C(G, 2)^{-1} sum_{i < j} (r_i - r_j)(s_i - s_j) / 2,

and the version with the full group mean as baseline is (G-1)/G times it:
(1/G) sum_i (r_i - (1/G) sum_j r_j) s_i = ((G-1)/G) x (the leave-one-out form). Both are checked for a given G with
symbols r_1..r_G, s_1..s_G; ``claimed`` replaces the right-hand side so a test can feed a wrong one.
"""

from __future__ import annotations

from itertools import combinations

import sympy as sp

from grpo_nb.symbolic.identity import Identity, check_equal
from grpo_nb.validation import check_positive_int

__all__ = ["full_mean_identity", "group_symbols", "lemma1_identity", "leave_one_out_form", "pairwise_form"]


def group_symbols(G: int) -> tuple[list[sp.Symbol], list[sp.Symbol]]:
    """Symbols r_1..r_G and s_1..s_G."""
    G = check_positive_int("G", G, minimum=2)
    return list(sp.symbols(f"r_1:{G + 1}", real=True)), list(sp.symbols(f"s_1:{G + 1}", real=True))


def leave_one_out_form(G: int) -> sp.Expr:
    """(1/G) sum_i (r_i - mean_{j != i} r_j) s_i: GRPO's gradient with the leave-one-out baseline (Eq. 4-5)."""
    r, s = group_symbols(G)
    total = sum(r)
    return sp.Rational(1, G) * sum((r[i] - (total - r[i]) / (G - 1)) * s[i] for i in range(G))


def pairwise_form(G: int) -> sp.Expr:
    """C(G, 2)^{-1} sum_{i<j} k(i, j) with the symmetric kernel k(i, j) = (r_i - r_j)(s_i - s_j)/2 (Eq. 6)."""
    r, s = group_symbols(G)
    pairs = list(combinations(range(G), 2))
    return sp.Rational(1, len(pairs)) * sum((r[i] - r[j]) * (s[i] - s[j]) / 2 for i, j in pairs)


def lemma1_identity(G: int, claimed: sp.Expr | None = None) -> Identity:
    """Lemma 1 for one G: the leave-one-out form equals the pairwise U-statistic (or ``claimed``)."""
    rhs = pairwise_form(G) if claimed is None else sp.sympify(claimed)
    return check_equal(f"Lemma 1, G = {G}", leave_one_out_form(G), rhs)


def full_mean_identity(G: int, factor: sp.Expr | None = None) -> Identity:
    """(1/G) sum_i (r_i - mean_j r_j) s_i = factor x (leave-one-out form), factor (G-1)/G unless given."""
    r, s = group_symbols(G)
    mean = sum(r) / G
    lhs = sp.Rational(1, G) * sum((r[i] - mean) * s[i] for i in range(G))
    factor = sp.Rational(G - 1, G) if factor is None else sp.sympify(factor)
    return check_equal(f"full group mean, G = {G}", lhs, factor * leave_one_out_form(G))
