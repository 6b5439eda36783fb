"""Group advantages of G binary rewards, in the four forms met in practice (paper Eq. 1, 3, 4; TRL; Dr. GRPO).

For one prompt, a group of G sampled outputs has rewards r_1..r_G in {0, 1}; p_hat = k/G is the
fraction of successes (Algorithm 1, line 8). The forms differ only in the denominator:

- ``"paper"``      (r - p_hat) / sqrt(p_hat(1 - p_hat) + eps)       Eq. (4), smoothing inside the root;
- ``"trl"``        (r - p_hat) / (std_Bessel(r) + eps), eps = 1e-4  TRL's GRPOTrainer: torch's default
                   ``std`` uses Bessel's correction (divides by G - 1) and 1e-4 is added outside the root;
- ``"population"`` (r - p_hat) / std_population(r)                  the plain whitening of Eq. (1) on the
                   group; a group with all rewards equal has std 0 and numerator 0, and we return 0
                   (no learning signal), the convention implementations enforce by masking such groups;
- ``"mean_only"``  r - p_hat                                        Dr. GRPO (Liu et al. 2025): no scaling.

For binary rewards the population variance of the group is exactly p_hat(1 - p_hat), so ``"population"``
equals ``"paper"`` with eps = 0 wherever the latter is defined, and std_Bessel = sqrt(G/(G-1)) std_population.
All functions are batched over leading axes: ``rewards`` has shape (..., G). :func:`mean_success_advantage` averages
an advantage over the successes of many groups, with the standard error that treats each group as one draw.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from grpo_nb.constants import PAPER_EPS, TRL_STD_EPS
from grpo_nb.validation import check_binary_reward, check_eps, check_p, check_positive_int
from grpo_nb.weights import stabilised_advantage

__all__ = [
    "ADVANTAGE_FORMS",
    "AdvantageForm",
    "DEFAULT_EPS",
    "group_advantage",
    "group_rewards",
    "mean_success_advantage",
    "success_fraction",
]

AdvantageForm = Literal["paper", "trl", "population", "mean_only"]
ADVANTAGE_FORMS: tuple[str, ...] = ("paper", "trl", "population", "mean_only")
#: Default smoothing per form: the paper's Fig. 2 uses eps = 1e-5 (:data:`grpo_nb.constants.PAPER_EPS`); TRL adds
#: 1e-4 to the std (:data:`grpo_nb.constants.TRL_STD_EPS`).
DEFAULT_EPS: dict[str, float] = {"paper": PAPER_EPS, "trl": TRL_STD_EPS, "population": 0.0, "mean_only": 0.0}


def success_fraction(rewards: object) -> np.ndarray:
    """p_hat = k / G per group (Algorithm 1, line 8); shape (...,)."""
    return check_binary_reward("rewards", rewards, min_last=1).mean(axis=-1)


def group_rewards(k: object, G: int) -> np.ndarray:
    """A group of G rewards with the first k equal to 1 (k may be an array of counts): shape (*k.shape, G)."""
    G = check_positive_int("G", G)
    k_arr = np.asarray(k)
    if not np.issubdtype(k_arr.dtype, np.integer) or ((k_arr < 0) | (k_arr > G)).any():
        raise ValueError(f"k={k!r} is out of range; valid range is integers 0 <= k <= G = {G}")
    return (np.arange(G) < k_arr[..., None]).astype(float)


def group_advantage(rewards: object, form: AdvantageForm = "paper", eps: float | None = None) -> np.ndarray:
    """Advantages A_i of a group of binary rewards, shape (..., G), in one of ``ADVANTAGE_FORMS``.

    ``eps`` defaults to ``DEFAULT_EPS[form]``; it is the smoothing inside the root for ``"paper"``
    (Eq. 4; eps = 0 requires 0 < p_hat < 1), the constant added to the Bessel std for ``"trl"``
    (eps = 0 then requires a group that is not all equal), and must be 0 for ``"population"`` and
    ``"mean_only"``, which have none. ``"trl"`` needs G >= 2 (Bessel's correction divides by G - 1).
    """
    if form not in ADVANTAGE_FORMS:
        raise ValueError(f"form={form!r} is not an advantage form; valid forms are {ADVANTAGE_FORMS}")
    eps_arr = check_eps(DEFAULT_EPS[form] if eps is None else eps)
    if eps_arr.ndim != 0:
        raise ValueError(f"eps={eps!r} must be a scalar; valid range is 0 <= eps < inf")
    if form in ("population", "mean_only") and eps_arr != 0:
        raise ValueError(f"eps={eps!r} is out of range for form={form!r}; valid range is eps = 0 (no smoothing)")
    r = check_binary_reward("rewards", rewards, min_last=2 if form == "trl" else 1)
    p_hat = r.mean(axis=-1, keepdims=True)
    centred = r - p_hat
    if form == "mean_only":
        return centred
    if form == "paper":
        check_p(p_hat, eps_arr, name="p_hat")
        return np.asarray(stabilised_advantage(r, p_hat, eps_arr))
    if form == "trl":
        std = r.std(axis=-1, ddof=1, keepdims=True)
        if eps_arr == 0 and (std == 0).any():
            raise ValueError(
                "rewards contains a group with all rewards equal; with eps=0 the 'trl' form divides 0 by 0, "
                "valid range is eps > 0 for such groups"
            )
        return centred / (std + eps_arr)
    std = r.std(axis=-1, ddof=0, keepdims=True)
    return np.divide(centred, std, out=np.zeros_like(centred), where=std > 0)


def mean_success_advantage(rewards: object, advantages: object) -> tuple[float, float]:
    """The mean advantage over every success of a batch of groups, shape (n_groups, G), and its standard error.

    The successes of one group share one advantage (a function of the group's k), so they are not independent draws;
    the groups are. The mean is the ratio m = sum_g a_g / sum_g k_g, with a_g the summed advantage of group g's k_g
    successes, and its standard error is the ratio estimator's with the groups as units (cluster-robust):
    sqrt(n/(n-1) sum_g (a_g - m k_g)^2) / sum_g k_g over the n groups. Treating the successes as independent
    (their standard deviation over sqrt(their number)) understates it.
    """
    r = check_binary_reward("rewards", rewards, min_last=1)
    if r.ndim != 2 or r.shape[0] < 2:
        raise ValueError(f"rewards has shape {r.shape}; valid: (n_groups, G) with n_groups >= 2")
    adv = np.asarray(advantages, dtype=float)
    if adv.shape != r.shape or not np.isfinite(adv).all():
        raise ValueError(f"advantages has shape {adv.shape} or a non-finite entry; valid: finite, shape {r.shape}")
    k, a = r.sum(axis=1), (adv * r).sum(axis=1)
    if k.sum() == 0:
        raise ValueError("rewards has no success; valid: at least one reward equal to 1")
    n, mean = k.size, a.sum() / k.sum()
    return float(mean), float(np.sqrt(n / (n - 1) * np.sum((a - mean * k) ** 2)) / k.sum())
