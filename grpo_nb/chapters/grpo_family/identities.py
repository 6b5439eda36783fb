"""Section "Identities between rows" of the chapter "The GRPO family" (``book/grpo_family.md``).

* :func:`row_identities`: RLOO = G/(G-1) x Dr. GRPO (:func:`rloo_factor`), the pairwise form at G = 2
  (:data:`PAIR_SCALE`), GSPO's on-policy gradient, the silent groups (:func:`silent_probability`);
* :func:`rloo_against_dr_grpo`: what the advantage identity does and does not carry to the two trainers' updates:
  the same expected step for one-token answers (RLOO at beta, Dr. GRPO at beta (G-1)/G), not for answers of two
  tokens, where RLOO's KL is the whole answers' and Dr. GRPO's the tokens' (:mod:`grpo_nb.tabular.token_policy`).

A check reads the module-level name of the book's statement when it runs, so a test that replaces it by a wrong one
(monkeypatch) sees the check fail.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from grpo_nb import family
from grpo_nb.chapters.grpo_family.batch import random_batch
from grpo_nb.chapters.grpo_family.climbs import finite_group_gap
from grpo_nb.chapters.grpo_family.tolerances import TOL
from grpo_nb.constants import PAPER_EPS
from grpo_nb.report import Table, bound
from grpo_nb.tabular.token_policy import TokenPolicy, flat_gradient, kl_term, success
from grpo_nb.ustat.finite_group import silent_group_probability

__all__ = [
    "PAIR_SCALE",
    "RLOOAgainstDrGRPO",
    "RowIdentities",
    "rloo_against_dr_grpo",
    "rloo_factor",
    "row_identities",
    "silent_probability",
]

ADVANTAGE = family.advantage
LOSS = family.loss


def rloo_factor(G: int) -> float:
    """The book's statement: RLOO's advantage is Dr. GRPO's times G/(G - 1)."""
    return G / (G - 1)


def silent_probability(p: np.ndarray, G: int) -> np.ndarray:
    """The book's statement: a group of G answers is silent (all rewards equal) with probability p^G + (1 - p)^G
    (its home, :func:`grpo_nb.ustat.finite_group.silent_group_probability`)."""
    return silent_group_probability(p, G)


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
    batch = random_batch(seed=1)
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


#: The example of :func:`rloo_against_dr_grpo`: vocabulary, group size, beta (the KL section's), random draws.
RLOO_V, RLOO_G, RLOO_BETA, RLOO_DRAWS = 3, 8, 0.5, 20


@dataclass(frozen=True)
class RLOOAgainstDrGRPO:
    """The relative gap between the expected updates of RLOO (beta) and Dr. GRPO (beta (G-1)/G, TRL's default KL
    term), per answer length: ``one_token`` (largest) and ``two_tokens`` (smallest, largest) over random policies."""

    one_token: float
    two_tokens: tuple[float, float]


def _expected_update(policy: TokenPolicy, ref: TokenPolicy, reward: np.ndarray, method: str, G: int) -> np.ndarray:
    """The exact expected update direction of ``method`` (on-policy, per unit of its reward slope, so up to the
    learning rate): s_G grad p - beta_m grad (its KL term), with s_G the method's finite-group gap (enumerated over
    the group's rewards: 1 for RLOO, (G-1)/G for Dr. GRPO) and its KL term: RLOO's k1 of the whole answer in the reward
    at beta; Dr. GRPO's TRL default, k3 x token ratio on each token, at beta / :func:`rloo_factor` (G)."""
    p = float(success(policy, reward).detach())
    keep = float(finite_group_gap(np.array(min(max(p, 1e-6), 1 - 1e-6)), G, method))
    if method == "rloo":
        kl, beta = kl_term(policy, ref, "k1", placement="reward"), RLOO_BETA
    else:
        kl, beta = kl_term(policy, ref, "k3", placement="ratio_weighted"), RLOO_BETA / rloo_factor(G)
    return flat_gradient(keep * success(policy, reward) - beta * kl, policy) / keep


def rloo_against_dr_grpo(seed: int = 0) -> RLOOAgainstDrGRPO:
    """||RLOO's expected update - Dr. GRPO's|| / ||RLOO's|| on :data:`RLOO_DRAWS` random autoregressive softmax
    policies (Normal logits) with random 0/1 rewards, for answers of one token and of two tokens (vocabulary
    :data:`RLOO_V`); exact expectations, on-policy."""
    rng = np.random.default_rng(seed)
    gaps: dict[int, list[float]] = {1: [], 2: []}
    for L in (1, 2):
        for _ in range(RLOO_DRAWS):
            policy, ref = TokenPolicy.random(RLOO_V, L, rng, grad=True), TokenPolicy.random(RLOO_V, L, rng)
            reward = rng.integers(0, 2, RLOO_V**L)
            r, d = (_expected_update(policy, ref, reward, m, RLOO_G) for m in ("rloo", "dr_grpo"))
            gaps[L].append(float(np.linalg.norm(r - d) / np.linalg.norm(r)))
    return RLOOAgainstDrGRPO(max(gaps[1]), (min(gaps[2]), max(gaps[2])))
