"""The page "The entropy bonus: a tempered tilt" of the chapter "The GRPO family" (``book/grpo_family_entropy.md``).

* :func:`trl_entropy_term`: what TRL 1.16's ``entropy_coef`` adds to its loss, read off TRL's own ``_compute_loss``:
  minus the coefficient times the token mean of the entropies (:data:`STATED_BONUS`), whatever the loss type;
* :func:`tilt_check`: Theorem 1's step with the bonus is the tempered tilt pi ∝ pi_ref^gamma e^{A/(beta + c)}
  (:data:`STATED_EXPONENT`: gamma = beta/(beta + c)), against scipy's maximiser of the objective itself;
* :func:`recursion_check`: the success probability of the exact steps follows Theorem 2's map at the tempered p_ref
  and beta + c (:data:`STATED_RECURSION`);
* :func:`amplification_survey`: the fixed points against the coefficient for two references, where amplification
  (every fixed point above p_ref) is lost, and the entropy of the stationary policy.

Scope: answers of one token (the entropy of the answer's distribution is the mean per-token entropy TRL adds), exact
expectations (G -> infinity), exact on-policy steps. A check reads the module-level name of the book's statement when
it runs, so a test that replaces it by a wrong one (monkeypatch) sees the check fail.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from scipy.optimize import brentq
from scipy.special import expit, logit, logsumexp

from grpo_nb.chapters.grpo_family import tempered_step as bonus
from grpo_nb.chapters.grpo_family.batch import random_batch
from grpo_nb.chapters.grpo_family.tolerances import TOL
from grpo_nb.constants import PAPER_EPS
from grpo_nb.dynamics.fixed_points import fixed_points
from grpo_nb.dynamics.map import logit_map
from grpo_nb.report import Table, bound
from grpo_nb.tabular.policy import expected_reward
from grpo_nb.weights import stabilised_advantage

__all__ = [
    "AmplificationSurvey",
    "BONUS_REFERENCES",
    "STATED_BONUS",
    "STATED_EXPONENT",
    "STATED_RECURSION",
    "SOLVER_TOL",
    "SURVEY_BETA",
    "SURVEY_COEFS",
    "TRLEntropyTerm",
    "amplification_survey",
    "bonus_curves",
    "recursion_check",
    "tilt_check",
    "trl_entropy_term",
]

#: The book's statement: TRL adds -c times the token mean of the entropies over the batch's real tokens.
STATED_BONUS = {"mean": "tokens"}
#: The book's statement: the exponent gamma of pi_ref in the tempered tilt.
STATED_EXPONENT = {"gamma": lambda beta, c: beta / (beta + c)}
#: The book's statement: the recursion's (p_ref, beta) with the bonus, from (P_gamma, p_ref, beta, c).
STATED_RECURSION = {"params": lambda p_tempered, p_ref, beta, c: (p_tempered, beta + c)}
#: How close scipy's BFGS maximiser gets to the maximiser (it stops at a gradient of 1e-13, on policies that can be
#: nearly deterministic).
SOLVER_TOL = 1e-6
#: Two references over answers of one token, with the same kind of reward: "spread", two successes each less likely
#: than a failure (p_ref = 0.1); "peaked", one likely success and many unlikely failures (p_ref = 0.3).
BONUS_REFERENCES = {
    "spread": (np.array([0.05, 0.05, 0.3, 0.3, 0.3]), np.array([1.0, 1.0, 0.0, 0.0, 0.0])),
    "peaked": (np.array([0.3, *([0.05] * 14)]), np.array([1.0, *([0.0] * 14)])),
}
#: The settings of the tilt and recursion checks: (beta, c) pairs.
CHECK_SETTINGS = ((0.04, 0.01), (0.04, 0.04), (0.1, 0.5), (0.5, 0.1), (2.0, 1.0))
SURVEY_BETA = 1.0
SURVEY_COEFS = (0.0, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)


@dataclass(frozen=True)
class TRLEntropyTerm:
    """TRL's loss with ``entropy_coef`` = c minus its loss without, against the stated bonus (``gap``), per loss type,
    and how far a per-answer mean of the entropies would be (``per_answer_gap``, must be large)."""

    table: Table
    gap: float
    per_answer_gap: float


def _stated_bonus(entropies: np.ndarray, mask: np.ndarray, c: float) -> float:
    if STATED_BONUS["mean"] == "tokens":
        return -c * float((entropies * mask).sum() / mask.sum())
    return -c * float(((entropies * mask).sum(axis=1) / mask.sum(axis=1)).mean())  # a mean per answer, then over them


def trl_entropy_term(coef: float = 0.05) -> TRLEntropyTerm:
    """TRL's ``_compute_loss`` on the chapter's off-policy batch (answers of different lengths) with given per-token
    entropies, with and without ``entropy_coef``, for loss types grpo, dapo and dr_grpo."""
    from grpo_nb.chapters.grpo_family.trl_check import probe_trainer, trl_loss

    batch = random_batch()
    entropies = np.random.default_rng(7).uniform(0.1, 2.0, batch["logp"].shape)
    trainer = probe_trainer()
    n_tokens = 2.0 * batch["mask"].sum()
    rows, gaps = [], []
    saved = trainer.entropy_coef, trainer._entropy_bonus_enabled, trainer.use_adaptive_entropy
    try:
        trainer.use_adaptive_entropy = False
        for loss_type in ("grpo", "dapo", "dr_grpo"):
            values = []
            for c, on in ((0.0, False), (coef, True)):
                trainer.entropy_coef, trainer._entropy_bonus_enabled = c, on
                value, _ = trl_loss(trainer, batch, {"loss_type": loss_type}, n_tokens=n_tokens,
                                    entropies=torch.tensor(entropies))  # fmt: skip
                values.append(value)
            gaps.append(abs((values[1] - values[0]) - _stated_bonus(entropies, batch["mask"], coef)))
            rows.append([f'`loss_type="{loss_type}"`', bound(gaps[-1], TOL)])
    finally:
        trainer.entropy_coef, trainer._entropy_bonus_enabled, trainer.use_adaptive_entropy = saved
    mask = batch["mask"]
    per_answer = -coef * float(((entropies * mask).sum(axis=1) / mask.sum(axis=1)).mean())
    token_mean = -coef * float((entropies * mask).sum() / mask.sum())
    return TRLEntropyTerm(Table(["TRL setting", "gap to −c × token mean"], rows), max(gaps),
                          abs(per_answer - token_mean))  # fmt: skip


def tilt_check() -> float:
    """The worst gap, over :data:`CHECK_SETTINGS`, both references and two previous policies (pi_ref and a policy
    closer to the successes), between the stated tempered tilt, :func:`.tempered_step.entropy_bonus_step` and
    scipy's maximiser of the objective (:func:`.tempered_step.solve_entropy_bonus_step`)."""
    worst = 0.0
    for pi_ref, reward in BONUS_REFERENCES.values():
        for pi_prev in (pi_ref, (pi_ref + reward / reward.sum()) / 2):
            p = float(expected_reward(pi_prev, reward))
            adv = stabilised_advantage(reward, p, PAPER_EPS)
            for beta, c in CHECK_SETTINGS:
                log_claim = STATED_EXPONENT["gamma"](beta, c) * np.log(pi_ref) + adv / (beta + c)
                claimed = np.exp(log_claim - logsumexp(log_claim))
                solved = bonus.solve_entropy_bonus_step(pi_ref, pi_prev, reward, beta, PAPER_EPS, coef=c)
                code = bonus.entropy_bonus_step(pi_ref, pi_prev, reward, beta, PAPER_EPS, coef=c)
                worst = max(worst, float(np.abs(claimed - solved).max()), float(np.abs(code - claimed).max()))
    return worst


def recursion_check(n: int = 40) -> float:
    """The worst gap between the success probabilities of n exact steps with the bonus (from pi_0 = pi_ref) and the
    orbit of Theorem 2's map at the stated (p_ref, beta), over :data:`CHECK_SETTINGS` and both references."""
    worst = 0.0
    for pi_ref, reward in BONUS_REFERENCES.values():
        p_ref = float(expected_reward(pi_ref, reward))
        for beta, c in CHECK_SETTINGS:
            pi, exact = pi_ref, [p_ref]
            for _ in range(n):
                pi = bonus.entropy_bonus_step(pi_ref, pi, reward, beta, PAPER_EPS, coef=c)
                exact.append(float(expected_reward(pi, reward)))
            p0, b = STATED_RECURSION["params"](bonus.tempered_success(pi_ref, reward, beta, coef=c), p_ref, beta, c)
            orbit = expit(_tempered_orbit(p_ref, p0, b, n))
            worst = max(worst, float(np.abs(np.array(exact[1:]) - orbit[1:]).max()))
    return worst


@dataclass(frozen=True)
class AmplificationSurvey:
    """Per reference, per coefficient of :data:`SURVEY_COEFS` (beta = :data:`SURVEY_BETA`): P_gamma, the fixed points,
    where the orbit from p_ref settles (``limit``) and the entropy of the policy there (``entropy``); ``threshold``: the
    coefficient at which the peaked reference's orbit settles at p_ref itself (above it, no amplification);
    ``fixed``: the fixed points (p*, stable) per reference and coefficient."""

    table: Table
    tempered: dict[str, list[float]]
    limit: dict[str, list[float]]
    entropy: dict[str, list[float]]
    threshold: float
    fixed: dict[str, list[list[tuple[float, bool]]]]


def _orbit_limit(pi_ref: np.ndarray, reward: np.ndarray, c: float, n: int = 4000) -> float:
    """Where the exact steps with the bonus settle from pi_0 = pi_ref: the tempered map iterated n times from
    logit p_ref (ValueError if the last two iterates differ by more than 1e-12: no limit)."""
    p_ref = float(expected_reward(pi_ref, reward))
    p0, b = STATED_RECURSION["params"](
        bonus.tempered_success(pi_ref, reward, SURVEY_BETA, coef=c), p_ref, SURVEY_BETA, c
    )
    z = _tempered_orbit(p_ref, p0, b, n)
    if abs(z[-1] - z[-2]) > 1e-12:
        raise ValueError(f"coef={c!r}: the orbit from p_ref has no limit after {n} steps")
    return float(expit(z[-1]))


def _tempered_orbit(p_ref: float, p_tempered: float, beta: float, n: int) -> np.ndarray:
    """logit p_0..p_n of z_k = logit p_tempered + s(p_{k-1})/beta from z_0 = logit p_ref (Theorem 2's map)."""
    a = logit(p_tempered)
    z = [logit(p_ref)]
    for _ in range(n):
        z.append(float(logit_map(np.array(z[-1]), np.array(a), np.array(beta), np.array(PAPER_EPS))))
    return np.array(z)


def _stationary(pi_ref: np.ndarray, reward: np.ndarray, c: float, p_star: float) -> np.ndarray:
    """The policy at the fixed point p*: the tempered tilt with Eq. 4's advantage at p*."""
    adv = stabilised_advantage(reward, p_star, PAPER_EPS)
    log_pi = SURVEY_BETA / (SURVEY_BETA + c) * np.log(pi_ref) + adv / (SURVEY_BETA + c)
    return np.exp(log_pi - logsumexp(log_pi))


def bonus_curves(coefs: object) -> dict[str, dict[str, np.ndarray]]:
    """Per reference of :data:`BONUS_REFERENCES`, over the coefficients ``coefs`` (beta = :data:`SURVEY_BETA`): the
    tempered p_ref (``tempered``), where the orbit from p_ref settles (``limit``) and the entropy of the policy there
    (``entropy``, nats)."""
    out = {}
    for name, (pi_ref, reward) in BONUS_REFERENCES.items():
        cols = {"tempered": [], "limit": [], "entropy": []}
        for c in np.asarray(coefs, dtype=float):
            cols["tempered"].append(bonus.tempered_success(pi_ref, reward, SURVEY_BETA, coef=c))
            cols["limit"].append(_orbit_limit(pi_ref, reward, c))
            pi = _stationary(pi_ref, reward, c, cols["limit"][-1])
            cols["entropy"].append(float(-(pi * np.log(pi)).sum()))
        out[name] = {k: np.array(v) for k, v in cols.items()}
    return out


def amplification_survey() -> AmplificationSurvey:
    """The fixed points and the orbit's limit over :data:`SURVEY_COEFS` for both :data:`BONUS_REFERENCES`."""
    curves = bonus_curves(SURVEY_COEFS)
    rows, fixed = [], {name: [] for name in BONUS_REFERENCES}
    for name in BONUS_REFERENCES:
        for k, c in enumerate(SURVEY_COEFS):
            fps = fixed_points(curves[name]["tempered"][k], SURVEY_BETA + c, PAPER_EPS)
            fixed[name].append([(f.p, f.stable) for f in fps])
            rows.append([name, f"{c:g}", f"{curves[name]['tempered'][k]:.3f}", ", ".join(f"{f.p:.3f}" for f in fps),
                         f"{curves[name]['limit'][k]:.3f}", f"{curves[name]['entropy'][k]:.2f}"])  # fmt: skip
    pi_ref, reward = BONUS_REFERENCES["peaked"]
    p_ref = float(expected_reward(pi_ref, reward))
    threshold = brentq(lambda c: _orbit_limit(pi_ref, reward, c) - p_ref, 0.5, 5.0, xtol=1e-10)
    headers = ["reference", "$c$", r"$P_\gamma$", "fixed points", r"limit from $p_{\mathrm{ref}}$", "entropy (nats)"]
    field = {key: {name: list(curves[name][key]) for name in curves} for key in ("tempered", "limit", "entropy")}
    return AmplificationSurvey(
        Table(headers, rows), field["tempered"], field["limit"], field["entropy"], float(threshold), fixed
    )
