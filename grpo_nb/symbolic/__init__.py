"""Sympy derivations of the paper's identities; each returns an :class:`Identity` that can fail."""

from grpo_nb.symbolic.identity import Identity, check_equal

__all__ = ["Identity", "check_equal"]
