"""grpo_nb: the helper package behind *GRPO, executable*.

Every chapter of the book imports its logic from here; the chapters stay narrative.
Modules follow the paper (Mroueh 2025, arXiv:2503.06639):

- :mod:`grpo_nb.validation` -- argument checks shared by every public function.
- :mod:`grpo_nb.dynamics`   -- the success-probability map h (Thm 2), its fixed points and orbits.
- :mod:`grpo_nb.tabular`    -- policies over a finite outcome set (Thm 1, Algorithm 1).
- :mod:`grpo_nb.symbolic`   -- sympy derivations, each returned with a check that can fail.
"""

__version__ = "0.1.0"
