"""Argument validation shared by the public API.

Every public function of :mod:`grpo_nb` checks its inputs with these helpers, so that bad
input raises :class:`ValueError` naming the parameter, the offending value and the valid range.
Every validator of the package lives here; no module keeps private ones.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "NORMALIZATIONS",
    "check_alpha",
    "check_beta",
    "check_binary_reward",
    "check_choice",
    "check_clip_eps",
    "check_eps",
    "check_log_policy_table",
    "check_logits",
    "check_map_params",
    "check_normalization",
    "check_open_interval",
    "check_ordered_pair",
    "check_p",
    "check_p_ref",
    "check_policy",
    "check_positive_int",
    "check_ratio_advantage",
    "check_scalar",
    "scalar_or_array",
]


def _as_float_array(name: str, value: object, valid: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name}={value!r} is not a real number; valid range is {valid}") from err
    if np.isnan(arr).any():
        raise ValueError(f"{name}={value!r} contains NaN; valid range is {valid}")
    return arr


def _first_bad(arr: np.ndarray, bad: np.ndarray) -> float:
    return float(arr[bad].flat[0]) if arr.ndim else float(arr)


def check_beta(beta: object) -> np.ndarray:
    """beta > 0 and finite (the KL coefficient of (GRPO Iterations))."""
    arr = _as_float_array("beta", beta, "0 < beta < inf")
    bad = ~(np.isfinite(arr) & (arr > 0))
    if bad.any():
        raise ValueError(f"beta={_first_bad(arr, bad)!r} is out of range; valid range is 0 < beta < inf")
    return arr


def check_eps(eps: object) -> np.ndarray:
    """eps >= 0 and finite (the variance smoothing of Eq. 4)."""
    arr = _as_float_array("eps", eps, "0 <= eps < inf")
    bad = ~(np.isfinite(arr) & (arr >= 0))
    if bad.any():
        raise ValueError(f"eps={_first_bad(arr, bad)!r} is out of range; valid range is 0 <= eps < inf")
    return arr


def check_p_ref(p_ref: object, *, open_interval: bool = True) -> np.ndarray:
    """p_ref in (0, 1) (Thm 2 assumes 0 < p_ref < 1), or in [0, 1] when ``open_interval`` is False."""
    rng = "0 < p_ref < 1" if open_interval else "0 <= p_ref <= 1"
    arr = _as_float_array("p_ref", p_ref, rng)
    bad = ~((arr > 0) & (arr < 1)) if open_interval else ~((arr >= 0) & (arr <= 1))
    if bad.any():
        raise ValueError(f"p_ref={_first_bad(arr, bad)!r} is out of range; valid range is {rng}")
    return arr


def check_p(p: object, eps: np.ndarray, name: str = "p") -> np.ndarray:
    """A success probability in [0, 1]; with eps = 0 only 0 < p < 1 is allowed (Remark 1)."""
    arr = _as_float_array(name, p, f"0 <= {name} <= 1")
    bad = ~((arr >= 0) & (arr <= 1))
    if bad.any():
        raise ValueError(f"{name}={_first_bad(arr, bad)!r} is out of range; valid range is 0 <= {name} <= 1")
    edge = np.broadcast_to(eps == 0, np.broadcast_shapes(arr.shape, np.shape(eps))) & ((arr == 0) | (arr == 1))
    if edge.any():
        raise ValueError(
            f"{name}={_first_bad(np.broadcast_to(arr, edge.shape), edge)!r} with eps=0 is undefined; "
            f"with eps=0 the valid range is 0 < {name} < 1 (Remark 1), use eps > 0 to include 0 and 1"
        )
    return arr


def check_positive_int(name: str, value: object, minimum: int = 1) -> int:
    """An integer >= ``minimum`` (iteration counts, group sizes)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name}={value!r} is out of range; valid range is integers >= {minimum}")
    return int(value)


def check_scalar(name: str, value: object) -> float:
    """A 0-d value (already range-checked by one of the checks above) as a Python float."""
    if np.ndim(value) != 0:
        raise ValueError(f"{name} has shape {np.shape(value)}; valid input is a scalar")
    return float(value)


def check_map_params(
    p_ref: object, beta: object, eps: object, *, broadcast: bool = False, scalar: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(p_ref, beta, eps) of Theorem 2's map, each range-checked.

    ``broadcast``: returned broadcast to their common shape (ValueError naming the shapes if they do not
    broadcast). ``scalar``: each must be 0-d (returned as 0-d arrays).
    """
    p_ref, beta, eps = check_p_ref(p_ref), check_beta(beta), check_eps(eps)
    if scalar:
        for name, value in (("p_ref", p_ref), ("beta", beta), ("eps", eps)):
            check_scalar(name, value)
    if broadcast:
        try:
            shape = np.broadcast_shapes(p_ref.shape, beta.shape, eps.shape)
        except ValueError as err:
            raise ValueError(
                f"p_ref, beta, eps have shapes {p_ref.shape}, {beta.shape}, {eps.shape} that do not broadcast; "
                "valid shapes are numpy-broadcastable"
            ) from err
        p_ref, beta, eps = (np.broadcast_to(x, shape).astype(float) for x in (p_ref, beta, eps))
    return p_ref, beta, eps


def check_binary_reward(
    name: str, value: object, *, shape: tuple[int, ...] | None = None, min_last: int | None = None
) -> np.ndarray:
    """A verifiable reward array with entries in {0, 1}.

    ``shape``: the exact shape required (e.g. that of the policies); ``min_last``: at least this many entries on
    the last axis (a group of G rewards, shape (..., G)).
    """
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name}={value!r} is not an array of numbers; valid: entries in {{0, 1}}") from err
    if shape is not None and arr.shape != tuple(shape):
        raise ValueError(f"{name} has shape {arr.shape}; valid: shape {tuple(shape)}, the shape of the policies")
    if min_last is not None and (arr.ndim == 0 or arr.shape[-1] < min_last):
        raise ValueError(
            f"{name} has shape {arr.shape}; valid shape is (..., G) with group size G >= {min_last} on the last axis"
        )
    bad = ~((arr == 0) | (arr == 1))
    if bad.any():
        raise ValueError(f"{name} contains {float(arr[bad].flat[0])!r}; valid values are 0 and 1 (a verifiable reward)")
    return arr


def check_policy(name: str, pi: object, *, sum_tol: float = 1e-9) -> np.ndarray:
    """A 1-D probability vector over outcomes: finite, >= 0, summing to 1 within ``sum_tol``."""
    try:
        arr = np.asarray(pi, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name}={pi!r} is not an array of real numbers; valid: a probability vector") from err
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} has shape {arr.shape}; valid: a non-empty 1-D probability vector over outcomes")
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError(f"{name}={arr!r} has a negative or non-finite entry; valid range is 0 <= {name}[o] <= 1")
    total = float(arr.sum())
    if abs(total - 1.0) > sum_tol:
        raise ValueError(f"{name} sums to {total!r}; valid: entries summing to 1 (within {sum_tol})")
    return arr


def check_log_policy_table(name: str, logp: object) -> np.ndarray:
    """A (P, K) table of log-probabilities (<= 0 up to rounding, no NaN)."""
    arr = np.asarray(logp, dtype=float)
    if arr.ndim != 2 or np.isnan(arr).any() or (arr > 1e-9).any():
        raise ValueError(f"{name} of shape {arr.shape} is not a (P, K) array of log-probabilities (<= 0, no NaN)")
    return arr


def scalar_or_array(x: np.ndarray) -> np.ndarray | float:
    """Return a 0-d result as a Python float and anything else unchanged (the API's return convention)."""
    return float(x) if np.ndim(x) == 0 else x


def check_clip_eps(clip_eps: object) -> np.ndarray:
    """clip_eps in [0, inf] (inf means no clipping); ValueError naming clip_eps otherwise."""
    try:
        arr = np.asarray(clip_eps, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"clip_eps={clip_eps!r} is not a real number; valid range is 0 <= clip_eps <= inf") from err
    bad = np.isnan(arr) | (arr < 0)
    if bad.any():
        value = float(arr[bad].flat[0]) if arr.ndim else float(arr)
        raise ValueError(f"clip_eps={value!r} is out of range; valid range is 0 <= clip_eps <= inf")
    return arr


def check_ratio_advantage(ratio: object, advantage: object) -> tuple[np.ndarray, np.ndarray]:
    """A ratio pi_theta/pi_old >= 0 (finite) and a finite advantage that broadcast together (the clipped term)."""
    for name, value in (("ratio", ratio), ("advantage", advantage)):
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{name}={value!r} is not a real number or array") from err
        if name == "ratio":
            bad = ~(np.isfinite(arr) & (arr >= 0))
            rng = "0 <= ratio < inf"
        else:
            bad = ~np.isfinite(arr)
            rng = "-inf < advantage < inf"
        if bad.any():
            first = float(arr[bad].flat[0]) if arr.ndim else float(arr)
            raise ValueError(f"{name}={first!r} is out of range; valid range is {rng}")
    x, a = np.asarray(ratio, dtype=float), np.asarray(advantage, dtype=float)
    try:
        np.broadcast_shapes(x.shape, a.shape)
    except ValueError as err:
        raise ValueError(f"ratio shape {x.shape} and advantage shape {a.shape} do not broadcast") from err
    return x, a


def check_open_interval(name: str, value: object, *, lo: float, hi: float) -> float:
    """A real scalar strictly between ``lo`` and ``hi`` (a tolerance, a threshold, a quantile)."""
    try:
        value = check_scalar(name, np.asarray(value, dtype=float))
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name}={value!r} is not a real number; valid range is {lo} < {name} < {hi}") from err
    if not lo < value < hi:
        raise ValueError(f"{name}={value!r} is out of range; valid range is {lo} < {name} < {hi}")
    return value


def check_ordered_pair(
    names: tuple[str, str], lo: object, hi: object, *, floor: float, ceiling: float
) -> tuple[float, float]:
    """The two ends of a range, named ``names``, real scalars with floor < lo < hi < ceiling (a range of p_ref, of
    beta)."""
    name_lo, name_hi = names
    lo = check_open_interval(name_lo, lo, lo=floor, hi=ceiling)
    hi = check_open_interval(name_hi, hi, lo=floor, hi=ceiling)
    if not lo < hi:
        raise ValueError(f"{name_hi}={hi!r} is out of range; valid range is {name_lo}={lo!r} < {name_hi} < {ceiling}")
    return lo, hi


#: The reward normalisations of the GRPO variants: "mean_var" (r - p)/sqrt(p(1-p) + eps) (the paper's, Eq. 4) and
#: "mean" r - p (mean-only centring, as in Dr. GRPO).
NORMALIZATIONS = ("mean_var", "mean")


def check_alpha(alpha: object) -> np.ndarray:
    """alpha in [0, 1]: the weight of the KL to pi_ref in beta [alpha KL(pi||pi_ref) + (1-alpha) KL(pi||pi_{n-1})]."""
    arr = _as_float_array("alpha", alpha, "0 <= alpha <= 1")
    bad = ~((arr >= 0) & (arr <= 1))
    if bad.any():
        raise ValueError(f"alpha={_first_bad(arr, bad)!r} is out of range; valid range is 0 <= alpha <= 1")
    return arr


def check_normalization(normalization: object) -> str:
    """One of :data:`NORMALIZATIONS` ("mean_var" or "mean")."""
    if not isinstance(normalization, str) or normalization not in NORMALIZATIONS:
        raise ValueError(
            f"normalization={normalization!r} is not a reward normalisation; valid values are {NORMALIZATIONS}"
        )
    return normalization


def check_logits(name: str, logits: object, *, min_outcomes: int = 2) -> np.ndarray:
    """Finite real logits with at least ``min_outcomes`` outcomes on the last axis (a softmax policy)."""
    arr = _as_float_array(name, logits, "finite real logits")
    if arr.ndim == 0 or arr.shape[-1] < min_outcomes:
        raise ValueError(
            f"{name} has shape {arr.shape}; valid shape is (..., K) with K >= {min_outcomes} outcomes on the last axis"
        )
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains {_first_bad(arr, ~np.isfinite(arr))!r}; valid range is finite real logits")
    return arr


def check_choice(name: str, value: object, options: tuple[str, ...]) -> str:
    """One of a fixed set of names (an estimator, an advantage form, a rule)."""
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name}={value!r} is not valid; valid values are {', '.join(map(repr, options))}")
    return value
