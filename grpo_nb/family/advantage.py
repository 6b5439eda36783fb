"""The advantage of every method of the GRPO family, for a batch of groups of 0/1 rewards.

``advantage(name, rewards)`` takes rewards of shape (groups, G) and returns the advantages, same shape:

- grpo, dapo, bnpo, gspo, cispo: the group advantage (r - mean)/std of GRPO (Shao et al. 2024; Mroueh 2025, Eq. 4),
  in the paper's form (std sqrt(p_hat(1 - p_hat) + eps)) or TRL's (Bessel std + 1e-4), computed by the one home
  :func:`grpo_nb.advantage.group_advantage`;
- dr_grpo: r - mean, no scaling (Liu et al. 2025), ``group_advantage(r, "mean_only")``;
- rloo: r_i minus the mean of the other G - 1 rewards of its group (Kool et al. 2019; Ahmadian et al. 2024);
- reinforce_pp: r minus the mean of the whole batch, over the batch's standard deviation + eps (Hu 2025: no group
  baseline, a global normalisation).
"""

from __future__ import annotations

import numpy as np

from grpo_nb.advantage import DEFAULT_EPS, group_advantage
from grpo_nb.family.methods import method
from grpo_nb.validation import check_binary_reward, check_choice, check_eps

__all__ = ["REINFORCE_PP_EPS", "advantage", "leave_one_out_baseline"]

#: REINFORCE++'s constant added to the batch standard deviation (a batch of equal rewards gets advantage 0).
REINFORCE_PP_EPS = 1e-8


def leave_one_out_baseline(rewards: object) -> np.ndarray:
    """b_i = (sum_j r_j - r_i) / (G - 1), the mean of the other answers of the group (RLOO); shape (groups, G)."""
    r = check_binary_reward("rewards", rewards, min_last=2)
    G = r.shape[-1]
    return (r.sum(axis=-1, keepdims=True) - r) / (G - 1)


def advantage(name: str, rewards: object, *, form: str = "paper", eps: float | None = None) -> np.ndarray:
    """The advantages of method ``name`` (see :data:`grpo_nb.family.METHOD_NAMES`) for ``rewards`` of shape (groups, G).

    ``form`` ("paper" or "trl") and ``eps`` choose the group std of the std-scaled methods, as in
    :func:`grpo_nb.advantage.group_advantage` (eps defaults to ``DEFAULT_EPS[form]``); for reinforce_pp ``eps`` is
    the constant added to the batch std (default :data:`REINFORCE_PP_EPS`). Raises ValueError for an unknown name or
    form, rewards that are not a (groups, G) array of 0/1, or an ``eps`` that a method has no use for.
    """
    row = method(name)
    check_choice("form", form, ("paper", "trl"))
    r = check_binary_reward("rewards", rewards, min_last=1)
    if r.ndim != 2:
        raise ValueError(f"rewards has shape {r.shape}; valid shape is (groups, G), a 2-d array")
    if row.scaling == "group_std":
        return group_advantage(r, form, DEFAULT_EPS[form] if eps is None else eps)
    if eps is not None and row.scaling == "none":
        raise ValueError(f"eps={eps!r} is not used by name={name!r}; valid: eps=None (no scaling)")
    if row.centring == "leave_one_out":
        return r - leave_one_out_baseline(r)
    if row.centring == "group":
        return group_advantage(r, "mean_only")
    eps_arr = float(check_eps(REINFORCE_PP_EPS if eps is None else eps))
    return (r - r.mean()) / (r.std() + eps_arr)
