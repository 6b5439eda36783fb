"""grpo_nb.family.length_bias: the tabular policy of variable length, the exact expected gradient of each TRL loss
type (the dynamic programme against brute-force enumeration), the length drift, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from grpo_nb.family import aggregation_weights
from grpo_nb.family import length_bias as lb

W = lb.TRL_ANSWER_WEIGHTS


def random_policy(seed: int, C: int = 2, K: int = 3) -> lb.LengthPolicy:
    rng = np.random.default_rng(seed)
    return lb.LengthPolicy(rng.normal(size=C), rng.normal(size=(C, K - 1)), correct=int(rng.integers(C)))


def finite_difference(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)]).T


@pytest.mark.parametrize("seed", range(4))
def test_answers_are_a_distribution_and_the_score_is_the_gradient_of_log_pi(seed: int) -> None:
    policy = random_policy(seed, C=3, K=4)
    ans = lb.answers(policy)
    assert ans.prob.sum() == pytest.approx(1.0, abs=1e-14) and (ans.prob > 0).all()
    assert sorted(set(ans.length)) == [2, 3, 4, 5] and ans.reward.sum() == 4
    fd = finite_difference(lambda p: np.log(lb.answers(policy.with_params(p)).prob), policy.params)
    assert np.abs(fd - ans.score).max() < 1e-8
    last = ans.fillers == 3  # after K - 1 fillers the end is forced: no end factor
    sig = 1 / (1 + np.exp(-policy.stop_logits))
    content_p = np.exp(policy.content_logits) / np.exp(policy.content_logits).sum()
    assert np.allclose(ans.prob[last], content_p * np.prod(1 - sig, axis=1), rtol=1e-13)


CASES = [  # (C, K, G, micro_batch, groups): one micro-batch, several, and micro-batches that mix groups
    (3, 2, 2, None, 1),
    (2, 3, 3, 1, 1),
    (2, 3, 3, None, 1),
    (2, 3, 4, 2, 1),
    (2, 2, 2, 2, 2),
    (2, 2, 2, 1, 2),
    (2, 2, 2, None, 2),
    (2, 2, 2, 4, 2),
]


@pytest.mark.parametrize(("C", "K", "G", "m", "n"), CASES)
@pytest.mark.parametrize("loss_type", lb.LOSS_TYPES)
def test_the_dynamic_programme_is_the_enumeration(C, K, G, m, n, loss_type) -> None:
    policy, batching = random_policy(C + K + G, C, K), lb.Batching(G, m, n)
    for form in ("trl", "paper", "mean_only"):
        dp = lb.expected_ascent(policy, batching, W[loss_type], form=form)
        brute = lb.expected_ascent_enumerated(policy, batching, W[loss_type], form=form)
        assert np.abs(dp - brute).max() < 1e-13


def test_without_the_shuffle_the_enumeration_differs(monkeypatch) -> None:
    """Negative test: micro-batches cut from the unshuffled batch (each within one group) are not what the dynamic
    programme (TRL's shuffle) computes, so the enumeration's shuffles matter."""
    policy, batching = random_policy(1, 2, 2), lb.Batching(2, 2, 2)
    monkeypatch.setattr(lb.itertools, "permutations", lambda x: [tuple(x)])
    brute = lb.expected_ascent_enumerated(policy, batching, W["bnpo"])
    assert np.abs(lb.expected_ascent(policy, batching, W["bnpo"]) - brute).max() > 1e-4


def test_one_micro_batch_weights_are_the_family_token_weights() -> None:
    rng = np.random.default_rng(0)
    lengths = rng.integers(2, 6, size=6)
    mask = (np.arange(5)[None, :] < lengths[:, None]).astype(float)
    batching, n_gen = lb.Batching(3, None, 2), float(lengths.sum() + 7)  # dapo: the generation batch's count
    for loss_type, family_name in (("grpo", "grpo"), ("bnpo", "bnpo"), ("dr_grpo", "dr_grpo"), ("dapo", "dapo")):
        tokens = n_gen if loss_type == "dapo" else lengths.sum()
        ours = W[loss_type].weight(lengths, tokens, batching=batching, max_len=5)
        theirs = aggregation_weights(family_name, mask, max_len=5, n_tokens=n_gen)[:, 0]
        assert np.allclose(ours, theirs, rtol=1e-14), loss_type


def test_batch_identities_of_the_aggregations() -> None:
    policy = random_policy(3)
    sizes = ((1, 1), (2, 1), (4, 1), (1, 2), (4, 2), (8, 2))
    g = {(lt, m, n): lb.expected_ascent(policy, lb.Batching(4, m, n), W[lt]) for lt in lb.LOSS_TYPES for m, n in sizes}
    for m, n in sizes:
        assert np.allclose(g["bnpo", 1, n], g["grpo", m, n], atol=1e-15)  # a micro-batch of one: its own token mean
        assert np.allclose(g["dapo", m, n], g["bnpo", 4 * n, n], atol=1e-15)  # one micro-batch: the generation count
        for lt in ("grpo", "dr_grpo", "luspo"):
            assert np.allclose(g[lt, m, n], g[lt, 1, 1], atol=1e-15)  # neither batch size matters
    assert not np.allclose(g["bnpo", 2, 1], g["bnpo", 4, 1])


@pytest.mark.parametrize("seed", range(3))
def test_gradients_of_the_conditional_means(seed: int) -> None:
    policy = random_policy(seed, C=3, K=3)
    for r in (0, 1):
        fd = finite_difference(lambda p, r=r: lb.conditional_mean_length(policy.with_params(p), r), policy.params)
        assert np.abs(fd - lb.conditional_mean_length_gradient(policy, r)).max() < 1e-8
    p_of = lambda p: lb.answers(policy.with_params(p)).prob @ lb.answers(policy).reward  # noqa: E731
    assert np.abs(finite_difference(p_of, policy.params) - lb.success_gradient(policy)).max() < 1e-8
    right = policy.correct
    assert lb.length_moment(policy, right, 1) == pytest.approx(lb.conditional_mean_length(policy, 1), rel=1e-14)


@pytest.mark.parametrize("G", [2, 3, 8])
def test_the_mean_advantage_is_zero_over_both_rewards(G: int) -> None:
    """sum_i A_i = 0 in every group, so p a(1) + (1 - p) a(0) = 0; a(0) < 0 < a(1)."""
    policy = random_policy(G)
    p = lb.answers(policy).prob @ lb.answers(policy).reward
    a0, a1 = (lb.advantage_given_reward(policy, G, r) for r in (0, 1))
    assert p * a1 + (1 - p) * a0 == pytest.approx(0.0, abs=1e-14) and a0 < 0 < a1


@pytest.mark.parametrize("seed", range(6))
def test_drift_signs_per_loss_type(seed: int) -> None:
    """Two contents: grpo, bnpo (m < B) and dapo lengthen wrong answers and shorten right ones; dr_grpo and luspo
    move neither, and their stop-logit ascent is zero."""
    policy, batching = random_policy(seed, 2, 4), lb.Batching(4, 2)
    for lt in lb.LOSS_TYPES:
        ascent = lb.expected_ascent(policy, batching, W[lt])
        d = lb.length_drift(policy, ascent)
        assert d.success > 0, lt
        if lt in ("dr_grpo", "luspo"):
            assert abs(d.wrong) < 1e-15 and abs(d.right) < 1e-15 and np.abs(ascent[2:]).max() < 1e-15
        else:
            assert d.wrong > 0 > d.right, lt


def test_trajectory_lengthens_wrong_answers_under_grpo_only() -> None:
    policy, batching = random_policy(0), lb.Batching(4)
    grpo = lb.expected_trajectory(policy, batching, W["grpo"], lr=0.5, n=20)
    drgrpo = lb.expected_trajectory(policy, batching, W["dr_grpo"], lr=0.5, n=20)
    assert np.all(np.diff(grpo.wrong_length) > 0) and np.all(np.diff(grpo.right_length) < 0)
    assert np.ptp(drgrpo.wrong_length) < 1e-13 and np.ptp(drgrpo.right_length) < 1e-13
    assert grpo.success[-1] > grpo.success[0] and drgrpo.success[-1] > drgrpo.success[0]


BAD = [
    (lambda: lb.LengthPolicy(np.array([0.0]), np.zeros((1, 2))), "content_logits"),
    (lambda: lb.LengthPolicy(np.zeros((2, 2)), np.zeros((2, 2))), "content_logits"),
    (lambda: lb.LengthPolicy(np.array([0.0, np.nan]), np.zeros((2, 2))), "content_logits"),
    (lambda: lb.LengthPolicy(np.zeros(2), np.zeros((3, 2))), "stop_logits"),
    (lambda: lb.LengthPolicy(np.zeros(2), np.zeros((2, 0))), "stop_logits"),
    (lambda: lb.LengthPolicy(np.zeros(2), np.array([[0.0], [np.inf]])), "stop_logits"),
    (lambda: lb.LengthPolicy(np.zeros(2), np.zeros((2, 1)), correct=2), "correct"),
    (lambda: lb.LengthPolicy(np.zeros(2), np.zeros((2, 1)), correct=True), "correct"),
    (lambda: lb.Batching(1), "group_size"),
    (lambda: lb.Batching(4, 3), "micro_batch"),
    (lambda: lb.Batching(4, 0), "micro_batch"),
    (lambda: lb.Batching(4, 2, 0), "groups"),
    (lambda: lb.AnswerWeight(True, "tokens"), "normaliser"),
    (lambda: lb.AnswerWeight(1, "answers"), "token_mean"),
    (lambda: lb.answer_factor(random_policy(0), lb.Batching(2), "grpo"), "weight"),
    (lambda: lb.expected_ascent(random_policy(0), lb.Batching(2), W["grpo"], form="std"), "form"),
    (lambda: lb.conditional_mean_length(random_policy(0), 2), "reward"),
    (lambda: lb.length_moment(random_policy(0), 5, 1), "content"),
    (lambda: lb.length_drift(random_policy(0), np.zeros(3)), "direction"),
    (lambda: random_policy(0).with_params(np.zeros(5)), "params"),
    (lambda: lb.expected_trajectory(random_policy(0), lb.Batching(2), W["grpo"], lr=0.0), "lr"),
    (lambda: lb.expected_trajectory(random_policy(0), lb.Batching(2), W["grpo"], n=0), "^n=0"),
    (lambda: lb.expected_ascent_enumerated(random_policy(0), lb.Batching(9), W["grpo"]), "batching"),
]


@pytest.mark.parametrize(("call", "name"), BAD)
def test_bad_input_names_the_parameter(call, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        call()


def test_batch_orders_shuffle_only_where_a_micro_batch_can_mix_groups_and_refuse_too_many():
    assert lb.batch_orders(lb.Batching(2, 2, 1), 3, limit=10**6, remedy="r") == [(0, 1)]  # one group: no shuffle
    assert len(lb.batch_orders(lb.Batching(2, 1, 2), 3, limit=10**6, remedy="r")) == 1  # m = 1: nothing to mix
    assert len(lb.batch_orders(lb.Batching(2, 2, 2), 3, limit=10**6, remedy="r")) == 24  # 2 groups, m = 2 of B = 4
    with pytest.raises(ValueError, match="batching=.*at most 100 \\(use another\\)"):
        lb.batch_orders(lb.Batching(2, 2, 2), 3, limit=100, remedy="use another")
