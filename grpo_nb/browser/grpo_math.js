/*
 * The math of the kernel-free figures of "GRPO, executable": the browser twin of grpo_nb.dynamics, grpo_nb.variants
 * and grpo_nb.weights. Numbers only, no DOM: grpo_figures.js draws them, and the page loads this file first
 * (<script src="../grpo_math.js"></script>); node loads it with require() for tests/unit/test_browser_math_parity.py.
 *
 * The success recursion is a closed form, so the figures compute in the reader's browser, with no Python behind
 * them. The map is Theorem 2 in logit (log-odds) coordinates, as in grpo_nb/dynamics/map.py:
 *
 *     logit h(p) = logit p_ref + 1 / (beta sqrt(p(1-p) + eps)),   i.e.   g(z) = a + 1 / (beta sqrt(v(z) + eps)),
 *
 * with v(z) = p(1-p) computed from the logit z without cancellation, in the same order of operations as
 * logit_map, so a fixed point at 1 - 1e-300 keeps its logit. Fixed points come from the monotone brackets of
 * grpo_nb/dynamics/fixed_points.py (every one of them, the one next to 1 included), the weights from Eq. 4 as in
 * grpo_nb/weights.py, a GRPO variant's map (mean-only normalisation, KL to the previous policy with weight
 * 1 - alpha) as in grpo_nb/variants/map.py.
 *
 * Checked against grpo_nb by node in the fast tier (tests/unit/test_browser_math_parity.py) and, as the figures
 * plot them, in headless Chromium (tests/book/test_browser_figures.py).
 */
(function (root) {
  "use strict";
  const M = Math;

  // ------------------------------------------------------------------ the map (twin of grpo_nb.dynamics)

  const logit = (p) => M.log(p / (1 - p));
  const sigmoid = (z) => 1 / (1 + M.exp(-z));

  /** p(1-p) for p = sigmoid(z), as exp(-|z|)/(1+exp(-|z|))^2 (map.bernoulli_variance_of_logit). */
  function variance(z) {
    const e = M.exp(-M.abs(z));
    return e / ((1 + e) * (1 + e));
  }

  /** Theorem 2 in logit coordinates, g(z) = a + 1/(beta sqrt(v(z) + eps)), a = logit p_ref (map.logit_map).
   *  With eps = 0, 1/sqrt(v) = 2 cosh(z/2): +Infinity far out, where the orbit has left for p = 1. */
  function logitMap(z, a, beta, eps) {
    return a + (eps > 0 ? 1 / M.sqrt(variance(z) + eps) : 2 * M.cosh(0.5 * z)) / beta;
  }

  /** g'(z) = v tanh(z/2) / (2 beta (v+eps)^{3/2}) or sinh(z/2)/beta; h'(p*) at a fixed point (Lemma 1). */
  function slope(z, beta, eps) {
    if (!(eps > 0)) return M.sinh(0.5 * z) / beta;
    const v = variance(z);
    const t = v + eps;
    return ((v / t) * M.tanh(0.5 * z)) / (2 * beta * M.sqrt(t));
  }

  /** Logits z_0..z_n of the orbit from p_0 = p_ref (map.iterate_logit). */
  function orbit(a, beta, eps, n) {
    const z = new Float64Array(n + 1);
    z[0] = a;
    for (let k = 0; k < n; k++) z[k + 1] = logitMap(z[k], a, beta, eps);
    return z;
  }

  /** A GRPO variant's map (variants.map.variant_logit_map): the anchor's logit alpha a + (1 - alpha) z plus the push
   *  s(z)/beta, s = 1/sqrt(v + eps) (mean + variance, as logitMap with the anchor for a) or 1 (mean only). */
  function variantMap(z, a, beta, eps, alpha, meanOnly) {
    const anchor = alpha === 1 ? a : alpha === 0 ? z : alpha * a + (1 - alpha) * z;
    return meanOnly ? anchor + 1 / beta : logitMap(z, anchor, beta, eps);
  }

  /** Logits z_0..z_n of a variant's orbit from p_0 = p_ref (variants.map.iterate_logit). */
  function variantOrbit(a, beta, eps, n, alpha, meanOnly) {
    const z = new Float64Array(n + 1);
    z[0] = a;
    for (let k = 0; k < n; k++) z[k + 1] = variantMap(z[k], a, beta, eps, alpha, meanOnly);
    return z;
  }

  /** Root of a monotone f on [lo, hi] (a sign change, or a zero at an end), bisected down to adjacent floats. */
  function bisect(f, lo, hi) {
    let flo = f(lo);
    if (flo === 0) return lo;
    if (f(hi) === 0) return hi;
    for (;;) {
      const mid = lo + 0.5 * (hi - lo);
      if (mid <= lo || mid >= hi) return mid;
      const fm = f(mid);
      if (fm === 0) return mid;
      if (fm < 0 === flo < 0) [lo, flo] = [mid, fm];
      else hi = mid;
    }
  }

  /** Every fixed point of h, sorted by logit (fixed_points.fixed_points). F(z) = g(z) - z decreases on z <= 0 and
   *  is monotone between the breakpoints of z > 0 where g' = 1, so no root can be missed. */
  function fixedPoints(a, beta, eps) {
    const F = (z) => logitMap(z, a, beta, eps) - z;
    const roots = [];
    const g0 = logitMap(0, a, beta, eps);
    if (g0 < 0) roots.push(bisect(F, g0, 0));
    let b;
    if (eps > 0) {
      // g' rises to a single peak at z_peak and decays after it; every root lies below a + 1/(beta sqrt eps)
      const c = 4 * eps;
      const w = (2 * c) / (1 + 3 * c);
      const zPeak = 2 * M.log1p(M.sqrt(1 - w)) - M.log(w);
      const cap = a + 1 / (beta * M.sqrt(eps));
      const top = M.max(cap + 1 + 1e-12 * M.abs(cap), 0);
      if (slope(zPeak, beta, eps) > 1) {
        const S = (z) => slope(z, beta, eps) - 1;
        const tail = M.max(zPeak, -M.log(2 * beta) - 1.5 * M.log(eps)) + 1;
        const z2 = bisect(S, zPeak, tail);
        b = [0, bisect(S, 0, zPeak), z2, M.max(top, z2)];
      } else b = [0, top, top, top];
    } else {
      // eps = 0: F is convex on z > 0 with its minimum at 2 asinh(beta); double until F > 0
      const zc = 2 * M.asinh(beta);
      let hi = M.max(2 * zc, 1);
      for (let i = 0; i < 64 && F(hi) <= 0; i++) hi *= 2;
      b = [0, zc, hi, hi];
    }
    for (let i = 0; i < 3; i++) {
      const [lo, hi] = [b[i], b[i + 1]];
      const [flo, fhi] = [F(lo), F(hi)];
      if (hi > lo && (M.sign(flo) * M.sign(fhi) < 0 || fhi === 0 || (i === 0 && flo === 0))) {
        roots.push(bisect(F, lo, hi));
      }
    }
    return roots
      .sort((x, y) => x - y)
      .map((z) => ({ logit: z, slope: slope(z, beta, eps), stable: M.abs(slope(z, beta, eps)) < 1 }));
  }

  /** Every fixed point of a variant (variants.variant.Variant.fixed_points_grid): those of Theorem 2's map at
   *  alpha beta (mean + variance) or a + 1/(alpha beta) (mean only), none for alpha = 0; multiplier
   *  g'(z*) = (1 - alpha) + s'(z*)/beta, where s'/beta is Theorem 2's slope at beta (0 for mean only). */
  function variantFixedPoints(a, beta, eps, alpha, meanOnly) {
    if (alpha === 0) return [];
    const roots = meanOnly ? [a + 1 / (alpha * beta)] : fixedPoints(a, alpha * beta, eps).map((f) => f.logit);
    return roots.map((z) => {
      const g = 1 - alpha + (meanOnly ? 0 : slope(z, beta, eps));
      return { logit: z, slope: g, stable: M.abs(g) < 1 };
    });
  }

  /** Eq. 4's weights (grpo_nb/weights.py): [(1-p), p] / sqrt(p(1-p) + eps). */
  function weights(p, eps) {
    const s = 1 / M.sqrt(p * (1 - p) + eps);
    return [(1 - p) * s, p * s];
  }

  /** Long-run logits z_{T+1}..z_{T+K} from p_ref for each beta: the data of a bifurcation diagram. */
  function longRun(a, betas, eps, T, K) {
    const out = new Float64Array(betas.length * K);
    betas.forEach((beta, i) => {
      let z = a;
      for (let t = 0; t < T; t++) z = logitMap(z, a, beta, eps);
      for (let k = 0; k < K; k++) out[i * K + k] = z = logitMap(z, a, beta, eps);
    });
    return out;
  }

  /** Smallest k <= kMax with |z_{j+k} - z_j| <= 1e-7 max(1, |z_j|) over the window (orbits.classify_orbits);
   *  1 for an orbit that escaped to p = 1, 0 if there is no such k. */
  function period(w, kMax) {
    if (w[w.length - 1] === Infinity) return 1;
    for (let k = 1; k <= kMax; k++) {
      let ok = true;
      for (let j = 0; ok && j + k < w.length; j++) ok = M.abs(w[j + k] - w[j]) <= 1e-7 * M.max(1, M.abs(w[j]));
      if (ok) return k;
    }
    return 0;
  }

  // ------------------------------------------------------------------ grids of the figures

  /** n points evenly spaced on [lo, hi], both ends included. */
  const linGrid = (lo, hi, n) => Array.from({ length: n }, (_, k) => lo + ((hi - lo) * k) / (n - 1));

  /** n points evenly spaced in log10 on [lo, hi] (lo, hi > 0). */
  const logGrid = (lo, hi, n) =>
    Array.from({ length: n }, (_, k) => 10 ** (M.log10(lo) + (k * M.log10(hi / lo)) / (n - 1)));

  /** n points of p on [0, 1], or on (0, 1) when eps = 0 (h and the weights are undefined at 0 and 1, Remark 1). */
  const pGrid = (eps, n) => Array.from({ length: n }, (_, k) => (eps > 0 ? k / (n - 1) : (k + 1) / (n + 1)));

  const GrpoMath = Object.freeze({
    logit,
    sigmoid,
    variance,
    logitMap,
    slope,
    orbit,
    variantMap,
    variantOrbit,
    bisect,
    fixedPoints,
    variantFixedPoints,
    weights,
    longRun,
    period,
    linGrid,
    logGrid,
    pGrid,
  });
  if (typeof module !== "undefined" && module.exports) module.exports = GrpoMath;
  else root.GrpoMath = GrpoMath;
})(typeof globalThis !== "undefined" ? globalThis : this);
