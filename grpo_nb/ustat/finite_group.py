"""The success recursion with a finite group: Theorem 2 when p_{n-1} is only known through G samples.

Algorithm 1 estimates p_{n-1} by p_hat = k/G from a group of G answers and maximises the *sampled* objective
(1/G) sum_i (pi(o_i)/pi_old(o_i)) A_i - beta KL(pi || pi_ref), A_i Mroueh's stabilised advantage with p_hat
(Eq. 4). On a prompt with one correct and one wrong answer the policy is its logit z = logit p, and:

* the objective's gradient in z is v(z) (C - beta (z - a)), with a = logit p_ref, v = p(1-p), and the **tilt**

      C(k) = p_hat omega^+(p_hat)/p_old + (1 - p_hat) omega^-(p_hat)/(1 - p_old)
           = v_hat / (v_old sqrt(v_hat + eps)),        v_hat = p_hat (1 - p_hat);

  the importance ratio turns the sample average into p_hat/p_old (successes) and (1-p_hat)/(1-p_old) (failures);
* its maximiser (Algorithm 1 with enough inner steps) is z_n = a + C(k)/beta; with exact expectations
  (p_hat = p_old) C = 1/sqrt(v + eps) and this is Theorem 2, logit h(p) = a + 1/(beta sqrt(v + eps));
* mu inner gradient-ascent steps of size lr on the two logits move z by 2 lr v(z)(C - beta(z - a)) each
  (Algorithm 1's inner loop, exactly);
* a group with k = 0 or k = G has v_hat = 0, hence C = 0: no signal, only the KL term acts. Such a group (a *silent*
  one) comes with probability p^G + (1 - p)^G (:func:`silent_group_probability`; its complement, accurate near p = 0
  and 1, is :func:`mixed_group_probability`).

So z_n = T(z_{n-1}, K_n) with K_n ~ Binomial(G, p_{n-1}): a Markov chain. Its expected step is a finite sum over
k (:func:`expected_map`); averaged over k, E[C] = rho_G(p) / sqrt(v + eps) with the **signal retention**
rho_G(p) = E[v_hat / sqrt(v_hat + eps)] sqrt(v + eps) / v (:func:`signal_retention`), which also scales the
expected GRPO gradient of any parametrised policy (:func:`grpo_nb.ustat.moments.expected_step_factor`). Iterated
as a deterministic map, the expected map has orbits of its own (:func:`expected_map_orbits`, many beta at once).

Zero-variance groups can be kept (``no_signal="keep"``: the KL alone acts, and the maximiser returns to
pi_ref), dropped (``"drop"``: the prompt is not updated; for one prompt this is what DAPO's dynamic sampling
does, which drops such groups and refills the batch with other prompts) or resampled (``"resample"``, the book's
own rule: new groups for the same prompt, up to ``max_draws`` groups, then dropped). For comparison,
``rule="plug_in"`` is the model of the hard-prompts chapter (:func:`grpo_nb.dynamics.bifurcation.finite_group_orbit`):
z_n = logit h(p_hat), which keeps the exact expectation over answers and only replaces p in the weights.

The law of z_n is propagated without sampling (:func:`finite_group_law`): atoms (z, mass) are pushed through
every k with its binomial weight and merged on a fine grid (each merged atom keeps its mass-weighted mean z).
Logits are kept within +-700 (float64 p is 0 or 1 beyond).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logit
from scipy.stats import binom

from grpo_nb.dynamics.map import bernoulli_variance_of_logit, logit_map
from grpo_nb.validation import (
    check_beta,
    check_choice,
    check_eps,
    check_p,
    check_p_ref,
    check_positive_int,
    check_scalar,
)
from grpo_nb.weights import weight_scale

__all__ = [
    "NO_SIGNAL_RULES",
    "RULES",
    "FiniteGroupLaw",
    "StepModel",
    "expected_map",
    "expected_map_orbits",
    "finite_group_law",
    "group_tilt",
    "mixed_group_probability",
    "signal_retention",
    "silent_group_probability",
    "simulate_chain",
    "step_logits",
]


#: The kernels of this module: public, vectorised and fast, they do not validate their input (their callers do).
KERNELS = ("group_tilt",)

RULES: tuple[str, ...] = ("maximiser", "inner_loop", "plug_in")
NO_SIGNAL_RULES: tuple[str, ...] = ("keep", "drop", "resample")
Z_MAX = 700.0


def group_tilt(z_old: np.ndarray, k: np.ndarray, G: int, *, eps: float) -> np.ndarray:
    """C(k) = v_hat / (v_old sqrt(v_hat + eps)) (module docstring), 0 when k = 0 or k = G. Broadcasts; no validation."""
    k = np.asarray(k)
    p_hat = k / G
    v_hat = p_hat * (1.0 - p_hat)
    signal = (k > 0) & (k < G)
    safe = np.where(signal, p_hat, 0.5)
    inv_v_old = 2.0 + 2.0 * np.cosh(np.clip(z_old, -Z_MAX, Z_MAX))  # 1/(p(1-p)) without cancellation
    return np.where(signal, v_hat * np.asarray(weight_scale(safe, eps)) * inv_v_old, 0.0)


@dataclass(frozen=True)
class StepModel:
    """What one outer iteration does to a two-answer prompt (module docstring): the recursion's parameters
    (p_ref, beta, eps, G), the step ``rule`` ("maximiser" | "inner_loop" | "plug_in"), the inner loop's ``mu`` and
    ``lr`` (rule "inner_loop"), what happens to groups without signal, and the resampling cap ``max_draws``."""

    p_ref: float
    beta: float
    eps: float
    G: int
    rule: str = "maximiser"
    mu: int | None = None
    lr: float | None = None
    no_signal: str = "keep"
    max_draws: int = 64

    def __post_init__(self) -> None:
        object.__setattr__(self, "p_ref", check_scalar("p_ref", check_p_ref(self.p_ref)))
        object.__setattr__(self, "beta", check_scalar("beta", check_beta(self.beta)))
        object.__setattr__(self, "eps", check_scalar("eps", check_eps(self.eps)))
        if self.eps == 0:
            raise ValueError("eps=0.0 is out of range for a finite group (p_hat can be 0 or 1); valid range is eps > 0")
        object.__setattr__(self, "G", check_positive_int("G", self.G, minimum=2))
        check_choice("rule", self.rule, RULES)
        check_choice("no_signal", self.no_signal, NO_SIGNAL_RULES)
        check_positive_int("max_draws", self.max_draws)
        if self.rule == "inner_loop":
            check_positive_int("mu", self.mu)
            if self.lr is None or not (np.isfinite(self.lr) and 0 < self.lr * self.beta <= 2.0):
                raise ValueError(
                    f"lr={self.lr!r} is out of range; valid range is 0 < lr <= 2/beta (Algorithm 1's bound)"
                )

    @property
    def a(self) -> float:
        return float(logit(self.p_ref))


def step_logits(model: StepModel, z_old: np.ndarray, k: np.ndarray) -> np.ndarray:
    """z_n = T(z_{n-1}, k) for the model's rule, before the no-signal rule (k = 0 or G is the "keep" step)."""
    z_old, k = np.broadcast_arrays(np.asarray(z_old, dtype=float), np.asarray(k))
    a, beta, G = model.a, model.beta, model.G
    if model.rule == "plug_in":
        signal = (k > 0) & (k < G)
        return np.where(signal, logit_map(logit(np.where(signal, k / G, 0.5)), a, beta, model.eps), a)
    tilt = group_tilt(z_old, k, G, eps=model.eps)
    if model.rule == "maximiser":
        return np.clip(a + tilt / beta, -Z_MAX, Z_MAX)
    z = z_old.copy()
    for _ in range(model.mu):  # Algorithm 1's inner loop on the two logits, in their difference z
        z = np.clip(z + 2.0 * model.lr * bernoulli_variance_of_logit(z) * (tilt - beta * (z - a)), -Z_MAX, Z_MAX)
    return z


def _k_weights(model: StepModel, p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per state: the probabilities of k = 0..G after the no-signal rule, the probability of no update
    (dropped), and the expected number of groups drawn. Shapes (n, G+1), (n,), (n,)."""
    G = model.G
    k = np.arange(G + 1)
    w = binom.pmf(k[None, :], G, p[:, None])
    q = w[:, 0] + w[:, G]
    if model.no_signal == "keep":
        return w, np.zeros_like(p), np.ones_like(p)
    signal = w.copy()
    signal[:, [0, G]] = 0.0
    if model.no_signal == "drop":
        return signal, q, np.ones_like(p)
    reach = 1.0 - q**model.max_draws  # a group with signal within max_draws draws
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = np.where(q < 1.0, reach / (1.0 - q), float(model.max_draws))  # 1 + q + ... + q^(R-1)
    return signal * scale[:, None], 1.0 - reach, scale


def expected_map(model: StepModel, p: object) -> np.ndarray | float:
    """E[p_n | p_{n-1} = p], exactly: the sum over k = 0..G of the binomial weight times sigmoid(T(logit p, k))."""
    if not isinstance(model, StepModel):
        raise ValueError(f"model={model!r} is not a StepModel")
    p_arr = np.atleast_1d(check_p(p, np.asarray(model.eps), name="p")).astype(float)
    z = logit(np.clip(p_arr, expit(-Z_MAX), expit(Z_MAX)))
    w, dropped, _ = _k_weights(model, p_arr)
    nxt = expit(step_logits(model, z[:, None], np.arange(model.G + 1)[None, :]))
    out = np.sum(w * nxt, axis=1) + dropped * p_arr
    return float(out[0]) if np.ndim(p) == 0 else out.reshape(np.shape(p))


def _expected_logit_map(z: np.ndarray, a: float, beta: np.ndarray, eps: float, G: int) -> np.ndarray:
    """logit H_G(sigmoid z) for the maximiser with groups kept (:func:`expected_map` in logit form), vectorised over
    (z, beta) of the same shape."""
    k = np.arange(G + 1)
    w = binom.pmf(k[None, :], G, expit(z)[:, None])
    nxt = expit(np.clip(a + group_tilt(z[:, None], k[None, :], G, eps=eps) / beta[:, None], -Z_MAX, Z_MAX))
    return logit(np.clip(np.sum(w * nxt, axis=1), 1e-300, 1 - 1e-16))


def expected_map_orbits(
    p_ref: float, betas: object, eps: float, *, G: int, transient: int = 1500, n_keep: int = 64, tol: float = 1e-7
) -> tuple[np.ndarray, np.ndarray]:
    """The orbit of the exact expected map H_G (the maximiser, groups kept) from p_ref for every beta, iterated as a
    deterministic map: its last n_keep values, shape (beta, n_keep), and its period (smallest k <= n_keep/2 with
    |z_{j+k} - z_j| <= tol max(1, |z_j|) over the window, in logits; 0 if none)."""
    p_ref = check_scalar("p_ref", check_p_ref(p_ref))
    eps = check_scalar("eps", check_eps(eps))
    betas = np.atleast_1d(check_beta(betas)).astype(float)
    G = check_positive_int("G", G, minimum=2)
    transient = check_positive_int("transient", transient, minimum=0)
    n_keep = check_positive_int("n_keep", n_keep, minimum=2)
    a = float(logit(p_ref))
    z = np.full(betas.size, a)
    for _ in range(transient):
        z = _expected_logit_map(z, a, betas, eps, G)
    keep = np.empty((betas.size, n_keep))
    for j in range(n_keep):
        z = _expected_logit_map(z, a, betas, eps, G)
        keep[:, j] = z
    period = np.zeros(betas.size, dtype=int)
    scale = np.maximum(1.0, np.abs(keep))
    for k in range(n_keep // 2, 0, -1):
        period[np.all(np.abs(keep[:, k:] - keep[:, :-k]) <= tol * scale[:, :-k], axis=1)] = k
    return expit(keep), period


def signal_retention(p: object, G: int, eps: object) -> np.ndarray | float:
    """rho_G(p) = E[C(K)] sqrt(v + eps), K ~ Binomial(G, p): the share of Theorem 2's logit step that a group of G
    keeps on average (1 as G -> infinity; about sqrt((G-1) p) for a hard prompt, G p << 1: a useful group then
    has one success, v_hat = (G-1)/G^2, and it comes with probability about G p). Vectorised over p in (0, 1)."""
    eps_f = check_scalar("eps", check_eps(eps))
    G = check_positive_int("G", G, minimum=2)
    p_arr = np.asarray(p, dtype=float)
    if np.isnan(p_arr).any() or ((p_arr <= 0) | (p_arr >= 1)).any():
        raise ValueError(f"p={p!r} is out of range; valid range is 0 < p < 1")
    k = np.arange(G + 1)
    z = logit(p_arr)[..., None]
    tilt = group_tilt(z, k, G, eps=eps_f)
    exact = np.asarray(weight_scale(p_arr, eps_f))
    out = np.sum(binom.pmf(k, G, p_arr[..., None]) * tilt, axis=-1) / exact
    return float(out) if out.ndim == 0 else out


def _check_group_p(p: object, G: object) -> tuple[np.ndarray, int]:
    G = check_positive_int("G", G, minimum=2)
    return check_p(p, np.asarray(1.0), name="p").astype(float), G  # any eps > 0: p = 0 and p = 1 are allowed


def silent_group_probability(p: object, G: int) -> np.ndarray | float:
    """The probability that a group of G answers is silent (all its 0/1 rewards equal, so its group-centred advantage
    is 0): with the answers' rewards i.i.d. Bernoulli(p), all G are 1 with probability p^G and all are 0 with
    probability (1 - p)^G, two disjoint events, so P(silent) = p^G + (1 - p)^G. Vectorised over p in [0, 1], G >= 2.
    Its complement, accurate where it is small, is :func:`mixed_group_probability`. Used by the chapters "Group size"
    (groups without signal) and "Questions from the trackers" (silent groups, how many generations per prompt)."""
    p_arr, G = _check_group_p(p, G)
    out = p_arr**G + (1.0 - p_arr) ** G
    return float(out) if out.ndim == 0 else out


def mixed_group_probability(p: object, G: int) -> np.ndarray | float:
    """1 - P(silent) = 1 - p^G - (1 - p)^G (:func:`silent_group_probability`), the probability that a group of G
    holds both rewards, computed without cancellation: with m = min(p, 1 - p) (the expression is symmetric in p and
    1 - p), 1 - (1 - m)^G = -expm1(G log1p(-m)), from which m^G is subtracted. Vectorised over p in [0, 1], G >= 2."""
    p_arr, G = _check_group_p(p, G)
    m = np.minimum(p_arr, 1.0 - p_arr)
    out = -np.expm1(G * np.log1p(-m)) - m**G
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class FiniteGroupLaw:
    """The law of p_k for k = 0..n (the ``n`` of :func:`finite_group_law`) from p_0 = p_ref: mean, standard deviation,
    quantiles (one row of ``quantiles`` per level of ``levels``), the probability that step k's group had no signal,
    the expected number of groups drawn at step k, and the final atoms (logits and masses)."""

    model: StepModel
    mean: np.ndarray
    std: np.ndarray
    levels: tuple[float, ...]
    quantiles: np.ndarray
    no_signal: np.ndarray
    draws: np.ndarray
    atoms_z: np.ndarray
    atoms_mass: np.ndarray


def _weighted_quantiles(z: np.ndarray, m: np.ndarray, levels: tuple[float, ...]) -> np.ndarray:
    order = np.argsort(z)
    cdf = np.cumsum(m[order])
    idx = np.searchsorted(cdf, np.asarray(levels) * cdf[-1])
    return expit(z[order][np.minimum(idx, z.size - 1)])


def _merge(z: np.ndarray, m: np.ndarray, width: float) -> tuple[np.ndarray, np.ndarray]:
    """Merge atoms on a grid of step ``width`` in u = 10 asinh(z/10) (fine where p is away from 0 and 1)."""
    keep = m > 0
    z, m = z[keep], m[keep]
    cells, inverse = np.unique(np.floor(10.0 * np.arcsinh(z / 10.0) / width).astype(np.int64), return_inverse=True)
    mass = np.bincount(inverse, weights=m, minlength=cells.size)
    return np.bincount(inverse, weights=m * z, minlength=cells.size) / mass, mass


def finite_group_law(
    model: StepModel, n: int, *, levels: tuple[float, ...] = (0.1, 0.5, 0.9), width: float = 1e-3
) -> FiniteGroupLaw:
    """The law of p_0..p_n under the finite-group chain, without sampling (module docstring)."""
    if not isinstance(model, StepModel):
        raise ValueError(f"model={model!r} is not a StepModel")
    n = check_positive_int("n", n)
    if not 0 < width <= 0.1:
        raise ValueError(f"width={width!r} is out of range; valid range is 0 < width <= 0.1")
    z, m = np.array([model.a]), np.array([1.0])
    k = np.arange(model.G + 1)
    means, second, quants, empty, draws = [expit(model.a)], [expit(model.a) ** 2], [], [], []
    quants.append(_weighted_quantiles(z, m, levels))
    for _ in range(n):
        p = expit(z)
        w, dropped, n_draws = _k_weights(model, p)
        raw = binom.pmf(k[None, :], model.G, p[:, None])
        empty.append(float(m @ (raw[:, 0] + raw[:, -1])))
        draws.append(float(m @ n_draws))
        targets = step_logits(model, z[:, None], k[None, :])
        z, m = _merge(np.r_[targets.ravel(), z], np.r_[(m[:, None] * w).ravel(), m * dropped], width)
        m = m / m.sum()
        means.append(float(m @ expit(z)))
        second.append(float(m @ expit(z) ** 2))
        quants.append(_weighted_quantiles(z, m, levels))
    return FiniteGroupLaw(
        model=model,
        mean=np.array(means),
        std=np.sqrt(np.maximum(np.array(second) - np.array(means) ** 2, 0.0)),
        levels=tuple(levels),
        quantiles=np.array(quants).T,
        no_signal=np.array(empty),
        draws=np.array(draws),
        atoms_z=z,
        atoms_mass=m,
    )


def simulate_chain(model: StepModel, n: int, n_chains: int, *, seed: int = 0) -> np.ndarray:
    """Seeded runs of the chain itself (binomial draws, numpy ``default_rng(seed)``): p_0..p_n, shape (n+1, n_chains).

    Resampling redraws the groups without signal, at most ``max_draws`` groups in all, then drops the update."""
    if not isinstance(model, StepModel):
        raise ValueError(f"model={model!r} is not a StepModel")
    n, n_chains = check_positive_int("n", n), check_positive_int("n_chains", n_chains)
    rng = np.random.default_rng(check_positive_int("seed", seed, minimum=0))
    G = model.G
    z = np.full(n_chains, model.a)
    out = [expit(z)]
    for _ in range(n):
        p = expit(z)
        k = rng.binomial(G, p)
        if model.no_signal == "resample":
            for _ in range(model.max_draws - 1):
                empty = (k == 0) | (k == G)
                if not empty.any():
                    break
                k[empty] = rng.binomial(G, p[empty])
        new = step_logits(model, z, k)
        if model.no_signal != "keep":
            new = np.where((k == 0) | (k == G), z, new)
        z = new
        out.append(expit(z))
    return np.array(out)
