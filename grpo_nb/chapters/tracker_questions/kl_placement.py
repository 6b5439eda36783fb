"""Section "Which KL estimator, and where: in the loss or in the reward?" of the chapter "Questions from the trackers"
(``book/tracker_questions.md``).

With d = log pi_ref(o) - log pi(o), Schulman's estimates of KL(pi || pi_ref) at a sampled answer are k1 = -d,
k2 = d^2/2 and k3 = e^d - d - 1 (:mod:`grpo_nb.kl`). A trainer can put one in three places
(:func:`grpo_nb.kl.expected_estimator_gradient`): in the loss (``"loss"``), in the loss times the importance ratio
pi_theta/pi_old (``"ratio_weighted"``, TRL's ``use_bias_correction_kl``), or subtracted from the reward, detached, so
that it acts through the score function (``"reward"``, verl's ``use_kl_in_reward``). The expected gradient of each of
the nine is the gradient of a functional of pi, and only some of these functionals are a KL:

* :func:`placement_table` checks :data:`CLAIMED_GRADIENT` (the functional of each cell, as a combination of the
  reverse KL(pi || pi_ref), the forward KL(pi_ref || pi) and E_pi[k2]) on random softmax policies by exact
  enumeration: the closed form and torch's autograd of :func:`grpo_nb.tabular.token_policy.kl_term` against the
  gradients of the functionals, taken by finite differences of their *values* (:func:`functional_value`); the cells
  stated to be no KL's gradient must be far from both KLs' and from 0; and the ratio's effect
  (:func:`book_ratio_weighted`: at ratio 1 it adds the reward placement's score term to the loss placement's);
* :func:`placement_scope` checks how far the statements carry (:data:`CLAIMED_TWO_TOKEN`, :data:`OFF_POLICY_KEEPS`):
  answers of two tokens on-policy, and one-token answers drawn from an older policy (mu > 1);
* :func:`trl_placement` measures what TRL 1.16 does, on its own ``compute_loss``: the per-token gradient of its KL
  term (:func:`~grpo_nb.chapters.tracker_questions.kl_numerics.trl_kl_token_gradient`, autograd through TRL's loss)
  put into the exact expectation against k3's placement that :data:`TRL_KL_PLACEMENT` states, the value of the term
  (:func:`~grpo_nb.chapters.trl_grpo.knobs_loss.kl_check`), the flag's default (:data:`TRL_DEFAULT_BIAS_CORRECTION`)
  and TRL's KL options (:data:`TRL_KL_OPTIONS`);
* :func:`grid_check` reads what k3 without the ratio does in the TRL chapter's knob grid (:data:`GRID_CLAIMS`).

Every check reads the book's statement (a module-level name) when it runs, so a test that replaces it with a wrong
one (monkeypatch) sees the check fail.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

from grpo_nb.chapters.tracker_questions.kl_in_training import grid_verdicts
from grpo_nb.chapters.tracker_questions.kl_numerics import trl_config_fields, trl_kl_token_gradient
from grpo_nb.kl import categorical_kl, expected_estimator_gradient, k2, softmax_kl_gradients
from grpo_nb.report import Table, bound
from grpo_nb.tabular.token_policy import TokenPolicy, flat_gradient, kl_term, per_token_kl, sequence_kl
from grpo_nb.validation import check_choice, check_positive_int

if TYPE_CHECKING:
    from grpo_nb.chapters.trl_grpo.advantage_probe import Probe

__all__ = [
    "CELLS",
    "CLAIMED_GRADIENT",
    "CLAIMED_TWO_TOKEN",
    "FUNCTIONALS",
    "GRID_CLAIMS",
    "OFF_POLICY_KEEPS",
    "PlacementScope",
    "PlacementTable",
    "TOL",
    "TOL_FD",
    "TOL_TRL",
    "TRLPlacement",
    "TRL_DEFAULT_BIAS_CORRECTION",
    "TRL_KL_OPTIONS",
    "TRL_KL_PLACEMENT",
    "book_ratio_weighted",
    "functional_gradient",
    "functional_value",
    "grid_check",
    "kl_label",
    "placement_scope",
    "placement_table",
    "trl_placement",
]

TOL = 1e-12  # float64 closed forms and autograd on enumerated policies
TOL_FD = 1e-9  # fourth-order central differences with step 1e-3 on O(1) functionals
TOL_TRL = 1e-5  # TRL computes in float32
FAR = 0.01  # "not that gradient": more than 1 % away, relative to the larger of the two

ESTIMATORS = ("k1", "k2", "k3")
PLACEMENTS = ("loss", "ratio_weighted", "reward")
CELLS: tuple[tuple[str, str], ...] = tuple((e, p) for e in ESTIMATORS for p in PLACEMENTS)
FUNCTIONALS = ("reverse", "forward", "k2_mean")

#: The book's statement: the expected gradient of each (estimator, placement), on-policy and for one-token answers,
#: is the gradient of sum_f c_f F_f(pi) with the coefficients c_f given here, over the functionals "reverse"
#: KL(pi || pi_ref), "forward" KL(pi_ref || pi) and "k2_mean" E_pi[k2] = E_pi[(log pi - log pi_ref)^2 / 2]
#: (:func:`functional_value`); an empty dict is a zero expected gradient.
CLAIMED_GRADIENT: dict[tuple[str, str], dict[str, float]] = {
    ("k1", "loss"): {},
    ("k1", "ratio_weighted"): {"reverse": 1.0},
    ("k1", "reward"): {"reverse": 1.0},
    ("k2", "loss"): {"reverse": 1.0},
    ("k2", "ratio_weighted"): {"k2_mean": 1.0},
    ("k2", "reward"): {"k2_mean": 1.0, "reverse": -1.0},
    ("k3", "loss"): {"forward": 1.0},
    ("k3", "ratio_weighted"): {"reverse": 1.0},
    ("k3", "reward"): {"reverse": 1.0, "forward": -1.0},
}

_PLACEMENT_LABEL = {"loss": "in the loss", "ratio_weighted": "in the loss × ratio", "reward": "in the reward"}
_KL_LABEL = {
    "reverse": r"$\mathrm{KL}(\pi\,\|\,\pi_{\mathrm{ref}})$",
    "forward": r"$\mathrm{KL}(\pi_{\mathrm{ref}}\,\|\,\pi)$",
}
_FUNCTIONAL_LABEL = {
    "reverse": r"\mathrm{KL}(\pi\|\pi_{\mathrm{ref}})",
    "forward": r"\mathrm{KL}(\pi_{\mathrm{ref}}\|\pi)",
    "k2_mean": r"\mathbb{E}_\pi[k_2]",
}


def kl_label(coefficients: dict[str, float]) -> str:
    """Which KL a combination of :data:`FUNCTIONALS` is: one KL with coefficient 1, "none (zero gradient)" for the
    empty combination, "none" otherwise."""
    live = {f: c for f, c in coefficients.items() if c != 0}
    if not live:
        return "none (zero gradient)"
    if len(live) == 1 and next(iter(live.values())) == 1.0 and next(iter(live)) in _KL_LABEL:
        return _KL_LABEL[next(iter(live))]
    return "none"


def _formula(coefficients: dict[str, float]) -> str:
    """The combination as math, e.g. $\\nabla[\\mathrm{KL}(\\pi\\|\\pi_{ref}) - \\mathrm{KL}(\\pi_{ref}\\|\\pi)]$."""
    live = [(f, c) for f, c in coefficients.items() if c != 0]
    if not live:
        return "$0$"
    terms = "".join(
        ("" if i == 0 and c > 0 else " + " if c > 0 else " - ")
        + ("" if abs(c) == 1 else f"{abs(c):g}")
        + _FUNCTIONAL_LABEL[f]
        for i, (f, c) in enumerate(live)
    )
    return f"$\\nabla {terms}$" if len(live) == 1 else f"$\\nabla[{terms}]$"


def _log_softmax(logits: np.ndarray) -> np.ndarray:
    return logits - np.logaddexp.reduce(logits, axis=-1, keepdims=True)


def functional_value(name: str, logits: object, log_ref: object) -> float:
    """The value of a functional of pi = softmax(``logits``) over a finite outcome set: ``"reverse"`` KL(pi || pi_ref)
    and ``"forward"`` KL(pi_ref || pi) (:func:`grpo_nb.kl.categorical_kl`), ``"k2_mean"`` E_pi[k2]
    (:func:`grpo_nb.kl.k2`); ``log_ref`` the log-probabilities of pi_ref."""
    check_choice("name", name, FUNCTIONALS)
    log_pi, log_ref = _log_softmax(np.asarray(logits, dtype=float)), np.asarray(log_ref, dtype=float)
    if name == "reverse":
        return float(categorical_kl(log_pi, log_ref))
    if name == "forward":
        return float(categorical_kl(log_ref, log_pi))
    return float(np.sum(np.exp(log_pi) * k2(log_pi, log_ref)))


def functional_gradient(name: str, logits: object, log_ref: object, *, h: float = 1e-3) -> np.ndarray:
    """The gradient of :func:`functional_value` with respect to the logits by fourth-order central differences of its
    value (step ``h``): the derivative taken from the functional's definition, not from a gradient formula."""
    logits = np.asarray(logits, dtype=float)
    grad = np.empty_like(logits)
    for i, e in enumerate(np.eye(logits.size)):
        f = [functional_value(name, logits + k * h * e, log_ref) for k in (-2, -1, 1, 2)]
        grad[i] = (f[0] - 8 * f[1] + 8 * f[2] - f[3]) / (12 * h)
    return grad


def _combination(coefficients: dict[str, float], grads: dict[str, np.ndarray]) -> np.ndarray:
    out = np.zeros_like(next(iter(grads.values())))
    for name, c in coefficients.items():
        check_choice("functional", name, FUNCTIONALS)
        out = out + c * grads[name]
    return out


def _distance(a: np.ndarray, b: np.ndarray) -> float:
    """||a - b|| relative to the larger of ||a||, ||b|| (1 when one of them is 0 and the other is not)."""
    scale = max(float(np.linalg.norm(a)), float(np.linalg.norm(b)), 1e-300)
    return float(np.linalg.norm(a - b)) / scale


def _gap(found: np.ndarray, target: np.ndarray) -> float:
    """How far ``found`` is from ``target``: :func:`_distance`, or max |found| where the target is exactly 0."""
    return _distance(found, target) if np.any(target) else float(np.abs(found).max())


def book_ratio_weighted(loss_gradient: np.ndarray, reward_gradient: np.ndarray) -> np.ndarray:
    """The book's statement of what the importance ratio does to an estimate in the loss, on-policy: the ratio's value
    is 1 but its gradient is grad log pi, so (ratio x estimate) differentiates to the loss placement's gradient plus
    the reward placement's score term, sum_o pi(o) k(o) grad log pi(o)."""
    return loss_gradient + reward_gradient


def _one_token(logits: np.ndarray, grad: bool = False) -> TokenPolicy:
    return TokenPolicy((torch.tensor(np.asarray(logits, dtype=float)[None, :], requires_grad=grad),))


def _draws(n_draws: int, n_answers: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n_draws`` (logits, log pi_ref) pairs, both Normal(0, 1) logits (numpy's generator seeded ``seed``)."""
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=n_answers), _log_softmax(rng.normal(size=n_answers))) for _ in range(n_draws)]


@dataclass(frozen=True)
class PlacementTable:
    """Per cell of :data:`CELLS` (dicts keyed by (estimator, placement)): the largest gap of the closed form
    (``closed_gap``) and of autograd (``autograd_gap``) to the stated functional's gradient by finite differences;
    for cells stated to be no KL, the smallest distance (:func:`_distance`) to either KL's gradient and to 0
    (``none_distance``); the largest gap of :func:`book_ratio_weighted` (``ratio_gap``); ``holds`` (every check);
    and the display ``table``."""

    closed_gap: dict[tuple[str, str], float]
    autograd_gap: dict[tuple[str, str], float]
    none_distance: dict[tuple[str, str], float]
    ratio_gap: float
    holds: bool
    table: Table


def placement_table(n_draws: int = 20, n_answers: int = 5, *, seed: int = 0) -> PlacementTable:
    """Section "Which KL estimator, and where": for each of the nine cells, on ``n_draws`` random softmax policies
    and references over ``n_answers`` one-token answers (on-policy, exact enumeration), the expected gradient by its
    closed form (:func:`grpo_nb.kl.expected_estimator_gradient`) and by autograd of the expected term
    (:func:`grpo_nb.tabular.token_policy.kl_term`) against the gradient of the functional :data:`CLAIMED_GRADIENT`
    states (finite differences of :func:`functional_value`)."""
    n_draws = check_positive_int("n_draws", n_draws)
    n_answers = check_positive_int("n_answers", n_answers, minimum=2)
    claimed = CLAIMED_GRADIENT
    closed = dict.fromkeys(CELLS, 0.0)
    auto = dict.fromkeys(CELLS, 0.0)
    none_dist = {c: np.inf for c in CELLS if kl_label(claimed[c]).startswith("none") and claimed[c]}
    ratio_gap = 0.0
    for logits, log_ref in _draws(n_draws, n_answers, seed):
        grads = {f: functional_gradient(f, logits, log_ref) for f in FUNCTIONALS}
        found = {c: expected_estimator_gradient(logits, log_ref, c[0], placement=c[1]) for c in CELLS}
        for cell in CELLS:
            target = _combination(claimed[cell], grads)
            closed[cell] = max(closed[cell], float(np.abs(found[cell] - target).max()))
            policy, ref = _one_token(logits, grad=True), _one_token(log_ref)
            g = flat_gradient(kl_term(policy, ref, cell[0], placement=cell[1]), policy)
            auto[cell] = max(auto[cell], float(np.abs(g - target).max()))
            if cell in none_dist:
                others = (grads["reverse"], grads["forward"], 0 * grads["reverse"])
                none_dist[cell] = min(none_dist[cell], *(_distance(found[cell], o) for o in others))
        for est in ESTIMATORS:
            stated = book_ratio_weighted(found[(est, "loss")], found[(est, "reward")])
            ratio_gap = max(ratio_gap, float(np.abs(found[(est, "ratio_weighted")] - stated).max()))
    holds = (
        max(closed.values()) < TOL_FD
        and max(auto.values()) < TOL_FD
        and ratio_gap < TOL
        and all(d > FAR for d in none_dist.values())
    )
    rows = [
        [
            f"$k_{e[1]}$",
            _PLACEMENT_LABEL[p],
            kl_label(claimed[(e, p)]),
            _formula(claimed[(e, p)]),
            f"{bound(closed[(e, p)], TOL_FD)} / {bound(auto[(e, p)], TOL_FD)}",
        ]
        for e, p in CELLS
    ]
    headers = [
        "estimator",
        "placement",
        "the KL whose gradient it is",
        "expected gradient",
        "gap: closed form / autograd",
    ]
    return PlacementTable(closed, auto, none_dist, ratio_gap, bool(holds), Table(headers, rows))


#: The book's statement for answers of two tokens, on-policy: the KL each cell that is a KL's gradient (or zero)
#: follows, "per-token" (the sum over tokens of the KL of each token's distribution given its prefix, the prefixes'
#: weights held fixed: :func:`grpo_nb.tabular.token_policy.per_token_kl`) or "sequence" (the KL between whole
#: answers: :func:`grpo_nb.tabular.token_policy.sequence_kl`; the reward placement subtracts the whole answer's
#: estimate). The KL direction (or zero) is :data:`CLAIMED_GRADIENT`'s.
CLAIMED_TWO_TOKEN: dict[tuple[str, str], str] = {
    ("k1", "loss"): "sequence",
    ("k1", "ratio_weighted"): "per-token",
    ("k1", "reward"): "sequence",
    ("k2", "loss"): "per-token",
    ("k3", "loss"): "per-token",
    ("k3", "ratio_weighted"): "per-token",
    ("k3", "reward"): "sequence",
}

#: The book's statement for one-token answers drawn from an older policy pi_old (Algorithm 1's inner steps, mu > 1):
#: whether each placement keeps the expected gradient it has on-policy (the ratio re-weights the answers to pi).
OFF_POLICY_KEEPS: dict[str, bool] = {"loss": False, "ratio_weighted": True, "reward": False}


@dataclass(frozen=True)
class PlacementScope:
    """``two_token_gap``: per cell of :data:`CLAIMED_TWO_TOKEN`, the largest relative distance (over the draws) of
    its two-token gradient to the stated KL's; ``two_token_other``: the largest to the other kind (per-token vs
    sequence: the two are not the same gradient; absent for a zero gradient, where both are 0); ``off_policy``: per
    cell, the (smallest, largest) relative distance between its gradient on answers from an older policy and its
    on-policy gradient; ``holds``; ``table``."""

    two_token_gap: dict[tuple[str, str], float]
    two_token_other: dict[tuple[str, str], float]
    off_policy: dict[tuple[str, str], tuple[float, float]]
    holds: bool
    table: Table


def _two_token_target(kind: str, coefficients: dict[str, float], policy: TokenPolicy, ref: TokenPolicy) -> np.ndarray:
    """The gradient of sum_f c_f F_f for two-token answers, F_f the reverse/forward KL per token or of whole answers."""
    total = torch.zeros((), dtype=torch.float64)
    for name, c in coefficients.items():
        check_choice("functional", name, ("reverse", "forward"))
        kl = per_token_kl(policy, ref, direction=name) if kind == "per-token" else sequence_kl(policy, ref, name)
        total = total + c * kl
    if not coefficients:
        return np.zeros(sum(t.numel() for t in policy.logits))
    return flat_gradient(total, policy)


def placement_scope(n_draws: int = 10, *, seed: int = 0) -> PlacementScope:
    """How far the one-token statements carry (section "Which KL estimator, and where"), by autograd on enumerated
    policies (:mod:`grpo_nb.tabular.token_policy`), ``n_draws`` random draws each (seed ``seed``): answers of two
    tokens over a vocabulary of three, on-policy (:data:`CLAIMED_TWO_TOKEN`); one-token answers over five, drawn
    from an older policy (:data:`OFF_POLICY_KEEPS`)."""
    n_draws = check_positive_int("n_draws", n_draws)
    claimed, keeps = CLAIMED_TWO_TOKEN, OFF_POLICY_KEEPS
    rng = np.random.default_rng(seed)
    gap = dict.fromkeys(claimed, 0.0)
    other = {c: 0.0 for c in claimed if CLAIMED_GRADIENT[c]}
    off = {c: (np.inf, 0.0) for c in CELLS}
    for _ in range(n_draws):
        policy, ref = TokenPolicy.random(3, 2, rng, grad=True), TokenPolicy.random(3, 2, rng)
        for cell, kind in claimed.items():
            check_choice("kind", kind, ("per-token", "sequence"))
            g = flat_gradient(kl_term(policy, ref, cell[0], placement=cell[1]), policy)
            coefficients = CLAIMED_GRADIENT[cell]
            gap[cell] = max(gap[cell], _gap(g, _two_token_target(kind, coefficients, policy, ref)))
            if cell in other:
                alt = "sequence" if kind == "per-token" else "per-token"
                other[cell] = max(other[cell], _distance(g, _two_token_target(alt, coefficients, policy, ref)))
        one, ref1, old = (TokenPolicy.random(5, 1, rng, grad=g) for g in (True, False, False))
        for cell in CELLS:
            on = flat_gradient(kl_term(one, ref1, cell[0], placement=cell[1]), one)
            dist = _distance(flat_gradient(kl_term(one, ref1, cell[0], placement=cell[1], old=old), one), on)
            off[cell] = (min(off[cell][0], dist), max(off[cell][1], dist))
    holds = all(v < TOL for v in gap.values()) and all(v > FAR for v in other.values())
    for cell, (lo, hi) in off.items():
        holds &= hi < TOL if keeps[cell[1]] else lo > FAR
    rows = []
    for cell in CELLS:
        two = claimed.get(cell)
        kind = {None: "—", "sequence": "whole answers", "per-token": "per token, prefixes fixed"}[two]
        kind = "zero at every length" if two is not None and not CLAIMED_GRADIENT[cell] else kind
        lo, hi = off[cell]
        kept = f"kept (off by {bound(hi, TOL)})" if hi < TOL else f"lost (≥ {lo:.0%} off)"
        rows.append([f"$k_{cell[0][1]}$ {_PLACEMENT_LABEL[cell[1]]}", kl_label(CLAIMED_GRADIENT[cell]), kind, kept])
    headers = [
        "estimator",
        "one token, on-policy",
        "two tokens, on-policy: follows the KL of",
        "one token, answers from an older policy ($\\mu > 1$)",
    ]
    return PlacementScope(gap, other, off, bool(holds), Table(headers, rows))


# --- TRL's piece ----------------------------------------------------------------------------------------------------

#: The book's statement of TRL 1.16's KL term: Schulman's k3 per token, placed as ``"ratio_weighted"`` when
#: ``use_bias_correction_kl`` is on and as ``"loss"`` when it is off (keys: the flag).
TRL_KL_PLACEMENT: dict[bool, str] = {True: "ratio_weighted", False: "loss"}
#: The book's statement of the flag's default in TRL 1.16's ``GRPOConfig``.
TRL_DEFAULT_BIAS_CORRECTION: bool = True
#: The book's statement of TRL 1.16's KL options besides ``beta``: the ratio flag only (no choice of estimator, no KL
#: in the reward): the fields of ``GRPOConfig`` whose name holds "kl".
TRL_KL_OPTIONS: tuple[str, ...] = ("use_bias_correction_kl",)


@dataclass(frozen=True)
class TRLPlacement:
    """What TRL 1.16 does with its KL term, per value of ``use_bias_correction_kl`` (dict keys): the largest relative
    gap of TRL's expected gradient to k3's placement stated by :data:`TRL_KL_PLACEMENT` (``placement_gap``) and to
    the gradient of the KL that placement follows (``kl_gap``; :data:`CLAIMED_GRADIENT`); the gap of TRL's logged
    KL value to the book's term (``value_gap``, :func:`~grpo_nb.chapters.trl_grpo.knobs_loss.kl_check`); TRL's
    default for the flag (``default``); the fields of ``GRPOConfig`` whose name holds "kl" (``kl_options``);
    ``holds``."""

    placement_gap: dict[bool, float]
    kl_gap: dict[bool, float]
    value_gap: dict[bool, float]
    default: bool
    kl_options: tuple[str, ...]
    holds: bool

    @property
    def follows(self) -> dict[bool, str]:
        """The KL TRL's expected gradient follows, per flag (from the stated placement)."""
        return {flag: kl_label(CLAIMED_GRADIENT[("k3", TRL_KL_PLACEMENT[flag])]) for flag in (True, False)}


def trl_placement(probe: Probe, n_draws: int = 5, n_answers: int = 6, *, seed: int = 0) -> TRLPlacement:
    """Section "Which KL estimator, and where": TRL 1.16's KL term measured on its ``compute_loss``. On ``n_draws``
    random one-token softmax policies and references over ``n_answers`` answers (seed ``seed``), each answer's
    per-token gradient from TRL (:func:`trl_kl_token_gradient`) is put into the exact expectation
    sum_o pi(o) g(o) (e_o - pi) and compared with k3's placement of :data:`TRL_KL_PLACEMENT`
    (:func:`grpo_nb.kl.expected_estimator_gradient`) and with the KL that placement follows
    (:func:`grpo_nb.kl.softmax_kl_gradients`); the value by
    :func:`~grpo_nb.chapters.trl_grpo.knobs_loss.kl_check`, with and without the flag; the flag's default and TRL's
    KL options (:data:`TRL_DEFAULT_BIAS_CORRECTION`, :data:`TRL_KL_OPTIONS`) from :func:`trl_config_fields`."""
    from grpo_nb.chapters.trl_grpo.knobs_loss import kl_check

    n_draws = check_positive_int("n_draws", n_draws)
    n_answers = check_positive_int("n_answers", n_answers, minimum=2)
    placement, default_claim = TRL_KL_PLACEMENT, TRL_DEFAULT_BIAS_CORRECTION
    place_gap, kl_gap = {True: 0.0, False: 0.0}, {True: 0.0, False: 0.0}
    for logits, log_ref in _draws(n_draws, n_answers, seed):
        log_pi = _log_softmax(logits)
        pi = np.exp(log_pi)
        reverse, forward = softmax_kl_gradients(logits, log_ref)
        for flag in (True, False):
            w = pi * trl_kl_token_gradient(probe, log_pi, log_ref, bias_correction=flag)
            found = w - pi * w.sum()
            cell = ("k3", check_choice("placement", placement[flag], PLACEMENTS))
            stated = expected_estimator_gradient(logits, log_ref, "k3", placement=cell[1])
            kl = _combination(CLAIMED_GRADIENT[cell], {"reverse": reverse, "forward": forward, "k2_mean": 0 * pi})
            place_gap[flag] = max(place_gap[flag], _distance(found, stated))
            kl_gap[flag] = max(kl_gap[flag], _distance(found, kl))
    saved = probe.trainer.args.use_bias_correction_kl
    try:
        value_gap = {flag: kl_check(probe, bias_correction=flag, seed=seed) for flag in (True, False)}
    finally:
        probe.trainer.args.use_bias_correction_kl = saved
    config = trl_config_fields()
    default, options = bool(config["use_bias_correction_kl"]), tuple(n for n in config if "kl" in n.lower())
    holds = (
        max(place_gap.values()) < TOL_TRL
        and max(kl_gap.values()) < TOL_TRL
        and max(value_gap.values()) < TOL_TRL
        and default == default_claim
        and options == TRL_KL_OPTIONS
    )
    return TRLPlacement(place_gap, kl_gap, value_gap, default, options, bool(holds))


#: The book's statement of what k3 without the ratio (``use_bias_correction_kl=False``: the forward KL's gradient)
#: does in training, against TRL's default (the ratio: the reverse KL's), in the TRL chapter's knob grid: the number
#: of prompts that end below p_ref, paired by seed (:func:`~grpo_nb.chapters.tracker_questions.kl_in_training.
#: grid_verdicts`).
GRID_CLAIMS: dict[str, str] = {"trl+k3_unweighted": "fewer"}


def grid_check() -> dict[str, tuple[object, bool]]:
    """:data:`GRID_CLAIMS` against the cached knob grid (read when called): per cell, its paired effect on the prompts
    ending below p_ref and whether the claim holds."""
    return grid_verdicts(GRID_CLAIMS)
