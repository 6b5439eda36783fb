"""The analyses of the chapter "The GRPO family, side by side" (``book/grpo_family.md``).

* :func:`family_table` (section "One table, every row computed"): the family's rows, each advantage computed by
  :func:`grpo_nb.family.advantage`.
* :func:`trl_comparison` (section "Checked against TRL's code"): TRL 1.16's advantages and losses, run by TRL's own
  ``GRPOTrainer`` on given rewards and log-probabilities, against :func:`grpo_nb.family.advantage` and
  :func:`grpo_nb.family.loss` (:data:`ADVANTAGE`, :data:`LOSS`).
* :func:`row_identities` (section "Identities between rows"): RLOO = G/(G-1) x Dr. GRPO (:func:`rloo_factor`), the
  pairwise form at G = 2 (:data:`PAIR_SCALE`), GSPO's on-policy gradient, the silent groups
  (:func:`silent_probability`).
* :func:`regime_survey` (section "What each normalisation climbs"): where each recursion converges or cycles.
* :func:`kl_estimators` (section "What each KL estimator optimises"): which divergence each estimator's expected
  gradient is the gradient of (:data:`CLAIMED_DIRECTION`), and the one-step optimum it leads to.

A check reads the module-level name of the book's statement when it runs, so a test that replaces it by a wrong one
(monkeypatch) sees the check fail.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, replace

import numpy as np
import torch
from scipy.optimize import root
from scipy.special import log_softmax, softmax

from grpo_nb import family
from grpo_nb.constants import CLIP_EPS, PAPER_EPS, PRACTICAL_BETA
from grpo_nb.dynamics.map import iterate
from grpo_nb.dynamics.regimes import Regime, regime_grid, regime_map
from grpo_nb.kl import expected_estimator_gradient, softmax_kl_gradients
from grpo_nb.report import Table, bound
from grpo_nb.tabular.closed_form import grpo_step
from grpo_nb.tabular.policy import expected_reward
from grpo_nb.trl_adapters.trainer import TRL_CONFIGS, TRLRun, make_trainer, prepare_trl
from grpo_nb.variants import Variant
from grpo_nb.weights import omega_minus, omega_plus

__all__ = [
    "ADVANTAGE",
    "CLAIMED_DIRECTION",
    "EXAMPLE_REWARDS",
    "FamilyTable",
    "KLEstimators",
    "LOSS",
    "PAIR_SCALE",
    "RegimeSurvey",
    "RowIdentities",
    "TRLComparison",
    "family_table",
    "kl_estimators",
    "regime_survey",
    "rloo_factor",
    "row_identities",
    "silent_probability",
    "trl_comparison",
]

ADVANTAGE = family.advantage
LOSS = family.loss
EXAMPLE_REWARDS = np.array([[1.0, 0.0, 0.0, 0.0]])  # one success in a group of four
_NAMES = {"centring": {family.Centring.GROUP: "group mean", family.Centring.LEAVE_ONE_OUT: "mean of the other $G-1$",
                       family.Centring.BATCH: "batch mean"},
          "scaling": {family.Scaling.GROUP_STD: "group std", family.Scaling.BATCH_STD: "batch std",
                      family.Scaling.NONE: "none"},
          "ratio": {family.Ratio.TOKEN: "token", family.Ratio.SEQUENCE_MEAN: "sequence (geometric mean)",
                    family.Ratio.SEQUENCE_SUM: "sequence (product)"},
          "clip": {family.Clip.SYMMETRIC: r"$[1-\epsilon, 1+\epsilon]$",
                   family.Clip.CLIP_HIGHER: r"$[1-\epsilon, 1+\epsilon_h]$",
                   family.Clip.IS_WEIGHT: r"weight $\min(x, \epsilon_{\max})$, detached", family.Clip.NONE: "none"},
          "aggregation": {family.Aggregation.SEQUENCE_MEAN: "answer mean, then mean",
                          family.Aggregation.BATCH_TOKENS: "batch token mean",
                          family.Aggregation.LOCAL_TOKENS: "batch token mean",
                          family.Aggregation.CONSTANT: r"sum$/(B L_{\max})$",
                          family.Aggregation.SEQUENCE: "mean over answers"}}  # fmt: skip


def _kl(m: family.Method) -> str:
    """Where the method's KL sits and its estimator: "loss, $k_3$", "reward, $k_1$" or "none"."""
    if m.kl is family.KLPlacement.NONE:
        return "none"
    return f"{m.kl.value}, $k_{m.kl_estimator.value[1:]}$"


@dataclass(frozen=True)
class FamilyTable:
    """The family table, in three parts narrow enough for a phone (the advantage, the loss, TRL's flags), and the
    advantages (success, failure) of :data:`EXAMPLE_REWARDS` per method."""

    table: Table
    loss_table: Table
    trl_table: Table
    success: dict[str, float]
    failure: dict[str, float]


def _flags(trl: str) -> str:
    """TRL's flags as separate code spans, so that a narrow column can break the line between two flags."""
    return ", ".join(f"`{flag.strip()}`" for flag in trl.split(", ")) if trl else "—"


def family_table() -> FamilyTable:
    """The family's rows (:data:`grpo_nb.family.METHODS`), with the advantage of a success and of a failure in a group
    of four with one success, computed by :data:`ADVANTAGE` (section "One table, every row computed")."""
    rows, loss_rows, trl_rows, success, failure = [], [], [], {}, {}
    for m in family.METHODS:
        a = ADVANTAGE(m.name, EXAMPLE_REWARDS)[0]
        success[m.name], failure[m.name] = float(a[0]), float(a[1])
        rows.append([m.label, f"{a[0]:.3f} / {a[1]:.3f}", _NAMES["centring"][m.centring],
                     _NAMES["scaling"][m.scaling], m.silent_groups.value])  # fmt: skip
        loss_rows.append([m.label, _NAMES["ratio"][m.ratio], _NAMES["clip"][m.clip], _kl(m),
                          _NAMES["aggregation"][m.aggregation]])  # fmt: skip
        trl_rows.append([m.label, _flags(m.trl)])
    headers = ["method", "$A$ success / failure", "baseline", "scale", "all-equal group"]
    loss_headers = ["method", "ratio", "clip", "KL", "aggregation"]
    return FamilyTable(
        Table(headers, rows), Table(loss_headers, loss_rows), Table(["method", "TRL 1.16"], trl_rows), success, failure
    )


# --- TRL ---------------------------------------------------------------------------------------------------------
_PROBE = replace(TRL_CONFIGS["tiny"], name="family", G=4, mu=1, n=1)
TRL_REWARDS = np.array([[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]])
#: The book's choices for the loss comparison beyond each method's own flags: (TRL knobs, the book's keyword
#: arguments) for Dr. GRPO's KL term without TRL's bias correction.
TRL_LOSS_EXTRAS = {"dr_grpo": ({"use_bias_correction_kl": False}, {"bias_correction": False})}


def _loss_case(m: family.Method) -> tuple[dict, dict]:
    """TRL's knobs for method ``m`` and the book's keyword arguments for :data:`LOSS`: its ``loss_type`` and ratio
    level, its clip range where it is not TRL's default, beta = :data:`grpo_nb.constants.PRACTICAL_BETA` where its KL
    sits in the loss, and :data:`TRL_LOSS_EXTRAS`."""
    flags = m.trl_config
    knobs = {"loss_type": flags["loss_type"]}
    if "importance_sampling_level" in flags:
        knobs["importance_sampling_level"] = flags["importance_sampling_level"]
    for key, value in zip(("epsilon_low", "epsilon_high"), m.clip_range, strict=True):
        if value != CLIP_EPS:
            knobs[key] = value
    book = {}
    if m.kl is family.KLPlacement.LOSS:
        knobs["beta"] = book["beta"] = PRACTICAL_BETA
    extra_knobs, extra_book = TRL_LOSS_EXTRAS.get(m.name, ({}, {}))
    return knobs | extra_knobs, book | extra_book


#: TRL's knobs for each method of the loss comparison, the methods TRL's GRPOTrainer runs: (GRPOConfig names and
#: values, the book's keyword arguments), from each method's record (:func:`_loss_case`).
TRL_LOSS_CASES = {m.name: _loss_case(m) for m in family.METHODS if m.trl_trainer is family.TRLTrainer.GRPO}
TOL = 1e-12  # float64 throughout
TOL_TRL = 1e-6  # TRL computes its advantages in float32


class _FixedReward:
    """A reward function that returns given rewards, whatever was sampled."""

    __name__ = "fixed_reward"

    def __init__(self, rewards: list[float]) -> None:
        self.rewards = rewards

    def __call__(self, prompts, completions, **kwargs) -> list[float]:
        return list(self.rewards)


@functools.lru_cache(maxsize=1)
def _trainer():
    trainer = make_trainer(prepare_trl(_PROBE), TRLRun("family", 0.0, CLIP_EPS))
    trainer.model.eval()
    return trainer


def _trl_advantages(trainer, rewards: np.ndarray, scale_rewards: str) -> np.ndarray:
    """TRL's advantages for ``rewards``, computed by ``_generate_and_score_completions`` on a fresh batch."""
    saved = trainer.reward_funcs, trainer.scale_rewards
    trainer.reward_funcs, trainer.scale_rewards = [_FixedReward(rewards.reshape(-1).tolist())], scale_rewards
    try:
        torch.manual_seed(0)
        examples = [{"prompt": "0+0=", "index": i} for i in range(rewards.shape[0]) for _ in range(rewards.shape[1])]
        return trainer._generate_and_score_completions(examples)["advantages"].double().numpy().reshape(rewards.shape)
    finally:
        trainer.reward_funcs, trainer.scale_rewards = saved


def _batch(seed: int = 0, B: int = 6, T: int = 5) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    mask = (np.arange(T)[None, :] < rng.integers(1, T + 1, size=B)[:, None]).astype(float)
    logp = np.log(rng.uniform(0.05, 0.95, size=(B, T)))
    return {"logp": logp, "old_logp": logp + rng.normal(0, 0.15, (B, T)),
            "ref_logp": logp + rng.normal(0, 0.3, (B, T)), "mask": mask, "advantages": rng.normal(0, 1, B)}  # fmt: skip


def _trl_loss(trainer, batch: dict[str, np.ndarray], knobs: dict, n_tokens: float) -> tuple[float, np.ndarray]:
    """TRL's ``_compute_loss`` on given log-probabilities (the model's forward pass replaced by them) and its gradient
    with respect to them (autograd)."""
    B, T = batch["logp"].shape
    logp = torch.tensor(batch["logp"], requires_grad=True)
    trainer._get_per_token_logps_and_entropies = lambda *a, **k: (logp, torch.zeros_like(logp), None)
    args_knobs = {"use_bias_correction_kl": knobs.pop("use_bias_correction_kl", True)}
    defaults = {"beta": 0.0, "epsilon_low": CLIP_EPS, "epsilon_high": CLIP_EPS, "importance_sampling_level": "token"}
    for key, value in (defaults | knobs | {"max_completion_length": T}).items():
        setattr(trainer, key, value)
    trainer.args.use_bias_correction_kl = args_knobs["use_bias_correction_kl"]
    inputs = {"prompt_ids": torch.zeros((B, 1), dtype=torch.long), "prompt_mask": torch.ones((B, 1)),
              "completion_ids": torch.zeros((B, T), dtype=torch.long),
              "completion_mask": torch.tensor(batch["mask"]), "advantages": torch.tensor(batch["advantages"]),
              "old_per_token_logps": torch.tensor(batch["old_logp"]),
              "ref_per_token_logps": torch.tensor(batch["ref_logp"]),
              "num_items_in_batch": torch.tensor(n_tokens, dtype=torch.float64)}  # fmt: skip
    try:
        value = trainer._compute_loss(trainer.model, inputs)
        value.backward()
    finally:
        del trainer._get_per_token_logps_and_entropies
    return float(value.detach()), logp.grad.detach().numpy()


@dataclass(frozen=True)
class TRLComparison:
    """TRL against the book: ``table`` (one row per check), the worst gaps of the advantages, losses, gradients."""

    table: Table
    advantage_gap: float
    loss_gap: float
    grad_gap: float


def trl_comparison() -> TRLComparison:
    """TRL 1.16's own code against :data:`ADVANTAGE` and :data:`LOSS` (section "Checked against TRL's code").

    Advantages: TRL's ``scale_rewards="group"`` against GRPO's advantage in TRL's form, ``"none"`` against Dr. GRPO's,
    on :data:`TRL_REWARDS` (silent groups included). Losses: TRL's ``_compute_loss`` with the knobs of
    :data:`TRL_LOSS_CASES`, on an off-policy batch with answers of different lengths (DAPO and CISPO divide by the
    generation batch's token count, here set to twice the batch's tokens)."""
    trainer = _trainer()
    rows, adv_gaps, loss_gaps, grad_gaps = [], [], [], []
    for name, scale in (("grpo", "group"), ("dr_grpo", "none")):
        book = ADVANTAGE(name, TRL_REWARDS, form="trl") if name == "grpo" else ADVANTAGE(name, TRL_REWARDS)
        gap = float(np.abs(_trl_advantages(trainer, TRL_REWARDS, scale) - book).max())
        adv_gaps.append(gap)
        rows.append([f"advantage, {name}", f'`scale_rewards="{scale}"`', bound(gap, TOL_TRL), "—"])
    batch = _batch()
    n_tokens = 2.0 * batch["mask"].sum()
    for name, (knobs, book_kwargs) in TRL_LOSS_CASES.items():
        trl_value, trl_grad = _trl_loss(trainer, batch, dict(knobs), n_tokens)
        book = LOSS(name, batch["logp"], batch["advantages"], old_logp=batch["old_logp"], ref_logp=batch["ref_logp"],
                    mask=batch["mask"], n_tokens=n_tokens, **book_kwargs)  # fmt: skip
        loss_gaps.append(abs(book.value - trl_value))
        grad_gaps.append(float(np.abs(book.grad - trl_grad).max()))
        flags = ", ".join(f"`{k}={v!r}`" for k, v in knobs.items())
        rows.append([f"loss, {name}", flags, bound(loss_gaps[-1], TOL), bound(grad_gaps[-1], TOL)])
    table = Table(["check", "TRL knobs", "value gap", "gradient gap"], rows)
    return TRLComparison(table, max(adv_gaps), max(loss_gaps), max(grad_gaps))


# --- identities between rows -------------------------------------------------------------------------------------
def rloo_factor(G: int) -> float:
    """The book's statement: RLOO's advantage is Dr. GRPO's times G/(G - 1)."""
    return G / (G - 1)


def silent_probability(p: np.ndarray, G: int) -> np.ndarray:
    """The book's statement: a group of G answers is silent (all rewards equal) with probability p^G + (1 - p)^G."""
    return p**G + (1 - p) ** G


#: The book's statement of the constant c in A = c (r_1 - r_2) (1, -1) at G = 2, per method (eps: the paper's 1e-5).
PAIR_SCALE = {"grpo": 1 / np.sqrt(1 + 4 * PAPER_EPS), "dr_grpo": 0.5, "rloo": 1.0}
GROUP_SIZES = range(2, 9)
SILENT_METHODS = ("grpo", "dr_grpo", "rloo")


@dataclass(frozen=True)
class RowIdentities:
    """The worst gap of each identity of section "Identities between rows", and the GSPO/GRPO gap off-policy."""

    table: Table
    rloo_gap: float
    pairwise_gap: float
    gspo_gap: float
    gspo_off_policy_gap: float
    silent_gap: float
    reinforce_pp_silent: float


def _all_groups(G: int) -> np.ndarray:
    return np.array(list(itertools.product((0.0, 1.0), repeat=G)))


def _silent_gap() -> tuple[float, float]:
    p = np.linspace(0.01, 0.99, 99)
    worst = 0.0
    for G in GROUP_SIZES:
        groups = _all_groups(G)
        k = groups.sum(axis=1)
        prob = p[:, None] ** k * (1 - p[:, None]) ** (G - k)
        for name in SILENT_METHODS:
            silent = np.all(ADVANTAGE(name, groups) == 0, axis=1)
            worst = max(worst, float(np.abs((prob * silent).sum(axis=1) - silent_probability(p, G)).max()))
    mixed = ADVANTAGE("reinforce_pp", np.array([[1.0, 1.0, 1.0, 1.0], [1.0, 0.0, 0.0, 0.0]]))
    return worst, float(np.abs(mixed[0]).min())


def row_identities() -> RowIdentities:
    """The identities of section "Identities between rows", each by exact enumeration (every reward vector of
    every group size 2..8) or on a batch with exact gradients."""
    rloo = max(float(np.abs(ADVANTAGE("rloo", g) - rloo_factor(G) * ADVANTAGE("dr_grpo", g)).max())
               for G in GROUP_SIZES for g in [_all_groups(G)])  # fmt: skip
    pairs = _all_groups(2)
    pair = max(float(np.abs(ADVANTAGE(n, pairs) - c * (pairs[:, :1] - pairs[:, 1:]) * [1, -1]).max())
               for n, c in PAIR_SCALE.items())  # fmt: skip
    batch = _batch(seed=1)
    grads = {}
    for old in ("on", "off"):
        kw = {"mask": batch["mask"], "old_logp": batch["logp"] if old == "on" else batch["old_logp"]}
        kw |= {"clip_eps": np.inf, "clip_eps_high": np.inf}
        grads[old] = [LOSS(n, batch["logp"], batch["advantages"], **kw).grad for n in ("gspo", "grpo")]
    gspo, gspo_off = (float(np.abs(g[0] - g[1]).max()) for g in (grads["on"], grads["off"]))
    silent, rpp = _silent_gap()
    rows = [["RLOO = $G/(G-1)$ × Dr. GRPO, every group, $G = 2..8$", rloo],
            ["$G = 2$: $A = c\\,(r_1 - r_2)(1, -1)$ (GRPO, Dr. GRPO, RLOO)", pair],
            ["GSPO gradient = GRPO's (answer mean), on-policy", gspo],
            ["$P$(silent group) $= p^G + (1-p)^G$, $G = 2..8$", silent]]  # fmt: skip
    table = Table(["identity", "worst gap"], [[r[0], bound(r[1], TOL)] for r in rows])
    return RowIdentities(table, rloo, pair, gspo, gspo_off, silent, rpp)


# --- regimes -----------------------------------------------------------------------------------------------------
RECURSIONS = {"GRPO (std)": Variant(), "Dr. GRPO (mean only)": Variant("mean"),
              "successes only (log p)": family.SuccessOnlyRecursion()}  # fmt: skip


@dataclass(frozen=True)
class RegimeSurvey:
    """Regime counts per recursion on the 40 x 40 grid (eps = 1e-5) and the facts the section asserts."""

    table: Table
    cycles: dict[str, int]
    cycles_where_unstable: bool


def regime_survey(eps: float = PAPER_EPS) -> RegimeSurvey:
    """Where each recursion's orbit from p_ref goes, on :func:`grpo_nb.dynamics.regimes.regime_grid` (40 x 40)
    (section "What each normalisation climbs")."""
    p_ref, beta = regime_grid(40, 40)
    maps = {k: regime_map(p_ref, beta, eps, variant=v) for k, v in RECURSIONS.items()}
    rows = [[k, *(int((m.regime == r).sum()) for r in Regime)] for k, m in maps.items()]
    log_map = maps["successes only (log p)"]
    return RegimeSurvey(
        Table(["recursion", *(r.label for r in Regime)], rows),
        {k: int((m.regime == Regime.CYCLE).sum()) for k, m in maps.items()},
        bool(np.array_equal(log_map.regime == Regime.CYCLE, log_map.no_stable)),
    )


# --- KL estimators -----------------------------------------------------------------------------------------------
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
        dir_gaps.append(gap)
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
        rows.append([f"$k_{est[1]}$ {_PLACEMENT[place]}", _DIRECTION[direction], bound(gap, TOL), p1])
    table = Table(["estimator", "expected gradient of", "gap", "$p_1$ of the one-step optimum"], rows)
    theorem2 = iterate(KL_P_REF, KL_BETA, KL_EPS, 6)
    forward = [KL_P_REF]
    for _ in range(6):
        forward.append(family.forward_kl_success(forward[-1], KL_P_REF, KL_BETA, KL_EPS))
    orbit = Table(["$n$", *map(str, range(7))], [["reverse KL (Theorem 2)", *theorem2], ["forward KL", *forward]])
    return KLEstimators(table, max(dir_gaps), max(opt_gaps), orbit, float(np.abs(theorem2 - np.array(forward)).max()))
