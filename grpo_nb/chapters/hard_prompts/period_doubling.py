"""Section "Where the cycles appear: the period-doubling cascade" of the chapter "Hard prompts: bifurcations, cycles and
chaos" (``book/hard_prompts_cascade.md``): the doubling points B_k and superstable points R_k of one (p_ref, eps),
located by :mod:`grpo_nb.dynamics.bifurcation` and checked ("Feigenbaum's constant" reads the same cascades).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grpo_nb.dynamics.bifurcation import critical_orbit_logit, doubling_betas, superstable_betas
from grpo_nb.validation import check_positive_int

__all__ = ["Cascade", "cascade_check"]


@dataclass(frozen=True)
class Cascade:
    """The period-doubling cascade of one (p_ref, eps): doubling points B_k and superstable points R_k.

    interleaved: B_1 > R_1 > B_2 > R_2 > ...; return_error: largest |g^{2^k}(0)| at R_k, k = 1..n_checked (0 at a
    superstable cycle); earliest_return: smallest |g^{2^j}(0)| at R_k over j < k, k = 1..n_checked (away from 0
    when the critical point does not return before 2^k steps); rows: k, the period born at B_k, B_k, R_k and
    B_k - B_{k+1}.
    """

    p_ref: float
    eps: float
    doubling: np.ndarray
    superstable: np.ndarray
    interleaved: bool
    return_error: float
    earliest_return: float
    rows: list[list]


def cascade_check(p_ref: object, eps: object, *, n_doublings: int = 9, n_checked: int = 6) -> Cascade:
    """Locate the cascade (:func:`superstable_betas`, :func:`doubling_betas`) and check R_1..R_{n_checked} (section
    "Where the cycles appear: the period-doubling cascade"; "Feigenbaum's constant" reads the same cascades)."""
    n_doublings = check_positive_int("n_doublings", n_doublings, minimum=2)
    n_checked = check_positive_int("n_checked", n_checked)
    r = superstable_betas(p_ref, eps, n_doublings=n_doublings)
    if r.size == 0:
        raise ValueError(
            f"p_ref={p_ref!r}, eps={eps!r} give no superstable 2-cycle; valid: a prompt whose cascade exists"
        )
    b = doubling_betas(p_ref, eps, r)
    p_ref, eps = float(p_ref), float(eps)
    ks = range(1, min(n_checked, r.size) + 1)
    error = max((abs(float(critical_orbit_logit(p_ref, r[k - 1], eps, n=2**k))) for k in ks), default=0.0)
    earliest = min(
        (abs(float(critical_orbit_logit(p_ref, r[k - 1], eps, n=2**j))) for k in ks for j in range(k)), default=np.inf
    )
    rows = [[k + 1, 2 ** (k + 1), b[k], r[k], b[k] - b[k + 1] if k + 1 < b.size else np.nan] for k in range(b.size)]
    interleaved = bool(np.all(b > r) and np.all(b[1:] < r[:-1]))
    return Cascade(p_ref, eps, b, r, interleaved, error, earliest, rows)
