"""Tests of grpo_nb.toylm: the network, exact enumeration, sampling, the task, Theorem 1, Algorithm 1, CLI."""

from __future__ import annotations

import copy
import json
import pydoc
from dataclasses import fields, replace
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_nb.dynamics.map import h
from grpo_nb.toylm import configs
from grpo_nb.toylm.configs import BookTrainerConfig, ModelConfig, TaskConfig
from grpo_nb.toylm.cost import pick_config
from grpo_nb.toylm.experiment import prepare, run_experiment, run_grpo
from grpo_nb.toylm.grpo import (
    TaskTensors,
    contrastive_weights,
    group_advantage,
    k3_kl,
    omega_weights,
    train_grpo,
)
from grpo_nb.toylm.model import TinyLM
from grpo_nb.toylm.rollout import enumerate_logprobs, sample, sample_naive, token_logprobs
from grpo_nb.toylm.task import N_DIGITS, VOCAB_SIZE, make_task
from grpo_nb.toylm.theory import table_expected_reward, theorem1_logpolicy, total_variation
from grpo_nb.weights import omega_minus, omega_plus

torch.set_num_threads(1)

# the CLI's smoke configuration; these tests check the CPU path bit for bit, tests/unit/test_toylm_cuda.py checks CUDA
TINY = replace(configs.TINY, device="cpu")


def _model(out_len: int = 2, seed: int = 0) -> TinyLM:
    torch.manual_seed(seed)
    return TinyLM(ModelConfig(d_model=16, n_layer=2, n_head=2), VOCAB_SIZE, N_DIGITS, 4 + out_len).double()


def _prompts(n: int = 3) -> torch.Tensor:
    return torch.as_tensor(make_task(TaskConfig(n_prompts=n)).prompts)


# ---------------------------------------------------------------- model and rollouts


def test_model_is_causal():
    model = _model()
    seq = torch.tensor([[1, 10, 2, 11, 3, 4]])
    changed = seq.clone()
    changed[0, -1] = 9
    a, _ = model(seq)
    b, _ = model(changed)
    assert torch.allclose(a[:, :-1], b[:, :-1]) and not torch.allclose(a[:, -1], b[:, -1])


def test_kv_cache_matches_full_forward():
    model = _model()
    seq = torch.tensor([[1, 10, 2, 11, 3, 4], [5, 10, 6, 11, 7, 8]])
    full, _ = model(seq)
    logits, cache = model(seq[:, :4])
    parts = [logits]
    for t in range(4, 6):
        logits, cache = model(seq[:, t : t + 1], cache)
        parts.append(logits)
    assert torch.allclose(torch.cat(parts, dim=1), full, atol=1e-10)
    # a chunk of several new tokens with a cache uses the offset causal mask
    logits2, _ = model(seq[:, 4:], model(seq[:, :4])[1])
    assert torch.allclose(logits2, full[:, 4:], atol=1e-10)


@pytest.mark.parametrize("out_len", [2, 3])
def test_enumeration_is_a_distribution_and_matches_teacher_forcing(out_len):
    model = _model(out_len)
    task = make_task(TaskConfig(n_prompts=3, out_len=out_len))
    prompts, outputs = torch.as_tensor(task.prompts), torch.as_tensor(task.outputs)
    table = enumerate_logprobs(model, prompts, outputs)
    assert table.shape == (3, 10**out_len)
    assert torch.allclose(torch.logsumexp(table, dim=1), torch.zeros(3, dtype=table.dtype), atol=1e-10)
    rows = torch.randint(0, len(outputs), (20,), generator=torch.Generator().manual_seed(0))
    tf = token_logprobs(model, prompts[[1] * 20], outputs[rows]).sum(dim=1)
    assert torch.allclose(tf, table[1, rows], atol=1e-10)


@pytest.mark.parametrize("sampler", [sample, sample_naive])
def test_samplers_follow_the_policy(sampler):
    model = _model()
    prompts = _prompts(1)
    n = 1500 if sampler is sample else 300
    out = sampler(model, prompts.repeat(n, 1), 2, generator=torch.Generator().manual_seed(1))
    assert out.shape == (n, 2) and out.min() >= 0 and out.max() < N_DIGITS
    probs = enumerate_logprobs(model, prompts, torch.as_tensor(make_task(TaskConfig()).outputs)).exp()
    first = probs.detach().view(10, 10).sum(dim=1).numpy()
    freq = np.bincount(out[:, 0].numpy(), minlength=10) / n
    assert np.abs(freq - first).max() < 4 * np.sqrt(0.25 / n)


def test_sampling_is_seeded():
    model = _model()
    prompts = _prompts(2).repeat(8, 1)
    a = sample(model, prompts, 2, generator=torch.Generator().manual_seed(3))
    b = sample(model, prompts, 2, generator=torch.Generator().manual_seed(3))
    assert torch.equal(a, b)


# ---------------------------------------------------------------- task


def test_task_rewards_and_graded_noise():
    task = make_task(TaskConfig(n_prompts=10, out_len=2, noise_min=0.0, noise_max=1.0))
    table = task.reward_table()
    a, b = task.prompts[:, 0], task.prompts[:, 2]
    assert np.array_equal(task.targets, a + b)
    for i in range(task.n_prompts):
        correct = task.outputs[table[i] == 1]
        assert (correct.sum(axis=1) == a[i] + b[i]).all()
        assert table[i].sum() == min(a[i] + b[i], 18 - a[i] - b[i]) + 1
    assert np.allclose(np.sort(task.noise), np.linspace(0.0, 1.0, 10))
    idx, ans = task.demonstrations(np.random.default_rng(0))
    r = task.reward(idx, ans)
    clean = task.noise[idx] == 0.0
    assert clean.any() and (r[clean] == 1).all()
    assert np.array_equal(task.reward(idx, ans), table[idx, ans @ np.array([10, 1])])


@pytest.mark.parametrize(
    ("change", "name"),
    [
        ({"n_prompts": 0}, "n_prompts"),
        ({"n_prompts": 101}, "n_prompts"),
        ({"out_len": 1}, "out_len"),
        ({"demos_per_prompt": 0}, "demos_per_prompt"),
        ({"noise_min": 0.5, "noise_max": 0.2}, "noise_min"),
        ({"noise_max": 1.5}, "noise_max"),
        ({"noise_min": float("nan")}, "noise_min"),
    ],
)
def test_task_rejects_bad_config(change, name):
    with pytest.raises(ValueError, match=name):
        make_task(replace(TaskConfig(), **change))


# ---------------------------------------------------------------- theory (Theorems 1, 2, 5)

tables = st.integers(min_value=0, max_value=2**31 - 1)


def _random_tables(seed: int, p: int = 3, k: int = 7) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    logits = rng.normal(scale=2.0, size=(p, k))
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    reward = (rng.random((p, k)) < 0.4).astype(float)
    reward[:, 0], reward[:, 1] = 1.0, 0.0
    return logp, reward


@settings(deadline=None, max_examples=50)
@given(tables, st.floats(0.05, 20.0), st.floats(0.0, 1.0), st.floats(0.001, 0.999))
def test_theorem1_policy_success_is_theorem2_map(seed, beta, eps, p_prev):
    logp_ref, reward = _random_tables(seed)
    p_ref = table_expected_reward(logp_ref, reward)
    logp_n = theorem1_logpolicy(logp_ref, reward, np.full(3, p_prev), beta, eps)
    assert np.allclose(np.exp(logp_n).sum(axis=1), 1.0)
    assert np.allclose(table_expected_reward(logp_n, reward), h(p_prev, p_ref, beta, eps), atol=1e-12)


@settings(deadline=None, max_examples=50)
@given(tables, tables)
def test_success_gap_is_bounded_by_total_variation(seed_a, seed_b):
    a, reward = _random_tables(seed_a)
    b, _ = _random_tables(seed_b)
    gap = np.abs(table_expected_reward(a, reward) - table_expected_reward(b, reward))
    tv = total_variation(a, b)
    assert (gap <= tv + 1e-12).all() and (tv <= 1 + 1e-12).all() and np.allclose(total_variation(a, a), 0)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"beta": 0.0}, "beta"),
        ({"beta": -1.0}, "beta"),
        ({"beta": float("nan")}, "beta"),
        ({"eps": -0.1}, "eps"),
        ({"p_prev": np.full(3, 1.5)}, "p"),
        ({"p_prev": np.full(3, np.nan)}, "p"),
        ({"reward": np.full((3, 7), 0.5)}, "reward"),
        ({"reward": np.ones((3, 6))}, "reward"),
        ({"logp_ref": np.zeros(7)}, "logp_ref"),
        ({"logp_ref": np.full((3, 7), np.nan)}, "logp_ref"),
        ({"logp_ref": np.ones((3, 7))}, "logp_ref"),
    ],
)
def test_theorem1_rejects_bad_input(kwargs, name):
    logp_ref, reward = _random_tables(0)
    args = {"logp_ref": logp_ref, "reward": reward, "p_prev": np.full(3, 0.3), "beta": 1.0, "eps": 0.01}
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        theorem1_logpolicy(**args)


@settings(deadline=None, max_examples=50)
@given(tables, st.floats(-1e-3, 1e-3), st.floats(0.0, 1.0))
def test_gap_bound_holds_for_tables_normalised_only_up_to_rounding(seed, mass, noise):
    """|p_a - p_b| <= TV(a, b) + |sum a - 1|/2 for a 0/1 reward, whatever the (small) mass error of a."""
    b, reward = _random_tables(seed)
    a = b + noise * np.random.default_rng(seed).normal(size=b.shape)
    a = a - np.log(np.exp(a).sum(axis=1, keepdims=True)) + np.log1p(mass)
    gap = np.abs(table_expected_reward(a, reward) - table_expected_reward(b, reward))
    bound = total_variation(a, b) + 0.5 * np.abs(np.exp(a).sum(axis=1) - 1)
    assert (gap <= bound + 1e-12).all()


def test_gap_bound_needs_its_mass_term():
    """Without the mass term the bound fails for a table that is too heavy on the successes."""
    b = np.log(np.array([[0.7, 0.3]]))
    reward = np.array([[1.0, 0.0]])
    a = b + np.log1p(1e-3)  # every answer 0.1 % heavier: sum a = 1.001
    gap = np.abs(table_expected_reward(a, reward) - table_expected_reward(b, reward))
    assert (gap > total_variation(a, b)).all()
    assert (gap <= total_variation(a, b) + 0.5 * np.abs(np.exp(a).sum(axis=1) - 1) + 1e-15).all()


def test_total_variation_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match="logp_a"):
        total_variation(np.zeros((2, 1)), np.zeros((3, 1)))


# ---------------------------------------------------------------- GRPO pieces


@settings(deadline=None, max_examples=30)
@given(st.lists(st.integers(0, 1), min_size=4, max_size=4), st.floats(1e-4, 1.0))
def test_stabilised_advantage_is_eq3(bits, eps):
    r = torch.tensor([bits], dtype=torch.float64)
    p = r.mean()
    adv = group_advantage(r, "paper", eps)
    expected = torch.where(r == 1, (1 - p) / torch.sqrt(p * (1 - p) + eps), -p / torch.sqrt(p * (1 - p) + eps))
    assert torch.allclose(adv, expected) and abs(float(adv.sum())) < 1e-12


def test_trl_advantage_uses_bessel_std_plus_1e4():
    r = torch.tensor([[1.0, 0.0, 0.0, 0.0]], dtype=torch.float64)
    std = np.sqrt(((np.array([1, 0, 0, 0]) - 0.25) ** 2).sum() / 3)
    assert torch.allclose(group_advantage(r, "trl", 1e-4), (r - 0.25) / (std + 1e-4))
    assert torch.all(group_advantage(torch.ones(1, 4), "trl", 1e-4) == 0)


@settings(deadline=None, max_examples=100)
@given(
    st.lists(st.floats(0.0, 1.0), min_size=1, max_size=8),
    st.one_of(st.just(0.0), st.floats(1e-12, 1.0), st.floats(1.0, 1e3)),
)
def test_torch_omega_weights_are_the_numpy_eq4(ps, eps):
    p = np.asarray(ps)
    if eps == 0.0:
        p = np.clip(p, 1e-9, 1 - 1e-9)  # Eq. 4 with eps = 0 is defined only for 0 < p < 1
    w_plus, w_minus = omega_weights(torch.as_tensor(p, dtype=torch.float64), eps)
    assert np.allclose(w_plus.numpy(), omega_plus(p, eps), rtol=1e-12, atol=0)
    assert np.allclose(w_minus.numpy(), omega_minus(p, eps), rtol=1e-12, atol=0)


def test_torch_omega_weights_check_can_fail():
    """The comparison above tells Eq. 4 from Eq. 3 as printed (eps outside the root)."""
    p = np.linspace(0.05, 0.95, 7)
    w_plus, _ = omega_weights(torch.as_tensor(p), 0.1)
    assert not np.allclose(w_plus.numpy(), omega_plus(p, 0.1, eps_inside_root=False), rtol=1e-12, atol=0)


def test_omega_weights_have_no_nan_where_eq4_is_undefined():
    """eps = 0 at p in {0, 1} (and p rounded just past 1): both weights 0, no NaN or inf, in float32 too."""
    for dtype in (torch.float32, torch.float64):
        p = torch.tensor([0.0, 1.0, 1.0 + 1e-7, 0.5], dtype=dtype)
        w_plus, w_minus = omega_weights(p, 0.0)
        assert torch.isfinite(w_plus).all() and torch.isfinite(w_minus).all()
        assert (w_plus[:3] == 0).all() and (w_minus[:3] == 0).all() and w_plus[3] == w_minus[3] == 1.0
    for eps in (1e-3, 1.0):
        assert torch.isfinite(torch.stack(omega_weights(torch.tensor([0.0, 1.0]), eps))).all()


def test_both_estimators_weigh_answers_with_the_same_helper():
    """The exact table omega^+ r - omega^- (1 - r) is Eq. (3)'s (r - p)/sqrt(p(1-p)+eps) for 0/1 rewards."""
    r = torch.tensor([[1.0, 0.0, 0.0, 1.0, 0.0]], dtype=torch.float64)
    p = torch.tensor([[0.3]], dtype=torch.float64)
    assert torch.allclose(contrastive_weights(p, r, 0.01), (r - p) / torch.sqrt(p * (1 - p) + 0.01), rtol=1e-14)
    assert torch.equal(group_advantage(r, "paper", 0.01), contrastive_weights(r.mean(dim=1, keepdim=True), r, 0.01))


def test_k3_is_nonnegative_and_zero_on_equality():
    lp = torch.log(torch.tensor([0.1, 0.5, 0.9]))
    ref = torch.log(torch.tensor([0.3, 0.5, 0.2]))
    k3 = k3_kl(lp, ref)
    assert (k3 >= 0).all() and k3[1] == 0 and (k3[[0, 2]] > 0).all()


@pytest.mark.parametrize(
    ("change", "name"),
    [
        ({"beta": 0.0}, "beta"),
        ({"eps": -1.0}, "eps"),
        ({"mu": 0}, "mu"),
        ({"n": 0}, "n=0"),
        ({"G": 1}, "G"),
        ({"lr": 0.0}, "lr"),
        ({"lr": float("nan")}, "lr"),
        ({"clip_eps": -0.2}, "clip_eps"),
        ({"clip_eps": float("nan")}, "clip_eps"),
        ({"estimator": "mc"}, "estimator"),
        ({"advantage": "dr"}, "advantage"),
        ({"kl": "k2"}, "kl"),
        # every other kind of bad value: not an integer, not a number, not finite, not a scalar, a wrong type
        ({"n": 1.5}, "n=1.5"),
        ({"mu": True}, "mu=True"),
        ({"lr": float("inf")}, "lr=inf"),
        ({"lr": "fast"}, "lr='fast'"),
        ({"beta": float("inf")}, "beta=inf"),
        ({"beta": [1.0, 2.0]}, "beta has shape"),
        ({"eps": float("nan")}, "eps=nan"),
        ({"clip_eps": [0.1, 0.2]}, "clip_eps has shape"),
        ({"advantage": None}, "advantage=None"),
        ({"G": 0}, "G=0"),
        ({"batch_prompts": 0}, "batch_prompts=0"),
        ({"batch_prompts": 2.0}, "batch_prompts=2.0"),
        ({"reset_optimizer": "yes"}, "reset_optimizer='yes'"),
        ({"clip_eps": 0.2, "clip_eps_high": -0.1}, "clip_eps_high"),
        ({"clip_eps": 0.2, "clip_eps_high": float("nan")}, "clip_eps_high=nan"),
        ({"clip_eps_high": 0.28}, "clip_eps_high=0.28 needs clip_eps"),
        ({"reward_signal": "noise"}, "reward_signal='noise'"),
        ({"reward_signal": "random"}, "reward_signal='random' with estimator='exact'"),
    ],
)
def test_a_bad_book_trainer_config_fails_at_creation(change, name):
    """Each field is checked when the configuration is made (not when training starts), directly or by ``replace``;
    the error names the field, its value and the valid range."""
    with pytest.raises(ValueError, match=name) as err:
        BookTrainerConfig(**change)
    assert "valid" in str(err.value)
    with pytest.raises(ValueError, match=name):
        replace(BookTrainerConfig(), **change)


def test_good_book_trainer_configs_are_made_unchanged():
    """The edges of the valid ranges pass, and a configuration keeps the values it was given."""
    values = {"n": 1, "mu": 1, "lr": 1e-12, "eps": 0.0, "clip_eps": float("inf"), "G": 2, "batch_prompts": 1}
    edge = BookTrainerConfig(**values)
    assert {name: getattr(edge, name) for name in values} == values
    for cfg in (configs.QUICK, configs.FULL, configs.TINY, configs.CYCLING):
        assert isinstance(cfg.grpo, BookTrainerConfig)


def test_every_book_trainer_field_has_help_text_shown_by_help():
    text = pydoc.render_doc(BookTrainerConfig, renderer=pydoc.plaintext)
    for f in fields(BookTrainerConfig):
        assert f.metadata["help"], f.name
        assert f"``{f.name}``" in BookTrainerConfig.__doc__ and f.metadata["help"] in " ".join(text.split()), f.name


def test_train_grpo_rejects_what_is_not_a_book_trainer_config():
    lookalike = SimpleNamespace(**{f.name: getattr(BookTrainerConfig(), f.name) for f in fields(BookTrainerConfig)})
    with pytest.raises(ValueError, match="cfg=.*BookTrainerConfig"):
        train_grpo(None, None, None, cfg=lookalike, generator=torch.Generator())


def test_train_grpo_rejects_a_generator_on_another_device():
    meta = torch.empty(2, 4, dtype=torch.long, device="meta")
    task = TaskTensors(
        meta, torch.empty(100, 2, dtype=torch.long, device="meta"), *[torch.empty(2, 100, device="meta")] * 2
    )
    with pytest.raises(ValueError, match="generator"):
        train_grpo(None, None, task, cfg=BookTrainerConfig(), generator=torch.Generator())


@pytest.fixture(scope="module")
def tiny_setup():
    return prepare(TINY, progress=False)


def test_sft_learns_the_demonstrations(tiny_setup):
    loss = tiny_setup.sft_loss
    assert loss[-1] < loss[0] and loss[-1] >= tiny_setup.sft_floor - 1e-9
    assert ((tiny_setup.p_ref > 0) & (tiny_setup.p_ref < 1)).all()


def test_exact_grpo_tracks_theory_and_obeys_theorem5(tiny_setup):
    run = run_grpo(tiny_setup, "t", replace(TINY.grpo, mu=40, lr=3e-3), seed=1, progress=False)
    assert run.p_tilde.shape == run.p_theory.shape == (3, 4) and run.one_step_tv.shape == (2, 4)
    assert np.allclose(run.p_tilde[0], tiny_setup.p_ref) and np.allclose(run.tv_to_ideal[0], 0, atol=1e-6)
    assert (run.gap <= run.gap_bound + 1e-12).all()  # |p~_n - p_n| <= TV(pi~_n, pi_n) + float32 mass error / 2
    assert np.abs(run.mass_error).max() < 1e-5
    assert run.gap.max() < 0.1  # a tiny network, 40 steps: loose but not vacuous
    weak = run_grpo(tiny_setup, "w", replace(TINY.grpo, mu=1, lr=1e-5), seed=1, progress=False)
    assert weak.gap[1:].mean() > run.gap[1:].mean()


@pytest.mark.parametrize(
    "change",
    [
        {"estimator": "sampled", "kl": "k3"},
        {"estimator": "sampled", "kl": "exact", "advantage": "trl", "clip_eps": 0.2},
        {"estimator": "sampled", "kl": "k3", "batch_prompts": 2, "reset_optimizer": False},
        {"estimator": "sampled", "kl": "k3", "clip_eps": 0.2, "clip_eps_high": 0.28},
        {"estimator": "sampled", "kl": "k3", "clip_eps": float("inf"), "clip_eps_high": 0.2},
        {"estimator": "sampled", "kl": "k3", "reward_signal": "random"},
    ],
)
def test_sampled_grpo_runs(tiny_setup, change):
    run = run_grpo(tiny_setup, "s", replace(TINY.grpo, **change), seed=2, progress=False)
    assert np.isfinite(run.p_tilde).all() and ((run.p_tilde >= 0) & (run.p_tilde <= 1)).all()
    assert run.sampled_tokens == TINY.grpo.n * min(change.get("batch_prompts") or 4, 4) * 4 * 2


def _sampled_history(setup, tensors, **change):
    """The log-policy history of one seeded sampled run of TINY (two outer steps, four inner steps each)."""
    policy = copy.deepcopy(setup.ref_model).requires_grad_(True)
    gcfg = replace(TINY.grpo, n=2, mu=4, estimator="sampled", kl="k3", **change)
    gen = torch.Generator(device=setup.device).manual_seed(0)
    return train_grpo(policy, setup.ref_model, tensors, cfg=gcfg, generator=gen).logp


def test_random_rewards_do_not_read_the_task_s_rewards(tiny_setup):
    """With reward_signal='random' the run is the same when every reward of the task is flipped; with the verifiable
    reward it is not (the check can fail)."""
    flipped = replace(tiny_setup.tensors, reward=1.0 - tiny_setup.tensors.reward)
    random_runs = [_sampled_history(tiny_setup, t, reward_signal="random") for t in (tiny_setup.tensors, flipped)]
    assert np.array_equal(*random_runs)
    verifiable_runs = [_sampled_history(tiny_setup, t) for t in (tiny_setup.tensors, flipped)]
    assert not np.allclose(*verifiable_runs)


def test_the_upper_clip_defaults_to_the_lower_one_and_changes_the_run_when_set(tiny_setup):
    tensors = tiny_setup.tensors
    symmetric = _sampled_history(tiny_setup, tensors, clip_eps=0.05)
    assert np.array_equal(symmetric, _sampled_history(tiny_setup, tensors, clip_eps=0.05, clip_eps_high=0.05))
    assert not np.allclose(symmetric, _sampled_history(tiny_setup, tensors, clip_eps=0.05, clip_eps_high=float("inf")))


def test_naive_sampler_plugs_into_grpo(tiny_setup):
    policy = copy.deepcopy(tiny_setup.ref_model).requires_grad_(True)
    gcfg = replace(TINY.grpo, n=1, mu=1, estimator="sampled", kl="k3")
    hist = train_grpo(
        policy,
        tiny_setup.ref_model,
        tiny_setup.tensors,
        cfg=gcfg,
        generator=torch.Generator(device=tiny_setup.device).manual_seed(0),
        sampler=sample_naive,
    )
    assert hist.sampled_tokens == 4 * 4 * 2 and len(hist.step_s) == 1


# ---------------------------------------------------------------- configs and CLI


def test_pick_config(monkeypatch):
    assert pick_config("quick") is configs.QUICK and pick_config("full") is configs.FULL
    monkeypatch.delenv("GRPO_NB_TOYLM_CONFIG", raising=False)
    if not torch.cuda.is_available():
        assert pick_config(None) is configs.QUICK
    monkeypatch.setenv("GRPO_NB_TOYLM_CONFIG", "full")
    assert pick_config("auto") is configs.FULL
    monkeypatch.setenv("GRPO_NB_TOYLM_CONFIG", "huge")
    with pytest.raises(ValueError, match="config"):
        pick_config()
    with pytest.raises(ValueError, match="config"):
        pick_config("huge")
    with pytest.raises(ValueError, match="gpu_budget_s"):
        pick_config("quick", gpu_budget_s=0.0)


@pytest.mark.parametrize(("upper_s", "expected"), [(30.0, "full"), (599.0, "full"), (601.0, "quick"), (1e4, "quick")])
def test_pick_config_on_a_gpu_keeps_within_the_t4_budget(monkeypatch, upper_s, expected):
    """On a GPU, ``full`` only if its pessimistic T4 estimate is within the budget; else ``quick``."""
    from grpo_nb.toylm import cost

    monkeypatch.delenv("GRPO_NB_TOYLM_CONFIG", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(cost, "estimate_gpu_time", lambda cfg: SimpleNamespace(upper_s=upper_s))
    assert pick_config() is configs.CONFIGS[expected]
    assert pick_config("auto", gpu_budget_s=upper_s) is configs.FULL


def test_cli_writes_summary(tmp_path, monkeypatch, capsys):
    from grpo_nb.toylm.__main__ import main

    monkeypatch.setitem(configs.CONFIGS, "quick", TINY)
    out = tmp_path / "summary.json"
    assert main(["--config", "quick", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "p_ref" in printed and "SFT:" in printed and "s per outer step" in printed and "CPU:" in printed
    summary = json.loads(out.read_text())
    assert summary["hardware"].startswith("CPU:") and summary["config"]["device"] == "cpu"
    assert len(summary["runs"]["main"]["outer_step_s"]) == TINY.grpo.n
    first = summary["runs"]["main"]["per_prompt"][0]
    assert len(first["p_measured"]) == len(first["p_theory"]) == TINY.grpo.n + 1
    assert first["p_theory"][0] == pytest.approx(first["p_ref"])
    assert set(summary["runs"]) == {"main", "beta=4", "mu=1,lr=0.001", "sampled"}
    assert summary["runs"]["sampled"]["rollout_tokens_per_s"] > 0


def test_run_experiment_result_is_deterministic():
    cfg = replace(TINY, beta_sweep=(), weak_inner=(), sampled_run=False)
    a, b = run_experiment(cfg, progress=False), run_experiment(cfg, progress=False)
    assert np.array_equal(a.runs["main"].p_tilde, b.runs["main"].p_tilde)


def test_trajectory_explorer_draws_a_run(tiny_setup):
    import matplotlib

    matplotlib.use("Agg")
    from grpo_nb.widgets.toylm import trajectory_explorer

    run = run_grpo(tiny_setup, "t", replace(TINY.grpo, n=1, mu=1), seed=0, progress=False)
    widget = trajectory_explorer({"main": run}, tiny_setup.task.prompts_text)
    assert widget is not None
