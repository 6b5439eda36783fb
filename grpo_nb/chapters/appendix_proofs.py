"""The analyses of the chapter "Appendix: the proofs, checked" (``book/appendix_proofs.md``), each returning its table
and the values the chapter's asserts need; the section of the chapter that uses each is named in brackets.

* :func:`proof_table` (every section): the checks of one result as a table, one row per step, with its verdict,
  names and notes typeset for the page.
* :func:`contraction_table` ("Appendix B: amplification and local convergence"): Theorems 6 and 4 on explicit
  (p_ref, beta, eps), one row per contraction interval found, and the paper's "divergent" case, where the orbit
  reaches no contraction interval.

The derivations and the checks they tabulate live in :mod:`grpo_nb.symbolic` (here
:mod:`grpo_nb.symbolic.convergence`: :func:`~grpo_nb.symbolic.convergence.theorem6_local_contraction` and
:func:`~grpo_nb.symbolic.convergence.theorem4_local_convergence`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from IPython.display import Markdown

from grpo_nb.report import Table, markdown_table
from grpo_nb.symbolic.convergence import theorem4_local_convergence, theorem6_local_contraction
from grpo_nb.symbolic.errata import typeset
from grpo_nb.symbolic.identity import Identity

__all__ = ["ContractionTable", "contraction_table", "proof_table", "typeset_identity"]


def typeset_identity(identity: Identity) -> Markdown:
    """One derived identity for the page (every section): its name typeset by :func:`grpo_nb.symbolic.errata.typeset`,
    its verdict, and the claim as display math with p_ref's subscript upright, as the prose writes it."""
    claim = identity.latex().replace("p_{ref}", r"p_{\mathrm{ref}}")
    return Markdown(f"**{typeset(identity.name)}** ({identity.verdict})\n\n$$\n{claim}\n$$\n")


def proof_table(checks: Sequence[Identity]) -> Markdown:
    """The steps of one proof as a table (every section): the claim each check tests, its verdict ("✓ holds" or
    "FAILS") and its notes, with the plain-text formulas of names and notes typeset by
    :func:`grpo_nb.symbolic.errata.typeset`."""
    rows = [(typeset(c.name), "✓ holds" if c.holds else "FAILS", typeset(c.notes)) for c in checks]
    return markdown_table(["step checked", "result", "notes"], rows)


@dataclass(frozen=True)
class ContractionTable:
    """:func:`contraction_table`'s table; the Theorem 6 identities of every contraction interval found
    (``contraction_checks``), one Theorem 4 identity per case (``convergence_checks``), and the Theorem 4 identity of
    the divergent case (``divergent``, which fails: the theorem is local)."""

    table: Table
    contraction_checks: tuple[Identity, ...]
    convergence_checks: tuple[Identity, ...]
    divergent: Identity


def contraction_table(
    cases: Sequence[tuple[float, float, float]], divergent: tuple[float, float, float]
) -> ContractionTable:
    """Theorems 6 and 4 on each (p_ref, beta, eps) of ``cases`` and on the ``divergent`` one (section "Appendix B:
    amplification and local convergence").

    One row per contraction interval found: p*, h'(p*), k, the interval I, sup of |h'| on I, the largest step ratio,
    the step from which the orbit from p_ref lies in I; then a last row for ``divergent``, whose orbit reaches no
    contraction interval ("none reached"; its p* when it does reach one).
    """
    rows, contraction, convergence = [], [], []
    for p_ref, beta, eps in cases:
        checks = theorem6_local_contraction(p_ref, beta, eps)
        contraction += checks
        convergence.append(theorem4_local_convergence(p_ref, beta, eps))
        for c in (chk.extra["interval"] for chk in checks):
            entry = "-" if c.orbit_enters_at is None else str(c.orbit_enters_at)
            interval = f"[{c.lo:.4f}, {c.hi:.4f}]"
            rows.append([p_ref, beta, eps, f"{c.p_star:.6f}", f"{c.slope:+.4f}", f"{c.k:.4f}",
                         interval, f"{c.sup_slope:.4f}", f"{c.max_step_ratio:.4f}", entry])  # fmt: skip
    diverging = theorem4_local_convergence(*divergent)
    reached = diverging.extra.get("interval")
    rows.append([*divergent, "none reached" if reached is None else f"{reached.p_star:.6f}", "", "", "", "", "", "-"])
    headers = [r"$p_{\mathrm{ref}}$", r"$\beta$", r"$\varepsilon$", "$p^*$", "$h'(p^*)$", "$k$", "$I$",
               r"$\sup_I \lvert h'\rvert$", "max step ratio", "orbit in $I$ from step"]  # fmt: skip
    return ContractionTable(Table(headers, rows, ".3g"), tuple(contraction), tuple(convergence), diverging)
