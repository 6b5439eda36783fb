"""The page "The new rows: SAPO, VESPO, MaxRL, GDPO" of the chapter "The GRPO family" (``book/grpo_family_new.md``).

* :func:`token_weights`: the weight each row puts on a token's score as a function of its importance ratio, read off
  the gradient of :func:`grpo_nb.family.loss` for a one-token answer (the page's figure);
* :func:`on_policy_identities`: SAPO's gradient is GRPO's and VESPO's is DAPO's on-policy, not off-policy; GDPO's
  advantage with one reward is GRPO's (TRL's form) times one positive number per batch;
* :func:`maxrl_truncation`: the exact finite-group gap s_G(p) of MaxRL's estimators, by sums over all 2^G reward
  vectors in sympy, against the truncated sums T_n(p) = sum_{k=1}^n (1 - p)^(k-1) of grad log p =
  sum_k (1/k) grad pass@k (:data:`TRUNCATION_ORDER`: the order each estimator is stated to reach);
* :func:`multi_reward_climbs`: with two rewards and exact expectations (G -> infinity), what GDPO and TRL's default
  aggregation climb (:data:`MULTI_REWARD_CLIMBED`), by finite differences on a four-answer softmax; how many
  distinct advantages each keeps at G = 2;
* :func:`trl_multi_reward`: TRL 1.16's ``GRPOTrainer`` on two reward functions, both aggregations, against
  :func:`grpo_nb.family.multi_reward_advantage`.

A check reads the module-level name of the book's statement when it runs (:data:`TRUNCATION_ORDER`,
:data:`MULTI_REWARD_CLIMBED`, :data:`ADVANTAGE`, :data:`LOSS`, :data:`MULTI_REWARD`), so a test that replaces it
by a wrong one (monkeypatch) sees the check fail.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import sympy as sp
import torch

from grpo_nb import family
from grpo_nb.chapters.grpo_family.batch import random_batch
from grpo_nb.chapters.grpo_family.tolerances import TOL, TOL_TRL
from grpo_nb.chapters.grpo_family.trl_check import TRL_LOSS_CASES, FixedReward, as_trl_reads, probe_trainer, trl_loss
from grpo_nb.report import Table, bound

__all__ = [
    "MULTI_REWARD_CLIMBED",
    "MaxRLTruncation",
    "MultiRewardClimbs",
    "NEW_ROWS",
    "OnPolicyIdentities",
    "TRLMultiReward",
    "TRUNCATION_ORDER",
    "sapo_temperature_rounding",
    "maxrl_truncation",
    "multi_reward_climbs",
    "on_policy_identities",
    "token_weights",
    "truncated_gap",
    "truncated_gap_at",
    "trl_multi_reward",
]

ADVANTAGE = family.advantage
LOSS = family.loss
MULTI_REWARD = family.multi_reward_advantage
#: The rows this page adds to the family table.
NEW_ROWS = ("sapo", "vespo", "maxrl", "gdpo")
#: The rows of the token-weight figure: the three hard clips for comparison, then the new soft weightings.
WEIGHT_ROWS = ("grpo", "cispo", "sapo", "vespo")


def token_weights(
    log_ratio: np.ndarray, advantage: float, names: tuple[str, ...] = WEIGHT_ROWS
) -> dict[str, np.ndarray]:
    """The weight c(x) with which each row's gradient moves a one-token answer's log-probability, -dL/dlogp = c(x) A,
    at the ratios x = exp(``log_ratio``) and the sign of ``advantage``; read off :data:`LOSS` (one answer, one token,
    each row's default parameters). GRPO's c is x inside its clip range and 0 outside it on the side it clips."""
    out = {}
    for name in names:
        c = []
        for d in np.asarray(log_ratio, dtype=float):
            grad = LOSS(name, np.array([[-1.0]]), np.array([advantage]), old_logp=np.array([[-1.0 - d]])).grad
            c.append(-float(grad[0, 0]) / advantage)
        out[name] = np.array(c)
    return out


@dataclass(frozen=True)
class OnPolicyIdentities:
    """The worst gaps of the identities of the section "On-policy, two of the new rows are old rows": ``sapo_grpo``
    and ``vespo_dapo`` (gradients on-policy), their off-policy gaps (which are not small), ``gdpo_scale``: how far
    GDPO's one-reward advantage over GRPO's (TRL's form) is from one constant, and that constant."""

    table: Table
    sapo_grpo: float
    vespo_dapo: float
    sapo_off: float
    vespo_off: float
    gdpo_scale: float
    gdpo_factor: float


def on_policy_identities() -> OnPolicyIdentities:
    """SAPO = GRPO and VESPO = DAPO on-policy (gradients of :data:`LOSS` on a batch of answers of different lengths,
    KL off), the same off-policy; GDPO's one-reward advantage against GRPO's on every group of four."""
    batch = random_batch(seed=2)
    common = {"mask": batch["mask"], "n_tokens": 2.0 * batch["mask"].sum()}
    gaps = {}
    for old in ("on", "off"):
        kw = common | {"old_logp": batch["logp"] if old == "on" else batch["old_logp"]}
        g = {n: LOSS(n, batch["logp"], batch["advantages"], **kw).grad for n in ("sapo", "grpo", "vespo", "dapo")}
        gaps[old] = (float(np.abs(g["sapo"] - g["grpo"]).max()), float(np.abs(g["vespo"] - g["dapo"]).max()))
    groups = np.array(list(itertools.product((0.0, 1.0), repeat=4)))
    grpo = ADVANTAGE("grpo", groups, form="trl")
    gdpo = ADVANTAGE("gdpo", groups, form="trl")
    moving = np.abs(grpo) > 0
    factor = gdpo[moving] / grpo[moving]
    scale_gap = float(np.abs(factor / factor[0] - 1).max()) + float(np.abs(gdpo[~moving]).max())
    rows = [["SAPO gradient = GRPO's", gaps["on"][0], gaps["off"][0]],
            ["VESPO gradient = DAPO's", gaps["on"][1], gaps["off"][1]]]  # fmt: skip
    cells = [[r[0], bound(r[1], TOL), f"{r[2]:.2f}"] for r in rows]
    table = Table(["identity", "on-policy gap", "off-policy gap"], cells)
    return OnPolicyIdentities(table, *gaps["on"], *gaps["off"], scale_gap, float(factor[0]))


#: The book's statement: the order n of the truncated sum T_n each MaxRL estimator is unbiased for, at group size G.
TRUNCATION_ORDER = {"advantage": lambda G: G - 1, "success_mean": lambda G: G, "baseline_kept": lambda G: G}


#: The estimators: A_i as a function of the group's rewards r (a tuple of 0/1) and i.
def _p_hat(r: tuple[int, ...]) -> sp.Rational:
    return sp.Rational(sum(r), len(r))


_ESTIMATORS = {
    # the row's advantage (r_i - p_hat)/p_hat, 0 in a group without a success
    "advantage": lambda r, i: sp.Integer(0) if sum(r) == 0 else (r[i] - _p_hat(r)) / _p_hat(r),
    # the mean of the successes' scores, (1/K) sum over successes: A_i = r_i / p_hat, 0 without a success
    "success_mean": lambda r, i: sp.Integer(0) if sum(r) == 0 else r[i] / _p_hat(r),
    # the row's advantage, with the baseline -1 kept in a group without a success
    "baseline_kept": lambda r, i: sp.Integer(-1) if sum(r) == 0 else (r[i] - _p_hat(r)) / _p_hat(r),
}
_p = sp.Symbol("p", positive=True)


def truncated_gap(n: int) -> sp.Expr:
    """T_n(p) = sum_{k=1}^n (1 - p)^(k-1): the slope in p of sum_{k=1}^n (1/k) pass@k, pass@k = 1 - (1 - p)^k
    (n -> infinity: 1/p, the slope of log p)."""
    return sum((1 - _p) ** (k - 1) for k in range(1, n + 1))


def truncated_gap_at(n: int, p: float) -> float:
    """T_n(p) of :func:`truncated_gap` at a number p."""
    return float(truncated_gap(n).subs(_p, p))


def exact_gap(estimator: str, G: int) -> sp.Expr:
    """s_G(p) = E[(1/G) sum_i A_i (r_i/p - (1 - r_i)/(1 - p))] by the sum over all 2^G reward vectors (the expected
    gradient is s_G grad p: a success's score averages to grad p/p, a failure's to -grad p/(1 - p))."""
    total = sp.Integer(0)
    for r in itertools.product((0, 1), repeat=G):
        k = sum(r)
        prob = _p**k * (1 - _p) ** (G - k)
        total += prob * sum(_ESTIMATORS[estimator](r, i) * (sp.Integer(r[i]) / _p - sp.Integer(1 - r[i]) / (1 - _p))
                            for i in range(G)) / G  # fmt: skip
    return total


@dataclass(frozen=True)
class MaxRLTruncation:
    """Per estimator and G: whether s_G - T_n simplifies to 0 at the stated order n (``holds``), and at the next
    order up (``next_order_zero``: must be False, or the order is not the estimator's); ``row_gap``: the worst gap
    between :data:`ADVANTAGE`'s MaxRL row and the page's formula over every reward vector of G = 2..8."""

    table: Table
    holds: dict[tuple[str, int], bool]
    next_order_zero: dict[tuple[str, int], bool]
    row_gap: float


def maxrl_truncation(group_sizes: tuple[int, ...] = (2, 3, 4, 6, 8)) -> MaxRLTruncation:
    """The exact sums of :func:`exact_gap` against T_n at the orders of :data:`TRUNCATION_ORDER` (and one above)."""
    holds, above, rows = {}, {}, []
    for G in group_sizes:
        row = [str(G)]
        for name in _ESTIMATORS:
            n = TRUNCATION_ORDER[name](G)
            s = exact_gap(name, G)
            holds[name, G] = sp.expand(sp.cancel((s - truncated_gap(n)) * _p * (1 - _p))) == 0
            above[name, G] = sp.expand(sp.cancel((s - truncated_gap(n + 1)) * _p * (1 - _p))) == 0
            row.append(f"{n}" if holds[name, G] else "✗")
        rows.append(row)
    row_gap = 0.0
    for G in range(2, 9):
        groups = list(itertools.product((0, 1), repeat=G))
        formula = np.array([[float(_ESTIMATORS["advantage"](r, i)) for i in range(G)] for r in groups])
        row_gap = max(row_gap, float(np.abs(ADVANTAGE("maxrl", np.array(groups, dtype=float)) - formula).max()))
    headers = ["$G$", r"$A = (r - \hat p)/\hat p$", "mean of the successes' scores", "baseline kept when $\\hat p = 0$"]
    return MaxRLTruncation(Table(headers, rows), holds, above, row_gap)


#: Two verifiable rewards on four answers: correctness r_1 and format r_2, each answer's pair.
TWO_REWARDS = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
#: The book's statement: what each aggregation climbs with exact expectations (G -> infinity), up to a positive
#: factor: F(p_1, p_2) of the two success probabilities.
MULTI_REWARD_CLIMBED = {
    "normalize_then_sum": lambda p: np.arcsin(2 * p[0] - 1) + np.arcsin(2 * p[1] - 1),
    "sum_then_normalize": lambda p: p[0] + p[1],
}
#: The largest angle (radians) between an update and the finite-difference gradient of what it is said to climb.
ANGLE_TOL = 1e-6
#: The policy of the example: the two rewards independent, correct with p_1 = 0.05, well formatted with p_2 = 0.5
#: (the logits of the four answers of :data:`TWO_REWARDS`).
EXAMPLE_P = (0.05, 0.5)
EXAMPLE_LOGITS = np.log(np.outer([EXAMPLE_P[0], 1 - EXAMPLE_P[0]], [EXAMPLE_P[1], 1 - EXAMPLE_P[1]]).ravel())


def _limit_advantage(pi: np.ndarray, aggregation: str) -> np.ndarray:
    """Each answer's advantage as G -> infinity (group statistics replaced by the policy's), up to a positive factor."""
    p = pi @ TWO_REWARDS
    if aggregation == "normalize_then_sum":
        return ((TWO_REWARDS - p) / np.sqrt(p * (1 - p))).sum(axis=1)
    total = TWO_REWARDS.sum(axis=1)
    return (total - pi @ total) / np.sqrt(pi @ total**2 - (pi @ total) ** 2)


@dataclass(frozen=True)
class MultiRewardClimbs:
    """``gradient_gap``: per aggregation, the worst angle (radians) between E[A grad log pi] and the finite-difference
    gradient of :data:`MULTI_REWARD_CLIMBED`'s F over a set of policies; ``correctness_weight``: the update, written
    c_1 grad p_1 + c_2 grad p_2 at :data:`EXAMPLE_LOGITS`, has c_1/c_2 this; ``distinct``: the distinct |A| of the
    first answer over every
    group of two answers with two 0/1 rewards, before GDPO's batch step."""

    table: Table
    gradient_gap: dict[str, float]
    correctness_weight: dict[str, float]
    distinct: dict[str, int]


def _angle(u: np.ndarray, v: np.ndarray) -> float:
    cos = float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))
    return float(np.arccos(np.clip(cos, -1.0, 1.0)))


def multi_reward_climbs() -> MultiRewardClimbs:
    """E[A grad_theta log pi] = pi (A - E A) on a softmax over the four answers of :data:`TWO_REWARDS`, against the
    central-difference gradient of F(p(theta)) (step 1e-6), on 50 random policies and the example's."""
    rng = np.random.default_rng(0)
    policies = [EXAMPLE_LOGITS, *rng.normal(0, 1.5, (50, 4))]
    gaps, weight = {}, {}
    for agg, F in MULTI_REWARD_CLIMBED.items():
        worst = 0.0
        for theta in policies:
            pi = np.exp(theta - theta.max())
            pi /= pi.sum()
            a = _limit_advantage(pi, agg)
            update = pi * (a - pi @ a)
            fd = np.zeros(4)
            for j in range(4):
                step = np.eye(4)[j] * 1e-6
                up, down = (np.exp(t) / np.exp(t).sum() for t in (theta + step, theta - step))
                fd[j] = (F(up @ TWO_REWARDS) - F(down @ TWO_REWARDS)) / 2e-6
            worst = max(worst, _angle(update, fd))
        gaps[agg] = worst
        pi = np.exp(EXAMPLE_LOGITS) / np.exp(EXAMPLE_LOGITS).sum()
        a = _limit_advantage(pi, agg)
        # the update as c_1 grad p_1 + c_2 grad p_2 (grad_theta p_k = pi (r_k - p_k)): c_1/c_2, correctness's weight
        basis = pi[:, None] * (TWO_REWARDS - pi @ TWO_REWARDS)
        c = np.linalg.lstsq(basis, pi * (a - pi @ a), rcond=None)[0]
        weight[agg] = float(c[0] / c[1])
    pairs = list(itertools.product(TWO_REWARDS.tolist(), repeat=2))
    groups = np.array(pairs)[None].reshape(len(pairs), 2, 2)
    distinct = {}
    for agg in MULTI_REWARD_CLIMBED:
        adv = MULTI_REWARD(groups, aggregation=agg)
        distinct[agg] = len({round(abs(float(x)), 3) for x in adv[:, 0]})
    rows = [[agg, bound(gaps[agg], ANGLE_TOL), f"{weight[agg]:.2f}", distinct[agg]] for agg in MULTI_REWARD_CLIMBED]
    headers = ["aggregation", "angle to $\\nabla F$ (rad)", "weight of correctness / format", "distinct $|A|$, $G = 2$"]
    return MultiRewardClimbs(Table(headers, rows), gaps, weight, distinct)


#: Two groups of four answers, each with (correctness, format) rewards: the batch of the TRL comparison.
TRL_TWO_REWARDS = np.array([[[1, 1], [0, 1], [0, 1], [0, 0]], [[1, 0], [1, 1], [0, 0], [0, 1]]], dtype=float)


@dataclass(frozen=True)
class TRLMultiReward:
    """TRL's advantages for :data:`TRL_TWO_REWARDS` against :data:`MULTI_REWARD`, per aggregation (worst gap), and how
    far the two aggregations' advantages are from each other (they must differ)."""

    table: Table
    gaps: dict[str, float]
    between: float


def trl_multi_reward() -> TRLMultiReward:
    """TRL 1.16's ``_generate_and_score_completions`` with two reward functions returning the rewards of
    :data:`TRL_TWO_REWARDS`, ``multi_objective_aggregation`` each of TRL's two values."""
    trainer = probe_trainer()
    groups, G, K = TRL_TWO_REWARDS.shape
    saved = (trainer.reward_funcs, trainer.reward_processing_classes, trainer.reward_func_names,
             trainer.reward_weights, trainer.multi_objective_aggregation, trainer.scale_rewards)  # fmt: skip
    gaps, advs = {}, {}
    try:
        trainer.reward_funcs = [FixedReward(TRL_TWO_REWARDS[..., k].reshape(-1).tolist()) for k in range(K)]
        trainer.reward_processing_classes = [None] * K
        trainer.reward_func_names = [f"reward_{k}" for k in range(K)]
        trainer.reward_weights = torch.ones(K)
        trainer.scale_rewards = "group"
        for agg in family.MULTI_REWARD_AGGREGATIONS:
            trainer.multi_objective_aggregation = agg
            torch.manual_seed(0)
            examples = [{"prompt": "0+0=", "index": i} for i in range(groups) for _ in range(G)]
            out = trainer._generate_and_score_completions(examples)
            advs[agg] = out["advantages"].double().numpy().reshape(groups, G)
            gaps[agg] = float(np.abs(advs[agg] - MULTI_REWARD(TRL_TWO_REWARDS, aggregation=agg)).max())
    finally:
        (trainer.reward_funcs, trainer.reward_processing_classes, trainer.reward_func_names, trainer.reward_weights,
         trainer.multi_objective_aggregation, trainer.scale_rewards) = saved  # fmt: skip
    between = float(np.abs(advs["normalize_then_sum"] - advs["sum_then_normalize"]).max())
    rows = [[f'`multi_objective_aggregation="{agg}"`', bound(gap, TOL_TRL)] for agg, gap in gaps.items()]
    return TRLMultiReward(Table(["TRL setting", "advantage gap"], rows), gaps, between)


def sapo_temperature_rounding() -> tuple[float, float]:
    """The gap between TRL's SAPO loss and the book's on the chapter's off-policy batch, with the temperatures as the
    record holds them and rounded to float32 as TRL reads them (:func:`as_trl_reads`): (unrounded, rounded)."""
    batch = random_batch()
    n_tokens = 2.0 * batch["mask"].sum()
    knobs, kwargs = TRL_LOSS_CASES["sapo"]
    trl_value, _ = trl_loss(probe_trainer(), batch, dict(knobs), n_tokens=n_tokens)
    gaps = []
    for row in (family.method("sapo"), as_trl_reads(family.method("sapo"))):
        book = LOSS(row, batch["logp"], batch["advantages"], old_logp=batch["old_logp"], mask=batch["mask"],
                    n_tokens=n_tokens, **kwargs)  # fmt: skip
        gaps.append(abs(book.value - trl_value))
    return gaps[0], gaps[1]
