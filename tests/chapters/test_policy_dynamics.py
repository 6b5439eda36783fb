"""The analyses of "Policy dynamics" (:mod:`grpo_nb.chapters.policy_dynamics`): the sign changes that count
the fixed points, the top fixed points under the cap, and the numerical solver against Theorem 1's closed form."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from grpo_nb.chapters import policy_dynamics as map_checks
from grpo_nb.dynamics.fixed_points import fixed_points_grid

P_REF = expit(np.linspace(-6, 6, 12))[:, None]


BETA = np.logspace(-1.5, 1.5, 12)[None, :]


def test_sign_change_counts_agree_with_fixed_points_and_reject_eps_zero():
    counts = map_checks.sign_change_counts(P_REF, BETA, 1e-5)
    assert np.array_equal(counts, fixed_points_grid(P_REF, BETA, 1e-5).counts)
    assert int(map_checks.sign_change_counts(0.001, 5.0, 1e-5)) == 3  # the book's three fixed points
    with pytest.raises(ValueError, match="eps"):
        map_checks.sign_change_counts(0.3, 1.0, 0.0)


def test_top_fixed_points_sit_below_the_cap():
    facts = map_checks.top_fixed_points([(0.5, 1.0, 1e-5), (0.3, 2.0, 1e-2)]).points
    assert all(f.logit_h1 == f.cap and f.top.logit <= f.cap for f in facts)
    assert facts[0].near_one and not facts[1].near_one


def test_solver_comparison_agrees_with_the_closed_form():
    cmp = map_checks.solver_comparison(np.random.default_rng(0), n_instances=3, n_outcomes=10)
    assert cmp.worst < 1e-6 and len(cmp.table.rows) == 3 and cmp.last.closed.shape == (10,)
