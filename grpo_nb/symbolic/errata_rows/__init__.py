"""The rows of the errata table of Mroueh (2025) v1, one module per group of the paper's sections, each with a
``rows()`` that returns its rows in the paper's order (:func:`grpo_nb.symbolic.errata.errata` puts them together):

* :mod:`~grpo_nb.symbolic.errata_rows.convergence`: the abstract, §1 and §6 (the success probability does not always
  converge), and the remarks on the "divergent" run and on p_ref = 0;
* :mod:`~grpo_nb.symbolic.errata_rows.effective_loss`: §2 to §2.2 (the clip range, the display of §2.1, Eq. 3);
* :mod:`~grpo_nb.symbolic.errata_rows.trl`: §2.3 (GRPO-No-Clip "is the one implemented in TRL"), which reads TRL's
  loss through a parameter, ``family_loss``;
* :mod:`~grpo_nb.symbolic.errata_rows.policy_dynamics`: §3 (Remark 1, p* = 1);
* :mod:`~grpo_nb.symbolic.errata_rows.amplification`: §4 (Figs. 3 and 4, Remark 2);
* :mod:`~grpo_nb.symbolic.errata_rows.parametric`: §5 (Theorem 5);
* :mod:`~grpo_nb.symbolic.errata_rows.proofs`: the appendix's proofs (Theorem 2, Lemmas 2-4, Theorem 3);
* :mod:`~grpo_nb.symbolic.errata_rows.record`: the :class:`~grpo_nb.symbolic.errata_rows.record.Erratum` record and
  the ways the rows combine their checks.
"""
