"""The analyses of the chapter "Appendix: the proofs, checked" (``book/appendix_proofs.md`` and its sub-pages), each
returning its table and the values the chapter's asserts need; the section of the chapter that uses each is named in
brackets.

* :func:`proof_table` (every section): the checks of one result as a table, one row per step, with its verdict,
  names and notes typeset for the page.
* :func:`remark1_example` ("Appendix A", Remark 1): a map with eps = 0 and no fixed point in (0, 1), by the
  fixed-point solver, a grid and a closed-form lower bound on logit h(p) - logit p.
* :func:`contraction_table` ("Appendix B: amplification and local convergence"): Theorems 6 and 4 on explicit
  (p_ref, beta, eps), one row per contraction interval found, and the paper's "divergent" case, where the orbit
  reaches no contraction interval.
* :func:`errata` ("Errata"): the errata of the v1 text, :func:`grpo_nb.symbolic.errata.errata` with TRL's loss as
  :func:`grpo_nb.family.loss` models it (the family sits above the symbolic layer, so it is passed in here).

The derivations and the checks they tabulate live in :mod:`grpo_nb.symbolic` (here
:mod:`grpo_nb.symbolic.convergence`: :func:`~grpo_nb.symbolic.convergence.theorem6_local_contraction` and
:func:`~grpo_nb.symbolic.convergence.theorem4_local_convergence`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from IPython.display import Markdown
from scipy.special import logit

from grpo_nb.dynamics.fixed_points import fixed_points
from grpo_nb.dynamics.map import logit_map
from grpo_nb.family import loss
from grpo_nb.report import Table, markdown_table
from grpo_nb.symbolic import errata as paper_errata
from grpo_nb.symbolic.convergence import theorem4_local_convergence, theorem6_local_contraction
from grpo_nb.symbolic.errata import Erratum, typeset
from grpo_nb.symbolic.identity import Identity
from grpo_nb.validation import check_beta, check_p_ref, check_scalar

__all__ = [
    "ContractionTable",
    "Remark1Example",
    "contraction_table",
    "errata",
    "proof_table",
    "remark1_example",
    "typeset_identity",
]


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


@dataclass(frozen=True)
class Remark1Example:
    """:func:`remark1_example`'s verdicts: ``n_fixed_points`` found by the solver in (0, 1); ``min_gap``, the smallest
    logit h(p) - logit p over the grid; ``bound``, the closed-form lower bound on that gap (NaN where it does not
    apply, beta > 1/sqrt 2)."""

    p_ref: float
    beta: float
    n_fixed_points: int
    min_gap: float
    bound: float


def remark1_example(p_ref: float, beta: float) -> Remark1Example:
    """Remark 1 with eps = 0 (section "Appendix A"): the fixed points of h in (0, 1) at (p_ref, beta), from
    :func:`grpo_nb.dynamics.fixed_points.fixed_points`; the gap logit h(p) - logit p = g(z) - z on 4001 points
    z = logit p evenly spaced over [-40, 40]; and the bound a + sqrt(2)/beta - log 2 (a = logit p_ref) on that gap,
    valid for beta <= 1/sqrt 2: on p <= 1/2 the gap is at least a + 2/beta, and on p > 1/2, with t = sqrt(1 - p),
    it exceeds a + 1/(beta t) + 2 log t, which decreases on t < 1/(2 beta) and so is smallest at t = 1/sqrt 2.
    """
    p_ref = check_scalar("p_ref", check_p_ref(p_ref))
    beta = check_scalar("beta", check_beta(beta))
    z = np.linspace(-40.0, 40.0, 4001)  # z = logit p; logit h(p) = g(z), Theorem 2 in logit coordinates
    gap = logit_map(z, logit(p_ref), beta, 0.0) - z
    bound = logit(p_ref) + np.sqrt(2.0) / beta - np.log(2.0) if beta <= 1 / np.sqrt(2.0) else np.nan
    return Remark1Example(p_ref, beta, len(fixed_points(p_ref, beta, 0.0)), float(gap.min()), float(bound))


def errata() -> list[Erratum]:
    """The errata of the paper's v1 text (section "Errata"), in the paper's order:
    :func:`grpo_nb.symbolic.errata.errata` with TRL's loss as :func:`grpo_nb.family.loss` models it, which the row on
    §2.3 reads."""
    return paper_errata.errata(loss)
