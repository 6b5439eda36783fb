"""The analyses and corrected claims of "Stabilised GRPO" (:mod:`grpo_nb.chapters.stabilised_grpo`): each passes on
the claim the page makes and fails when fed the former one (a wrong formula or a wrong number)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from scipy.stats import binom

from grpo_nb.chapters import stabilised_grpo
from grpo_nb.symbolic import effective_loss as proofs
from grpo_nb.weights import omega_minus, omega_plus, stabilised_advantage

EPS = 1e-5


def _eq5_verdict(bias: stabilised_grpo.GroupBias) -> None:
    """The asserts of the cell under "Why the importance ratio can be dropped" (finite groups)."""
    assert np.abs(bias.mean_exact_p / bias.eq5 - 1).max() < 1e-12
    assert np.abs(bias.ratio - bias.retention).max() < 1e-12 and (bias.ratio < 0.99).all()


def test_importance_weighted_group_average_is_unbiased_only_with_the_exact_p():
    bias = stabilised_grpo.importance_weighted_bias(0.9, 0.95, (2, 8, 64), eps=EPS)
    _eq5_verdict(bias)
    g8 = bias.groups.index(8)
    assert f"{bias.mean_p_hat[g8]:.4f}" == "0.1164" and f"{bias.eq5:.4f}" == "0.1667"
    assert f"{bias.ratio[g8]:.3f}" == "0.698"
    # the former sentence, "an unbiased estimate of the on-policy objective" with Algorithm 1's p_hat, fails here
    assert not np.allclose(bias.mean_p_hat, bias.eq5, rtol=1e-2)


def test_the_ratio_does_not_depend_on_the_new_policy():
    ratios = [stabilised_grpo.importance_weighted_bias(0.3, q, (8,), eps=EPS).ratio[0] for q in (0.1, 0.5, 0.99)]
    assert np.ptp(ratios) < 1e-12


def test_eq5_verdict_fails_on_the_unbiased_claim(monkeypatch):
    # the former claim, as a formula: no shrinkage, rho_G = 1
    monkeypatch.setattr(stabilised_grpo, "signal_retention", lambda p, G, eps: 1.0)
    with pytest.raises(AssertionError):
        _eq5_verdict(stabilised_grpo.importance_weighted_bias(0.9, 0.95, (2, 8, 64), eps=EPS))


def test_eq5_verdict_fails_when_the_group_advantage_uses_the_exact_p(monkeypatch):
    # an advantage that secretly knows p_old makes the estimate unbiased, and the chapter's "shrunk" assert fails
    monkeypatch.setattr(stabilised_grpo, "group_advantage", lambda r, form, eps: stabilised_advantage(r, 0.9, eps))
    bias = stabilised_grpo.importance_weighted_bias(0.9, 0.95, (8,), eps=EPS)
    assert np.allclose(bias.mean_p_hat, bias.eq5, rtol=1e-12)
    with pytest.raises(AssertionError):
        _eq5_verdict(bias)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"p_old": 0.0, "p_theta": 0.5, "groups": (8,)}, "p_old"),
        ({"p_old": 0.5, "p_theta": 1.5, "groups": (8,)}, "p_theta"),
        ({"p_old": 0.5, "p_theta": 0.5, "groups": (1,)}, "G"),
    ],
)
def test_importance_weighted_bias_rejects_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        stabilised_grpo.importance_weighted_bias(**kwargs, eps=EPS)


def test_most_groups_are_all_right_is_false_at_p_09():
    # the former "near p = 1 most groups are all right", read at the p = 0.9 it was quoted for: 43 %, not most
    assert binom.pmf(8, 8, 0.9) < 0.5 < binom.pmf(8, 8, 0.99)
    # the corrected threshold of "Stabilised GRPO": most groups have no success exactly below 1 - 2^(-1/G)
    p = np.linspace(1e-4, 0.5, 4_999)
    assert ((binom.pmf(0, 8, p) > 0.5) == (p < 1 - 2 ** (-1 / 8))).all()
    assert not ((binom.pmf(0, 8, p) > 0.5) == (p < 0.1)).all()  # a wrong threshold is rejected


def test_eq3_and_eq4_differ_by_less_than_three_eps_in_the_middle_not_by_eps():
    p = np.linspace(0.1, 0.9, 8_001)
    for eps in (1e-4, 1e-2):
        gap = np.abs(omega_plus(p, eps, eps_inside_root=False) / omega_plus(p, eps) - 1)
        assert (gap < 3 * eps).all()
        assert gap.max() > 1.5 * eps  # "agree to about eps" understated the gap near p = 0.1 and 0.9


def test_dr_grpo_scale_range_and_quoted_trl_gaps():
    forms = stabilised_grpo.compare_forms((2, 8, 64))
    for f in forms.gaps:
        assert f.scale_min == pytest.approx(np.sqrt(f.G - 1) / f.G) and f.scale_max == pytest.approx(0.5)
    assert [round(100 * f.predicted_trl, 1) for f in forms.gaps] == [29.3, 6.5, 0.8]


def test_smoothing_lowers_the_middle_by_the_quoted_factor():
    drop = [1 - omega_plus(0.5, e) / omega_plus(0.5, 0.0) for e in (1e-3, 1e-2, 1e-1)]
    assert [round(100 * d, 1 if d < 0.01 else 0) for d in drop] == [0.2, 2, 15]
    assert drop[-1] > 0.1  # "barely moves the middle" is false for eps = 0.1
    assert sp.simplify(proofs.ex.omega_plus().subs(proofs.P, sp.Rational(1, 2)) - 1 / sp.sqrt(1 + 4 * proofs.EPS)) == 0


def test_a_silent_group_has_zero_advantages_but_not_zero_weights():
    # k = 0 or k = G: the weight of the answers the group holds is 0, so every advantage is 0 ...
    for k in (0, 8):
        assert (stabilised_advantage(np.full(8, float(k == 8)), k / 8, EPS) == 0).all()
    assert omega_minus(0.0, EPS) == 0 and omega_plus(1.0, EPS) == 0
    # ... while the other weight is 1/sqrt(eps): the former "the weights vanish at k = 0 or G" fails
    weights = (omega_plus(0.0, EPS), omega_minus(1.0, EPS))
    assert not all(w == 0 for w in weights)
    assert all(w == pytest.approx(1 / np.sqrt(EPS)) for w in weights)
