"""grpo_nb.family: advantages, losses, what each normalisation climbs, and bad input."""

from __future__ import annotations

import re

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


# ---- one record per method ------------------------------------------------------------------------------------------


def _new_method(**changes) -> family.Method:
    """A method outside the table, every field given, the categorical ones as strings (converted at creation)."""
    fields = {
        "name": "loo_token",
        "label": "leave-one-out, token ratio",
        "cite": "kool2019buy4",
        "centring": "leave_one_out",
        "scaling": "none",
        "ratio": "token",
        "clip": "clip_higher",
        "clip_range": (0.1, 0.3),
        "kl": "loss",
        "kl_estimator": "k3",
        "aggregation": "local_tokens",
        "silent_groups": "zero advantage, kept",
        "trl_trainer": "GRPOTrainer",
        "trl_flags": {"loss_type": "bnpo", "epsilon": 0.1, "epsilon_high": 0.3},
        "trl_note": "the same loss as `bnpo` at another clip range",
    }
    return family.Method(**(fields | changes))


def _batch(seed: int = 5) -> tuple[np.ndarray, np.ndarray, dict]:
    rng = np.random.default_rng(seed)
    logp = np.log(rng.uniform(0.1, 0.9, (4, 5)))
    mask = (np.arange(5)[None, :] < np.array([[5], [3], [2], [4]])).astype(float)
    kw = {"old_logp": logp + rng.normal(0, 0.4, (4, 5)), "ref_logp": logp + 0.2, "mask": mask}
    return logp, rng.normal(size=4), kw


def test_a_record_renders_its_trl_column_from_its_flags_or_its_trainer() -> None:
    """What the family table prints in its TRL column is the record's: its flags, else its trainer, else nothing."""
    assert family.method("dapo").trl == 'loss_type="dapo", epsilon_high=0.28, beta=0'
    assert family.method("gspo").trl.endswith("epsilon=0.0003, epsilon_high=0.0004")
    assert (family.method("rloo").trl, family.method("reinforce_pp").trl) == ("RLOOTrainer", "")
    assert family.method("dapo").trl_config == {"loss_type": "dapo", "epsilon_high": 0.28, "beta": 0}
    assert all(m.trl_note for m in family.METHODS)
    assert family.method(family.method("gspo")) is family.method("gspo")


def test_a_new_record_is_converted_and_read_by_advantage_and_loss() -> None:
    new = _new_method()
    assert new.centring is family.Centring.LEAVE_ONE_OUT and new.aggregation is family.Aggregation.LOCAL_TOKENS
    assert new.clip is family.Clip.CLIP_HIGHER and new.trl_trainer is family.TRLTrainer.GRPO
    assert new.trl == 'loss_type="bnpo", epsilon=0.1, epsilon_high=0.3'
    r = np.array([[1.0, 0, 0, 1], [1, 1, 1, 0]])
    assert np.array_equal(family.advantage(new, r), family.advantage("rloo", r))
    with pytest.raises(ValueError, match="eps"):
        family.advantage(new, r, eps=0.1)  # no scaling, no eps
    logp, adv, kw = _batch()
    # token ratio, the clip of grpo_nb.clipping, k3 in the loss, the local batch's tokens: BNPO's pieces at its range
    out = family.loss(new, logp, adv, beta=0.1, n_tokens=100.0, **kw)
    bnpo = family.loss("bnpo", logp, adv, beta=0.1, clip_eps=0.1, clip_eps_high=0.3, **kw)
    assert out.value == bnpo.value and np.array_equal(out.grad, bnpo.grad)
    assert out.value != family.loss(new, logp, adv, beta=0.1, clip_eps=0.2, clip_eps_high=0.2, **kw).value
    tokens = family.loss(_new_method(aggregation="batch_tokens"), logp, adv, beta=0.1, n_tokens=100.0, **kw)
    assert tokens.value == pytest.approx(out.value * kw["mask"].sum() / 100.0, rel=1e-12)
    weight = family.loss(_new_method(clip="is_weight", clip_range=(0.2, 5.0)), logp, adv, **kw)
    cispo = family.loss("cispo", logp, adv, n_tokens=kw["mask"].sum(), **kw)
    assert weight.value == pytest.approx(cispo.value, rel=1e-12)
    with pytest.raises(ValueError, match="beta"):
        family.loss(_new_method(kl="reward", kl_estimator="k1"), logp, adv, beta=0.1, **kw)


def test_bnpo_counts_its_own_tokens_and_dapo_the_generation_batchs() -> None:
    logp, adv, kw = _batch()
    n = 2.0 * kw["mask"].sum()
    for name, scale in (("bnpo", 1.0), ("dapo", 0.5)):
        alone, given = (family.loss(name, logp, adv, n_tokens=t, **kw).value for t in (None, n))
        assert given == pytest.approx(scale * alone, rel=1e-12), name


@pytest.mark.parametrize(
    ("field", "enum"),
    [
        ("centring", family.Centring),
        ("scaling", family.Scaling),
        ("ratio", family.Ratio),
        ("clip", family.Clip),
        ("kl", family.KLPlacement),
        ("kl_estimator", family.KLEstimator),
        ("aggregation", family.Aggregation),
        ("silent_groups", family.SilentGroups),
        ("trl_trainer", family.TRLTrainer),
    ],
)
def test_an_unknown_value_of_each_enumerated_field_fails_at_creation(field: str, enum) -> None:
    valid = next(iter(enum)).value
    with pytest.raises(ValueError, match=rf"{field}='sideways' is not valid; valid values are .*'{re.escape(valid)}'"):
        _new_method(**{field: "sideways"})
    assert getattr(_new_method(**{field: valid}), field) is next(iter(enum))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"trl_flags": {"loss type": "bnpo"}}, "trl_flags="),
        ({"trl_flags": (("loss_type", None),)}, "trl_flags="),
        ({"trl_flags": ("loss_type",)}, "trl_flags="),
        ({"trl_trainer": "RLOOTrainer"}, "trl_trainer='RLOOTrainer'"),
        ({"trl_note": ""}, "trl_note=''"),
        ({"trl_note": "two\nlines"}, "trl_note="),
        ({"trl_note": "a | b"}, "trl_note='a | b'"),
        ({"trl_note": None}, "trl_note=None"),
    ],
)
def test_trl_flags_trl_cannot_take_or_a_note_that_breaks_its_table_fail_at_creation(changes, message) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        _new_method(**changes)
    assert _new_method(trl_trainer="RLOOTrainer", trl_flags=()).trl == "RLOOTrainer"
    with pytest.raises(TypeError, match="trl_note"):
        family.Method(
            *(
                getattr(family.method("grpo"), f)
                for f in family.Method.__dataclass_fields__
                if f not in ("trl_note", "gate")
            )
        )


def test_a_bad_clip_range_or_an_advantage_without_a_rule_fails() -> None:
    with pytest.raises(ValueError, match="clip_eps"):
        _new_method(clip_range=(-0.1, 0.2))
    with pytest.raises(ValueError, match="clip='none'"):
        _new_method(clip="none")
    assert _new_method(clip="none", clip_range=(np.inf, np.inf)).clip_range == (np.inf, np.inf)
    odd = _new_method(centring="batch", scaling="group_std")
    with pytest.raises(ValueError, match=r"\('batch', 'group_std'\) of name='loo_token' has no advantage rule"):
        family.advantage(odd, [[1.0, 0.0]])
    assert set(family.ADVANTAGE_RULES) == {(m.centring, m.scaling) for m in family.METHODS}


# ---- the new rows: SAPO, VESPO, MaxRL, GDPO -------------------------------------------------------------------------


def test_sapo_gradient_is_the_derivative_of_its_loss_and_its_gate_is_one_on_policy() -> None:
    """SAPO has no stop-gradient: its closed-form gradient is the finite-difference one; VESPO's is not (its weight is
    detached), and equals phi(w) A over the token count."""
    logp, adv, kw = _batch()
    out = family.loss("sapo", logp, adv, **kw)
    num = np.zeros_like(logp)
    for idx in np.ndindex(logp.shape):
        d = np.zeros_like(logp)
        d[idx] = 1e-6
        num[idx] = (
            family.loss("sapo", logp + d, adv, **kw).value - family.loss("sapo", logp - d, adv, **kw).value
        ) / 2e-6
    assert np.allclose(out.grad, num * kw["mask"], atol=1e-8)
    gate, slope = family.soft_gate(np.ones(2), np.array([1.0, -1.0]), family.method("sapo").gate_config)
    assert np.allclose(slope, 1.0) and np.allclose(gate * np.array([1.0, 1.05]), 2.0)
    vespo = family.loss("vespo", logp, adv, **kw)
    phi = family.gamma_weight(
        logp - kw["old_logp"], kw["mask"], adv[:, None], params=family.method("vespo").gate_config
    )
    assert np.allclose(vespo.grad, -phi * adv[:, None] * kw["mask"] / kw["mask"].sum())


def test_vespo_weight_is_one_on_policy_peaks_at_k_over_lambda_and_is_clamped() -> None:
    params = family.method("vespo").gate_config
    mask = np.ones((1, 1))
    phi = [family.gamma_weight(np.log([[w]]), mask, np.array([[1.0]]), params=params)[0, 0] for w in (1.0, 2 / 3)]
    assert abs(phi[0] - 1) < 1e-15 and phi[1] > 1  # the A >= 0 kernel (k, lambda) = (2, 3) peaks at w = 2/3
    assert np.isfinite(
        family.gamma_weight(np.full((1, 40), 30.0), np.ones((1, 40)), np.ones((1, 1)), params=params)
    ).all()


def test_maxrl_and_gdpo_advantages() -> None:
    r = np.array([[1.0, 0, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1]])
    assert np.array_equal(family.advantage("maxrl", r), [[3, -1, -1, -1], [0, 0, 0, 0], [0, 0, 0, 0]])
    gdpo = family.advantage("gdpo", r, form="trl")
    assert np.allclose(gdpo, family.batch_normalised(family.advantage("grpo", r, form="trl")))
    assert np.allclose(gdpo[1:], 0) and abs(gdpo.std(ddof=1) - 1) < 1e-3
    with pytest.raises(ValueError, match="eps"):
        family.advantage("maxrl", r, eps=1e-3)


def test_multi_reward_aggregations_and_bad_input() -> None:
    r = np.array([[[1.0, 1], [0, 1], [0, 0], [1, 0]]])
    one = family.multi_reward_advantage(r[..., :1])  # one reward: GDPO is GRPO (TRL's form) batch-normalised
    assert np.allclose(one, family.advantage("gdpo", r[..., 0], form="trl"))
    total = family.multi_reward_advantage(r, aggregation="sum_then_normalize")
    s = r.sum(axis=2)
    assert np.allclose(total, (s - s.mean()) / (s.std(ddof=1) + 1e-4))
    for bad, word in ((np.ones((2, 4)), "shape"), (r * 2, "rewards")):
        with pytest.raises(ValueError, match=word):
            family.multi_reward_advantage(bad)
    with pytest.raises(ValueError, match="weights"):
        family.multi_reward_advantage(r, weights=[1.0])
    with pytest.raises(ValueError, match="aggregation"):
        family.multi_reward_advantage(r, aggregation="mean")


def test_a_soft_weighting_needs_its_own_parameters() -> None:
    with pytest.raises(ValueError, match="gate="):
        _new_method(clip="soft_gate", clip_range=(np.inf, np.inf))  # no temperatures
    with pytest.raises(ValueError, match="gate="):
        _new_method(clip="soft_gate", clip_range=(np.inf, np.inf), gate={"temperature_pos": 1.0, "k_pos": 2.0})
    with pytest.raises(ValueError, match="gate="):
        _new_method(gate={"temperature_pos": 1.0})  # a hard clip takes no gate
    with pytest.raises(ValueError, match="clip_range"):
        _new_method(clip="gamma_weight", gate=family.method("vespo").gate)
    sapo = _new_method(clip="soft_gate", clip_range=(np.inf, np.inf), gate={"temperature_pos": 2, "temperature_neg": 3})
    assert sapo.gate_config == {"temperature_pos": 2.0, "temperature_neg": 3.0}
