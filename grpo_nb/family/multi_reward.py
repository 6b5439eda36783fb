"""Several verifiable rewards per answer: TRL 1.16's two ways of turning them into one advantage (GDPO's row).

``rewards`` has shape (groups, G, K): K reward functions, each 0/1, for the G answers of each group; ``weights`` are
the K weights (TRL's ``reward_weights``, default all 1). Both aggregations use TRL's group statistics, the mean and
the standard deviation with Bessel's correction plus ``TRL_STD_EPS`` = 1e-4:

- ``"sum_then_normalize"`` (TRL's default, GRPO on the summed reward): R = sum_k w_k r_k, then
  A = (R - mean_group R)/(std_group R + 1e-4);
- ``"normalize_then_sum"`` (GDPO, Liu et al. 2026): a_k = (r_k - mean_group r_k)/(std_group r_k + 1e-4) for each
  reward, S = sum_k w_k a_k, then A = (S - mean_batch S)/(std_batch S + 1e-4) over the whole batch
  (:func:`grpo_nb.family.batch_normalised`).
"""

from __future__ import annotations

import numpy as np

from grpo_nb.constants import TRL_STD_EPS
from grpo_nb.family.advantage import batch_normalised
from grpo_nb.validation import check_binary_reward, check_choice

__all__ = ["MULTI_REWARD_AGGREGATIONS", "multi_reward_advantage"]

MULTI_REWARD_AGGREGATIONS: tuple[str, ...] = ("sum_then_normalize", "normalize_then_sum")


def _group_normalised(x: np.ndarray) -> np.ndarray:
    """(x - mean)/(std + 1e-4) within each group (axis 1), std with Bessel's correction."""
    return (x - x.mean(axis=1, keepdims=True)) / (x.std(axis=1, ddof=1, keepdims=True) + TRL_STD_EPS)


def multi_reward_advantage(
    rewards: object, weights: object = None, aggregation: str = "normalize_then_sum"
) -> np.ndarray:
    """The advantages, shape (groups, G), of K verifiable rewards of shape (groups, G, K) under ``aggregation``
    (module docstring). ValueError for rewards that are not 0/1 of that shape with G >= 2, weights that are not K
    finite numbers, or an unknown aggregation."""
    check_choice("aggregation", aggregation, MULTI_REWARD_AGGREGATIONS)
    r = check_binary_reward("rewards", rewards)
    if r.ndim != 3 or r.shape[1] < 2 or r.shape[2] < 1:
        raise ValueError(f"rewards has shape {r.shape}; valid shape is (groups, G, K) with G >= 2 and K >= 1")
    w = np.ones(r.shape[2]) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (r.shape[2],) or not np.isfinite(w).all():
        raise ValueError(f"weights={weights!r} is not valid; valid: {r.shape[2]} finite numbers, one per reward")
    if aggregation == "sum_then_normalize":
        return _group_normalised(r @ w)
    return batch_normalised(_group_normalised(r) @ w)
