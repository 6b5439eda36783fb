"""Section "Entropy" of the chapter "What GRPO does to the whole distribution" (``book/distribution.md``): the
covariance law of the entropy's first-order change, and the entropy of clipped GRPO on the clip bandit.

- :func:`covariance_law_check`: on random softmax policies and advantages, H(theta + eta delta) - H(theta) =
  -eta Cov_pi(log pi, delta) + O(eta^2) (:func:`grpo_nb.tabular.entropy.covariance_law`), for the plain and the
  natural policy gradient's step delta (:func:`grpo_nb.tabular.entropy.logit_step`): the residual falls like eta^2
  (its order, log2 of the residual's ratio between eta and eta/2, is about 2) while that of the wrong sign
  (+eta Cov) falls like eta;
- :func:`entropy_paths`: the expected-update path of the clip bandit under the four clip modes
  (:func:`grpo_nb.tabular.clip_bias.expected_update_orbit`, verifiable rewards);
- :func:`entropy_runs`: Algorithm 1 on the clip bandit, many seeded runs per clip mode
  (:func:`grpo_nb.tabular.clip_bias.clipped_grpo_runs`): the final entropy's mean and standard error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grpo_nb.report import Table
from grpo_nb.tabular.clip_bias import CLIP_MODES, clipped_grpo_runs, expected_update_orbit
from grpo_nb.tabular.entropy import GRADIENTS, covariance_law, entropy_change, logit_step
from grpo_nb.tabular.examples import BANDIT_PI0, BANDIT_REWARD, bandit_options

__all__ = [
    "CovarianceLawCheck",
    "EntropyPaths",
    "EntropyRuns",
    "covariance_law_check",
    "entropy_paths",
    "entropy_runs",
]

LAW = covariance_law  # the first-order law; a test replaces it with a wrong one
STEPS = (1e-2, 1e-3, 1e-4)  # the step sizes eta of the check


@dataclass(frozen=True)
class CovarianceLawCheck:
    """Per gradient, at each eta of :data:`STEPS`: the largest residual |H(theta + eta delta) - H(theta) - eta L|
    / eta^2 over the random policies, with L the law; ``growth`` is its value at the smallest eta over that at the
    largest (about 1 when the residual is O(eta^2)); ``wrong_sign_growth`` the same for L of the wrong sign (about
    100 per factor 100 in eta: a first-order residual)."""

    table: Table
    growth: float
    wrong_sign_growth: float
    n_policies: int


def _scaled_residuals(cases: list, gradient: str, sign: float) -> list[float]:
    """max over ``cases`` of |entropy change - eta sign L| / eta^2, per eta of :data:`STEPS`."""
    out = []
    for eta in STEPS:
        worst = 0.0
        for logits, advantage in cases:
            delta = logit_step(logits, advantage, gradient=gradient)
            residual = abs(entropy_change(logits, delta, step=eta) - eta * sign * LAW(logits, delta))
            worst = max(worst, float(residual) / eta**2)
        out.append(worst)
    return out


def covariance_law_check(rng: np.random.Generator, *, n_policies: int = 200) -> CovarianceLawCheck:
    """``n_policies`` random policies (K in 3..20 answers, logits N(0, 2^2)) and advantages (N(0, 1)), for each
    gradient of :data:`grpo_nb.tabular.entropy.GRADIENTS`."""
    sizes = rng.integers(3, 21, size=n_policies)
    cases = [(rng.normal(0.0, 2.0, k), rng.normal(0.0, 1.0, k)) for k in sizes]
    rows, growth, wrong = [], [], []
    for gradient in GRADIENTS:
        law, flipped = _scaled_residuals(cases, gradient, 1.0), _scaled_residuals(cases, gradient, -1.0)
        rows.append([gradient, n_policies, *law, flipped[-1]])
        growth.append(law[-1] / law[0])
        wrong.append(flipped[-1] / flipped[0])
    headers = ["gradient", "policies", *(f"max residual / η², η = {eta:g}" for eta in STEPS), "wrong sign, η = 1e-4"]
    return CovarianceLawCheck(Table(headers, rows, fmt=".3g"), max(growth), min(wrong), n_policies)


@dataclass(frozen=True)
class EntropyPaths:
    """Per clip mode the expected-update path's entropy (n + 1,) and top mass; the first iteration from which the
    upper clip alone stays below no clipping (0 if never)."""

    table: Table
    entropy: dict
    top_mass: dict
    high_below_none_from: int


def entropy_paths(*, clip_eps: float = 0.2, n: int = 40, random_rewards: bool = False) -> EntropyPaths:
    """The clip bandit's expected-update path for each clip mode, verifiable rewards (or Bernoulli(1/2) ones)."""
    reward = None if random_rewards else BANDIT_REWARD
    paths = {
        mode: expected_update_orbit(
            np.log(BANDIT_PI0), n=n, mode=mode, reward=reward, **bandit_options(clip_eps=clip_eps)
        )
        for mode in CLIP_MODES
    }
    entropy = {mode: path.entropy for mode, path in paths.items()}
    top = {mode: path.top_mass for mode, path in paths.items()}
    below = entropy["high_only"] < entropy["none"]
    tail = np.flatnonzero(~below)
    start = int(tail[-1] + 1) if tail.size else 0
    rows = [[mode, *(entropy[mode][m] for m in (10, 20, n)), top[mode][n]] for mode in CLIP_MODES]
    headers = ["clip mode", "entropy at 10", "at 20", f"at {n}", f"top mass at {n}"]
    return EntropyPaths(Table(headers, rows, fmt=".3f"), entropy, top, start if start <= n else 0)


@dataclass(frozen=True)
class EntropyRuns:
    """Per clip mode over ``n_runs`` seeded runs of n iterations: the mean and standard error of the final entropy
    and top mass, and their mean paths."""

    table: Table
    entropy_mean: dict
    entropy_se: dict
    top_mean: dict
    top_se: dict
    entropy_paths: dict
    top_paths: dict

    def _final(self, of: str) -> tuple[dict, dict]:
        """The means and standard errors at the last iteration of the entropy (``of="entropy"``) or the top mass."""
        return (self.entropy_mean, self.entropy_se) if of == "entropy" else (self.top_mean, self.top_se)

    def difference_se(self, first: str, second: str, *, of: str = "entropy") -> float:
        """The standard error of (mean of ``first`` - mean of ``second``) at the last iteration, sqrt(se_1^2 + se_2^2)
        (the modes' runs are independent)."""
        _, se = self._final(of)
        return float(np.hypot(se[first], se[second]))

    def gap(self, first: str, second: str, *, of: str = "entropy") -> float:
        """(mean of ``first`` - mean of ``second``) / the standard error of the difference, at the last iteration."""
        mean, _ = self._final(of)
        return float((mean[first] - mean[second]) / self.difference_se(first, second, of=of))

    def distance(self, mode: str, value: float, *, of: str = "entropy") -> float:
        """(mean of ``mode`` - ``value``) / the standard error of that mean, at the last iteration: how far the runs
        end from a fixed value (the expected-update path's, say), in standard errors."""
        mean, se = self._final(of)
        return float((mean[mode] - value) / se[mode])


def entropy_runs(
    seed: int, *, clip_eps: float = 0.2, n: int = 40, n_runs: int = 1000, random_rewards: bool = False
) -> EntropyRuns:
    """``n_runs`` runs of Algorithm 1 on the clip bandit per clip mode, mode i seeded ``4 seed + i``."""
    reward = None if random_rewards else BANDIT_REWARD
    runs = {
        mode: clipped_grpo_runs(
            np.log(BANDIT_PI0),
            n=n,
            mode=mode,
            n_runs=n_runs,
            seed=4 * seed + i,
            reward=reward,
            **bandit_options(clip_eps=clip_eps),
        )
        for i, mode in enumerate(CLIP_MODES)
    }
    root = np.sqrt(n_runs)
    h_mean = {m: float(r.entropy[:, -1].mean()) for m, r in runs.items()}
    h_se = {m: float(r.entropy[:, -1].std(ddof=1) / root) for m, r in runs.items()}
    t_mean = {m: float(r.top_mass[:, -1].mean()) for m, r in runs.items()}
    t_se = {m: float(r.top_mass[:, -1].std(ddof=1) / root) for m, r in runs.items()}
    rows = [[m, f"{h_mean[m]:.3f} ± {h_se[m]:.3f}", f"{t_mean[m]:.3f} ± {t_se[m]:.3f}"] for m in CLIP_MODES]
    headers = ["clip mode", f"entropy at {n} (mean ± s.e.)", f"top mass at {n} (mean ± s.e.)"]
    return EntropyRuns(
        Table(headers, rows),
        h_mean,
        h_se,
        t_mean,
        t_se,
        {m: r.entropy.mean(axis=0) for m, r in runs.items()},
        {m: r.top_mass.mean(axis=0) for m, r in runs.items()},
    )
