"""grpo_nb.family: advantages, losses, what each normalisation climbs, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from grpo_nb import family
from grpo_nb.advantage import group_advantage


def test_every_method_has_an_advantage_of_the_groups_shape() -> None:
    r = np.array([[1.0, 0, 0, 1], [1, 1, 1, 1]])
    for name in family.METHOD_NAMES:
        assert family.advantage(name, r).shape == r.shape
    assert np.allclose(family.advantage("grpo", r, form="trl"), group_advantage(r, "trl"))


def test_rloo_is_dr_grpo_times_g_over_g_minus_1_and_not_without_the_factor() -> None:
    r = np.array([[1.0, 0, 0, 1, 1]])
    assert np.allclose(family.advantage("rloo", r), 5 / 4 * family.advantage("dr_grpo", r))
    assert not np.allclose(family.advantage("rloo", r), family.advantage("dr_grpo", r))
    assert all(i.holds for i in family.rloo_identity(4))
    assert not any(i.holds for i in family.rloo_identity(4, claimed={"factor": 1}))


def test_climbed_functions_hold_and_arcsin_to_log_fails() -> None:
    assert all(i.holds for i in family.climbed_gradients())
    wrong = family.climbed_gradients({"std_eps0": family.CLIMBED["log"]})
    assert [i.holds for i in wrong] == [True, False, True, True]
    p = np.linspace(0.1, 0.9, 9)
    h = 1e-6
    for norm in family.NORMALISATIONS:
        slope = (family.climbed(p + h, norm, 1e-3) - family.climbed(p - h, norm, 1e-3)) / (2 * h)
        assert np.allclose(slope, family.gap(p, norm, 1e-3), rtol=1e-6)


def test_loss_gradient_is_the_derivative_of_the_loss_where_there_is_no_stop_gradient() -> None:
    rng = np.random.default_rng(3)
    logp = np.log(rng.uniform(0.1, 0.9, (3, 4)))
    kw = {"old_logp": logp + rng.normal(0, 0.1, (3, 4)), "ref_logp": logp + 0.2, "mask": np.ones((3, 4))}
    adv = rng.normal(size=3)
    for name in ("grpo", "dr_grpo", "bnpo", "gspo", "dapo"):
        beta = 0.0 if name in ("gspo", "dapo") else 0.1
        out = family.loss(name, logp, adv, beta=beta, clip_eps=np.inf, clip_eps_high=np.inf, **kw)
        num = np.zeros_like(logp)
        for idx in np.ndindex(logp.shape):
            d = np.zeros_like(logp)
            d[idx] = 1e-6
            up = family.loss(name, logp + d, adv, beta=beta, clip_eps=np.inf, clip_eps_high=np.inf, **kw).value
            down = family.loss(name, logp - d, adv, beta=beta, clip_eps=np.inf, clip_eps_high=np.inf, **kw).value
            num[idx] = (up - down) / 2e-6
        assert np.allclose(out.grad, num, atol=1e-8), name


def test_success_only_recursion_fixed_point() -> None:
    rec = family.SuccessOnlyRecursion()
    fp = rec.fixed_points_grid(np.array([0.01, 0.3]), np.array([0.5, 2.0]), 0.0)
    z = fp.logits[..., 0]
    a = np.log([0.01 / 0.99, 0.3 / 0.7])
    assert np.allclose(rec(z, a, np.array([0.5, 2.0]), 0.0), z)


def test_forward_kl_step_is_not_the_gibbs_step() -> None:
    from grpo_nb.dynamics.map import iterate

    assert abs(family.forward_kl_success(0.3, 0.3, 0.5, 1e-5) - iterate(0.3, 0.5, 1e-5, 1)[1]) > 0.05


@pytest.mark.parametrize(
    ("call", "word"),
    [
        (lambda: family.advantage("ppo", [[1.0, 0.0]]), "name"),
        (lambda: family.advantage("grpo", [1.0, 0.0]), "rewards"),
        (lambda: family.advantage("grpo", [[1.0, 0.5]]), "rewards"),
        (lambda: family.advantage("grpo", [[1.0, 0.0]], form="x"), "form"),
        (lambda: family.advantage("dr_grpo", [[1.0, 0.0]], eps=0.1), "eps"),
        (lambda: family.loss("rloo", np.zeros((2, 2)) - 1, np.zeros(2), beta=0.1), "beta"),
        (lambda: family.loss("grpo", np.zeros((2, 2)) - 1, np.zeros(3)), "advantages"),
        (lambda: family.loss("grpo", np.zeros((2, 2)) - 1, np.zeros(2), mask=np.zeros((2, 2))), "mask"),
        (lambda: family.gap(0.0, "log"), "p"),
        (lambda: family.gap(0.5, "sqrt"), "normalisation"),
    ],
)
def test_bad_input_raises_value_error_naming_it(call, word) -> None:
    with pytest.raises(ValueError, match=word):
        call()
