"""The success recursion's orbits repeat bit for bit on any x86-64 CPU, chaotic ones included.

In a chaotic regime one last bit sends an orbit elsewhere within a few dozen steps, and numpy's exp and log round
their last bit differently on different CPUs (numpy ships AVX-512 versions next to the C library's). The logit map's
one transcendental step therefore goes through scipy's ``expit`` (the C library's exp, one number at a time;
``grpo_nb.dynamics.map.bernoulli_variance_of_logit``). Checked here by moving every result of numpy's
transcendental functions one unit in the last place (as ``tests/chapters/chapter_runs.py`` does in a chapter's
kernel): the orbits, their kinds and periods do not move; with numpy's exp in the map they do (the negative test).
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from grpo_nb.dynamics import map as dmap
from grpo_nb.dynamics import orbit_kind
from tests.chapters.chapter_runs import ONE_ULP_NAMES, ONE_ULP_NUMPY

CHAOTIC = (1e-4, 5.2, 1e-5)  # hard_prompts' chaotic example
CASES = [CHAOTIC, (1e-3, 5.0, 1e-5), (1e-4, 5.528, 1e-5), (0.3, 2.0, 1e-2), (1e-6, 8.0, 1e-5)]


@contextmanager
def numpy_one_ulp_off():
    saved = {name: getattr(np, name) for name in ONE_ULP_NAMES}
    exec(ONE_ULP_NUMPY, {})  # numpy's part only: torch's would stay moved in this process
    try:
        yield
    finally:
        for name, f in saved.items():
            setattr(np, name, f)


def test_the_perturbation_moves_numpy_and_leaves_this_process_as_it_was():
    import torch

    x = np.linspace(-3.0, 3.0, 101) + 0.1
    with numpy_one_ulp_off():
        moved = np.exp(x)
    assert (moved != np.exp(x)).all()
    assert not torch._C._is_torch_function_mode_enabled()  # torch's part would move every later test's torch.exp


def test_orbits_do_not_depend_on_numpys_last_bits():
    for case in CASES:
        z = dmap.iterate_logit(*case, n=3000)
        with numpy_one_ulp_off():
            z_moved = dmap.iterate_logit(*case, n=3000)
        assert np.array_equal(z, z_moved), case
        kind = orbit_kind(*case)
        with numpy_one_ulp_off():
            kind_moved = orbit_kind(*case)
        assert (kind.kind, kind.period) == (kind_moved.kind, kind_moved.period), case
        assert abs(kind.lyapunov - kind_moved.lyapunov) < 1e-9, case


def test_with_numpys_exp_in_the_map_a_chaotic_orbit_moves(monkeypatch):
    def numpy_variance(z):
        e = np.exp(-np.abs(z))
        return e / (1.0 + e) ** 2

    monkeypatch.setattr(dmap, "bernoulli_variance_of_logit", numpy_variance)
    z = dmap.iterate_logit(*CHAOTIC, n=3000)
    with numpy_one_ulp_off():
        z_moved = dmap.iterate_logit(*CHAOTIC, n=3000)
    assert not np.array_equal(z, z_moved)
    assert np.abs(z - z_moved).max() > 1.0  # not a last-bit difference: the orbits have parted
