"""Benchmark: vectorised fixed points over a 400 x 400 (beta, p_ref) grid vs a per-point scipy loop, and widget redraws.

    python benchmarks/fixed_points.py [--n 400] [--subsample 4000] [--eps 1e-5]

* ``fixed_points_grid`` (Chandrupatla via scipy.optimize.elementwise.find_root on monotone logit brackets) runs on
  the whole grid at once.
* The baseline builds the same monotone brackets and solves them point by point with ``scipy.optimize.brentq`` in
  plain Python floats (critical points where g' = 1, then the roots of F = g - z), in the same process (eps > 0).
  By default it loops over every grid point; ``--subsample m`` times m random points instead and extrapolates
  linearly (the table then says so). The loop's roots are compared with the grid's.
* Widget redraws: each explorer's update path (the ``draw_*`` function plus a full Agg canvas draw) is timed directly.
"""

from __future__ import annotations

import argparse
import math
import time

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from scipy.optimize import brentq  # noqa: E402
from scipy.special import logit  # noqa: E402

from grpo_nb.dynamics.fixed_points import fixed_points_grid  # noqa: E402
from grpo_nb.widgets import dynamics as wd  # noqa: E402


def _g(z: float, a: float, beta: float, eps: float) -> float:
    """The logit map g(z) = a + 1/(beta sqrt(v(z) + eps)) in plain floats (eps > 0)."""
    e = math.exp(-abs(z))
    return a + 1.0 / (beta * math.sqrt(e / (1.0 + e) ** 2 + eps))


def _residual(z: float, a: float, beta: float, eps: float) -> float:
    return _g(z, a, beta, eps) - z


def _slope_minus_one(z: float, beta: float, eps: float) -> float:
    e = math.exp(-abs(z))
    v = e / (1.0 + e) ** 2
    return v * math.tanh(0.5 * z) / (2.0 * beta * (v + eps) ** 1.5) - 1.0


def loop_fixed_points(a: float, beta: float, eps: float) -> list[float]:
    """Per-point baseline (eps > 0): the same monotone brackets as ``fixed_points_grid``, built and solved with
    scalar ``brentq`` calls (critical points of F where g' = 1, then the roots of F on each piece)."""
    tol = {"xtol": 1e-300, "rtol": 4 * np.finfo(float).eps}
    roots = []
    g0 = _residual(0.0, a, beta, eps)
    if g0 < 0:
        roots.append(brentq(_residual, g0, 0.0, args=(a, beta, eps), **tol))
    c = 4.0 * eps
    w_star = 2.0 * c / (1.0 + 3.0 * c)
    z_peak = 2.0 * math.log1p(math.sqrt(1.0 - w_star)) - math.log(w_star)
    z_top = a + 1.0 / (beta * math.sqrt(eps)) + 1.0
    if _slope_minus_one(z_peak, beta, eps) > 0:
        z_tail = max(z_peak, -math.log(2.0 * beta) - 1.5 * math.log(eps)) + 1.0
        z1 = brentq(_slope_minus_one, 0.0, z_peak, args=(beta, eps), **tol)
        z2 = brentq(_slope_minus_one, z_peak, z_tail, args=(beta, eps), **tol)
        b = [0.0, z1, z2, max(z_top, z2)]
    else:
        b = [0.0, z_top, z_top, z_top]
    f = [_residual(x, a, beta, eps) for x in b]
    for i in range(3):
        lo, hi = b[i], b[i + 1]
        if not hi > lo:
            continue
        if f[i + 1] == 0:
            roots.append(hi)
        elif i == 0 and f[i] == 0:
            roots.append(lo)
        elif f[i] * f[i + 1] < 0:
            roots.append(brentq(_residual, lo, hi, args=(a, beta, eps), **tol))
    return sorted(roots)


def _time(func, repeat: int = 3) -> float:
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n-grid", type=int, default=400, help="grid size per axis")
    parser.add_argument("--subsample", type=int, default=0, help="points for the per-point loop (0 = all)")
    parser.add_argument("--eps", type=float, default=1e-5)
    args = parser.parse_args(argv)
    if not args.eps > 0:
        parser.error("the per-point baseline covers eps > 0")

    beta = np.logspace(-3, 3, args.n_grid)[None, :]
    p_ref = np.linspace(0.0, 1.0, args.n_grid + 2)[1:-1, None]
    bb, pp = np.broadcast_arrays(beta, p_ref)

    t_grid = _time(lambda: fixed_points_grid(p_ref, beta, args.eps))
    grid = fixed_points_grid(p_ref, beta, args.eps)

    rng = np.random.default_rng(0)
    total = bb.size
    m = total if args.subsample <= 0 else min(args.subsample, total)
    idx = rng.choice(total, size=m, replace=False)
    a_flat, b_flat = logit(pp.ravel()), bb.ravel()
    start = time.perf_counter()
    loop_roots = [loop_fixed_points(float(a_flat[k]), float(b_flat[k]), args.eps) for k in idx]
    t_loop_sub = time.perf_counter() - start
    t_loop = t_loop_sub * total / m

    logits = grid.logits.reshape(-1, 3)
    worst = 0.0
    for k, roots in zip(idx, loop_roots, strict=True):
        found = logits[k][~np.isnan(logits[k])]
        assert len(found) == len(roots), (k, found, roots)
        if roots:
            worst = max(worst, float(np.max(np.abs(found - roots) / np.maximum(1.0, np.abs(found)))))

    redraws = {
        "fig2_explorer (draw_fig2, one curve)": lambda: wd.draw_fig2((0.1,), (1.0,), 1e-5),
        "fig3_explorer (draw_fig3, 121 x 121)": lambda: wd.draw_fig3(1e-5, 121, 121),
        "fig4_explorer (draw_fig4, one eps)": lambda: wd.draw_fig4((1e-5,)),
        "fig5_explorer (draw_fig5, one orbit)": lambda: wd.draw_fig5(((0.001, 5.0),), 1e-5, 60),
        "cobweb_explorer (draw_cobweb)": lambda: wd.draw_cobweb(0.001, 5.0, 1e-5),
        "regime_map_explorer (60 x 60 regime map)": lambda: wd.draw_regime_maps((1e-5,)),
    }

    def redraw(make) -> None:
        fig = make()
        fig.canvas.draw()
        plt.close(fig)

    redraw_times = {name: _time(lambda make=make: redraw(make), repeat=2) for name, make in redraws.items()}

    print(f"Fixed points over a {args.n_grid} x {args.n_grid} (p_ref, beta) grid, eps = {args.eps:g}")
    print(f"{'method':<62} {'seconds':>10}")
    print(f"{'fixed_points_grid (vectorised, best of 3)':<62} {t_grid:>10.3f}")
    label = "brentq per-point loop" + ("" if m == total else f" (extrapolated from {m} random points)")
    print(f"{label:<62} {t_loop:>10.3f}")
    print(f"{'speed-up (loop / vectorised)':<62} {t_loop / t_grid:>10.1f}")
    print(f"{'max relative logit difference, loop vs grid':<62} {worst:>10.1e}")
    print()
    print(f"{'widget redraw (update function + Agg canvas draw, best of 2)':<62} {'seconds':>10}")
    for name, t in redraw_times.items():
        print(f"{name:<62} {t:>10.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
