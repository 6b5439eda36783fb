"""Sympy derivations of the paper's identities; each returns an :class:`Identity` that can fail.

:mod:`~grpo_nb.symbolic.expressions` holds what every derivation starts from (the Bernoulli reward statistics, the
smoothed advantage, the objective with its KL term, the softmax policy); the checks of each section of the paper
live in a module named after it: :mod:`~grpo_nb.symbolic.effective_loss` (§2), :mod:`~grpo_nb.symbolic.policy_dynamics`
(§3), :mod:`~grpo_nb.symbolic.amplification` and :mod:`~grpo_nb.symbolic.convergence` (§4),
:mod:`~grpo_nb.symbolic.parametric` (§5). A check compares what sympy derives with the formula the paper prints,
which ``claimed=`` replaces (see :func:`~grpo_nb.symbolic.identity.claims`).
"""

from grpo_nb.symbolic.identity import Identity, check_equal

__all__ = ["Identity", "check_equal"]
