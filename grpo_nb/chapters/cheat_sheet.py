"""The analyses of the page "GRPO on one page" (``book/cheat_sheet.md``), the book's cheat sheet.

Each function recomputes, from the math modules, what one entry of the sheet states:

* :func:`family_rows` (entry "The family"): the compact family table, every advantage computed by
  :data:`ADVANTAGE` from the rows of :data:`grpo_nb.family.METHODS`, checked against Eq. 4's weights
  (:data:`OMEGA_PLUS`, :data:`OMEGA_MINUS`) and against RLOO = G/(G-1) x Dr. GRPO.
* :func:`notation_gaps` (entry "Notation"): the weights and the logit map as the sheet writes them, against their
  homes (:data:`OMEGA_PLUS`, :data:`OMEGA_MINUS`, :data:`LOGIT_MAP`).
* :func:`effective_beta` (entry "Effective β"): Theorem 1's exact step is the KL-regularised optimum at the
  coefficient :func:`exact_step_coefficient` (beta sqrt(V(p))), and TRL's advantage is the paper's divided by
  :func:`trl_beta_factor` (sqrt(G/(G-1))) at the group's own smoothing :func:`trl_equivalent_eps`.
* :func:`recursion_gap` (entry "The recursion"): Theorem 1's exact steps on random outcome spaces against
  :data:`RECURSION` (Theorem 2's logit map iterated).
* :func:`practice` (entry "Practical β and G"): the first exact step at practical beta, the unsafe beta interval of
  Remark 2 (:func:`grpo_nb.dynamics.uniform_beta.safe_betas`), the budget-optimal group size on the group-size
  chapter's prompt sets, the bias of the std-normalised gradient at G = 8 and the signal a group of 2 keeps, with
  the paper's advantage and with TRL's.

A check reads the module-level name of the sheet's statement when it runs, so a test that replaces it by a wrong one
(monkeypatch) sees the check fail.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from grpo_nb import family
from grpo_nb.advantage import group_advantage, group_rewards
from grpo_nb.constants import PAPER_EPS, PRACTICAL_BETA, TRL_STD_EPS
from grpo_nb.dynamics.map import iterate_logit, logit_map
from grpo_nb.dynamics.uniform_beta import safe_betas
from grpo_nb.report import Table
from grpo_nb.tabular.algorithm1 import make_task
from grpo_nb.tabular.closed_form import grpo_step, solve_grpo_step
from grpo_nb.tabular.policy import expected_reward
from grpo_nb.ustat.bandit import PromptSet
from grpo_nb.ustat.finite_group import signal_retention
from grpo_nb.ustat.moments import exact_moments, expected_step_factor
from grpo_nb.ustat.scaling import scaling_constants
from grpo_nb.validation import check_beta, check_eps, check_p, check_positive_int, check_scalar
from grpo_nb.weights import omega_minus, omega_plus, weight_scale

__all__ = [
    "ADVANTAGE",
    "EffectiveBeta",
    "FamilyRows",
    "LOGIT_MAP",
    "NotationGaps",
    "OMEGA_MINUS",
    "OMEGA_PLUS",
    "PRACTICE_BETAS",
    "Practice",
    "RECURSION",
    "TOL",
    "effective_beta",
    "exact_step_coefficient",
    "family_rows",
    "notation_gaps",
    "practice",
    "recursion_gap",
    "trl_beta_factor",
    "trl_equivalent_eps",
]

ADVANTAGE = family.advantage
OMEGA_PLUS = omega_plus
OMEGA_MINUS = omega_minus
LOGIT_MAP = logit_map
RECURSION = iterate_logit
PRACTICE_BETAS = (PRACTICAL_BETA, 0.001)  # DeepSeekMath's KL weight (TRL's default up to 0.18) and DeepSeek-R1's
TOL = 1e-9
#: One eps for every group, as TRL's smoothing is often read: none, TRL's 1e-4 squared, the paper's, TRL's 1e-4.
FIXED_EPS = (0.0, 1e-8, PAPER_EPS, TRL_STD_EPS)
_SHORT = {
    "centring": {family.Centring.GROUP: "group mean", family.Centring.LEAVE_ONE_OUT: "others' mean",
                 family.Centring.BATCH: "batch mean"},
    "scaling": {family.Scaling.GROUP_STD: "group std", family.Scaling.BATCH_STD: "batch std", family.Scaling.NONE: "—",
                family.Scaling.GROUP_THEN_BATCH_STD: "group, batch std", family.Scaling.GROUP_MEAN: r"$\hat p$"},
    "ratio": {family.Ratio.TOKEN: "token", family.Ratio.SEQUENCE_MEAN: "sequence", family.Ratio.SEQUENCE_SUM: "answer"},
}  # fmt: skip


def _kl(m: family.Method) -> str:
    """Where the method's KL sits, with its estimator: "$k_3$ in loss", "$k_1$ in reward" or "—"."""
    if m.kl is family.KLPlacement.NONE:
        return "—"
    return f"$k_{m.kl_estimator.value[1:]}$ in {m.kl.value}"


def exact_step_coefficient(beta: float, p: float, eps: float) -> float:
    """The KL coefficient of one exact GRPO step from a success probability p: beta sqrt(p(1-p) + eps) (Theorem 1 read
    as KL-regularised reward maximisation; book/intro.md, section "What one exact step does"). ValueError for beta <= 0,
    eps < 0 or p outside [0, 1]."""
    beta_f, eps_f = check_scalar("beta", check_beta(beta)), check_scalar("eps", check_eps(eps))
    p_f = check_scalar("p", check_p(p, np.asarray(eps_f)))
    return beta_f * float(np.sqrt(p_f * (1 - p_f) + eps_f))


def trl_beta_factor(G: int) -> float:
    """The factor sqrt(G/(G-1)) by which TRL's advantage (Bessel std) falls short of the paper's Eq. (3): a TRL run
    at beta follows the recursion at beta times this factor (book/trl_grpo.md). ValueError for G < 2."""
    G = check_positive_int("G", G, minimum=2)
    return float(np.sqrt(G / (G - 1)))


def trl_equivalent_eps(G: int, k: int) -> float:
    """The eps at which Eq. 3's advantage is :func:`trl_beta_factor` times TRL's on a group of G with k successes.

    TRL's denominator is std_Bessel + 1e-4 = sqrt(G/(G-1)) (sqrt(v_hat) + 1e-4 sqrt((G-1)/G)), v_hat = (k/G)(1 - k/G),
    so eps = (sqrt(v_hat) + 1e-4 sqrt((G-1)/G))^2 - v_hat, about 2e-4 sqrt(v_hat (G-1)/G) on a group with both
    rewards and 1e-4^2 (G-1)/G on a silent one. ValueError for G < 2 or k outside 0..G."""
    G = check_positive_int("G", G, minimum=2)
    k = check_positive_int("k", k, minimum=0)
    if k > G:
        raise ValueError(f"k={k!r} is out of range; valid range is 0 <= k <= G = {G}")
    v_hat = (k / G) * (1 - k / G)
    shift = TRL_STD_EPS / trl_beta_factor(G)
    return 2 * shift * float(np.sqrt(v_hat)) + shift**2


@dataclass(frozen=True)
class FamilyRows:
    """The compact family table; the worst gap of GRPO's row to Eq. 4's weights at p = 1/4 (``eq4_gap``) and of RLOO's
    advantage to G/(G-1) times Dr. GRPO's over every 0/1 group of G = 2..8 (``rloo_gap``)."""

    table: Table
    eq4_gap: float
    rloo_gap: float


def family_rows() -> FamilyRows:
    """Entry "The family": one row per method of :data:`grpo_nb.family.METHODS`, the advantage of the success and of
    a failure in a group of four with one success computed by :data:`ADVANTAGE` (Eq. 4, eps = 1e-5, for GRPO)."""
    rows = []
    one_in_four = np.array([[1.0, 0.0, 0.0, 0.0]])
    for m in family.METHODS:
        a = ADVANTAGE(m, one_in_four)[0]
        rows.append([m.label, f"{a[0]:.2f} / {a[1]:.2f}", _SHORT["centring"][m.centring],
                     _SHORT["scaling"][m.scaling], _SHORT["ratio"][m.ratio], _kl(m)])  # fmt: skip
    grpo = ADVANTAGE("grpo", one_in_four)[0]
    eq4_gap = max(abs(grpo[0] - OMEGA_PLUS(0.25, PAPER_EPS)), abs(grpo[1] + OMEGA_MINUS(0.25, PAPER_EPS)))
    rloo_gap = 0.0
    for G in range(2, 9):
        r = np.array(list(itertools.product((0.0, 1.0), repeat=G)))
        gap = ADVANTAGE("rloo", r) - G / (G - 1) * ADVANTAGE("dr_grpo", r)
        rloo_gap = max(rloo_gap, float(np.abs(gap).max()))
    headers = ["method", "$A$: success / failure", "baseline", "scale", "ratio", "KL"]
    return FamilyRows(Table(headers, rows), float(eq4_gap), rloo_gap)


@dataclass(frozen=True)
class NotationGaps:
    """Worst gaps, on a grid of p and eps, between the weights as the sheet writes them, (1-p)/sqrt(V) and p/sqrt(V)
    with V = p(1-p) + eps, and :data:`OMEGA_PLUS`, :data:`OMEGA_MINUS` (``weights``, relative); between the logit map
    as written and :data:`LOGIT_MAP` (``logit_map``, relative)."""

    weights: float
    logit_map: float


def notation_gaps() -> NotationGaps:
    """Entry "Notation": Eq. 4's weights and Theorem 2's logit map as the sheet writes them, against their homes."""
    p, eps = np.meshgrid(np.linspace(1e-4, 1 - 1e-4, 201), np.array([0.0, 1e-8, PAPER_EPS, 1e-2]))
    v = p * (1 - p) + eps
    weights = max(
        float(np.abs(OMEGA_PLUS(p, eps) * np.sqrt(v) / (1 - p) - 1).max()),
        float(np.abs(OMEGA_MINUS(p, eps) * np.sqrt(v) / p - 1).max()),
    )
    z, a, beta = np.meshgrid(np.linspace(-30, 30, 61), np.linspace(-10, 5, 16), np.array([PRACTICAL_BETA, 1.0, 20.0]))
    written = a + 1 / (beta * np.sqrt(expit(z) * expit(-z) + PAPER_EPS))
    return NotationGaps(weights, float(np.abs(LOGIT_MAP(z, a, beta, PAPER_EPS) / written - 1).max()))


def _random_space(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """pi_ref, pi_prev and a 0/1 reward on 8 answers, at least one right and one wrong."""
    pi_ref, pi_prev = rng.dirichlet(np.ones(8), size=2)
    return pi_ref, pi_prev, np.r_[1.0, 0.0, rng.random(6) < 0.5]


@dataclass(frozen=True)
class EffectiveBeta:
    """``step_gap``: worst gap, over random outcome spaces, between Theorem 1's exact step and the numerical maximiser
    of E[r] - b KL(pi || pi_ref) at b = :func:`exact_step_coefficient`; ``trl_gap``: worst relative gap between the
    paper's advantage at :func:`trl_equivalent_eps` over TRL's and :func:`trl_beta_factor`, over every mixed 0/1 group
    of G = 2..16; ``trl_eps_range``: the smallest and largest of those eps; ``fixed_eps_gaps``: the same worst gap with
    one eps for every group, per eps of :data:`FIXED_EPS`."""

    step_gap: float
    trl_gap: float
    trl_eps_range: tuple[float, float]
    fixed_eps_gaps: dict[float, float]


def _trl_ratio_gap(r: np.ndarray, G: int, eps: float) -> float:
    """Worst |A_paper(eps) / (sqrt(G/(G-1)) A_TRL) - 1| over the nonzero advantages of the groups ``r``."""
    paper, trl = group_advantage(r, "paper", eps), group_advantage(r, "trl")
    nonzero = paper != 0
    return float(np.abs(paper[nonzero] / trl[nonzero] / trl_beta_factor(G) - 1).max())


def _trl_gaps() -> tuple[float, tuple[float, float], dict[float, float]]:
    """:class:`EffectiveBeta`'s TRL fields, over every mixed 0/1 group of G = 2..16 (one group per count k)."""
    gap, eps_seen, fixed = 0.0, [], dict.fromkeys(FIXED_EPS, 0.0)
    for G in range(2, 17):
        for k in range(1, G):
            r = group_rewards(np.array([k]), G)
            eps_seen.append(trl_equivalent_eps(G, k))
            gap = max(gap, _trl_ratio_gap(r, G, eps_seen[-1]))
            fixed = {eps: max(worst, _trl_ratio_gap(r, G, eps)) for eps, worst in fixed.items()}
    return gap, (min(eps_seen), max(eps_seen)), fixed


def effective_beta() -> EffectiveBeta:
    """Entry "Effective β": the coefficient of one exact step (Theorem 1) and TRL's factor (Eq. 3 against Bessel's
    correction and TRL's 1e-4 outside the root), at each group's :func:`trl_equivalent_eps` and at fixed eps."""
    rng, step_gap = np.random.default_rng(1), 0.0
    for _ in range(8):
        pi_ref, pi_prev, reward = _random_space(rng)
        beta, eps = rng.uniform(0.2, 5.0), 10 ** rng.uniform(-5, -1)
        b = exact_step_coefficient(beta, float(expected_reward(pi_prev, reward)), eps)
        optimum = solve_grpo_step(pi_ref, pi_prev, reward, b, eps, normalization="mean")
        step_gap = max(step_gap, float(np.abs(grpo_step(pi_ref, pi_prev, reward, beta, eps) - optimum).max()))
    return EffectiveBeta(step_gap, *_trl_gaps())


def recursion_gap() -> float:
    """Entry "The recursion": the worst logit gap between n = 6 exact steps of Theorem 1 (:func:`grpo_step`) from
    pi_ref and :data:`RECURSION` (Theorem 2), on random outcome spaces, beta in [0.5, 20], eps in {1e-5, 1e-2}."""
    rng, worst = np.random.default_rng(2), 0.0
    for _ in range(20):
        pi_ref, _, reward = _random_space(rng)
        beta, eps = rng.uniform(0.5, 20.0), float(rng.choice([PAPER_EPS, 1e-2]))
        p_ref, pi, exact = float(expected_reward(pi_ref, reward)), pi_ref, []
        for _ in range(6):
            pi = grpo_step(pi_ref, pi, reward, beta, eps)
            p = float(expected_reward(pi, reward))
            exact.append(np.log(p) - np.log1p(-p))
        worst = max(worst, float(np.abs(np.array(exact) - RECURSION(p_ref, beta, eps, n=6)[1:]).max()))
    return worst


@dataclass(frozen=True)
class Practice:
    """The numbers of entry "Practical β and G". ``first_step``: per practical beta, (the smallest first-step gain in
    logit over 4,001 prompts with logit p_ref in [-745, 37], the largest p_1(1 - p_1) after it); ``margin``: per
    beta, 2/(beta sqrt(1 + 4 eps)); ``unsafe``: the open beta interval where some prompt with p_ref >= 1e-12 has an
    unstable lowest fixed point (eps = 1e-5); ``g_star``: the budget-optimal G of the unnormalised leave-one-out
    estimator on the group-size chapter's prompt sets around p = 0.5 and p = 1e-3; ``bias_g8``: the smallest and
    largest relative bias of the std-normalised gradient at G = 8 on its three bandits; ``rho2``: rho_2(0.1), the
    share of Theorem 2's step a group of 2 keeps on average with the paper's advantage (Eq. 4 at p_hat);
    ``rho2_trl``: the same share with TRL's advantage."""

    first_step: dict[float, tuple[float, float]]
    margin: dict[float, float]
    unsafe: tuple[float, float]
    g_star: tuple[float, float]
    bias_g8: tuple[float, float]
    rho2: float
    rho2_trl: float


def _difficulty_g_star(levels: tuple[float, ...] = (0.5, 0.2, 0.05, 0.01, 0.001)) -> tuple[float, float]:
    """G* = 1 + sqrt(C3/C1) (U-statistic paper, Prop. 3) on sixteen prompts around each level, drawn as the group-size
    chapter draws them (section "Minibatches and a fixed sampling budget": seed 0, log-normal spread 0.3); the first
    and the last level."""
    rng, best = np.random.default_rng(0), []
    for level in levels:
        p = np.clip(level * np.exp(0.3 * rng.normal(size=16)), 1e-9, 0.99)
        task = make_task(p, n_outcomes=6, n_success=2, seed=0)
        best.append(scaling_constants(PromptSet(task.ref_logits, task.reward, np.full(16, 1 / 16))).optimal_group_size)
    return float(best[0]), float(best[-1])


def practice() -> Practice:
    """Entry "Practical β and G": amplification's first exact step at practical beta (Theorem 2's map), Remark 2's
    unsafe interval (:func:`safe_betas`), and the group-size chapter's G*, bias at G = 8 and rho_2(0.1)."""
    a = np.linspace(-745.0, 37.0, 4001)  # logit p_ref, from about the smallest positive double
    first, margin = {}, {}
    for beta in PRACTICE_BETAS:
        z1 = LOGIT_MAP(a, a, beta, PAPER_EPS)
        first[beta] = (float((z1 - a).min()), float((expit(z1) * expit(-z1)).max()))
        margin[beta] = 2 / (beta * np.sqrt(1 + 4 * PAPER_EPS))
    (unsafe,) = safe_betas(PAPER_EPS, p_lo=1e-12).unsafe
    bandits = make_task(np.array([0.2, 0.5, 0.85]), n_outcomes=6, n_success=2, seed=3)
    bias = [
        exact_moments(logits, reward, 8, estimator="grpo_std").relative_bias
        for logits, reward in zip(bandits.ref_logits, bandits.reward, strict=True)
    ]
    rho2 = float(signal_retention(0.1, 2, PAPER_EPS))
    rho2_trl = float(expected_step_factor(0.1, 2, "grpo_std") / weight_scale(0.1, PAPER_EPS))  # c_2(p) sqrt(v + eps)
    return Practice(
        first,
        margin,
        (float(unsafe[0]), float(unsafe[1])),
        _difficulty_g_star(),
        (min(bias), max(bias)),
        rho2,
        rho2_trl,
    )
