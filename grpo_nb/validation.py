"""Argument validation shared by the public API.

Every public function of :mod:`grpo_nb` checks its inputs with these helpers, so that bad
input raises :class:`ValueError` naming the parameter, the offending value and the valid range
(DESIGN.md, "Numerics that matter").
"""

from __future__ import annotations

import numpy as np

__all__ = ["check_beta", "check_eps", "check_p", "check_p_ref", "check_positive_int"]


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
