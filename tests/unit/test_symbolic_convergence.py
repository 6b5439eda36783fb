"""grpo_nb.symbolic.convergence (§4, App. B): Theorems 4 and 6 on explicit cases, and checks that can fail."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_nb.symbolic import convergence as cv
from grpo_nb.symbolic.identity import Identity


def _all_hold(result: Identity | list[Identity]) -> bool:
    items = result if isinstance(result, list) else [result]
    return bool(items) and all(isinstance(i, Identity) and i.holds for i in items)


# ---- Theorems 4 and 6 ---------------------------------------------------------------------------


@pytest.mark.parametrize("args", [(0.3, 10.0, 1e-5), (0.1, 2.0, 1e-5), (0.8, 5.0, 1e-5), (0.2, 1.0, 1e-2)])
def test_local_contraction_and_convergence(args: tuple) -> None:
    checks = cv.theorem6_local_contraction(*args)
    assert checks and _all_hold(checks)
    for c in cv.local_contraction(*args):
        assert c.k < 1 and c.lo < c.p_star < c.hi and c.sup_slope <= c.k
    assert cv.theorem4_local_convergence(*args).holds


def test_theorem4_is_local_a_two_cycle_reaches_no_interval() -> None:
    # the paper's "divergent" case: the orbit settles on a 2-cycle, not on a fixed point
    assert not cv.theorem4_local_convergence(0.001, 5.0, 1e-5).holds


@settings(deadline=None, max_examples=25)
@given(p_ref=st.floats(0.02, 0.98), beta=st.floats(1.0, 20.0), eps=st.sampled_from([1e-5, 1e-3, 1e-2]))
def test_theorem6_holds_wherever_a_stable_fixed_point_is_examined(p_ref: float, beta: float, eps: float) -> None:
    assert all(i.holds for i in cv.theorem6_local_contraction(p_ref, beta, eps))


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"p_ref": 1.0, "beta": 1.0, "eps": 0.1}, "p_ref"),
        ({"p_ref": 0.5, "beta": 0.0, "eps": 0.1}, "beta"),
        ({"p_ref": 0.5, "beta": 1.0, "eps": np.nan}, "eps"),
        ({"p_ref": 0.5, "beta": 1.0, "eps": 0.1, "n": 0}, "n=0"),
    ],
)
def test_local_contraction_bad_input(kwargs: dict, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        cv.local_contraction(**kwargs)


def test_theorem4_bad_input() -> None:
    with pytest.raises(ValueError, match="n"):
        cv.theorem4_local_convergence(0.3, 1.0, 0.1, n=-3)
    with pytest.raises(ValueError, match="p_ref"):
        cv.theorem4_local_convergence(-0.3, 1.0, 0.1)


def test_theorem6_rejects_a_contraction_constant_below_the_slope() -> None:
    (interval,) = cv.local_contraction(0.8, 5.0, 1e-5)
    assert all(i.holds for i in cv.theorem6_local_contraction(0.8, 5.0, 1e-5))
    wrong = cv.theorem6_local_contraction(0.8, 5.0, 1e-5, claimed_k=0.5 * abs(interval.slope))
    assert wrong and not any(i.holds for i in wrong)
