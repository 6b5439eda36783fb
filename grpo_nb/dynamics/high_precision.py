"""High-precision (mpmath) confirmation of chaos in GRPO's success recursion (Eq. 8, logit coordinates).

A positive Lyapunov exponent measured in float64 could be an artefact of rounding (1e-16 per step). Here
the orbit is recomputed with ``dps`` significant decimal digits (default 60, i.e. rounding ~1e-60), and two
orbits started 1e-30 apart are followed. In the linear regime their distance obeys

    log |d_n / d_0| = sum_{k<n} log |g'(z_k)| + O(d_n),

so the separation grows like exp(lambda n) with lambda the Lyapunov exponent. Rounding at 1e-60 cannot
produce a 1e-30 perturbation, so a separation that grows from 1e-30 to order 1 at the predicted rate is
genuine sensitive dependence on initial conditions, not float64 noise.
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np

from grpo_nb.dynamics.map import iterate_logit
from grpo_nb.validation import check_map_params, check_positive_int

__all__ = ["SeparationResult", "mp_logit_orbit", "mp_lyapunov", "renormalised_separation_rate", "separation_test"]


def _params(p_ref: object, beta: object, eps: object) -> tuple[float, float, float]:
    p_ref, beta, eps = check_map_params(p_ref, beta, eps, scalar=True)
    return float(p_ref), float(beta), float(eps)


class _MpMap:
    """g(z) = a + 1/(beta sqrt(v + eps)) and log|g'(z)| at the working precision of a mpmath context."""

    def __init__(self, ctx: mpmath.ctx_mp.MPContext, p_ref: float, beta: float, eps: float) -> None:
        self.ctx = ctx
        p = ctx.mpf(p_ref)
        self.a = ctx.log(p / (1 - p))
        self.beta = ctx.mpf(beta)
        self.eps = ctx.mpf(eps)

    def variance(self, z):
        e = self.ctx.exp(-abs(z))
        return e / (1 + e) ** 2

    def __call__(self, z):
        v = self.variance(z)
        if self.eps > 0:
            return self.a + 1 / (self.beta * self.ctx.sqrt(v + self.eps))
        return self.a + 2 * self.ctx.cosh(z / 2) / self.beta

    def log_abs_slope(self, z):
        ctx = self.ctx
        v = self.variance(z)
        if z == 0:
            return ctx.ninf
        s = ctx.log(v) - 3 * ctx.log(v + self.eps) / 2 if self.eps > 0 else -ctx.log(v) / 2
        return s + ctx.log(abs(ctx.tanh(z / 2))) - ctx.log(2 * self.beta)


def _context(dps: int) -> mpmath.ctx_mp.MPContext:
    ctx = mpmath.MPContext()
    ctx.dps = check_positive_int("dps", dps, minimum=20)
    return ctx


def mp_logit_orbit(p_ref: object, beta: object, eps: object, *, n: int, dps: int = 60) -> list:
    """Logits z_0..z_n of Eq. (8) from z_0 = logit p_ref, computed with ``dps`` digits (mpmath mpf values)."""
    p_ref, beta, eps = _params(p_ref, beta, eps)
    n = check_positive_int("n", n, minimum=0)
    g = _MpMap(_context(dps), p_ref, beta, eps)
    z = [g.a]
    for _ in range(n):
        z.append(g(z[-1]))
    return z


def mp_lyapunov(p_ref: object, beta: object, eps: object, *, transient: int = 1000, n: int = 4000, dps: int = 40):
    """Lyapunov exponent (1/n) sum log|g'(z_k)| along the high-precision orbit after ``transient`` steps."""
    p_ref, beta, eps = _params(p_ref, beta, eps)
    transient = check_positive_int("transient", transient, minimum=0)
    n = check_positive_int("n", n)
    g = _MpMap(_context(dps), p_ref, beta, eps)
    z = g.a
    for _ in range(transient):
        z = g(z)
    total = g.ctx.mpf(0)
    for _ in range(n):
        total += g.log_abs_slope(z)
        z = g(z)
    return float(total / n)


@dataclass(frozen=True)
class SeparationResult:
    """Two orbits started ``delta0`` apart (in logit) at ``n_pairs`` points of the attractor, in high precision.

    log_separation: (n_pairs, n + 1), log |z'_k - z_k| (natural log).
    predicted: (n_pairs, n + 1), log delta0 + sum_{j<k} log|g'(z_j)| along the reference orbit.
    growth_steps: (n_pairs,), first step at which the separation exceeds ``threshold`` (-1 if never).
    rate: (n_pairs,), log(|d_m| / delta0) / m at m = growth_steps: the realised separation rate.
    """

    delta0: float
    threshold: float
    dps: int
    log_separation: np.ndarray
    predicted: np.ndarray
    growth_steps: np.ndarray
    rate: np.ndarray

    @property
    def mean_rate(self) -> float:
        """Separation rate pooled over the pairs: total log growth / total steps."""
        ok = self.growth_steps > 0
        if not ok.any():
            return float("nan")
        steps = self.growth_steps[ok]
        return float(np.sum(self.rate[ok] * steps) / np.sum(steps))

    @property
    def final_rate(self) -> np.ndarray:
        """(log|d_N| - log delta0) / N over all N = n steps, per pair (negative for a stable cycle)."""
        n = self.log_separation.shape[1] - 1
        return (self.log_separation[:, -1] - self.log_separation[:, 0]) / n


def separation_test(
    p_ref: object,
    beta: object,
    eps: object,
    *,
    delta0: float = 1e-30,
    threshold: float = 1e-6,
    n: int = 400,
    n_pairs: int = 8,
    spacing: int = 50,
    transient: int = 1000,
    dps: int = 60,
) -> SeparationResult:
    """Follow pairs of orbits started ``delta0`` apart on the attractor of Eq. (8) with ``dps`` digits.

    The reference points are z_T, z_{T+spacing}, ... of the float64 orbit from p_ref (T = transient): exact
    binary numbers on (a float64 shadow of) the attractor, so every precision starts from the same points.
    From there both orbits of a pair, z and z + delta0, are computed with ``dps`` digits for ``n``
    steps. For a chaotic orbit the separation reaches ``threshold`` after about log(threshold/delta0)/lambda
    steps, and its log follows ``predicted`` (the linearised growth) until then; for a stable cycle it
    shrinks instead.
    """
    p_ref, beta, eps = _params(p_ref, beta, eps)
    if not (isinstance(delta0, (int, float)) and 0 < delta0 < 1e-6):
        raise ValueError(f"delta0={delta0!r} is out of range; valid range is 0 < delta0 < 1e-6")
    if not (isinstance(threshold, (int, float)) and delta0 < threshold < 1):
        raise ValueError(f"threshold={threshold!r} is out of range; valid range is delta0 < threshold < 1")
    n = check_positive_int("n", n)
    n_pairs = check_positive_int("n_pairs", n_pairs)
    spacing = check_positive_int("spacing", spacing)
    transient = check_positive_int("transient", transient, minimum=0)
    ctx = _context(dps)
    if ctx.mpf(delta0) < ctx.mpf(10) ** (10 - dps):
        raise ValueError(f"delta0={delta0!r} is below the working precision 1e-{dps - 10}; valid: raise dps")
    g = _MpMap(ctx, p_ref, beta, eps)
    starts = iterate_logit(p_ref, beta, eps, n=transient + spacing * (n_pairs - 1))[transient::spacing]
    log_sep = np.empty((n_pairs, n + 1))
    predicted = np.empty((n_pairs, n + 1))
    log_d0 = float(ctx.log(ctx.mpf(delta0)))
    for i in range(n_pairs):
        x = ctx.mpf(float(starts[i]))  # an exact binary number: every dps starts from the same point
        y = x + ctx.mpf(delta0)
        log_sep[i, 0] = predicted[i, 0] = log_d0
        for k in range(1, n + 1):
            predicted[i, k] = predicted[i, k - 1] + float(g.log_abs_slope(x))
            x, y = g(x), g(y)
            d = abs(y - x)
            log_sep[i, k] = float(ctx.log(d)) if d > 0 else -np.inf
    above = log_sep >= np.log(threshold)
    growth = np.where(above.any(axis=1), np.argmax(above, axis=1), -1)
    idx = np.maximum(growth, 1)
    rate = np.where(growth > 0, (log_sep[np.arange(n_pairs), idx] - log_d0) / idx, np.nan)
    return SeparationResult(delta0, threshold, dps, log_sep, predicted, growth, rate)


def renormalised_separation_rate(
    p_ref: object,
    beta: object,
    eps: object,
    *,
    n: int = 3000,
    delta0: float = 1e-30,
    renormalise_at: float = 1e-12,
    transient: int = 1000,
    dps: int = 60,
) -> float:
    """Long-run separation rate of two high-precision orbits started ``delta0`` apart (Benettin's method).

    Whenever the distance exceeds ``renormalise_at`` (still far inside the linear regime) or falls below
    1e-10 delta0, the partner is put back at distance ``delta0`` along the current separation and the log
    growth is accumulated; the rate is the total log growth over ``n`` steps. It converges to the Lyapunov
    exponent much faster than single first-passage times do, since one long orbit averages over the whole
    attractor. The start is the float64 orbit point after ``transient`` steps (an exact binary number).
    """
    p_ref, beta, eps = _params(p_ref, beta, eps)
    n = check_positive_int("n", n)
    transient = check_positive_int("transient", transient, minimum=0)
    if not (isinstance(delta0, (int, float)) and 0 < delta0 < 1e-6):
        raise ValueError(f"delta0={delta0!r} is out of range; valid range is 0 < delta0 < 1e-6")
    if not (isinstance(renormalise_at, (int, float)) and delta0 < renormalise_at < 1e-3):
        raise ValueError(f"renormalise_at={renormalise_at!r} is out of range; valid range is delta0 < it < 1e-3")
    ctx = _context(dps)
    if ctx.mpf(delta0) < ctx.mpf(10) ** (10 - dps):
        raise ValueError(f"delta0={delta0!r} is below the working precision 1e-{dps - 10}; valid: raise dps")
    g = _MpMap(ctx, p_ref, beta, eps)
    x = ctx.mpf(float(iterate_logit(p_ref, beta, eps, n=transient)[-1]))
    d0 = ctx.mpf(delta0)
    y = x + d0
    total = ctx.mpf(0)
    for _ in range(n):
        x, y = g(x), g(y)
        d = y - x
        if abs(d) > renormalise_at or abs(d) < d0 * 1e-10:  # grown (chaos) or shrunk (stable cycle)
            total += ctx.log(abs(d) / d0)
            y = x + d0 * ctx.sign(d)
    total += ctx.log(abs(y - x) / d0)
    return float(total / n)
