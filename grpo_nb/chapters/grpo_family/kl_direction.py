"""Section "What each KL estimator optimises" of the chapter "The GRPO family" (``book/grpo_family.md``).

* :func:`kl_estimators`: which divergence each estimator's expected gradient is the gradient of
  (:data:`CLAIMED_DIRECTION`), for one-token answers on-policy, by the closed forms of :mod:`grpo_nb.kl` and by
  autograd on enumerated softmax policies (:mod:`grpo_nb.tabular.token_policy`); and the one-step optimum it leads to;
* :func:`kl_scope`: how far each statement carries (:data:`CLAIMED_SCOPE`): to answers of two tokens (the KL of whole
  answers or the per-token one) and to answers drawn from an older policy (Algorithm 1's inner steps), with the
  optimum of the inner problem on frozen samples.

A check reads the module-level name of the book's statement when it runs, so a test that replaces it by a wrong one
(monkeypatch) sees the check fail.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from scipy.optimize import minimize, root
from scipy.special import log_softmax, softmax

from grpo_nb import family
from grpo_nb.chapters.grpo_family.tolerances import TOL
from grpo_nb.constants import PAPER_EPS
from grpo_nb.dynamics.map import iterate
from grpo_nb.kl import expected_estimator_gradient, softmax_kl_gradients
from grpo_nb.report import Table, bound
from grpo_nb.tabular.closed_form import grpo_step
from grpo_nb.tabular.policy import expected_reward
from grpo_nb.tabular.token_policy import TokenPolicy, flat_gradient, kl_term, per_token_kl, sequence_kl, success
from grpo_nb.weights import omega_minus, omega_plus

__all__ = ["CLAIMED_DIRECTION", "CLAIMED_SCOPE", "KLEstimators", "KLScope", "kl_estimators", "kl_scope"]

#: The book's statement: the divergence whose gradient each (estimator, placement) gives in expectation.
CLAIMED_DIRECTION = {("k1", "reward"): "reverse", ("k2", "loss"): "reverse", ("k3", "ratio_weighted"): "reverse",
                     ("k3", "loss"): "forward", ("k1", "loss"): "zero"}  # fmt: skip
_PLACEMENT = {"reward": "in the reward", "loss": "in the loss", "ratio_weighted": "in the loss × ratio"}
_DIRECTION = {"reverse": r"$\mathrm{KL}(\pi\,\|\,\pi_{\mathrm{ref}})$",
              "forward": r"$\mathrm{KL}(\pi_{\mathrm{ref}}\,\|\,\pi)$", "zero": "none (zero)"}  # fmt: skip
KL_REWARD = np.array([1.0, 1.0, 0.0, 0.0, 0.0])
KL_BETA, KL_EPS, KL_P_REF = 0.5, PAPER_EPS, 0.3


@dataclass(frozen=True)
class KLEstimators:
    """Per (estimator, placement): the gap to its claimed gradient (``direction_gap``) and to the one-step optimum
    it should reach (``optimum_gap``); the first steps of the book's map and of the forward-KL one."""

    table: Table
    direction_gap: float
    optimum_gap: float
    orbit_table: Table
    forward_change: float


def _target(direction: str, logits: np.ndarray, log_ref: np.ndarray) -> np.ndarray:
    reverse, forward = softmax_kl_gradients(logits, log_ref)
    return {"reverse": reverse, "forward": forward, "zero": 0 * reverse}[direction]


def _one_token(logits: np.ndarray, grad: bool = False) -> TokenPolicy:
    return TokenPolicy((torch.tensor(np.asarray(logits, dtype=float)[None, :], requires_grad=grad),))


def _autograd_gap(estimator: str, placement: str, direction: str, logits: np.ndarray, log_ref: np.ndarray) -> float:
    """The same comparison by autograd: the gradient of the expected estimator term of
    :func:`grpo_nb.tabular.token_policy.kl_term` against that of the exact KL in the claimed direction."""
    policy, ref = _one_token(logits, grad=True), _one_token(log_ref)
    term = flat_gradient(kl_term(policy, ref, estimator, placement=placement), policy)
    target = 0 * term if direction == "zero" else flat_gradient(sequence_kl(policy, ref, direction), policy)
    return float(np.abs(term - target).max())


def _stationary_policy(estimator: str, placement: str, log_ref: np.ndarray, adv: np.ndarray) -> np.ndarray:
    """The policy where E_pi[A] - beta (the estimator's expected term) is stationary: root of its gradient."""

    def grad(theta_rest):
        theta = np.concatenate([[0.0], theta_rest])
        pi = softmax(theta)
        g = pi * (adv - pi @ adv) - KL_BETA * expected_estimator_gradient(
            theta, log_ref, estimator, placement=placement
        )
        return g[1:]

    theta = log_ref[1:] - log_ref[0]
    for _ in range(4000):  # gradient ascent from pi_ref, then a root-finder to polish the stationary point
        theta = theta + 0.5 * grad(theta)
    sol = root(grad, theta, method="hybr", tol=1e-14)
    return softmax(np.concatenate([[0.0], sol.x]))


def kl_estimators() -> KLEstimators:
    """Section "What each KL estimator optimises": exact expected gradients on five-answer softmax policies (20 random
    draws, seed 0) against the claimed divergence's, then the one-step problem of Theorem 1 solved with each."""
    rng = np.random.default_rng(0)
    draws = [(rng.normal(size=5), log_softmax(rng.normal(size=5))) for _ in range(20)]
    pi_ref = KL_REWARD * KL_P_REF / 2 + (1 - KL_REWARD) * (1 - KL_P_REF) / 3
    adv = np.where(KL_REWARD == 1, omega_plus(KL_P_REF, KL_EPS), -omega_minus(KL_P_REF, KL_EPS))
    gibbs = grpo_step(pi_ref, pi_ref, KL_REWARD, KL_BETA, KL_EPS)
    forward_p = family.forward_kl_success(KL_P_REF, KL_P_REF, KL_BETA, KL_EPS)
    rows, dir_gaps, opt_gaps = [], [], []
    for (est, place), direction in CLAIMED_DIRECTION.items():
        gap = max(
            float(np.abs(expected_estimator_gradient(lg, lr, est, placement=place) - _target(direction, lg, lr)).max())
            for lg, lr in draws
        )
        auto = max(_autograd_gap(est, place, direction, lg, lr) for lg, lr in draws)
        dir_gaps.append(max(gap, auto))
        if direction == "zero":
            opt, p1 = np.nan, "no optimum ($p \\to 1$)"
        else:
            pi = _stationary_policy(est, place, np.log(pi_ref), adv)
            target_p = expected_reward(gibbs, KL_REWARD) if direction == "reverse" else forward_p
            opt = abs(float(expected_reward(pi, KL_REWARD)) - float(target_p))
            if direction == "reverse":
                opt = max(opt, float(np.abs(pi - gibbs).max()))
            opt_gaps.append(opt)
            p1 = f"{float(expected_reward(pi, KL_REWARD)):.4f}"
        rows.append([f"$k_{est[1]}$ {_PLACEMENT[place]}", _DIRECTION[direction],
                     f"{bound(gap, TOL)} / {bound(auto, TOL)}", p1])  # fmt: skip
    headers = ["estimator", "expected gradient of", "gap: closed form / autograd", "$p_1$ of the one-step optimum"]
    table = Table(headers, rows)
    theorem2 = iterate(KL_P_REF, KL_BETA, KL_EPS, 6)
    forward = [KL_P_REF]
    for _ in range(6):
        forward.append(family.forward_kl_success(forward[-1], KL_P_REF, KL_BETA, KL_EPS))
    orbit = Table(["$n$", *map(str, range(7))], [["reverse KL (Theorem 2)", *theorem2], ["forward KL", *forward]])
    return KLEstimators(table, max(dir_gaps), max(opt_gaps), orbit, float(np.abs(theorem2 - np.array(forward)).max()))


#: The book's statement of each reverse-KL placement's scope: the KL its expected gradient follows for answers of
#: two tokens, on-policy ("sequence": of whole answers; "per-token": of each token's distribution given its prefix,
#: the prefixes held fixed), and whether it keeps its direction when the answers come from an older policy.
CLAIMED_SCOPE = {("k1", "reward"): ("sequence", False), ("k2", "loss"): ("per-token", False),
                 ("k3", "ratio_weighted"): ("per-token", True), ("k3", "loss"): ("per-token", False)}  # fmt: skip
SCOPE_V, SCOPE_DRAWS = 3, 20
TWO_TOKEN_SUCCESSES = (0, 5)


@dataclass(frozen=True)
class KLScope:
    """Per placement of :data:`CLAIMED_SCOPE`: ``table``; ``claims_hold`` (every scope statement, within
    :data:`~grpo_nb.chapters.grpo_family.tolerances.TOL` where it claims an identity and more than 1 % away where
    it claims a difference); ``sequence_distance`` (smallest, largest relative distance of the per-token placements'
    two-token gradients from the whole-answer KL's); the inner optima on frozen samples (``inner_p1``) against
    Theorem 1's ``gibbs_p1``; ``frozen_k1_gradient`` (the largest gradient of k1 in the reward on frozen samples);
    ``two_token_p1``: (the ratio-weighted k3's inner optimum, Theorem 1's p_1) on answers of two tokens; and the
    largest gradient left where the optimiser stopped (``optimiser_gradient``)."""

    table: Table
    claims_hold: bool
    sequence_distance: tuple[float, float]
    inner_p1: dict[tuple[str, str], float]
    gibbs_p1: float
    frozen_k1_gradient: float
    two_token_p1: tuple[float, float]
    optimiser_gradient: float


def _relative(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300))


def _gaps(est: str, place: str, rng: np.random.Generator) -> dict[str, list[float]]:
    """Relative distances over :data:`SCOPE_DRAWS` random policies: two tokens on-policy to the whole answers' and
    the per-token KL's gradient (the placement's direction), one token off-policy to the KL's gradient."""
    direction = CLAIMED_DIRECTION[(est, place)]
    out: dict[str, list[float]] = {"sequence": [], "per-token": [], "off-policy": []}
    for _ in range(SCOPE_DRAWS):
        policy, ref = TokenPolicy.random(SCOPE_V, 2, rng, grad=True), TokenPolicy.random(SCOPE_V, 2, rng)
        g = flat_gradient(kl_term(policy, ref, est, placement=place), policy)
        out["sequence"].append(_relative(g, flat_gradient(sequence_kl(policy, ref, direction), policy)))
        out["per-token"].append(_relative(g, flat_gradient(per_token_kl(policy, ref, direction=direction), policy)))
        policy, ref, old = (TokenPolicy.random(5, 1, rng, grad=g) for g in (True, False, False))
        g = flat_gradient(kl_term(policy, ref, est, placement=place, old=old), policy)
        out["off-policy"].append(_relative(g, flat_gradient(sequence_kl(policy, ref, direction), policy)))
    return out


def _unflatten(theta: np.ndarray, like: TokenPolicy, grad: bool) -> TokenPolicy:
    """A policy with the logit tables of ``like``'s shapes, filled from the flat ``theta``."""
    tables, i = [], 0
    for t in like.logits:
        tables.append(torch.tensor(theta[i : i + t.numel()].reshape(tuple(t.shape)), requires_grad=grad))
        i += t.numel()
    return TokenPolicy(tuple(tables))


def _inner_optimum(est: str, place: str, ref: TokenPolicy, adv: np.ndarray) -> tuple[TokenPolicy, float]:
    """The maximiser of Algorithm 1's inner problem on frozen samples from pi_old = pi_ref, exact over the answers and
    without clipping: E_{pi_old}[(pi/pi_old) A] - beta (the placement's expected term on answers from pi_old), with
    the answers' ratio pi(o)/pi_old(o); and the largest gradient left at the maximiser."""

    def negative(theta: np.ndarray) -> tuple[float, np.ndarray]:
        policy = _unflatten(theta, ref, grad=True)
        gain = torch.sum(ref.log_probs().exp() * torch.tensor(adv) * torch.exp(policy.log_probs() - ref.log_probs()))
        value = -(gain - KL_BETA * kl_term(policy, ref, est, placement=place, old=ref))
        return float(value.detach()), flat_gradient(value, policy)

    start = np.concatenate([t.numpy().ravel() for t in ref.logits])
    theta = minimize(negative, start, jac=True, method="BFGS", options={"gtol": 1e-11}).x
    return _unflatten(theta, ref, grad=False), float(np.abs(negative(theta)[1]).max())


def _two_token_inner(seed: int = 0) -> tuple[float, float, float]:
    """(p_1 of the ratio-weighted k3's inner optimum, p_1 of Theorem 1's policy, the gradient left) on answers of two
    tokens over a vocabulary of three (pi_ref Normal(0, 1) logits, seed ``seed``; answers 0 and 5 succeed), Eq. 4's
    advantage at p_ref, beta and eps of the five-answer example."""
    ref = TokenPolicy.random(SCOPE_V, 2, np.random.default_rng(seed))
    reward = np.isin(np.arange(SCOPE_V**2), TWO_TOKEN_SUCCESSES).astype(float)
    log_ref = ref.log_probs().numpy()
    p_ref = float(np.exp(log_ref) @ reward)
    adv = np.where(reward == 1, omega_plus(p_ref, KL_EPS), -omega_minus(p_ref, KL_EPS))
    gibbs = grpo_step(np.exp(log_ref), np.exp(log_ref), reward, KL_BETA, KL_EPS)
    policy, left = _inner_optimum("k3", "ratio_weighted", ref, adv)
    return float(success(policy, reward)), float(expected_reward(gibbs, reward)), left


def kl_scope(seed: int = 0) -> KLScope:
    """The scope of each reverse-KL placement (section "What each KL estimator optimises"): two-token answers and
    off-policy answers on random policies, and the inner optimum on frozen samples of the five-answer example."""
    rng = np.random.default_rng(seed)
    pi_ref = KL_REWARD * KL_P_REF / 2 + (1 - KL_REWARD) * (1 - KL_P_REF) / 3
    adv = np.where(KL_REWARD == 1, omega_plus(KL_P_REF, KL_EPS), -omega_minus(KL_P_REF, KL_EPS))
    gibbs_p1 = float(expected_reward(grpo_step(pi_ref, pi_ref, KL_REWARD, KL_BETA, KL_EPS), KL_REWARD))
    rows, holds, spread, inner, worst_left = [], True, [], {}, 0.0
    for (est, place), (tokens, off_policy) in CLAIMED_SCOPE.items():
        gaps = _gaps(est, place, rng)
        other = "per-token" if tokens == "sequence" else "sequence"
        holds &= max(gaps[tokens]) < TOL and min(gaps[other]) > 0.01
        holds &= max(gaps["off-policy"]) < TOL if off_policy else min(gaps["off-policy"]) > 0.01
        if tokens == "per-token":
            spread += gaps["sequence"]
        if place != "reward":
            policy, left = _inner_optimum(est, place, _one_token(np.log(pi_ref)), adv)
            inner[(est, place)], worst_left = float(success(policy, KL_REWARD)), max(worst_left, left)
        p1 = f"{inner[(est, place)]:.3f}" if place != "reward" else "none: no KL pull ($p \\to 1$)"
        rows.append([f"$k_{est[1]}$ {_PLACEMENT[place]}", "whole answers" if tokens == "sequence" else "per token",
                     "kept" if off_policy else f"lost (≥ {min(gaps['off-policy']):.0%} off)", p1])  # fmt: skip
    frozen = max(float(np.abs(flat_gradient(kl_term(p, _one_token(np.log(pi_ref)), "k1", placement="reward",
                                                    old=_one_token(np.log(pi_ref))), p)).max())
                     for p in [_one_token(rng.normal(size=5), grad=True) for _ in range(5)])  # fmt: skip
    headers = ["estimator", "two tokens, on-policy: follows the KL of", "answers from an older policy",
               f"inner optimum on frozen samples: $p_1$ (Theorem 1: {gibbs_p1:.3f})"]  # fmt: skip
    two = _two_token_inner()
    return KLScope(Table(headers, rows), bool(holds), (min(spread), max(spread)), inner, gibbs_p1, frozen,
                   two[:2], max(worst_left, two[2]))  # fmt: skip
