"""The page "Controlling the entropy" of the chapter "The GRPO family" (``book/grpo_family_entropy_control.md``):
TRL 1.16's adaptive entropy coefficient, read from its code and run on the toy task, and what annealing a bonus leaves
behind.

**TRL's controller** (``use_adaptive_entropy=True``). After each optimiser step TRL measures the mean token entropy
H_k of the step's answers and moves the coefficient by ``entropy_coef_delta`` d towards more bonus when the entropy is
at or below ``entropy_target`` H*, towards less otherwise, within [``entropy_coef_min``, ``entropy_coef_max``]:

    c_k = min(c_{k-1} + d, c_max)  if H_k <= H*,   else  max(c_{k-1} - d, c_min);

the step's loss subtracts a_k H_k with a_k = c_{k-1} if H_{k-1} <= H*, else 0 (H_0 = +inf: no bonus at the first
step), so the bonus acts only while the entropy is at or below the target (:data:`BOOK_CONTROLLER`).
:func:`controller_check` holds this rule against a TRL run's own logs (``entropy``, ``entropy_coef``, ``loss`` and
``policy_loss`` of every step).

**On the toy task** (:func:`controller_runs`): TRL's ``GRPOTrainer`` on the four prompts of the toy task (G = 8, one
optimiser step per generation, beta = 0), with and without the controller (:data:`CONTROLLER`), each step's entropy,
coefficient and exact mean success probability.

**Annealing** (:func:`annealing_survey`): Theorem 2's recursion with the bonus (the tempered map of
:mod:`~grpo_nb.chapters.grpo_family.entropy_bonus`: p_ref -> P_gamma, beta -> beta + c) at a fixed coefficient, and
at c_k = c_0 rho^k, which goes to 0: where the orbit from p_ref settles in each case, against where it settles without
a bonus.

Scope: the controller's rule as TRL 1.16 implements it on one process (one micro-batch per step, so TRL's window
entropy is the step's); the runs are sampled (the page states their frequencies over the seed sweep); annealing is
shown for answers of one token with exact expectations (G -> infinity) and exact on-policy steps.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy.special import expit, logit

from grpo_nb.chapters.grpo_family import tempered_step as bonus
from grpo_nb.chapters.grpo_family.entropy_bonus import BONUS_REFERENCES
from grpo_nb.constants import PAPER_EPS
from grpo_nb.dynamics.fixed_points import fixed_points
from grpo_nb.dynamics.map import logit_map
from grpo_nb.report import Table
from grpo_nb.tabular.policy import expected_reward
from grpo_nb.validation import check_positive_int

__all__ = [
    "ANNEAL_COEFS",
    "ANNEAL_RATE",
    "ANNEAL_SETTINGS",
    "ANNEAL_STEPS",
    "BOOK_CONTROLLER",
    "CONTROLLER",
    "CONTROL_TOL",
    "LIMIT_TOL",
    "RUN_STEPS",
    "AnnealingSurvey",
    "ControllerCheck",
    "ControllerRun",
    "annealed_orbit",
    "annealing_survey",
    "controller_check",
    "controller_runs",
]

#: TRL's controller as ``use_adaptive_entropy=True`` alone sets it: TRL 1.16's defaults, a target of 0.2 nats, a step
#: of 0.005, a start from no bonus (``entropy_coef`` 0), bounds 0 and 1 (:data:`COEF_BOUNDS`).
CONTROLLER = {"use_adaptive_entropy": True, "entropy_target": 0.2, "entropy_coef_delta": 0.005, "entropy_coef": 0.0}
#: TRL 1.16's defaults for the bounds of the coefficient.
COEF_BOUNDS = (0.0, 1.0)
#: Optimiser steps (= generations) per run.
RUN_STEPS = 160
#: How close TRL's logs come to the book's rule: the coefficient is a sum of float64 steps (exact), the loss's bonus
#: a float32 product of O(1) numbers.
CONTROL_TOL = 1e-5


def _next_coef(coef: float, entropy: float, target: float, delta: float) -> float:
    return min(coef + delta, COEF_BOUNDS[1]) if entropy <= target else max(coef - delta, COEF_BOUNDS[0])


def _applied_coef(coef: float, last_entropy: float, target: float) -> float:
    return coef if last_entropy <= target else 0.0


#: The book's statement of TRL's controller (module docstring): the next coefficient from (c, H_k, H*, d), and the
#: coefficient a step applies from (c_{k-1}, H_{k-1}, H*).
BOOK_CONTROLLER: dict[str, Callable[..., float]] = {"next": _next_coef, "applied": _applied_coef}


@dataclass(frozen=True)
class ControllerRun:
    """One TRL run, per optimiser step k = 1..n: the logged mean token ``entropy``, the logged coefficient after the
    step (``coef``, NaN without the controller), the logged ``loss`` and ``policy_loss``; and the exact mean success
    probability over the prompts after 0..n steps (``success``)."""

    entropy: np.ndarray
    coef: np.ndarray
    loss: np.ndarray
    policy_loss: np.ndarray
    success: np.ndarray


@functools.lru_cache(maxsize=1)
def _setup():
    from grpo_nb.trl_adapters.trainer import TRL_CONFIGS, prepare_trl

    return prepare_trl(replace(TRL_CONFIGS["tiny"], name="entropy control", G=8, mu=1, n=RUN_STEPS))


def _run(seed: int, overrides: dict) -> ControllerRun:
    from grpo_nb.trl_adapters.trainer import TRLRun, make_trainer, train_measured

    base = _setup()
    setup = replace(base, cfg=replace(base.cfg, seed=seed))
    log: list = []
    trainer = make_trainer(setup, TRLRun("entropy control", 0.0, 0.2), reward_log=log, **overrides)
    measured = train_measured(trainer, setup, log)
    steps = [h for h in trainer.state.log_history if "entropy" in h]
    columns = [np.array([h.get(key, np.nan) for h in steps], dtype=float)
               for key in ("entropy", "entropy_coef", "loss", "policy_loss")]  # fmt: skip
    return ControllerRun(*columns, measured.p.mean(axis=1))


def controller_runs(seed: int) -> dict[str, ControllerRun]:
    """TRL on the toy task for :data:`RUN_STEPS` steps from the same pi_ref, without a bonus (``"no bonus"``) and
    with the controller of :data:`CONTROLLER` (``"adaptive"``), trainer seed ``seed``."""
    return {"no bonus": _run(seed, {}), "adaptive": _run(seed, dict(CONTROLLER))}


@dataclass(frozen=True)
class ControllerCheck:
    """The book's controller (:data:`BOOK_CONTROLLER`) replayed on a run's logged entropies: the largest gap to TRL's
    logged coefficients (``coef_gap``) and to TRL's bonus, loss - policy_loss = -a_k H_k (``bonus_gap``); the
    steps at which a bonus acted (``acting``)."""

    coef_gap: float
    bonus_gap: float
    acting: int
    passed: bool


def controller_check(run: ControllerRun, settings: dict = CONTROLLER) -> ControllerCheck:
    """Replay :data:`BOOK_CONTROLLER` on ``run``'s entropies from c_0 = ``settings["entropy_coef"]``, H_0 = +inf."""
    target, delta = settings["entropy_target"], settings["entropy_coef_delta"]
    coef, last, coefs, applied = float(settings["entropy_coef"]), np.inf, [], []
    for entropy in run.entropy:
        applied.append(BOOK_CONTROLLER["applied"](coef, last, target))
        coef = BOOK_CONTROLLER["next"](coef, float(entropy), target, delta)
        coefs.append(coef)
        last = float(entropy)
    coef_gap = float(np.abs(np.array(coefs) - run.coef).max())
    bonus_gap = float(np.abs((run.loss - run.policy_loss) + np.array(applied) * run.entropy).max())
    acting = int((np.array(applied) > 0).sum())
    return ControllerCheck(coef_gap, bonus_gap, acting, max(coef_gap, bonus_gap) < CONTROL_TOL)


# ---- annealing ------------------------------------------------------------------------------------------------------

#: c_k = c_0 ANNEAL_RATE^k over ANNEAL_STEPS steps: the coefficient falls below 1e-13 c_0.
ANNEAL_RATE = 0.99
ANNEAL_STEPS = 3000
#: The starting coefficients c_0, and the (reference, beta) settings of the survey.
ANNEAL_COEFS = (0.5, 2.0, 5.0)
ANNEAL_SETTINGS = (("spread", 1.0), ("peaked", 1.0), ("spread", 0.7), ("peaked", 0.7))
#: Two limits closer than this are the same point (the orbits converge geometrically; 3000 steps reach 1e-12).
LIMIT_TOL = 1e-9


def annealed_orbit(pi_ref: object, reward: object, beta: float, *, coefs: Sequence[float]) -> np.ndarray:
    """p_0 = p_ref, ..., p_n of the exact steps with the bonus c_k at step k (``coefs``, length n): Theorem 2's map
    at the tempered p_ref P_gamma(c_k) and beta + c_k."""
    pi_ref, reward = np.asarray(pi_ref, dtype=float), np.asarray(reward, dtype=float)
    z = [float(logit(expected_reward(pi_ref, reward)))]
    for c in coefs:
        a = logit(bonus.tempered_success(pi_ref, reward, beta, coef=float(c)))
        z.append(float(logit_map(np.array(z[-1]), np.array(a), np.array(beta + c), np.array(PAPER_EPS))))
    return expit(np.array(z))


@dataclass(frozen=True, eq=False)
class AnnealingSurvey:
    """Per (reference, beta) of :data:`ANNEAL_SETTINGS`: the limit without a bonus (``none``), with the bonus fixed at
    each c_0 (``fixed``) and annealed from it (``annealed``); the stable fixed points of the map without a bonus
    (``stable``); the table; and the orbits of the figure's setting (``orbits``: label -> p_0..p_n)."""

    none: dict[tuple[str, float], float]
    fixed: dict[tuple[str, float], tuple[float, ...]]
    annealed: dict[tuple[str, float], tuple[float, ...]]
    stable: dict[tuple[str, float], tuple[float, ...]]
    table: Table
    orbits: dict[str, np.ndarray]


def _schedules(c0: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.full(n, c0), c0 * ANNEAL_RATE ** np.arange(n)


def _limit(pi_ref: np.ndarray, reward: np.ndarray, beta: float, coefs: np.ndarray) -> float:
    """The last point of :func:`annealed_orbit`; ValueError if the last two differ by :data:`LIMIT_TOL` or more."""
    p = annealed_orbit(pi_ref, reward, beta, coefs=coefs)
    if abs(p[-1] - p[-2]) >= LIMIT_TOL:
        raise ValueError(f"n={coefs.size!r} is too small: the orbit (beta={beta!r}) has not settled; valid: more steps")
    return float(p[-1])


def annealing_survey(n: int = ANNEAL_STEPS) -> AnnealingSurvey:
    """Where the orbit from p_ref settles with no bonus, a fixed bonus and an annealed one, per setting and c_0."""
    check_positive_int("n", n)
    none, fixed, annealed, stable, rows, orbits = {}, {}, {}, {}, [], {}
    for name, beta in ANNEAL_SETTINGS:
        pi_ref, reward = BONUS_REFERENCES[name]
        key = (name, beta)
        none[key] = _limit(pi_ref, reward, beta, np.zeros(n))
        ends = [[_limit(pi_ref, reward, beta, s) for s in _schedules(c0, n)] for c0 in ANNEAL_COEFS]
        fixed[key], annealed[key] = tuple(e[0] for e in ends), tuple(e[1] for e in ends)
        p_ref = float(expected_reward(pi_ref, reward))
        stable[key] = tuple(f.p for f in fixed_points(p_ref, beta, PAPER_EPS) if f.stable)
        for c0, (f, a) in zip(ANNEAL_COEFS, ends, strict=True):
            same = "yes" if abs(a - none[key]) < LIMIT_TOL else "no"
            rows.append([name, f"{beta:g}", ", ".join(f"{p:.3f}" for p in stable[key]), f"{none[key]:.3f}",
                         f"{c0:g}", f"{f:.3f}", f"{a:.3f}", same])  # fmt: skip
    pi_ref, reward = BONUS_REFERENCES["spread"]
    c0, steps = ANNEAL_COEFS[0], 400
    orbits["no bonus"] = annealed_orbit(pi_ref, reward, 0.7, coefs=np.zeros(steps))
    for label, schedule in zip(("fixed", "annealed"), _schedules(c0, steps), strict=True):
        orbits[f"bonus {label}, $c_0 = {c0:g}$"] = annealed_orbit(pi_ref, reward, 0.7, coefs=schedule)
    headers = ["reference", r"$\beta$", "stable fixed points without bonus", "limit without bonus", "$c_0$",
               "limit, bonus fixed", "limit, bonus annealed", "annealed ends where no bonus ends"]  # fmt: skip
    return AnnealingSurvey(none, fixed, annealed, stable, Table(headers, rows), orbits)
