"""The errata of §5 of Mroueh (2025) v1, parametric GRPO: Theorem 5's limit (a limsup) and the factor 2 of its
proof, checked by unrolling Assumption 1 step by step.
"""

from __future__ import annotations

import sympy as sp

from grpo_nb.symbolic import parametric
from grpo_nb.symbolic.errata_rows.record import Erratum, _all
from grpo_nb.symbolic.identity import Identity

__all__ = ["DELTAS", "TV0", "rows", "theorem5_unrolled_check"]


def _theorem5_limsup() -> Erratum:
    witness = parametric.theorem5_limit_need_not_exist()
    telescoped = parametric.theorem5_telescoped_bound()
    sharper = parametric.theorem5_success_gap_vs_tv()
    printed = Identity(
        name="|p~_n - p*| has a limit under Assumption 1",
        lhs=witness.lhs,
        rhs=sp.Integer(0),
        holds=not witness.holds,
        relation="->",
        notes="Fails: the witness sequence satisfies Assumption 1 and keeps oscillating.",
    )
    return Erratum(
        "Theorem 5 and its proof",
        "lim_{n→∞} |p̃_n − p*| ≤ 2δ*",
        "limsup_{n→∞} |p̃_n − p*| ≤ 2δ* (the limit need not exist); since 1{r=1} is an event, "
        "|p̃ − p| ≤ TV and the bound improves to δ*",
        "statement",
        _all("telescoped bound and the sharper TV bound", [*telescoped, *sharper]),
        printed,
        "parametric_grpo",
    )


#: Theorem 5's symbols: TV(pi~_0, pi_0) and the per-step errors delta_1..delta_3 of Assumption 1.
TV0 = sp.Symbol("TV_0", positive=True)


DELTAS = sp.symbols("delta_1:4", positive=True)


def theorem5_unrolled_check(claimed: sp.Expr, label: str) -> Identity:
    """Assumption 1, TV_k <= TV_{k-1} + delta_k, iterated three times from TV_0 with equality (the largest TV_3 it
    allows), gives 2 TV_3; the check holds when 2 TV_3 <= ``claimed`` for all positive symbols (sympy decides the sign
    of the difference)."""
    tv = TV0
    for delta in DELTAS:  # the recursion of Assumption 1, step by step
        tv = tv + delta
    residual = sp.simplify(2 * tv - claimed)
    return Identity(f"2 TV_3 from Assumption 1 <= {label}", 2 * tv, claimed, bool(residual.is_nonpositive),
                    residual=residual, relation="<=")  # fmt: skip


def _theorem5_factor2() -> Erratum:
    def bound(factor: int) -> Identity:
        return theorem5_unrolled_check(2 * sum(DELTAS) + factor * TV0, f"2 sum delta + {factor} TV_0")

    return Erratum(
        "Proof of Theorem 5, second line of the display",
        "2 TV(π̃_n‖π_n) ≤ 2 Σδ_i + TV(π̃_0, π_0)",
        "2 TV(π̃_n‖π_n) ≤ 2 Σδ_i + 2 TV(π̃_0‖π_0): unrolling Assumption 1, the factor 2 multiplies every term. "
        "Harmless in the theorem, where TV(π̃_0‖π_0) = 0",
        "formula",
        bound(2),
        bound(1),
        "parametric_grpo",
        extraction=True,
    )


def rows() -> list[Erratum]:
    """The rows of §5, in the paper's order: Theorem 5's limit, then the second line of its proof."""
    return [_theorem5_limsup(), _theorem5_factor2()]
