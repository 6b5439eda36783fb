"""Section "Only the successes, or only the failures" of the chapter "What GRPO does to the whole distribution"
(``book/distribution.md``): the exact step when only the successes' part w+(p) r or only the failures' part
-w-(p)(1 - r) of the stabilised advantage is kept (positive-only and negative-only reinforcement, Zhu et al. 2025).

- :func:`signed_exact`: each part is a tilt of the reward alone (:func:`grpo_nb.tabular.distribution.
  signed_success_orbit`): on every prompt logit p_m > logit p_ref, so pass@k rises at every k for all three; the
  successes' part moves p further than the failures' exactly when p < 1/2 (w+(p) / w-(p) = (1 - p) / p);
- :func:`signed_shared`: the crossover example with each part (:func:`grpo_nb.tabular.distribution.
  shared_success_orbit`): the prompt-averaged pass@1 and pass@256 changes;
- :func:`signed_sampled`: the clip bandit's expected-update path with each part (sampled groups, no clip);
- :func:`raw_reward_parts`: the same path with Zhu et al.'s raw +-1 rewards in place of Eq. 4's advantage
  (:func:`grpo_nb.tabular.clip_bias.raw_advantage`), at several step sizes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import softmax

from grpo_nb.constants import PAPER_EPS
from grpo_nb.report import Table
from grpo_nb.tabular.clip_bias import expected_update_orbit
from grpo_nb.tabular.distribution import SIGNED_PARTS, pass_at_k, shared_success_orbit, signed_logit_increment
from grpo_nb.tabular.distribution import signed_success_orbit as _signed_orbit
from grpo_nb.tabular.examples import (
    BANDIT_LR,
    BANDIT_PI0,
    BANDIT_REWARD,
    CROSSOVER_PI_REF,
    CROSSOVER_REWARD,
    bandit_options,
)

__all__ = [
    "RawRewardParts",
    "SignedExact",
    "SignedSampled",
    "SignedShared",
    "raw_reward_parts",
    "signed_exact",
    "signed_sampled",
    "signed_shared",
]

INCREMENT = signed_logit_increment  # c(p) / beta of each part; a test replaces it with a wrong one
MATCHED_P = 0.95
P_GRID = np.concatenate([np.geomspace(1e-6, 0.49, 12), 1 - np.geomspace(0.49, 1e-4, 12)])  # p_m stays below 1.0


@dataclass(frozen=True)
class SignedExact:
    """Over p_ref x beta: per part the smallest logit p_m - logit p_ref (m = 1..n, never negative), and how many
    orbits come back to p_ref itself (the increment vanishes where p_{m-1} rounds to 1 for the successes' part);
    over the p grid whether the successes' increment exceeds the failures' exactly where p < 1/2."""

    table: Table
    smallest_gain: dict
    returns_to_p_ref: dict
    n_orbits: int
    positive_wins_below_half: bool


def signed_exact(*, eps: float = PAPER_EPS, n: int = 20) -> SignedExact:
    """The three parts' exact orbits with KL to pi_ref from every p_ref of the grid at beta in {0.1, 1, 10}."""
    gains, returns = {}, {}
    for part in SIGNED_PARTS:
        orbits = [(_signed_orbit(p, b, eps, part=part, n=n), b) for p in P_GRID for b in (0.1, 1.0, 10.0)]
        # logit p_m - logit p_ref is the increment at p_{m-1} (exact; logit(p_m) would round near p = 1)
        gains[part] = min(float(np.min(INCREMENT(o[:-1], beta, eps, part=part))) for o, beta in orbits)
        returns[part] = sum(bool(np.any(o[1:] <= o[0])) for o, _ in orbits)
    plus, minus = (np.asarray(INCREMENT(P_GRID, 1.0, eps, part=part)) for part in ("positive", "negative"))
    wins = bool(np.array_equal(plus > minus, P_GRID < 0.5))
    at = (0.01, 0.5, 0.99)
    rows = [
        [
            part,
            *(float(INCREMENT(p, 1.0, eps, part=part)) for p in at),
            gains[part],
            f"{returns[part]} of {len(orbits)}",
        ]
        for part in SIGNED_PARTS
    ]
    headers = [
        "part",
        *(f"β × increment at p = {p}" for p in at),
        "smallest logit p_m − logit p_ref",
        "orbits back at p_ref",
    ]
    return SignedExact(Table(headers, rows, fmt=".3g"), gains, returns, len(orbits), wins)


@dataclass(frozen=True)
class SignedShared:
    """The crossover example after n shared steps, per (part, beta): the prompt-averaged pass@1 and pass@256 change."""

    table: Table
    change: dict


def signed_shared(*, eps: float = PAPER_EPS, n: int = 10, betas: tuple = (0.2, 1.0)) -> SignedShared:
    """pass@1 and pass@256 changes of the crossover example for each part and beta."""
    change, rows = {}, []
    for beta in betas:
        for part in SIGNED_PARTS:
            orbit = shared_success_orbit(CROSSOVER_PI_REF, CROSSOVER_REWARD, beta, eps, n=n, part=part)
            delta = pass_at_k(orbit[-1][:, None], [1, 256]).mean(0) - pass_at_k(orbit[0][:, None], [1, 256]).mean(0)
            change[part, beta] = (float(delta[0]), float(delta[1]))
            rows.append([f"{beta:g}", part, *delta, *orbit[-1]])
    headers = ["β", "part", "pass@1 change", "pass@256 change", "p, prompt 1", "p, prompt 2", "p, prompt 3"]
    return SignedShared(Table(headers, rows, fmt="+.3f"), change)


@dataclass(frozen=True)
class SignedSampled:
    """The clip bandit's expected-update path (no clip) per part: p, entropy and the likely-to-unlikely correct ratio
    at iterations 10 and n, and entropy and ratio at the first iteration where p >= :data:`MATCHED_P` (a comparison
    at equal success)."""

    table: Table
    p: dict
    entropy: dict
    ratio: dict
    matched_entropy: dict


def _part_path(part: str, *, n: int, lr: float, advantage: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The clip bandit's expected-update path (verifiable rewards, no clip, its G and mu, step size ``lr``) with
    ``part`` of ``advantage`` (:func:`grpo_nb.tabular.clip_bias.advantage_part`): per iteration 0..n the policy
    (n + 1, K), p = E_pi[r] and the entropy."""
    reward = np.asarray(BANDIT_REWARD, dtype=float)
    options = bandit_options(clip_eps=0.2) | {"lr": lr}  # the clip range is unused: mode "none"
    path = expected_update_orbit(
        np.log(BANDIT_PI0), n=n, mode="none", reward=reward, part=part, advantage=advantage, **options
    )
    pi = softmax(path.logits, axis=-1)
    return pi, pi @ reward, path.entropy


def _first_at_matched_p(p: np.ndarray) -> int:
    """The first iteration where p >= :data:`MATCHED_P`, or the last one if p never gets there."""
    return int(np.argmax(p >= MATCHED_P)) if np.any(p >= MATCHED_P) else p.size - 1


def signed_sampled(*, n: int = 40) -> SignedSampled:
    """n iterations of the expected-update path of the clip bandit, verifiable rewards, mode "none", per part."""
    p, entropy, ratio, matched, rows = {}, {}, {}, {}, []
    for part in SIGNED_PARTS:
        pi, p[part], entropy[part] = _part_path(part, n=n, lr=BANDIT_LR, advantage="paper")
        ratio[part] = pi[:, 1] / pi[:, 3]
        m = _first_at_matched_p(p[part])
        matched[part] = float(entropy[part][m])
        rows.append([part, p[part][n], entropy[part][n], ratio[part][n], str(m), entropy[part][m], ratio[part][m]])
    headers = [
        "part",
        f"p at {n}",
        f"entropy at {n}",
        f"π(1) / π(3) at {n}",
        f"first m with p ≥ {MATCHED_P}",
        "entropy there",
        "π(1) / π(3) there",
    ]
    return SignedSampled(Table(headers, rows, fmt=".3g"), p, entropy, ratio, matched)


#: The step sizes of :func:`raw_reward_parts`: the clip bandit's own (1) and a quarter of it.
RAW_LRS = (1.0, 0.25)


@dataclass(frozen=True)
class RawRewardParts:
    """The clip bandit's expected-update path (no clip) with Zhu et al.'s raw rewards, A = +1 on a success and -1 on
    a failure, per (part, step size): the entropy at iteration n and at the first iteration where p >=
    :data:`MATCHED_P` (a comparison at equal success)."""

    table: Table
    final_entropy: dict
    matched_entropy: dict
    lrs: tuple


def raw_reward_parts(*, n: int = 40, lrs: tuple = RAW_LRS) -> RawRewardParts:
    """n iterations of the expected-update path of the clip bandit, verifiable rewards, mode "none", with each part
    of the raw +-1 advantage (:func:`grpo_nb.tabular.clip_bias.raw_advantage`) at each step size of ``lrs``."""
    final, matched, rows = {}, {}, []
    for lr in lrs:
        for part in SIGNED_PARTS:
            _, p, entropy = _part_path(part, n=n, lr=lr, advantage="raw")
            m = _first_at_matched_p(p)
            final[part, lr], matched[part, lr] = float(entropy[n]), float(entropy[m])
            rows.append([f"{lr:g}", part, p[n], entropy[n], str(m), entropy[m]])
    headers = ["step size", "part", f"p at {n}", f"entropy at {n}", f"first m with p ≥ {MATCHED_P}", "entropy there"]
    return RawRewardParts(Table(headers, rows, fmt=".3f"), final, matched, tuple(lrs))
