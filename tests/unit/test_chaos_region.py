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


def test_lyapunov_map_figure_draws() -> None:
    import matplotlib.pyplot as plt

    from grpo_nb.dynamics.cycle_geometry import flip_curve, no_cycle_threshold
    from grpo_nb.plots.hard_prompt_regions import plot_lyapunov_map

    s = cr.chaos_survey(np.geomspace(1e-6, 1e-2, 5), np.geomspace(3.0, 15.0, 40), 1e-5)
    curves = {"p_c": no_cycle_threshold(s.map.beta, 1e-5), "p_up": flip_curve(s.map.beta, 1e-5)[1]}
    fig = plot_lyapunov_map(s.map, s.region.chaotic, curves, title="test")
    assert len(fig.axes) == 2 and not s.unconfirmed
    plt.close(fig)
