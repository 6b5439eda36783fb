"""grpo_nb.symbolic.parametric (§5, App. C): Theorem 5 under Assumption 1, and checks that can fail."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_nb.symbolic import parametric as pa
from grpo_nb.symbolic.identity import Identity, checks_table
from grpo_nb.tabular.policy import total_variation


def _all_hold(result: Identity | list[Identity]) -> bool:
    items = result if isinstance(result, list) else [result]
    return bool(items) and all(isinstance(i, Identity) and i.holds for i in items)


# ---- Theorem 5 ----------------------------------------------------------------------------------


def test_theorem5_checks_hold() -> None:
    assert _all_hold(pa.theorem5_success_gap_vs_tv(n_pairs=300))
    assert _all_hold(pa.theorem5_telescoped_bound(n=20, seed=1))
    assert _all_hold(pa.theorem5_limit_need_not_exist())


@settings(deadline=None, max_examples=50)
@given(seed=st.integers(0, 10_000), m=st.integers(2, 9))
def test_success_gap_at_most_tv(seed: int, m: int) -> None:
    rng = np.random.default_rng(seed)
    a, b = rng.dirichlet(np.ones(m), size=2)
    reward = rng.integers(0, 2, size=m)
    assert abs(np.dot(a - b, reward)) <= total_variation(a, b) + 1e-12


def test_theorem5_bad_input() -> None:
    with pytest.raises(ValueError, match="a.shape"):
        total_variation(np.ones(3) / 3, np.ones(4) / 4)
    with pytest.raises(ValueError, match="a="):
        total_variation(np.array([np.nan, 1.0]), np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="b="):
        total_variation(np.array([0.5, 0.5]), np.array([-0.5, 1.5]))
    with pytest.raises(ValueError, match="n_outcomes"):
        pa.theorem5_success_gap_vs_tv(n_outcomes=1)
    with pytest.raises(ValueError, match="n_pairs"):
        pa.theorem5_success_gap_vs_tv(n_pairs=0)
    with pytest.raises(ValueError, match="beta"):
        pa.theorem5_telescoped_bound(beta=-2.0)
    with pytest.raises(ValueError, match="p_ref"):
        pa.theorem5_limit_need_not_exist(p_ref=1.5)
    with pytest.raises(ValueError, match="c="):
        pa.theorem5_limit_need_not_exist(c=0.6)


def test_checks_table_keeps_one_row_per_check_with_pipes_escaped() -> None:
    items = pa.theorem5_success_gap_vs_tv(n_pairs=50)
    table = checks_table(items).data
    lines = table.splitlines()
    assert len(lines) == len(items) + 2
    assert all(line.count(" | ") == 3 for line in lines[2:])  # |p~ - p| in names is escaped


def test_theorem5_checks_can_fail() -> None:
    assert not pa.theorem5_success_gap_vs_tv(n_pairs=300, factor=0.5)[0].holds
    # the per-step errors are given in advance: claiming smaller ones breaks Assumption 1 on the same run
    assert not pa.theorem5_telescoped_bound(n=20, claimed_delta_scale=0.1)[0].holds
    # in the paper's cycling regime the map amplifies carried errors (|h'| > 1): Assumption 1 fails by itself
    assert not pa.theorem5_telescoped_bound(p_ref=0.001, beta=5.0, n=20)[0].holds
