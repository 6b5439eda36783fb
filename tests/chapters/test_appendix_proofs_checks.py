"""The appendix chapter's analysis (:mod:`grpo_nb.chapters.appendix_proofs`): Theorems 6 and 4 tabulated, with the
divergent case as its last row; and a wrong Theorem 4 check (one that declares every orbit converged), replaced in the
module, that the divergent case then exposes."""

from __future__ import annotations

import sympy as sp

from grpo_nb.chapters import appendix_proofs
from grpo_nb.symbolic.identity import Identity


def test_contraction_table_rows_and_verdicts():
    result = appendix_proofs.contraction_table([(0.3, 10.0, 1e-5), (0.2, 1.0, 1e-2)], divergent=(0.001, 5.0, 1e-5))
    assert len(result.table.rows) == len(result.contraction_checks) + 1
    assert result.contraction_checks and all(c.holds for c in result.contraction_checks)
    assert len(result.convergence_checks) == 2 and all(c.holds for c in result.convergence_checks)
    assert not result.divergent.holds and result.table.rows[-1][:4] == [0.001, 5.0, 1e-5, "none reached"]
    assert result.table.column("orbit in $I$ from step")[-1] == "-"


def test_a_check_that_always_converges_is_caught_by_the_divergent_case(monkeypatch):
    def converged(p_ref: float, beta: float, eps: float) -> Identity:
        return Identity(name="always converged", lhs=sp.Float(0), rhs=sp.Float(1e-9), holds=True, relation="<=")

    monkeypatch.setattr(appendix_proofs, "theorem4_local_convergence", converged)
    result = appendix_proofs.contraction_table([(0.3, 10.0, 1e-5)], divergent=(0.001, 5.0, 1e-5))
    assert result.divergent.holds  # the chapter's `assert not contraction.divergent.holds` now fails
