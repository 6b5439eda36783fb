"""Long-run orbits of GRPO's success recursion p_n = h(p_{n-1}) (Thm 2, Eq. 8): fixed point, cycle or chaos.

In logit coordinates z = log(p/(1-p)) the recursion is z_n = g(z_{n-1}) with z_0 = a = logit p_ref and

    g(z) = a + 1 / (beta sqrt(v(z) + eps)),    v(z) = sigmoid(z) sigmoid(-z) = p(1-p).

g is even in z with its minimum at z = 0 (p = 1/2, Prop. 1), so it is a smooth unimodal map and the
logistic-map picture applies: fixed points that lose stability through a multiplier of -1, period
doubling, and possibly chaos. Its derivative is (Prop. 1 in logit coordinates)

    g'(z) = v(z) tanh(z/2) / (2 beta (v(z) + eps)^{3/2}),

and the Lyapunov exponent of an orbit is the orbit average of log|g'(z_n)|.

The orbit is computed in float64 logits, so a fixed point at p = 1 - 1e-300 keeps its logit (~690).
With eps = 0 the map grows like exp(|z|/2)/beta and an orbit may run off to z = +inf; it then converges
super-exponentially fast to p = 1 (in p coordinates h'(p) -> 0 there), and it is reported as a fixed
point at logit +inf with Lyapunov exponent -inf. (h itself is undefined at p = 1 when eps = 0, Remark 1:
p = 1 is the limit of such an orbit, which never reaches it; every finite iterate is well defined.)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple

import numpy as np
from scipy.special import expit, logit

from grpo_nb.dynamics.fixed_points import THEOREM2
from grpo_nb.dynamics.map import iterate_logit, log_abs_logit_map_slope
from grpo_nb.dynamics.recursions import LogitRecursion
from grpo_nb.validation import check_map_params, check_positive_int

__all__ = [
    "ChaoticOrbitError",
    "OrbitClass",
    "OrbitKind",
    "OrbitSummary",
    "attractor",
    "classify_orbits",
    "finite_time_exponent_se",
    "orbit_kind",
]


class OrbitClass(IntEnum):
    """The long-run behaviour of an orbit; ``OrbitSummary.kind`` holds these codes (``.label`` is the API name)."""

    FIXED_POINT = 0
    CYCLE = 1
    CHAOTIC = 2

    @property
    def label(self) -> str:
        """ "fixed_point" | "cycle" | "chaotic", the names :func:`orbit_kind` returns."""
        return self.name.lower()


PERIOD_UNRESOLVED = -1  # a non-chaotic orbit that settled on no cycle of period <= max_period


class ChaoticOrbitError(RuntimeError):
    """Raised by :func:`attractor` when the orbit has no finite limit set to report (chaos or unresolved)."""


@dataclass(frozen=True)
class OrbitSummary:
    """Long-run behaviour of the orbits from p_ref, arrays over the broadcast shape of (p_ref, beta, eps).

    kind: :class:`OrbitClass` codes (FIXED_POINT = 0, CYCLE = 1, CHAOTIC = 2).
    period: 1 for a fixed point, k for a k-cycle, 0 for chaos; -1 (PERIOD_UNRESOLVED, kind = cycle) for
        a non-chaotic orbit (Lyapunov exponent <= chaos_threshold) that showed no period <= max_period
        even after the extended transient (a very slow approach to a bifurcation point, or a long cycle).
    lyapunov: orbit average of log|g'(z)| in logit coordinates (-inf for an orbit through z = 0 exactly
        or one that escaped to p = 1 with eps = 0).
    limit_logits: shape (*shape, n_keep), the last n_keep logits of the orbit, in orbit order.
    """

    kind: np.ndarray
    period: np.ndarray
    lyapunov: np.ndarray
    limit_logits: np.ndarray


class OrbitKind(NamedTuple):
    """Kind of one orbit: "fixed_point" | "cycle" | "chaotic", its period (None when chaotic), its exponent."""

    kind: str
    period: int | None
    lyapunov: float


def _power(step: LogitRecursion, z: np.ndarray, a: np.ndarray, beta: np.ndarray, eps: np.ndarray, n: int):
    """g^n(z) for the recursion ``step`` (for Theorem 2's map, the same operations as ``map.logit_map_power``)."""
    z = np.asarray(z, dtype=float)
    for _ in range(n):
        z = step(z, a, beta, eps)
    return z


def _window(
    step: LogitRecursion, z: np.ndarray, a: np.ndarray, beta: np.ndarray, eps: np.ndarray, n_lyapunov: int, n_keep: int
):
    """Average log|g'| over n_lyapunov steps from z, then keep the last n_keep logits (shape (*s, n_keep))."""
    total = np.zeros_like(z)
    keep = np.empty((*z.shape, n_keep))
    start = n_lyapunov - n_keep
    for k in range(n_lyapunov):
        total += step.log_abs_slope(z, beta, eps)
        z = step(z, a, beta, eps)
        if k >= start:
            keep[..., k - start] = z
    with np.errstate(invalid="ignore"):
        lyap = total / n_lyapunov
    return z, lyap, keep


def _periods(keep: np.ndarray, max_period: int, tol: float) -> np.ndarray:
    """Smallest k <= max_period with |z_{j+k} - z_j| <= tol max(1, |z_j|) over the whole window; 0 if none."""
    period = np.zeros(keep.shape[:-1], dtype=int)
    finite = np.all(np.isfinite(keep), axis=-1)
    scale = np.maximum(1.0, np.abs(keep))
    for k in range(max_period, 0, -1):
        with np.errstate(invalid="ignore"):
            ok = np.all(np.abs(keep[..., k:] - keep[..., :-k]) <= tol * scale[..., :-k], axis=-1)
        period[ok & finite] = k
    return period


def _converging_to(keep: np.ndarray, period: np.ndarray) -> np.ndarray:
    """Smallest proper divisor d of the detected period whose d-cycle the window still converges to; 0 if none.

    Near a period-doubling point the d-cycle has multiplier close to -1 and the orbit approaches it slowly,
    alternating around it: it then looks like a 2d-cycle within tol. The d-deviation |z_{j+d} - z_j| of such an
    orbit decays geometrically across the window, while for a genuine 2d-cycle it is constant. We call it
    decaying when its maximum over each quarter of the window falls strictly, by > 1e-4 overall.
    """
    out = np.zeros(period.shape, dtype=int)
    for d in range(int(period.max(initial=0)) - 1, 0, -1):
        mask = (period > d) & (period % d == 0)
        if not mask.any():
            continue
        dev = np.abs(keep[mask][:, d:] - keep[mask][:, :-d])
        quarters = np.stack([q.max(axis=-1) for q in np.array_split(dev, 4, axis=-1)], axis=-1)
        decaying = np.all(np.diff(quarters, axis=-1) < 0, axis=-1) & (quarters[:, -1] < (1 - 1e-4) * quarters[:, 0])
        sub = out[mask]
        sub[decaying] = d
        out[mask] = sub
    return out


@dataclass(frozen=True)
class _OrbitOptions:
    """The checked options of :func:`classify_orbits` (its docstring names each)."""

    transient: int
    n_keep: int
    max_period: int
    tol: float
    n_lyapunov: int
    max_extensions: int
    chaos_threshold: float


def _orbit_options(
    *,
    transient: int,
    n_keep: int,
    max_period: int,
    tol: float,
    n_lyapunov: int,
    max_extensions: int,
    chaos_threshold: float,
) -> _OrbitOptions:
    """Validate :func:`classify_orbits`' options (ValueError naming the first bad one): counts >= 0 or >= 1, a window
    of at least two periods (n_keep >= 2 max_period) within the exponent's steps, 0 < tol < 1, chaos_threshold >= 0."""
    transient = check_positive_int("transient", transient, minimum=0)
    max_period = check_positive_int("max_period", max_period)
    n_keep = check_positive_int("n_keep", n_keep, minimum=2 * max_period)
    n_lyapunov = check_positive_int("n_lyapunov", n_lyapunov, minimum=n_keep)
    max_extensions = check_positive_int("max_extensions", max_extensions, minimum=0)
    if not (isinstance(tol, (int, float)) and 0 < tol < 1):
        raise ValueError(f"tol={tol!r} is out of range; valid range is 0 < tol < 1")
    if not (isinstance(chaos_threshold, (int, float)) and np.isfinite(chaos_threshold) and chaos_threshold >= 0):
        raise ValueError(f"chaos_threshold={chaos_threshold!r} is out of range; valid range is 0 <= chaos_threshold")
    return _OrbitOptions(transient, n_keep, max_period, tol, n_lyapunov, max_extensions, chaos_threshold)


@dataclass
class _Windows:
    """A flat batch of orbits being classified: the last logit ``z``, the exponent ``lyap`` (orbit average of
    log|g'|), the window ``keep`` of the last n_keep logits, its ``period`` (0: none), the proper divisor of the period
    whose cycle the window still converges to (``slow``, 0: none) and the orbits that ``escaped`` to p = 1."""

    z: np.ndarray
    lyap: np.ndarray
    keep: np.ndarray
    period: np.ndarray
    slow: np.ndarray
    escaped: np.ndarray


def _classified_window(
    step: LogitRecursion, z: np.ndarray, a: np.ndarray, beta: np.ndarray, eps: np.ndarray, opts: _OrbitOptions
) -> _Windows:
    """``transient`` steps of g from ``z``, then ``n_lyapunov`` steps over which the exponent is averaged; the last
    ``n_keep`` logits are the window, read for its period, a slow approach to a smaller cycle, and an escape."""
    z = _power(step, z, a, beta, eps, opts.transient)
    z, lyap, keep = _window(step, z, a, beta, eps, opts.n_lyapunov, opts.n_keep)
    period = _periods(keep, opts.max_period, opts.tol)
    slow = _converging_to(keep, period)
    return _Windows(z, lyap, keep, period, slow, ~np.isfinite(keep[..., -1]))


def _undecided(windows: _Windows, chaos_threshold: float) -> np.ndarray:
    """Orbits not yet classified: no period and an exponent not above ``chaos_threshold`` (slow, not chaotic), or
    still converging to a smaller cycle; an escape is decided."""
    no_period = (windows.period == 0) & ~(windows.lyap > chaos_threshold)
    return (no_period | (windows.slow > 0)) & ~windows.escaped


def _extend_undecided(
    windows: _Windows,
    step: LogitRecursion,
    a: np.ndarray,
    beta: np.ndarray,
    eps: np.ndarray,
    opts: _OrbitOptions,
    escaped_always: np.ndarray | None,
) -> np.ndarray:
    """Up to ``max_extensions`` further windows for the undecided orbits, updating ``windows`` in place (an orbit in
    ``escaped_always`` stays escaped). Returns the orbits still undecided after the last one."""
    undecided = _undecided(windows, opts.chaos_threshold)
    for _ in range(opts.max_extensions):
        if not undecided.any():
            break
        idx = np.nonzero(undecided)
        more = _classified_window(step, windows.z[idx], a[idx], beta[idx], eps[idx], opts)
        windows.z[idx], windows.lyap[idx], windows.keep[idx] = more.z, more.lyap, more.keep
        windows.period[idx], windows.slow[idx], windows.escaped[idx] = more.period, more.slow, more.escaped
        if escaped_always is not None:
            windows.escaped |= escaped_always
        undecided = _undecided(windows, opts.chaos_threshold)
    return undecided


def _orbit_summary(windows: _Windows, undecided: np.ndarray, shape: tuple[int, ...]) -> OrbitSummary:
    """The verdicts of the classified ``windows``, reshaped to the grid's ``shape``: a period of 1 is a fixed point,
    a longer one a cycle, none a chaotic orbit; an orbit still converging to a smaller cycle has that cycle's period,
    one still undecided is a cycle of period PERIOD_UNRESOLVED, and an escape is the fixed point p = 1."""
    # Still converging after every extension: the limit is the smaller cycle (window not yet at its limit).
    period = np.where(windows.slow > 0, windows.slow, windows.period)
    undecided = undecided & (windows.slow == 0)
    escaped = windows.escaped
    kind = np.full(period.shape, OrbitClass.CHAOTIC, dtype=int)
    kind[period == 1] = OrbitClass.FIXED_POINT
    kind[period > 1] = OrbitClass.CYCLE
    kind[undecided] = OrbitClass.CYCLE
    period = np.where(undecided, PERIOD_UNRESOLVED, period)
    kind[escaped] = OrbitClass.FIXED_POINT
    period = np.where(escaped, 1, period)
    lyap = np.where(escaped, -np.inf, windows.lyap)
    keep = np.where(escaped[..., None], np.inf, windows.keep)
    return OrbitSummary(
        kind=kind.reshape(shape),
        period=period.reshape(shape),
        lyapunov=lyap.reshape(shape),
        limit_logits=keep.reshape(*shape, keep.shape[-1]),
    )


def classify_orbits(
    p_ref: object,
    beta: object,
    eps: object,
    *,
    transient: int = 4000,
    n_keep: int = 256,
    max_period: int = 64,
    tol: float = 1e-7,
    n_lyapunov: int = 4096,
    max_extensions: int = 4,
    chaos_threshold: float = 1e-3,
    variant: LogitRecursion | None = None,
) -> OrbitSummary:
    """Classify the long-run orbit of Eq. (8) from p_0 = p_ref, vectorised over broadcast (p_ref, beta, eps).

    Iterates the logit map g (see module docstring) ``transient`` steps, then ``n_lyapunov`` more steps over
    which the Lyapunov exponent mean log|g'(z_n)| is averaged; the last ``n_keep`` logits are the window.
    The period is the smallest k <= max_period with |z_{j+k} - z_j| <= tol * max(1, |z_j|) across the whole
    window (relative to the logit scale, so large logits near p = 1 are compared fairly).
    Orbits with no period are chaotic only if their exponent exceeds ``chaos_threshold``; otherwise they
    are slow (near a bifurcation point, where the multiplier is close to -1 or 1) and get up to
    ``max_extensions`` further rounds of ``transient`` steps. So do orbits that match a period k but are
    still converging, alternating, to a cycle of a proper divisor d of k (just above a doubling point the
    d-cycle's multiplier is close to -1); if they still converge after the extensions, the period is d.
    Orbits that escape to logit +inf (eps = 0) are fixed points at p = 1 with exponent -inf.
    A chaotic verdict from float64 is evidence, not proof: see :mod:`grpo_nb.dynamics.high_precision`
    for the mpmath confirmation.

    ``variant``: classify the orbits of another recursion (a :class:`~grpo_nb.dynamics.recursions.LogitRecursion`,
    e.g. a GRPO variant of :mod:`grpo_nb.variants`); None is Theorem 2's map. For a variant, a grid point where g has
    no fixed point and g(a) > a also counts as an escape to p = 1: then g(z) > z for every z (g is continuous), so the
    orbit increases, and it cannot be bounded, since a bounded increasing orbit converges to a fixed point.

    Raises ValueError for beta <= 0, p_ref outside (0, 1), eps < 0, NaN, non-broadcastable shapes or bad
    integer/tolerance options.
    """
    p_ref, beta, eps = check_map_params(p_ref, beta, eps, broadcast=True)
    a = logit(p_ref)
    shape = a.shape  # work on flat copies, so scalar input (0-d) can be indexed like any grid
    a, beta, eps = (np.array(x, dtype=float).reshape(-1) for x in (a, beta, eps))
    opts = _orbit_options(
        transient=transient, n_keep=n_keep, max_period=max_period, tol=tol, n_lyapunov=n_lyapunov,
        max_extensions=max_extensions, chaos_threshold=chaos_threshold,
    )  # fmt: skip
    step = THEOREM2 if variant is None else variant
    windows = _classified_window(step, a.copy(), a, beta, eps, opts)
    escaped_always = None
    if variant is not None:  # no fixed point and g(a) > a: the orbit increases without bound (see above)
        no_fixed = variant.fixed_points_grid(p_ref.reshape(-1), beta, eps).counts == 0
        windows.escaped |= no_fixed & (step(a, a, beta, eps) > a)
        escaped_always = windows.escaped.copy()
    undecided = _extend_undecided(windows, step, a, beta, eps, opts, escaped_always)
    return _orbit_summary(windows, undecided, shape)


def _scalar_summary(p_ref: object, beta: object, eps: object, **options) -> OrbitSummary:
    check_map_params(p_ref, beta, eps, scalar=True)
    return classify_orbits(p_ref, beta, eps, **options)


def orbit_kind(
    p_ref: object, beta: object, eps: object, *, variant: LogitRecursion | None = None, **options
) -> OrbitKind:
    """Kind of the long-run orbit of Eq. (8) from p_ref, with its period and Lyapunov exponent lam.

    Returns ("fixed_point", 1, lam), ("cycle", k, lam) or ("chaotic", None, lam); lam is the Lyapunov
    exponent in logit coordinates. Scalars only; options go to :func:`classify_orbits`.
    A non-chaotic orbit with no resolved period is reported as ("cycle", -1, lam).
    ``variant``: the orbit of another recursion (see :func:`classify_orbits`); None is Theorem 2's map.
    """
    s = _scalar_summary(p_ref, beta, eps, variant=variant, **options)
    kind = OrbitClass(int(s.kind)).label
    period = None if kind == "chaotic" else int(s.period)
    return OrbitKind(kind=kind, period=period, lyapunov=float(s.lyapunov))


def attractor(
    p_ref: object, beta: object, eps: object, *, variant: LogitRecursion | None = None, **options
) -> tuple[float, ...]:
    """The limit set of the orbit from p_ref: (p*,) for a fixed point, the k values of a k-cycle in orbit order.

    The cycle starts at its smallest logit. Values are sigmoid(logit), so a point within 1e-16 of 1 reads
    1.0 (use :func:`classify_orbits` for the logits). Never reports a chaotic orbit as a cycle: raises
    ChaoticOrbitError when the orbit is chaotic or its period is unresolved (no finite limit set found).
    ``variant``: the orbit of another recursion (see :func:`classify_orbits`); None is Theorem 2's map.
    """
    s = _scalar_summary(p_ref, beta, eps, variant=variant, **options)
    period = int(s.period)
    if period <= 0:
        raise ChaoticOrbitError(
            f"the orbit from p_ref={float(p_ref)!r}, beta={float(beta)!r}, eps={float(eps)!r} is "
            f"{OrbitClass(int(s.kind)).label} with period {period} (Lyapunov exponent {float(s.lyapunov):.3g}): "
            "it has no finite limit set to report"
        )
    cycle = s.limit_logits[-period:]
    start = int(np.argmin(cycle))
    cycle = np.roll(cycle, -start)
    return tuple(float(p) for p in expit(cycle))


def finite_time_exponent_se(
    p_ref: object, beta: object, eps: object, *, n: int, n_batches: int = 30, transient: int = 2000
) -> float:
    """Standard error of an ``n``-step Lyapunov exponent of the orbit from ``p_ref``: the standard deviation of
    ``n_batches`` consecutive ``n``-step averages of log|g'| (after ``transient`` steps), the batch-means estimate of
    the spread of finite-time exponents (Lyapunov exponent = orbit average of log|g'|, Prop. 1 in logits).

    It says how far two finite-time rates of one chaotic orbit can honestly be apart: the hard-prompts chapter's
    check in high precision holds its rates to it, and so do the tests of Benettin's rate
    (:func:`grpo_nb.dynamics.high_precision.renormalised_separation_rate`)."""
    n = check_positive_int("n", n, minimum=10)
    n_batches = check_positive_int("n_batches", n_batches, minimum=2)
    z = iterate_logit(p_ref, beta, eps, n=transient + n * n_batches)[transient + 1 :]
    slopes = log_abs_logit_map_slope(z, beta, eps).reshape(n_batches, n)
    return float(slopes.mean(axis=1).std(ddof=1))
