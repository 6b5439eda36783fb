"""The advantage of every method of the GRPO family, for a batch of groups of 0/1 rewards.

``advantage(name, rewards)`` takes rewards of shape (groups, G) and returns the advantages, same shape, by the rule
of the method's (centring, scaling) (:data:`ADVANTAGE_RULES`; :mod:`grpo_nb.family.methods`):

- grpo, dapo, bnpo, gspo, cispo: the group advantage (r - mean)/std of GRPO (Shao et al. 2024; Mroueh 2025, Eq. 4),
  in the paper's form (std sqrt(p_hat(1 - p_hat) + eps)) or TRL's (Bessel std + 1e-4), computed by the one home
  :func:`grpo_nb.advantage.group_advantage`;
- dr_grpo: r - mean, no scaling (Liu et al. 2025), ``group_advantage(r, "mean_only")``;
- rloo: r_i minus the mean of the other G - 1 rewards of its group (Kool et al. 2019; Ahmadian et al. 2024);
- reinforce_pp: r minus the mean of the whole batch, over the batch's standard deviation + eps (Hu 2025: no group
  baseline, a global normalisation);
- maxrl: (r - p_hat)/p_hat, p_hat the group's mean reward, and 0 in a group without a success (Tajwar et al. 2026);
- gdpo: GRPO's group advantage, then centred and scaled over the batch, (a - mean_batch a)/(std_batch a + 1e-4) with
  the Bessel-corrected std (Liu et al. 2026; TRL's ``multi_objective_aggregation="normalize_then_sum"``, which
  normalises each reward function in its group first: :mod:`grpo_nb.family.multi_reward`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from grpo_nb.advantage import DEFAULT_EPS, group_advantage
from grpo_nb.constants import TRL_STD_EPS
from grpo_nb.family.methods import Centring, Method, Scaling, method
from grpo_nb.validation import check_binary_reward, check_choice, check_eps

__all__ = [
    "ADVANTAGE_RULES",
    "REINFORCE_PP_EPS",
    "UNSMOOTHED",
    "advantage",
    "batch_normalised",
    "leave_one_out_baseline",
]

#: REINFORCE++'s constant added to the batch standard deviation (a batch of equal rewards gets advantage 0).
REINFORCE_PP_EPS = 1e-8


def leave_one_out_baseline(rewards: object) -> np.ndarray:
    """b_i = (sum_j r_j - r_i) / (G - 1), the mean of the other answers of the group (RLOO); shape (groups, G)."""
    r = check_binary_reward("rewards", rewards, min_last=2)
    G = r.shape[-1]
    return (r.sum(axis=-1, keepdims=True) - r) / (G - 1)


def _group_std(r: np.ndarray, form: str, eps: float | None) -> np.ndarray:
    """(r - group mean) / group std, in the paper's form (Eq. 4) or TRL's."""
    return group_advantage(r, form, DEFAULT_EPS[form] if eps is None else eps)


def _group_mean(r: np.ndarray, form: str, eps: float | None) -> np.ndarray:
    """r - group mean (Dr. GRPO)."""
    return group_advantage(r, "mean_only")


def _leave_one_out(r: np.ndarray, form: str, eps: float | None) -> np.ndarray:
    """r_i - the mean of the other G - 1 rewards of its group (RLOO)."""
    return r - leave_one_out_baseline(r)


def _batch_std(r: np.ndarray, form: str, eps: float | None) -> np.ndarray:
    """(r - batch mean) / (batch std + eps) (REINFORCE++)."""
    eps_arr = float(check_eps(REINFORCE_PP_EPS if eps is None else eps))
    return (r - r.mean()) / (r.std() + eps_arr)


def batch_normalised(a: np.ndarray) -> np.ndarray:
    """(a - mean a)/(std a + 1e-4) over every entry of ``a``, std with Bessel's correction: the batch step of GDPO as
    TRL 1.16 takes it (``nanstd`` of all the batch's summed advantages, plus ``TRL_STD_EPS``)."""
    a = np.asarray(a, dtype=float)
    std = a.std(ddof=1) if a.size > 1 else 0.0
    return (a - a.mean()) / (std + TRL_STD_EPS)


def _group_then_batch_std(r: np.ndarray, form: str, eps: float | None) -> np.ndarray:
    """GRPO's group advantage, then :func:`batch_normalised` (GDPO with one reward)."""
    return batch_normalised(_group_std(r, form, eps))


def _group_mean_scaled(r: np.ndarray, form: str, eps: float | None) -> np.ndarray:
    """(r - p_hat)/p_hat, 0 in a group without a success (MaxRL)."""
    p_hat = r.mean(axis=-1, keepdims=True)
    return np.divide(r - p_hat, p_hat, out=np.zeros_like(r), where=p_hat > 0)


#: The scalings without a standard deviation, so without an ``eps`` to smooth it.
UNSMOOTHED: tuple[Scaling, ...] = (Scaling.NONE, Scaling.GROUP_MEAN)

#: The advantage of each (centring, scaling) pair a method may combine; any other pair has no rule (ValueError).
ADVANTAGE_RULES: dict[tuple[Centring, Scaling], Callable[[np.ndarray, str, float | None], np.ndarray]] = {
    (Centring.GROUP, Scaling.GROUP_STD): _group_std,
    (Centring.GROUP, Scaling.NONE): _group_mean,
    (Centring.LEAVE_ONE_OUT, Scaling.NONE): _leave_one_out,
    (Centring.BATCH, Scaling.BATCH_STD): _batch_std,
    (Centring.GROUP, Scaling.GROUP_MEAN): _group_mean_scaled,
    (Centring.GROUP, Scaling.GROUP_THEN_BATCH_STD): _group_then_batch_std,
}


def advantage(name: str | Method, rewards: object, *, form: str = "paper", eps: float | None = None) -> np.ndarray:
    """The advantages of method ``name`` (see :data:`grpo_nb.family.METHOD_NAMES`, or a :class:`Method` record) for
    ``rewards`` of shape (groups, G), by the rule of its (centring, scaling) in :data:`ADVANTAGE_RULES`.

    ``form`` ("paper" or "trl") and ``eps`` choose the group std of the std-scaled methods, as in
    :func:`grpo_nb.advantage.group_advantage` (eps defaults to ``DEFAULT_EPS[form]``); for reinforce_pp ``eps`` is
    the constant added to the batch std (default :data:`REINFORCE_PP_EPS`). Raises ValueError for an unknown name or
    form, rewards that are not a (groups, G) array of 0/1, an ``eps`` that a method has no use for, or a record whose
    (centring, scaling) has no rule.
    """
    row = method(name)
    check_choice("form", form, ("paper", "trl"))
    r = check_binary_reward("rewards", rewards, min_last=1)
    if r.ndim != 2:
        raise ValueError(f"rewards has shape {r.shape}; valid shape is (groups, G), a 2-d array")
    rule = ADVANTAGE_RULES.get((row.centring, row.scaling))
    if rule is None:
        pairs = ", ".join(f"({c.value!r}, {s.value!r})" for c, s in ADVANTAGE_RULES)
        raise ValueError(
            f"(centring, scaling)=({row.centring.value!r}, {row.scaling.value!r}) of name={row.name!r} has no "
            f"advantage rule; valid pairs are {pairs}"
        )
    if eps is not None and row.scaling in UNSMOOTHED:
        raise ValueError(f"eps={eps!r} is not used by name={row.name!r}; valid: eps=None (no std to smooth)")
    return rule(r, form, eps)
