"""grpo_nb.dynamics.chaos_region: the Lyapunov map, the chaotic region, and the twin-orbit sensitivity test."""

from __future__ import annotations

import numpy as np
import pytest

from grpo_nb.dynamics import chaos_region as cr


def test_twin_orbits_separate_on_chaos_and_merge_on_a_cycle() -> None:
    chaos = cr.twin_orbit_growth(1e-4, 5.2, 1e-5)  # the chapter's chaotic case
    cycle = cr.twin_orbit_growth(1e-3, 5.0, 1e-5)  # the paper's 2-cycle
    assert chaos > 1e-2 and cycle < 1e-8


def test_twin_orbits_reject_bad_gap() -> None:
    with pytest.raises(ValueError, match="gap"):
        cr.twin_orbit_growth(1e-4, 5.2, 1e-5, gap=0.1)


def test_region_of_a_small_map() -> None:
    m = cr.lyapunov_map(np.geomspace(1e-6, 1e-1, 6), np.geomspace(2.0, 20.0, 120), 1e-5)
    r = cr.chaos_region(m)
    assert r.rows_with_chaos[:3].all() and not r.rows_with_chaos[-2:].any()
    assert 2 < r.beta_min < r.beta_max < 20
    with pytest.raises(ValueError, match="LyapunovMap"):
        cr.chaos_region("not a map")
