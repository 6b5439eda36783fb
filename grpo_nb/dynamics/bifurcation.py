"""Bifurcation diagrams of GRPO's success recursion over beta, and its period-doubling cascade (beyond paper §4).

In logit coordinates the recursion of Thm 2 (Eq. 8) is z_n = g(z_{n-1}), g(z) = a + 1/(beta sqrt(v(z)+eps)),
a = logit p_ref, v = sigmoid(z) sigmoid(-z). g is even with its only critical point at z = 0 (p = 1/2), so
the cascade can be located with the logistic-map tools of Feigenbaum (1978):

- superstable parameters R_k: the 2^k-cycle passes through the critical point, g^{2^k}(0) = 0;
- doubling parameters B_k: the 2^{k-1}-cycle has multiplier -1 and gives birth to the 2^k-cycle;
- the ratios (R_{k-1} - R_k) / (R_k - R_{k+1}) (and likewise for B) tend to Feigenbaum's delta.

Along the cascade beta *decreases*: a large KL coefficient gives a stable fixed point, a smaller one cycles.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import sympy as sp
from scipy.optimize import brentq
from scipy.special import expit, logit

from grpo_nb.dynamics.map import h, log_abs_logit_map_slope, logit_map, logit_map_power, logit_map_slope
from grpo_nb.dynamics.orbits import OrbitClass, classify_orbits
from grpo_nb.validation import check_beta, check_eps, check_p_ref, check_positive_int, check_scalar

__all__ = [
    "FEIGENBAUM_DELTA",
    "BifurcationDiagram",
    "PeriodRun",
    "accumulation_point",
    "bifurcation_diagram",
    "critical_orbit_logit",
    "logit_map_sympy",
    "schwarzian_derivative",
    "doubling_betas",
    "feigenbaum_ratios",
    "finite_group_orbit",
    "period_runs",
    "superstable_betas",
]

FEIGENBAUM_DELTA = 4.669201609102990  # Feigenbaum (1978), universal for unimodal maps with a quadratic extremum


@dataclass(frozen=True)
class BifurcationDiagram:
    """Long-run orbits from p_ref over a grid of beta (one p_ref, one eps): data of a bifurcation diagram.

    beta: (n,) increasing; kind/period/lyapunov: (n,) as in :class:`grpo_nb.dynamics.orbits.OrbitSummary`;
    limit_logits: (n, n_keep) post-transient logits (+inf where the orbit escaped to p = 1 with eps = 0).
    """

    p_ref: float
    eps: float
    beta: np.ndarray
    kind: np.ndarray
    period: np.ndarray
    lyapunov: np.ndarray
    limit_logits: np.ndarray

    @property
    def limit_p(self) -> np.ndarray:
        """The post-transient success probabilities sigmoid(limit_logits), shape (n, n_keep)."""
        return expit(self.limit_logits)


@dataclass(frozen=True)
class PeriodRun:
    """A maximal run of consecutive grid values of beta with the same orbit kind and period."""

    kind: str
    period: int
    beta_min: float
    beta_max: float
    n_points: int


def _p_ref_eps(p_ref: object, eps: object) -> tuple[float, float]:
    return check_scalar("p_ref", check_p_ref(p_ref)), check_scalar("eps", check_eps(eps))


def bifurcation_diagram(
    p_ref: object,
    beta: object,
    eps: object,
    *,
    transient: int = 3000,
    n_keep: int = 128,
    max_period: int = 64,
    n_lyapunov: int = 2048,
) -> BifurcationDiagram:
    """Orbit kind, period, Lyapunov exponent and limit set of Eq. (8) from p_ref for every beta of a 1-D grid.

    Vectorised over beta (one call of :func:`grpo_nb.dynamics.orbits.classify_orbits`). ``beta`` must be a
    1-D strictly increasing array of valid KL coefficients; p_ref and eps are scalars.
    """
    p_ref, eps = _p_ref_eps(p_ref, eps)
    beta = check_beta(beta)
    if beta.ndim != 1 or beta.size < 2 or not np.all(np.diff(beta) > 0):
        raise ValueError(f"beta has shape {beta.shape}; valid input is a 1-D strictly increasing array of >= 2 values")
    s = classify_orbits(
        p_ref, beta, eps, transient=transient, n_keep=n_keep, max_period=max_period, n_lyapunov=n_lyapunov
    )
    return BifurcationDiagram(p_ref, eps, beta, s.kind, s.period, s.lyapunov, s.limit_logits)


def period_runs(diagram: BifurcationDiagram) -> list[PeriodRun]:
    """Split the beta grid of a diagram into maximal runs of equal (kind, period), in increasing beta."""
    key = diagram.kind * 10_000 + diagram.period
    cuts = np.flatnonzero(np.diff(key)) + 1
    runs = []
    for idx in np.split(np.arange(key.size), cuts):
        i, j = idx[0], idx[-1]
        kind, period = OrbitClass(int(diagram.kind[i])).label, int(diagram.period[i])
        runs.append(PeriodRun(kind, period, float(diagram.beta[i]), float(diagram.beta[j]), int(idx.size)))
    return runs


def critical_orbit_logit(p_ref: object, beta: object, eps: object, *, n: int) -> np.ndarray:
    """g^n(0): the n-th iterate of the critical point z = 0 (p = 1/2) of the logit map, vectorised over beta."""
    p_ref, eps = _p_ref_eps(p_ref, eps)
    beta = check_beta(beta)
    n = check_positive_int("n", n, minimum=0)
    return _critical(logit(p_ref), beta, eps, n)


def _critical(a: float, beta: np.ndarray | float, eps: float, n: int) -> np.ndarray:
    return logit_map_power(np.zeros(np.shape(beta)), a, beta, eps, n=n)


def _first_sign_change(f, grid: np.ndarray) -> tuple[float, float] | None:
    vals = f(grid)
    change = np.flatnonzero(np.sign(vals[1:]) != np.sign(vals[:-1]))
    if change.size == 0:
        return None
    c = change[0]
    return float(grid[c]), float(grid[c + 1])


def superstable_betas(
    p_ref: object, eps: object, n_doublings: int = 8, *, beta_max: float = 1e3, n_grid: int = 4000
) -> np.ndarray:
    """Superstable parameters R_1 > R_2 > ... > R_K of the cascade: g^{2^k}(0) = 0 (the 2^k-cycle hits p = 1/2).

    R_1 is the largest root of g(g(0)) below ``beta_max`` (for beta -> inf the fixed point sits near
    a < 0 and g(g(0)) -> a < 0). R_k is then the first sign change of g^{2^k}(0) on a grid going down from
    R_{k-1} (where g^{2^k}(0) vanishes as well) over a width of R_{k-2} - R_{k-1} (0.7 R_1 for k = 2), refined
    with Brent's method. Requires p_ref < 1/2 (for p_ref >= 1/2 there is no cycle at all). Returns the R_k
    found (fewer than ``n_doublings`` when a root is not bracketed, e.g. beyond float64 resolution).
    """
    p_ref, eps = _p_ref_eps(p_ref, eps)
    if p_ref >= 0.5:
        raise ValueError(f"p_ref={p_ref!r} is out of range; the cascade needs 0 < p_ref < 1/2")
    n_doublings = check_positive_int("n_doublings", n_doublings)
    beta_max = check_scalar("beta_max", check_beta(beta_max))
    n_grid = check_positive_int("n_grid", n_grid, minimum=10)
    a = float(logit(p_ref))

    def root(n: int, lo: float, hi: float) -> float:
        return brentq(lambda b: float(_critical(a, b, eps, n)), lo, hi, xtol=1e-15, rtol=1e-15)

    bracket = _first_sign_change(lambda b: _critical(a, b, eps, 2), np.geomspace(beta_max, 1e-3, 8 * n_grid))
    if bracket is None:
        return np.empty(0)
    found = [root(2, bracket[1], bracket[0])]
    width = 0.7 * found[0]
    for k in range(2, n_doublings + 1):
        top = found[-1]
        grid = top - width * np.linspace(0.0, 1.0, n_grid)[1:]
        grid = grid[grid > 0]
        bracket = _first_sign_change(lambda b, n=2**k: _critical(a, b, eps, n), grid)
        if bracket is None:
            break
        found.append(root(2**k, bracket[1], bracket[0]))
        width = found[-2] - found[-1]
    return np.asarray(found)


def _cycle(a: float, beta: float, eps: float, period: int, z_near: float) -> tuple[float, float]:
    """(z, multiplier) of the ``period``-cycle point nearest z_near: root of g^period(z) = z, multiplier = prod g'(z_i).

    The root is bracketed by the sign change of g^n(z) - z nearest z_near on a local grid (Newton from
    z_near overshoots: near a superstable cycle the slope of g^n varies on a tiny scale) and refined by Brent.
    """
    grid = z_near + np.linspace(-0.25, 0.25, 1001) * (1.0 + abs(z_near))
    vals = logit_map_power(grid, a, beta, eps, n=period) - grid
    change = np.flatnonzero(np.sign(vals[1:]) != np.sign(vals[:-1]))
    if change.size == 0:
        raise RuntimeError(f"no {period}-cycle near z={z_near} at beta={beta}")
    c = change[np.argmin(np.abs(grid[change] - z_near))]
    z = brentq(lambda x: float(logit_map_power(x, a, beta, eps, n=period)) - x, grid[c], grid[c + 1], xtol=1e-15)
    cycle = np.empty(period)
    cycle[0] = z
    for i in range(1, period):
        cycle[i] = logit_map(cycle[i - 1], a, beta, eps)
    return z, float(np.prod(logit_map_slope(cycle, beta, eps)))


def _doubling_of_cycle(a: float, eps: float, period: int, r_hi: float, r_lo: float, n_grid: int = 40) -> float:
    """beta in (r_lo, r_hi) where the ``period``-cycle through z = 0 at r_hi (superstable) reaches multiplier -1.

    The cycle is continued from r_hi downwards in small steps (warm-started Newton) until its multiplier
    drops below -1; the crossing is then refined by Brent's method, warm-started from the last step.
    """
    z, prev_beta = 0.0, r_hi
    for beta in np.linspace(r_hi, r_lo, n_grid + 1)[1:]:
        z_prev = z
        z, m = _cycle(a, float(beta), eps, period, z_prev)
        if m < -1.0:
            return brentq(
                lambda b, z0=z_prev: _cycle(a, b, eps, period, z0)[1] + 1.0,
                float(beta),
                prev_beta,
                xtol=1e-15,
                rtol=1e-15,
            )
        prev_beta = float(beta)
    raise RuntimeError(f"no period doubling of the {period}-cycle found in ({r_lo}, {r_hi})")


def doubling_betas(p_ref: object, eps: object, superstable: np.ndarray) -> np.ndarray:
    """Period-doubling parameters B_1 > B_2 > ...: where the 2^{k-1}-cycle's multiplier crosses -1.

    B_1 (fixed point -> 2-cycle) lies in (R_1, inf): the fixed point on z < 0 is the unique root of
    g(z) = z in (a, 0) and its multiplier g'(z*) rises from below -1 at R_1 to 0 as beta -> inf.
    B_k (k >= 2) lies in (R_k, R_{k-1}): the 2^{k-1}-cycle through the critical point at R_{k-1} (multiplier 0)
    is continued by Newton from z = 0 and its multiplier reaches -1 before R_k. ``superstable`` is the
    output of :func:`superstable_betas`; returns len(superstable) values (B_1..B_K).
    """
    p_ref, eps = _p_ref_eps(p_ref, eps)
    r = check_beta(superstable)
    if r.ndim != 1 or not np.all(np.diff(r) < 0):
        raise ValueError(f"superstable={superstable!r} is invalid; valid input is a 1-D decreasing array of R_k")
    a = float(logit(p_ref))

    def fixed_point_multiplier(beta: float) -> float:
        if float(logit_map(0.0, a, beta, eps)) >= 0.0:  # no fixed point below 1/2: nothing to double
            return 0.0
        z = brentq(lambda x: float(logit_map(x, a, beta, eps)) - x, a, 0.0, xtol=1e-14)
        return -float(np.exp(log_abs_logit_map_slope(z, beta, eps)))

    if not fixed_point_multiplier(float(r[0])) < -1.0:
        raise ValueError(
            f"superstable={superstable!r} is invalid for p_ref={p_ref!r}, eps={eps!r}: the fixed point below 1/2 is "
            "stable (or absent) at R_1, so R_1 does not lie on a cascade born from it; valid: the R_k of "
            "superstable_betas where the fixed point below 1/2 loses stability by period doubling"
        )
    hi = 2.0 * r[0]
    while fixed_point_multiplier(hi) < -1.0:
        hi *= 2.0
    out = [brentq(lambda b: fixed_point_multiplier(b) + 1.0, r[0], hi, xtol=1e-15, rtol=1e-15)]
    for k in range(2, r.size + 1):
        out.append(_doubling_of_cycle(a, eps, 2 ** (k - 1), float(r[k - 2]), float(r[k - 1])))
    return np.asarray(out)


def feigenbaum_ratios(betas: object) -> np.ndarray:
    """delta_k = (b_{k-1} - b_k) / (b_k - b_{k+1}) for a monotone sequence of bifurcation parameters."""
    b = np.asarray(betas, dtype=float)
    if b.ndim != 1 or b.size < 3 or not np.all(np.isfinite(b)):
        raise ValueError(f"betas={betas!r} is invalid; valid input is a finite 1-D array of >= 3 values")
    d = np.diff(b)
    if not (np.all(d < 0) or np.all(d > 0)):
        raise ValueError(f"betas={betas!r} is not strictly monotone; valid input is a monotone sequence")
    return d[:-1] / d[1:]


def accumulation_point(betas: object) -> float:
    """beta_inf = b_K - (b_{K-1} - b_K) / (delta - 1): where a cascade b_1, ..., b_K piles up (Feigenbaum 1978).

    Past b_K the intervals b_{k-1} - b_k shrink by Feigenbaum's delta at each step, a geometric series whose sum
    (b_{K-1} - b_K) / (delta - 1) is the distance from b_K to the end of the cascade.
    """
    b = np.asarray(betas, dtype=float)
    if b.ndim != 1 or b.size < 2 or not np.all(np.isfinite(b)):
        raise ValueError(f"betas={betas!r} is invalid; valid input is a finite 1-D array of >= 2 values")
    if not (np.all(np.diff(b) < 0) or np.all(np.diff(b) > 0)):
        raise ValueError(f"betas={betas!r} is not strictly monotone; valid input is a monotone sequence")
    return float(b[-1] - (b[-2] - b[-1]) / (FEIGENBAUM_DELTA - 1))


def finite_group_orbit(
    p_ref: object, beta: object, eps: object, *, G: int, n: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Eq. (8) with sampling noise: p_n = h(K_n / G), K_n ~ Binomial(G, p_{n-1}), p_0 = p_ref.

    A model of Algorithm 1 with a group of G samples per prompt in which the exact success probability of
    the old policy is replaced by its group estimate p_hat = K/G. A group with K = 0 or K = G has all its
    advantages equal to 0, so the KL term alone is left and the update returns pi_ref: then p_n = p_ref.
    Returns (p_0..p_n, no_signal flags for steps 1..n). Seeded (numpy default_rng(seed)).
    """
    p_ref, eps = _p_ref_eps(p_ref, eps)
    beta = check_scalar("beta", check_beta(beta))
    G = check_positive_int("G", G, minimum=2)
    n = check_positive_int("n", n, minimum=1)
    rng = np.random.default_rng(seed)
    p = np.empty(n + 1)
    no_signal = np.zeros(n, dtype=bool)
    p[0] = p_ref
    for k in range(n):
        hits = rng.binomial(G, p[k])
        if hits in (0, G):
            no_signal[k] = True
            p[k + 1] = p_ref
        else:
            p[k + 1] = h(hits / G, p_ref, beta, eps)
    return p, no_signal


def logit_map_sympy() -> tuple[sp.Symbol, sp.Symbol, sp.Symbol, sp.Symbol, sp.Expr]:
    """(z, a, beta, eps, g) with g = a + 1/(beta sqrt(v(z) + eps)), v = e^z/(1+e^z)^2: Thm 2 in logit form."""
    z, a = sp.symbols("z a", real=True)
    beta, eps = sp.symbols("beta varepsilon", positive=True)
    v = sp.exp(z) / (1 + sp.exp(z)) ** 2
    return z, a, beta, eps, a + 1 / (beta * sp.sqrt(v + eps))


@functools.cache
def _schwarzian_function():
    z, a, beta, eps, g = logit_map_sympy()
    d1, d2, d3 = (sp.diff(g, z, k) for k in (1, 2, 3))
    schwarzian = sp.simplify(d3 / d1 - sp.Rational(3, 2) * (d2 / d1) ** 2)
    if schwarzian.has(a) or schwarzian.has(beta):
        raise AssertionError("the Schwarzian of g should not depend on a or beta")
    return sp.lambdify((z, eps), schwarzian, "numpy")


def schwarzian_derivative(z: object, eps: object) -> np.ndarray:
    """Schwarzian derivative S g = g'''/g' - (3/2) (g''/g')^2 of the logit map at z != 0 (sympy, then numpy).

    S g does not depend on a = logit p_ref or on beta (S is invariant under g -> c g + a). Where S g < 0
    (a "negative Schwarzian" unimodal map), Singer's theorem says every attracting cycle attracts the
    critical point z = 0 or an end of the invariant interval. Valid for |z| <~ 700 (exp overflow beyond).
    """
    z = np.asarray(z, dtype=float)
    eps = check_eps(eps)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return np.asarray(_schwarzian_function()(z, eps), dtype=float)
