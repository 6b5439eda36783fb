"""Length bias of the loss aggregations, exactly: a tabular policy whose answers differ in length, the exact expected
gradient of each TRL 1.16 ``loss_type`` on it, and the drift of the length of wrong and right answers (the chapter
"Questions from the trackers", section "Long, wrong answers get longer").

**The policy** (one prompt). An answer is a content token c in {0..C-1}, then k in {0..K-1} filler tokens, then an end
token: L = k + 2 tokens. With content logits theta (C) and stop logits s (C x (K-1)),

    pi(c, k) = softmax(theta)_c  prod_{j<k} (1 - sigmoid(s_{c,j}))  sigmoid(s_{c,k}),   sigmoid(s_{c,K-1}) := 1

(the end is forced after K - 1 fillers), so the length of each content moves on its own. Reward 1 iff c is the
correct content (:class:`LengthPolicy`, :func:`answers`).

**The gradient of TRL's loss.** On-policy (importance ratio 1, mu = 1, beta = 0), minus the gradient of TRL's loss
over one generation batch of B answers (``groups`` groups of G for the one prompt), cut into micro-batches of m
answers and accumulated over B/m of them, is

    g = sum_i w_i A_i grad log pi(y_i),

A_i the group advantage (:func:`grpo_nb.advantage.group_advantage`, TRL's form by default) and w_i the answer's weight,
where the loss types differ (:data:`TRL_ANSWER_WEIGHTS`): with L_i its tokens, N_mb its micro-batch's tokens, N_gen the
generation batch's (TRL's ``num_items_in_batch``) and L_max TRL's ``max_completion_length``,

    grpo 1/(B L_i);   bnpo 1/((B/m) N_mb);   dr_grpo 1/(B L_max);   dapo 1/N_gen;   luspo 1/B.

(luspo: TRL sums the answer's tokens of -x A with the sequence-level ratio x = exp(mean_t log ratio_t), whose gradient
is the token mean, so the answer's gradient is the sum of its tokens' gradients.) For one micro-batch (m = B) these
are the token weights of :func:`grpo_nb.family.aggregation_weights` (luspo aside: the family has no record of it).

**The expectation.** The answers are iid and TRL shuffles the generation batch before cutting it, so every place in it
is alike and E[g] = B sum_y pi(y) f(y) grad log pi(y), with f(y) = E[w A | y] the answer's mean weighted advantage
over the other B - 1 answers (:func:`answer_factor`). f depends on them through the reward count R of its group's other
G - 1 answers (the advantage) and the tokens S of the others its normaliser counts; :func:`expected_ascent` sums over
the joint law of (R, S) (convolutions over answers, and the hypergeometric law of how many of the micro-batch's other
answers come from the same group); :func:`expected_ascent_enumerated` sums over every ordered batch and every
shuffle (small cases; the check of the former).

**The drift.** d/d(eta) E[L | r] at theta + eta E[g] is grad E[L | r] . E[g] (:func:`length_drift`: first order, per
unit learning rate); :func:`expected_trajectory` takes exact expected steps.

**Why.** Where f(y) = a(r)/(B L) (grpo), the stop-logit part of E[g] for content c is pi(c) a(r_c) grad E[1/L | c], by
the score-function identity E[(1/L) grad log pi] = grad E[1/L]: a wrong answer has a(0) < 0 and the step lowers
E[1/L | wrong], so wrong answers lengthen, right ones shorten. Where f depends on r alone (dr_grpo, luspo) that part is
a(r_c) grad E[1 | c] = 0. The token normalisers (bnpo, dapo) give f(y) = E[A / (L + S)]: a 1/L diluted by S.

Scope: one prompt, a tabular policy, on-policy (mu = 1, beta = 0, no clip in effect), exact expectations over groups.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from enum import Enum

import numpy as np
from scipy.signal import convolve2d
from scipy.special import comb, expit, log_expit, log_softmax, softmax

from grpo_nb.advantage import group_advantage, group_rewards
from grpo_nb.validation import check_choice, check_logits, check_positive_int

__all__ = [
    "LOSS_TYPES",
    "MAX_ENUMERATED",
    "AnswerWeight",
    "Answers",
    "Batching",
    "LengthDrift",
    "LengthPolicy",
    "Normaliser",
    "TRL_ANSWER_WEIGHTS",
    "Trajectory",
    "advantage_given_reward",
    "answer_factor",
    "answers",
    "batch_orders",
    "conditional_mean_length",
    "conditional_mean_length_gradient",
    "expected_ascent",
    "expected_ascent_enumerated",
    "expected_trajectory",
    "length_drift",
    "length_moment",
    "success_gradient",
]

#: TRL 1.16's ``loss_type`` values whose per-answer weight :data:`TRL_ANSWER_WEIGHTS` states.
LOSS_TYPES: tuple[str, ...] = ("grpo", "bnpo", "dr_grpo", "dapo", "luspo")
#: The most (ordered batch, shuffle) pairs :func:`expected_ascent_enumerated` sums over.
MAX_ENUMERATED = 2_000_000


class Normaliser(str, Enum):
    """What an answer's weight is divided by: the number of answers B, B times TRL's ``max_completion_length``, the
    micro-batch's tokens times the B/m micro-batches accumulated, or the generation batch's tokens."""

    ANSWERS = "answers"
    MAX_TOKENS = "max_tokens"
    MICRO_BATCH_TOKENS = "micro_batch_tokens"
    GENERATED_TOKENS = "generated_tokens"


@dataclass(frozen=True)
class Batching:
    """One generation batch of ``groups`` groups of ``group_size`` = G answers to the one prompt, cut into
    micro-batches of ``micro_batch`` = m answers (TRL's ``per_device_train_batch_size``; default: the whole batch)
    after a shuffle, and accumulated over ``accumulation_steps`` = B/m of them (TRL's ``steps_per_generation`` =
    ``gradient_accumulation_steps``). G >= 2 (TRL's advantage divides by G - 1); m must divide B."""

    group_size: int
    micro_batch: int | None = None
    groups: int = 1

    def __post_init__(self) -> None:
        check_positive_int("group_size", self.group_size, 2)
        check_positive_int("groups", self.groups)
        m = self.generation_batch if self.micro_batch is None else self.micro_batch
        check_positive_int("micro_batch", m)
        if self.generation_batch % m:
            raise ValueError(
                f"micro_batch={m!r} is out of range; valid: a divisor of the generation batch "
                f"groups * group_size = {self.generation_batch}"
            )
        object.__setattr__(self, "micro_batch", int(m))

    @property
    def generation_batch(self) -> int:
        """B = groups x G answers."""
        return self.groups * self.group_size

    @property
    def accumulation_steps(self) -> int:
        """B/m micro-batches per optimizer step."""
        return self.generation_batch // self.micro_batch


@dataclass(frozen=True)
class AnswerWeight:
    """The weight w of an answer in minus the gradient of the loss, sum_i w_i A_i grad log pi(y_i): 1 over the
    ``normaliser`` (:class:`Normaliser`), divided by the answer's own tokens L too where ``token_mean``."""

    token_mean: bool
    normaliser: Normaliser

    def __post_init__(self) -> None:
        if not isinstance(self.token_mean, (bool, np.bool_)):
            raise ValueError(f"token_mean={self.token_mean!r} is not valid; valid values are True and False")
        value = self.normaliser.value if isinstance(self.normaliser, Normaliser) else self.normaliser
        check_choice("normaliser", value, tuple(n.value for n in Normaliser))
        object.__setattr__(self, "normaliser", Normaliser(value))

    def weight(self, own: object, tokens: object, *, batching: Batching, max_len: int) -> np.ndarray:
        """w for answers of ``own`` tokens whose normaliser counts ``tokens`` (the micro-batch's for
        ``micro_batch_tokens``, the generation batch's for ``generated_tokens``, unused otherwise); broadcasts."""
        own, tokens = np.broadcast_arrays(np.asarray(own, dtype=float), np.asarray(tokens, dtype=float))
        B = batching.generation_batch
        denominator = {
            Normaliser.ANSWERS: np.full_like(own, B),
            Normaliser.MAX_TOKENS: np.full_like(own, B * max_len),
            Normaliser.MICRO_BATCH_TOKENS: batching.accumulation_steps * tokens,
            Normaliser.GENERATED_TOKENS: tokens,
        }[self.normaliser]
        return 1.0 / (denominator * own) if self.token_mean else 1.0 / denominator


#: The book's statement of each TRL ``loss_type``'s answer weight (module docstring), read from
#: ``GRPOTrainer._compute_loss`` of TRL 1.16 with its gradient-accumulation divisions.
TRL_ANSWER_WEIGHTS: dict[str, AnswerWeight] = {
    "grpo": AnswerWeight(True, Normaliser.ANSWERS),
    "bnpo": AnswerWeight(False, Normaliser.MICRO_BATCH_TOKENS),
    "dr_grpo": AnswerWeight(False, Normaliser.MAX_TOKENS),
    "dapo": AnswerWeight(False, Normaliser.GENERATED_TOKENS),
    "luspo": AnswerWeight(False, Normaliser.ANSWERS),
}


@dataclass(frozen=True, eq=False)
class LengthPolicy:
    """The tabular policy of the module docstring: ``content_logits`` (C,), ``stop_logits`` (C, K - 1) with K >= 2
    lengths per content, and the ``correct`` content. Its parameter vector is ``params`` = (theta, s row by row)."""

    content_logits: np.ndarray
    stop_logits: np.ndarray
    correct: int = 0

    def __post_init__(self) -> None:
        theta = check_logits("content_logits", self.content_logits)
        if theta.ndim != 1:
            raise ValueError(f"content_logits has shape {theta.shape}; valid shape is (C,) with C >= 2")
        stop = check_logits("stop_logits", self.stop_logits, min_outcomes=1)
        if stop.shape[:1] != theta.shape or stop.ndim != 2:
            raise ValueError(f"stop_logits has shape {stop.shape}; valid shape is (C, K - 1) = ({theta.size}, >= 1)")
        if isinstance(self.correct, bool) or not isinstance(self.correct, (int, np.integer)):
            raise ValueError(f"correct={self.correct!r} is out of range; valid range is integers 0..{theta.size - 1}")
        if not 0 <= self.correct < theta.size:
            raise ValueError(f"correct={self.correct!r} is out of range; valid range is integers 0..{theta.size - 1}")
        object.__setattr__(self, "content_logits", theta)
        object.__setattr__(self, "stop_logits", stop)
        object.__setattr__(self, "correct", int(self.correct))

    @property
    def n_contents(self) -> int:
        """C."""
        return self.content_logits.size

    @property
    def n_lengths(self) -> int:
        """K: the filler counts 0..K-1 of a content."""
        return self.stop_logits.shape[1] + 1

    @property
    def max_len(self) -> int:
        """L_max = K + 1 tokens (TRL's ``max_completion_length`` for this policy)."""
        return self.n_lengths + 1

    @property
    def params(self) -> np.ndarray:
        """(theta, s.ravel()), C K numbers."""
        return np.concatenate([self.content_logits, self.stop_logits.ravel()])

    def with_params(self, params: object) -> LengthPolicy:
        """The policy at another parameter vector (same C, K and correct content)."""
        p = np.asarray(params, dtype=float)
        if p.shape != self.params.shape:
            raise ValueError(f"params has shape {p.shape}; valid shape is {self.params.shape}")
        C = self.n_contents
        return LengthPolicy(p[:C], p[C:].reshape(self.stop_logits.shape), self.correct)


@dataclass(frozen=True, eq=False)
class Answers:
    """Every answer (c, k) of a policy, in the order c K + k: its ``content``, ``fillers`` k, ``length`` k + 2,
    ``reward``, ``prob`` pi(c, k) and ``score`` grad log pi(c, k) with respect to ``params``, shape (C K, C K)."""

    content: np.ndarray
    fillers: np.ndarray
    length: np.ndarray
    reward: np.ndarray
    prob: np.ndarray
    score: np.ndarray = field(repr=False)


def answers(policy: LengthPolicy) -> Answers:
    """The answers of ``policy`` with their probabilities and score functions (module docstring, the policy)."""
    C, K = policy.n_contents, policy.n_lengths
    content, fillers = (a.ravel() for a in np.meshgrid(np.arange(C), np.arange(K), indexing="ij"))
    stop = np.concatenate([policy.stop_logits, np.full((C, 1), np.inf)], axis=1)  # the forced end: sigmoid = 1
    log_continue = np.cumsum(np.concatenate([np.zeros((C, 1)), log_expit(-policy.stop_logits)], axis=1), axis=1)
    logp = (
        log_softmax(policy.content_logits)[content] + log_continue[content, fillers] + log_expit(stop)[content, fillers]
    )
    score = np.zeros((C * K, C + C * (K - 1)))
    score[:, :C] = np.eye(C)[content] - softmax(policy.content_logits)
    sig = expit(policy.stop_logits)
    for i, (c, k) in enumerate(zip(content, fillers, strict=True)):
        block = C + c * (K - 1)
        score[i, block : block + k] = -sig[c, :k]
        if k < K - 1:
            score[i, block + k] = 1.0 - sig[c, k]
    reward = (content == policy.correct).astype(float)
    return Answers(content, fillers, fillers + 2, reward, np.exp(logp), score)


# ---- the law of the other answers -----------------------------------------------------------------------------------


def _one_answer_law(ans: Answers, max_len: int) -> np.ndarray:
    """q[r, L] = P(reward r, length L) of one answer, shape (2, max_len + 1)."""
    q = np.zeros((2, max_len + 1))
    np.add.at(q, (ans.reward.astype(int), ans.length), ans.prob)
    return q


def _answers_laws(q: np.ndarray, n: int) -> list[np.ndarray]:
    """[P_0, ..., P_n], P_k[R, S] the law of (reward count, total tokens) of k iid answers of law q."""
    laws = [np.ones((1, 1))]
    for _ in range(n):
        laws.append(convolve2d(laws[-1], q))
    return laws


def _rewards_only(law: np.ndarray) -> np.ndarray:
    return law.sum(axis=1, keepdims=True)


def _tokens_only(law: np.ndarray) -> np.ndarray:
    return law.sum(axis=0, keepdims=True)


def _others_law(q: np.ndarray, batching: Batching, normaliser: Normaliser) -> np.ndarray:
    """Q[R, S]: the law of the reward count R of an answer's G - 1 group mates and the tokens S of the other answers
    its normaliser counts (its micro-batch's or the generation batch's; none for the others), shape (G, S_max + 1).

    In the micro-batch: after TRL's shuffle its m - 1 other answers are a uniform draw from the other B - 1, of which
    j ~ Hypergeometric(B - 1, G - 1, m - 1) are group mates."""
    G, m, B = batching.group_size, batching.micro_batch, batching.generation_batch
    laws = _answers_laws(q, B - 1)
    if normaliser is Normaliser.GENERATED_TOKENS:
        return convolve2d(laws[G - 1], _tokens_only(laws[B - G]))
    if normaliser is not Normaliser.MICRO_BATCH_TOKENS:
        return _rewards_only(laws[G - 1])
    out = np.zeros((G, (m - 1) * (q.shape[1] - 1) + 1))
    for j in range(max(0, m - 1 - (B - G)), min(G - 1, m - 1) + 1):
        h = comb(G - 1, j) * comb(B - G, m - 1 - j) / comb(B - 1, m - 1)
        part = convolve2d(convolve2d(laws[j], _rewards_only(laws[G - 1 - j])), _tokens_only(laws[m - 1 - j]))
        out[: part.shape[0], : part.shape[1]] += h * part
    return out


def _advantage_by_reward(G: int, form: str) -> np.ndarray:
    """adv[r, R]: the advantage of an answer of reward r whose G - 1 group mates have R successes, shape (2, G)."""
    table = group_advantage(group_rewards(np.arange(G + 1), G), form)  # row R: the first R answers succeed
    return np.stack([table[:G, G - 1], table[1:, 0]])


def _check_weight(weight: AnswerWeight) -> AnswerWeight:
    if not isinstance(weight, AnswerWeight):
        raise ValueError(f"weight={weight!r} is not valid; valid: an AnswerWeight (e.g. TRL_ANSWER_WEIGHTS['grpo'])")
    return weight


def answer_factor(policy: LengthPolicy, batching: Batching, weight: AnswerWeight, *, form: str = "trl") -> np.ndarray:
    """f(y) = E[w A | y] for every answer y of :func:`answers` (module docstring), shape (C K,): the mean over the
    other answers of the weight times the advantage (``form`` of :func:`grpo_nb.advantage.group_advantage`)."""
    weight = _check_weight(weight)
    ans = answers(policy)
    Q = _others_law(_one_answer_law(ans, policy.max_len), batching, weight.normaliser)
    adv = _advantage_by_reward(batching.group_size, form)  # (2, G) over r, R
    by_reward = adv @ Q  # (2, S): sum over R of A(r, R) Q[R, S]
    S = np.arange(Q.shape[1])
    w = weight.weight(ans.length[:, None], ans.length[:, None] + S[None, :], batching=batching, max_len=policy.max_len)
    return np.sum(by_reward[ans.reward.astype(int)] * w, axis=1)


def expected_ascent(policy: LengthPolicy, batching: Batching, weight: AnswerWeight, *, form: str = "trl") -> np.ndarray:
    """E[g] = B sum_y pi(y) f(y) grad log pi(y), minus the exact expected gradient of the loss with answer weight
    ``weight`` (:data:`TRL_ANSWER_WEIGHTS`), shape (C K,) over ``policy.params`` (module docstring)."""
    ans = answers(policy)
    f = answer_factor(policy, batching, weight, form=form)
    return batching.generation_batch * (ans.prob * f) @ ans.score


def _micro_batch_tokens(lengths: np.ndarray, order: tuple[int, ...], m: int) -> np.ndarray:
    """The tokens of each answer's micro-batch when the batch is shuffled into ``order`` and cut every m answers."""
    place = np.empty(len(order), dtype=int)
    place[list(order)] = np.arange(len(order)) // m
    same = place[:, None] == place[None, :]
    return lengths @ same.astype(float)


def batch_orders(batching: Batching, n_answers: int, *, limit: int, remedy: str) -> list[tuple[int, ...]]:
    """The orders in which a generation batch's answers reach the micro-batches, for an enumeration over every batch:
    every permutation where TRL's shuffle can put answers of different groups in one micro-batch (more than one group
    and 1 < m < B), else the batch as generated. ValueError naming ``batching`` when ``n_answers``**B batches times
    the orders exceed ``limit`` (``remedy`` says what to use instead)."""
    B, m = batching.generation_batch, batching.micro_batch
    mixes = batching.groups > 1 and 1 < m < B
    orders = list(itertools.permutations(range(B))) if mixes else [tuple(range(B))]
    if n_answers**B * len(orders) > limit:
        raise ValueError(
            f"batching={batching!r} is out of range for enumeration: {n_answers}**{B} batches x {len(orders)} "
            f"shuffles; valid: at most {limit} ({remedy})"
        )
    return orders


def expected_ascent_enumerated(
    policy: LengthPolicy, batching: Batching, weight: AnswerWeight, *, form: str = "trl"
) -> np.ndarray:
    """E[g] by brute force: every ordered generation batch of answers (groups of G consecutive), and, where the
    micro-batches could mix groups, every shuffle of it, each with its probability (module docstring). ValueError
    when there are more than :data:`MAX_ENUMERATED` (batch, shuffle) pairs."""
    weight = _check_weight(weight)
    ans = answers(policy)
    N, B, G, m = ans.prob.size, batching.generation_batch, batching.group_size, batching.micro_batch
    orders = batch_orders(batching, N, limit=MAX_ENUMERATED, remedy="use expected_ascent")
    idx = np.array(list(itertools.product(range(N), repeat=B)), dtype=int).reshape(-1, B)
    prob = ans.prob[idx].prod(axis=1)
    adv = group_advantage(ans.reward[idx].reshape(-1, G), form).reshape(idx.shape)
    lengths = ans.length[idx].astype(float)
    coef = np.zeros(idx.shape)
    for order in orders:
        if weight.normaliser is Normaliser.MICRO_BATCH_TOKENS:
            tokens = _micro_batch_tokens(lengths, order, m)
        else:
            tokens = np.broadcast_to(lengths.sum(axis=1, keepdims=True), idx.shape)
        w = weight.weight(lengths, tokens, batching=batching, max_len=policy.max_len)
        coef += prob[:, None] * w * adv / len(orders)
    return np.bincount(idx.ravel(), coef.ravel(), minlength=N) @ ans.score


# ---- lengths and their drift ----------------------------------------------------------------------------------------


def _check_reward(reward: object) -> int:
    if reward not in (0, 1) or isinstance(reward, bool):
        raise ValueError(f"reward={reward!r} is out of range; valid values are 0 (wrong) and 1 (right)")
    return int(reward)


def conditional_mean_length(policy: LengthPolicy, reward: int) -> float:
    """E[L | r = ``reward``]: the mean tokens of the wrong (0) or right (1) answers."""
    ans, r = answers(policy), _check_reward(reward)
    sel = ans.reward == r
    return float(ans.prob[sel] @ ans.length[sel] / ans.prob[sel].sum())


def conditional_mean_length_gradient(policy: LengthPolicy, reward: int) -> np.ndarray:
    """grad E[L | r] = sum_{y: r} pi(y) (L - E[L | r]) grad log pi(y) / P(r), shape (C K,)."""
    ans, r = answers(policy), _check_reward(reward)
    sel = ans.reward == r
    centred = ans.length[sel] - conditional_mean_length(policy, r)
    return (ans.prob[sel] * centred) @ ans.score[sel] / ans.prob[sel].sum()


def length_moment(policy: LengthPolicy, content: int, power: float) -> float:
    """E[L^power | c = ``content``]: the law of the length of one content, its stop logits only."""
    ans = answers(policy)
    if isinstance(content, bool) or content not in range(policy.n_contents):
        raise ValueError(f"content={content!r} is out of range; valid range is integers 0..{policy.n_contents - 1}")
    sel = ans.content == content
    return float(ans.prob[sel] @ ans.length[sel].astype(float) ** power / ans.prob[sel].sum())


def success_gradient(policy: LengthPolicy) -> np.ndarray:
    """grad p, p = P(r = 1) = softmax(theta)_correct: sum_{y: r = 1} pi(y) grad log pi(y), shape (C K,)."""
    ans = answers(policy)
    return ans.prob * ans.reward @ ans.score


def advantage_given_reward(policy: LengthPolicy, group_size: int, reward: int, *, form: str = "trl") -> float:
    """a(r) = E[A | r]: the mean advantage of an answer of reward r over its G - 1 group mates (Binomial(G - 1, p)
    successes), ``form`` of :func:`grpo_nb.advantage.group_advantage`."""
    r = _check_reward(reward)
    batching = Batching(group_size)
    Q = _others_law(_one_answer_law(answers(policy), policy.max_len), batching, Normaliser.ANSWERS)
    return float(_advantage_by_reward(batching.group_size, form)[r] @ Q[:, 0])


@dataclass(frozen=True)
class LengthDrift:
    """First-order change per unit learning rate along a direction: of E[L | wrong] (``wrong``), E[L | right]
    (``right``) and the success probability (``success``)."""

    wrong: float
    right: float
    success: float

    @property
    def wrong_per_success(self) -> float:
        """Tokens of wrong-answer length gained per unit of success probability gained: ``wrong`` / ``success``,
        free of the step's scale (a loss type's overall factor)."""
        return self.wrong / self.success


def length_drift(policy: LengthPolicy, direction: object) -> LengthDrift:
    """grad E[L | 0], grad E[L | 1] and grad p dotted with ``direction`` (e.g. :func:`expected_ascent`), shape
    (C K,)."""
    d = np.asarray(direction, dtype=float)
    if d.shape != policy.params.shape or not np.isfinite(d).all():
        raise ValueError(f"direction has shape {d.shape}; valid: finite, shape {policy.params.shape}")
    return LengthDrift(
        float(conditional_mean_length_gradient(policy, 0) @ d),
        float(conditional_mean_length_gradient(policy, 1) @ d),
        float(success_gradient(policy) @ d),
    )


@dataclass(frozen=True, eq=False)
class Trajectory:
    """E[L | wrong], E[L | right] and the success probability at iterations 0..n of exact expected steps, (n + 1,)
    each."""

    wrong_length: np.ndarray
    right_length: np.ndarray
    success: np.ndarray


def expected_trajectory(
    policy: LengthPolicy,
    batching: Batching,
    weight: AnswerWeight,
    *,
    lr: float = 1.0,
    n: int = 100,
    form: str = "trl",
) -> Trajectory:
    """theta_{t+1} = theta_t + lr E[g](theta_t) (:func:`expected_ascent`) for ``n`` GRPO iterations of one inner step
    each (mu = 1): gradient descent on the exact expected loss, the mean path of SGD at a small learning rate."""
    if not (np.isfinite(lr) and lr > 0):
        raise ValueError(f"lr={lr!r} is out of range; valid range is 0 < lr < inf")
    check_positive_int("n", n)
    rows = []
    for _ in range(n + 1):
        success = float(softmax(policy.content_logits)[policy.correct])
        rows.append((conditional_mean_length(policy, 0), conditional_mean_length(policy, 1), success))
        policy = policy.with_params(policy.params + lr * expected_ascent(policy, batching, weight, form=form))
    wrong, right, success = np.array(rows).T
    return Trajectory(wrong, right, success)
