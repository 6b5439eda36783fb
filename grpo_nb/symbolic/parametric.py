"""§5 of Mroueh (2025), "back to parametric GRPO iterations": Theorem 5 under Assumption 1 (App. C), checked on
random finite policies.

* :func:`theorem5_success_gap_vs_tv`: |p~ - p| <= 2 TV(p~-policy, p-policy) on random pairs of finite policies with
  0/1 rewards (the proof's first inequality); the sharper |p~ - p| <= TV also holds, since 1{r = 1} takes values in
  [0, 1] (an event), and it is attained.
* :func:`theorem5_telescoped_bound`: along exact GRPO policies pi_n (Theorem 1 on a finite outcome set) and a run of
  approximate GRPO pi~_n with per-step errors delta_n given in advance, Assumption 1 is checked on the run (it can
  fail: the map carries earlier errors), then |p~_n - p_n| <= 2 sum_{i<=n} delta_i at every n and
  |p~_N - p*| <= 2 delta* + |p_N - p*|.
* :func:`theorem5_limit_need_not_exist`: a sequence satisfying Assumption 1 along which |p~_n - p*| keeps
  oscillating, so the theorem's "lim" is a limsup.

TV(a, b) = (1/2) sum_o |a(o) - b(o)|.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp
from scipy.special import expit

from grpo_nb.constants import PAPER_EPS
from grpo_nb.dynamics.fixed_points import fixed_points
from grpo_nb.dynamics.map import iterate, iterate_logit
from grpo_nb.symbolic.identity import Identity
from grpo_nb.tabular.policy import gibbs_log_policy, total_variation
from grpo_nb.validation import check_beta, check_eps, check_p_ref, check_positive_int

__all__ = [
    "theorem5_limit_need_not_exist",
    "theorem5_success_gap_vs_tv",
    "theorem5_telescoped_bound",
]


def theorem5_success_gap_vs_tv(
    n_pairs: int = 2000, n_outcomes: int = 6, seed: int = 0, *, factor: float = 2.0
) -> list[Identity]:
    """|p~ - p| <= 2 TV (``factor`` replaces the printed 2) and the sharper |p~ - p| <= TV on random pairs of
    policies and random 0/1 rewards.

    Policies are Dirichlet(1) on ``n_outcomes`` outcomes, half of the pairs being small perturbations of each other.
    The second identity reports max |p~ - p| / TV, which is <= 1 and reaches 1 when all moved mass crosses r.
    """
    n_pairs = check_positive_int("n_pairs", n_pairs)
    n_outcomes = check_positive_int("n_outcomes", n_outcomes, minimum=2)
    rng = np.random.default_rng(seed)
    pi = rng.dirichlet(np.ones(n_outcomes), size=n_pairs)
    other = rng.dirichlet(np.ones(n_outcomes), size=n_pairs)
    mix = np.where(np.arange(n_pairs)[:, None] % 2 == 0, 1.0, 10 ** rng.uniform(-6, -1, size=(n_pairs, 1)))
    pi_tilde = (1 - mix) * pi + mix * other
    reward = rng.integers(0, 2, size=(n_pairs, n_outcomes))
    gap = np.abs(np.sum((pi_tilde - pi) * reward, axis=1))
    tv = total_variation(pi_tilde, pi)
    ratio = float(np.max(gap / tv))
    # the extreme case: move mass t from a failing outcome to a succeeding one
    base = np.full(4, 0.25)
    moved = base + np.array([0.2, 0.0, -0.2, 0.0])
    r_ext = np.array([1, 1, 0, 0])
    ext_ratio = float(abs(np.dot(moved - base, r_ext)) / total_variation(moved, base))
    return [
        Identity(
            name="Theorem 5 proof: |p~ - p| <= 2 TV on random policy pairs",
            lhs=sp.Float(float(np.max(gap - factor * tv))),
            rhs=sp.Integer(0),
            holds=bool(np.all(gap <= factor * tv + 1e-15)),
            relation="<=",
            notes=f"{n_pairs} pairs, {n_outcomes} outcomes, seed {seed}; lhs = max(|p~ - p| - 2 TV).",
        ),
        Identity(
            name="sharper: |p~ - p| <= TV, attained",
            lhs=sp.Float(ratio),
            rhs=sp.Integer(1),
            holds=bool(ratio <= 1 + 1e-8 and abs(ext_ratio - 1) < 1e-12),
            relation="<=",
            notes="lhs = max |p~ - p| / TV over the random pairs (rounding tolerance 1e-8 for TV down to 1e-7); "
            "moving failure mass onto success gives ratio 1.",
            extra={"max_ratio": ratio, "extreme_ratio": ext_ratio},
        ),
    ]


def theorem5_telescoped_bound(
    p_ref: float = 0.3,
    beta: float = 2.0,
    eps: float = PAPER_EPS,
    *,
    n: int = 40,
    n_outcomes: int = 8,
    seed: int = 0,
    delta0: float = 0.05,
    claimed_delta_scale: float = 1.0,
) -> list[Identity]:
    """Theorem 5 on a run of approximate GRPO whose per-step errors are given in advance, not fitted to Assumption 1.

    pi_n: exact GRPO policies (Theorem 1's Gibbs policy from pi_ref and p_{n-1}, the orbit of Eq. 8). pi~_n: the
    exact GRPO step taken from the *approximate* previous policy (Gibbs policy at p~_{n-1}), then mixed with a random
    policy q_n with weight delta_n = delta0 0.8^n (a fresh error of TV at most delta_n). Errors made earlier are
    carried by the map, so Assumption 1 with these delta_n is a property of the run that can fail (where |h'| > 1
    amplifies the carried error); the first identity checks it, with the delta_n multiplied by
    ``claimed_delta_scale``. The others check the theorem's conclusions: |p~_n - p_n| <= 2 sum_{i<=n} delta_i at
    every n, and |p~_N - p*| <= 2 delta* + |p_N - p*|.
    """
    p_ref_f, beta_f, eps_f = float(check_p_ref(p_ref)), float(check_beta(beta)), float(check_eps(eps))
    n = check_positive_int("n", n)
    n_outcomes = check_positive_int("n_outcomes", n_outcomes, minimum=2)
    rng = np.random.default_rng(seed)
    success = np.arange(n_outcomes) < n_outcomes // 2
    ref = rng.dirichlet(np.ones(n_outcomes))
    ref = np.where(success, ref / ref[success].sum() * p_ref_f, ref / ref[~success].sum() * (1 - p_ref_f))
    z = iterate_logit(p_ref_f, beta_f, eps_f, n=n)
    deltas = delta0 * 0.8 ** np.arange(1, n + 1)
    run = _approximate_run(ref, success, z, deltas, rng, beta_f, eps_f, claimed_delta_scale=claimed_delta_scale)
    bounds, delta_star = 2 * np.cumsum(deltas), float(deltas.sum())
    stable = [fp for fp in fixed_points(p_ref_f, beta_f, eps_f) if fp.stable]
    p_last = float(expit(z[-1]))
    p_star = min(stable, key=lambda fp: abs(fp.p - p_last)).p if stable else float("nan")
    final_gap = abs(float(np.dot(run.pi_tilde, success)) - p_star)
    final_bound = 2 * delta_star + abs(p_last - p_star)
    notes = f"{n} steps, {n_outcomes} outcomes, seed {seed}, delta_n = {delta0} 0.8^n given in advance; "
    return [
        *_telescoped_checks(run, bounds, notes=notes),
        Identity(
            name="Theorem 5: |p~_N - p*| <= 2 delta* + |p_N - p*|",
            lhs=sp.Float(final_gap),
            rhs=sp.Float(final_bound),
            holds=bool(final_gap <= final_bound),
            relation="<=",
            notes=f"p* = {p_star:.6f}, delta* = {delta_star:.4g}.",
            extra={"p_star": p_star, "delta_star": delta_star, "gaps": run.gaps, "bounds": bounds, "tv": run.tvs},
        ),
    ]


@dataclass(frozen=True)
class _ApproximateRun:
    """A run of approximate GRPO against the exact one: the last policy pi~_N, and per step n = 1..N the excess
    TV_n - TV_{n-1} - delta_n of Assumption 1, the success gap |p~_n - p_n| and TV(pi~_n, pi_n)."""

    pi_tilde: np.ndarray
    steps: list[float]
    gaps: np.ndarray
    tvs: np.ndarray


def _approximate_run(
    ref: np.ndarray,
    success: np.ndarray,
    z: np.ndarray,
    deltas: np.ndarray,
    rng: np.random.Generator,
    beta: float,
    eps: float,
    *,
    claimed_delta_scale: float,
) -> _ApproximateRun:
    """pi_n = Theorem 1's Gibbs policy from pi_ref = ``ref`` at p_{n-1} = sigmoid(z_{n-1}); pi~_n = the same step
    from p~_{n-1}, mixed with a random policy with weight delta_n (:func:`theorem5_telescoped_bound`). The excess of
    Assumption 1 uses the delta_n times ``claimed_delta_scale``."""
    pi_tilde, tv_prev, steps, gaps, tvs = ref.copy(), 0.0, [], [], []
    for k in range(1, len(deltas) + 1):
        pi_n = np.exp(gibbs_log_policy(np.log(ref), success.astype(float), expit(z[k - 1]), beta, eps))
        p_tilde_prev = float(np.dot(pi_tilde, success))
        exact_from_tilde = np.exp(gibbs_log_policy(np.log(ref), success.astype(float), p_tilde_prev, beta, eps))
        pi_tilde = (1 - deltas[k - 1]) * exact_from_tilde + deltas[k - 1] * rng.dirichlet(np.ones(len(ref)))
        tv = float(total_variation(pi_tilde, pi_n))
        steps.append(tv - tv_prev - claimed_delta_scale * deltas[k - 1])
        tv_prev = tv
        tvs.append(tv)
        gaps.append(abs(float(np.dot(pi_tilde - pi_n, success))))
    return _ApproximateRun(pi_tilde, steps, np.array(gaps), np.array(tvs))


def _telescoped_checks(run: _ApproximateRun, bounds: np.ndarray, *, notes: str) -> list[Identity]:
    """Assumption 1 along ``run`` (largest excess <= 1e-15), and |p~_n - p_n| <= ``bounds``_n = 2 sum_{i<=n} delta_i at
    every n; ``notes`` describes the run."""
    return [
        Identity(
            name="Assumption 1 along the run: TV_n <= TV_{n-1} + delta_n",
            lhs=sp.Float(float(max(run.steps))),
            rhs=sp.Integer(0),
            holds=bool(max(run.steps) <= 1e-15),
            relation="<=",
            notes=notes + "lhs = max(TV_n - TV_{n-1} - delta_n).",
        ),
        Identity(
            name="Theorem 5 proof: |p~_n - p_n| <= 2 sum_{i<=n} delta_i at every n",
            lhs=sp.Float(float(np.max(run.gaps - bounds))),
            rhs=sp.Integer(0),
            holds=bool(np.all(run.gaps <= bounds + 1e-15)),
            relation="<=",
        ),
    ]


def theorem5_limit_need_not_exist(
    p_ref: float = 0.3, beta: float = 2.0, eps: float = PAPER_EPS, *, c: float = 0.05, n: int = 40
) -> Identity:
    """A witness that Theorem 5's "lim" must be read as limsup.

    Four outcomes (two with r = 1, two with r = 0). From n = 1 on, pi~_n moves mass c away from pi_n: on odd n from a
    failing to a succeeding outcome (p~_n - p_n = c), on even n between the two succeeding outcomes (p~_n = p_n).
    TV_n = c for all n >= 1, so Assumption 1 holds with delta_1 = c, delta_n = 0 afterwards (delta* = c), yet
    |p~_n - p*| keeps alternating between about c and about 0: it has no limit (its limsup is <= 2 delta*).
    """
    p_ref_f, beta_f, eps_f = float(check_p_ref(p_ref)), float(check_beta(beta)), float(check_eps(eps))
    orbit = iterate(p_ref_f, beta_f, eps_f, n)
    p_star = float(orbit[-1])
    tail = []
    for k in range(1, n + 1):
        p_n = float(orbit[k])
        pi_n = np.array([p_n / 2, p_n / 2, (1 - p_n) / 2, (1 - p_n) / 2])
        shift = np.array([c, 0, -c, 0]) if k % 2 else np.array([c, -c, 0, 0])
        pi_tilde = pi_n + shift
        if np.any(pi_tilde < 0):
            raise ValueError(f"c={c!r} is too large for this orbit; valid range is 0 < c <= min mass")
        p_tilde = float(pi_tilde[0] + pi_tilde[1])
        tail.append((abs(p_tilde - p_star), float(total_variation(pi_tilde, pi_n))))
    gaps = np.array([g for g, _ in tail[-10:]])
    tvs = np.array([t for _, t in tail])
    oscillation = float(gaps.max() - gaps.min())
    return Identity(
        name="Theorem 5: |p~_n - p*| need not converge (lim should be limsup)",
        lhs=sp.Float(oscillation),
        rhs=sp.Float(c / 2),
        holds=bool(oscillation > c / 2 and np.allclose(tvs, c) and gaps.max() <= 2 * c + 1e-12),
        relation=">",
        notes=f"TV_n = {c} for all n (Assumption 1 with delta* = {c}); over the last 10 steps |p~_n - p*| "
        f"ranges over {gaps.min():.3g}..{gaps.max():.3g}.",
        extra={"gaps": gaps, "tv": tvs},
    )
