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
 * The distribution figure's numbers are not closed forms but small finite sums, twins of grpo_nb/tabular: pass@k =
 * 1 - (1 - p)^k (distribution.py); the exact steps of one policy shared by several prompts, a Gibbs tilt
 * pi_m ∝ pi_ref exp(mean_q A_q / beta) (distribution.shared_success_orbit); and the expected-update iteration of
 * GRPO-Clip on a softmax bandit, the exact expectation over every multiset of G (answer, reward) draws of mu ascent
 * steps on the clipped surrogate (clip_bias.expected_update_orbit), with the fixed problems of tabular/examples.py.
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

  // ------------------------------------------------------------------ the answer distribution (grpo_nb.tabular)

  /** pass@k = 1 - (1 - p)^k, as -expm1(k log1p(-p)): accurate for p near 0, exactly 1 at p = 1
   *  (distribution.pass_at_k). */
  const passAtK = (p, k) => -M.expm1(k * M.log1p(-p));

  /** log-sum-exp of a finite-or-(-Infinity) array, in scipy.special.logsumexp's order: the largest entries (m of
   *  them) set apart, log1p(sum_{others} exp(a - max) / m) + log m + max. */
  function logSumExp(a) {
    let max = -Infinity;
    for (const v of a) if (v > max) max = v;
    let m = 0;
    let s = 0;
    for (const v of a) {
      if (v === max) m++;
      else s += M.exp(v - max);
    }
    if (s !== 0) s /= m;
    const out = M.log1p(s) + M.log(m) + max;
    if (isFinite(out)) return out;
    return M.log(a.reduce((t, v) => t + M.exp(v), 0)); // an infinite result, as scipy: the direct sum
  }

  /** sum_o r(o) pi(o), clipped to [0, 1] (a sum of probabilities may round above 1). */
  function successProbability(r, pi) {
    let p = 0;
    for (let o = 0; o < pi.length; o++) p += r[o] * pi[o];
    return M.min(1, M.max(0, p));
  }

  /** The success probabilities p_q,m = E_{pi_m}[r_q], m = 0..n, of n exact steps of one policy shared by Q prompts
   *  (distribution.shared_success_orbit): pi_m(o) ∝ piRef(o) exp(mean_q A_q(o) / beta), A_q(o) = w+(p_q) r_q(o)
   *  - w-(p_q) (1 - r_q(o)) at p_q = E_{pi_{m-1}}[r_q] (Eq. 4's weights), normalised with logsumexp. piRef: K
   *  probabilities, reward: Q rows of K 0/1 rewards; returns n + 1 rows of Q. With eps = 0 a p_q of 0 or 1 leaves
   *  the weights undefined (Remark 1): NaN from that step on. */
  function sharedSuccessOrbit(piRef, reward, beta, eps, n) {
    const [K, Q] = [piRef.length, reward.length];
    const logRef = Array.from(piRef, (v) => M.log(v));
    let pi = Float64Array.from(piRef);
    const out = [Float64Array.from(reward, (r) => successProbability(r, pi))];
    for (let m = 0; m < n; m++) {
      const ws = reward.map((r) => weights(successProbability(r, pi), eps));
      const tilt = new Float64Array(K);
      for (let o = 0; o < K; o++) {
        let sum = 0; // the prompts' advantages, summed in order, then / Q (numpy's mean)
        for (let q = 0; q < Q; q++) sum += ws[q][0] * reward[q][o] - ws[q][1] * (1 - reward[q][o]);
        tilt[o] = logRef[o] + sum / Q / beta;
      }
      const lse = logSumExp(tilt);
      pi = tilt.map((t) => M.exp(t - lse));
      out.push(Float64Array.from(reward, (r) => successProbability(r, pi)));
    }
    return out;
  }

  /** The clip modes of GRPO-Clip (clip_bias.CLIP_MODES). */
  const clipModes = Object.freeze(["none", "symmetric", "high_only", "low_only"]);

  /** (clip_low, clip_high) of a clip mode (clip_bias.clip_bounds): none (inf, inf), symmetric (eps, eps), high_only
   *  (inf, eps), low_only (eps, inf), eps = clipEps. */
  function clipBounds(mode, clipEps) {
    if (!clipModes.includes(mode)) throw new Error(`mode=${mode} is not one of ${clipModes.join(", ")}`);
    const low = mode === "symmetric" || mode === "low_only" ? clipEps : Infinity;
    const high = mode === "symmetric" || mode === "high_only" ? clipEps : Infinity;
    return [low, high];
  }

  /** log pi = log_softmax(theta) and pi = softmax(theta) into logPi and pi, in scipy's order (both from
   *  exp(theta - max): log pi = (theta - max) - log s, pi = exp(theta - max) / s). */
  function softmaxInto(theta, logPi, pi) {
    let max = -Infinity;
    for (let o = 0; o < theta.length; o++) if (theta[o] > max) max = theta[o];
    let s = 0;
    for (let o = 0; o < theta.length; o++) {
      pi[o] = M.exp(theta[o] - max);
      s += pi[o];
    }
    const logS = M.log(s);
    for (let o = 0; o < theta.length; o++) {
      logPi[o] = theta[o] - max - logS;
      pi[o] /= s;
    }
  }

  /** H = -sum_o pi(o) log pi(o) from log pi (entropy.policy_entropy). */
  function entropyOf(logPi) {
    let h = 0;
    for (const l of logPi) h += M.exp(l) * l;
    return -h;
  }

  const PAPER_EPS = 1e-5; // the smoothing of the group advantage, form "paper" (advantage.DEFAULT_EPS)
  const MAX_TERMS = 1e6; // the most (answer, reward) multisets enumerated (clip_bias.MAX_TERMS)

  /** Every multiset of G types out of nTypes, in lexicographic order (itertools.combinations_with_replacement). */
  function multisets(nTypes, G) {
    const out = [];
    const c = new Array(G).fill(0);
    for (;;) {
      out.push(c.slice());
      let i = G - 1;
      while (i >= 0 && c[i] === nTypes - 1) i--;
      if (i < 0) return out;
      c.fill(c[i] + 1, i);
    }
  }

  /** The groups of the exact expectation (clip_bias._groups), fixed over the iterations: each multiset of G
   *  (answer, reward) types with its answers, its group advantages (Eq. 4 at p_hat = k/G, eps = PAPER_EPS), the
   *  log of its multinomial coefficient G!/prod m_t! and the types whose log-probabilities it sums. Random rewards
   *  (reward null): type 2o + r; verifiable rewards: type o, reward reward[o]. */
  function enumerateGroups(K, G, reward) {
    const nTypes = reward === null ? 2 * K : K;
    let terms = 1;
    for (let i = 1; i <= G; i++) terms = (terms * (nTypes - 1 + i)) / i;
    if (M.round(terms) > MAX_TERMS) throw new Error(`groupSize=${G} with K=${K} needs ${M.round(terms)} terms`);
    const logFact = [0];
    for (let i = 1, f = 1; i <= G; i++) logFact.push(M.log((f *= i)));
    return multisets(nTypes, G).map((types) => {
      const answers = types.map((t) => (reward === null ? t >> 1 : t));
      const rewards = types.map((t, i) => (reward === null ? t & 1 : reward[answers[i]]));
      let k = 0;
      for (const r of rewards) k += r;
      const [wPlus, wMinus] = weights(k / G, PAPER_EPS);
      const counts = new Array(nTypes).fill(0);
      types.forEach((t) => counts[t]++);
      let logCoef = 0;
      for (const m of counts) logCoef += logFact[m];
      return {
        types,
        answers,
        advantages: rewards.map((r) => (r === 1 ? wPlus : -wMinus) + 0),
        logMultiplicity: logFact[G] - logCoef,
      };
    });
  }

  /** mu ascent steps of size lr on the clipped surrogate J from theta = old, pi_old fixed (clip_bias._ascent):
   *  grad J = (1/G) sum_i f'(x_i, A_i) x_i (e_{o_i} - pi_theta), x_i = pi_theta(o_i)/pi_old(o_i), f' = A except
   *  where the clip holds the term (A > 0, x > 1 + high; A < 0, x < 1 - low). The first step is at theta = old,
   *  where x = 1 and pi_theta = pi_old (logOld, piOld). Writes theta_mu into theta; w holds scratch arrays. */
  function ascent(old, logOld, piOld, group, lr, mu, low, high, theta, w) {
    const { answers, advantages } = group;
    const [K, G] = [old.length, answers.length];
    theta.set(old);
    for (let t = 0; t < mu; t++) {
      if (t > 0) softmaxInto(theta, w.logPi, w.pi);
      const pi = t > 0 ? w.pi : piOld;
      for (let o = 0; o < K; o++) {
        w.ratio[o] = t > 0 ? M.exp(w.logPi[o] - logOld[o]) : 1;
        w.perAnswer[o] = 0;
      }
      for (let i = 0; i < G; i++) {
        const o = answers[i];
        const a = advantages[i];
        const x = w.ratio[o];
        const frozen = (a > 0 && x > 1 + high) || (a < 0 && x < 1 - low);
        w.perAnswer[o] += (frozen ? 0 : a) * x;
      }
      let total = 0; // REINFORCE with weights 1/G (softmax_policy.reinforce_gradient): ca - pi sum(ca)
      for (let o = 0; o < K; o++) {
        w.perAnswer[o] = (1 / G) * w.perAnswer[o];
        total += w.perAnswer[o];
      }
      for (let o = 0; o < K; o++) theta[o] = theta[o] + lr * (w.perAnswer[o] - pi[o] * total);
    }
  }

  /** The expected-update iteration theta_{m+1} = theta_m + E[theta_mu - theta_m] of GRPO-Clip on one prompt with a
   *  softmax policy (clip_bias.expected_update_orbit, part "both"): the expectation is the exact sum over the
   *  multisets of G (answer, reward) types, weighted by their multinomial probabilities (G!/prod m_t!) prod pi(o)
   *  q^r (1-q)^(1-r) (random rewards, reward null, q = rewardProb) or (G!/prod m_t!) prod pi(o) (verifiable
   *  rewards reward[o]); groups of log-probability <= -745 (never drawn) are left out. Returns the logits
   *  (n + 1 rows of K), the mass of top = argmax(logits0) and the entropy per iteration. */
  function expectedUpdateOrbit(logits0, { groupSize, lr, mu, n, mode, clipEps, rewardProb = 0.5, reward = null }) {
    const [low, high] = clipBounds(mode, clipEps);
    const K = logits0.length;
    const groups = enumerateGroups(K, groupSize, reward);
    const [logMiss, logHit] = [M.log1p(-rewardProb), M.log(rewardProb)];
    let top = 0;
    for (let o = 1; o < K; o++) if (logits0[o] > logits0[top]) top = o;
    const scratch = () => new Float64Array(K);
    const w = { logPi: scratch(), pi: scratch(), ratio: scratch(), perAnswer: scratch() };
    const [logPi, pi, next] = [scratch(), scratch(), scratch()];
    const logType = new Float64Array(reward === null ? 2 * K : K);
    const logits = [Float64Array.from(logits0)];
    const [topMass, entropy] = [new Float64Array(n + 1), new Float64Array(n + 1)];
    for (let m = 0; ; m++) {
      const theta = logits[m];
      softmaxInto(theta, logPi, pi);
      topMass[m] = pi[top];
      entropy[m] = entropyOf(logPi);
      if (m === n) break;
      for (let t = 0; t < logType.length; t++) {
        logType[t] = reward === null ? (t & 1 ? logHit : logMiss) + logPi[t >> 1] : logPi[t];
      }
      const step = scratch();
      for (const group of groups) {
        let logProb = 0;
        for (const t of group.types) logProb += logType[t];
        logProb = group.logMultiplicity + logProb;
        if (!(logProb > -745)) continue; // exp underflows to 0: a group that is never drawn
        const prob = M.exp(logProb);
        ascent(theta, logPi, pi, group, lr, mu, low, high, next, w);
        for (let o = 0; o < K; o++) step[o] += prob * (next[o] - theta[o]);
      }
      logits.push(theta.map((v, o) => v + step[o]));
    }
    return { logits, topMass, entropy };
  }

  /** The fixed problems of the distribution figure (grpo_nb/tabular/examples.py): the crossover example (Q = 3
   *  prompts sharing one policy over K = 2 answers) and the clip bandit (K = 4 answers, groups of 6, mu = 4,
   *  lr = 1). */
  const examples = Object.freeze({
    CROSSOVER_PI_REF: Object.freeze([0.5, 0.5]),
    CROSSOVER_REWARD: Object.freeze([Object.freeze([1, 0]), Object.freeze([1, 0]), Object.freeze([0, 1])]),
    BANDIT_PI0: Object.freeze([0.4, 0.3, 0.2, 0.1]),
    BANDIT_REWARD: Object.freeze([0, 1, 0, 1]),
    BANDIT_GROUP_SIZE: 6,
    BANDIT_LR: 1,
    BANDIT_MU: 4,
  });

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
    passAtK,
    sharedSuccessOrbit,
    clipModes,
    expectedUpdateOrbit,
    examples,
  });
  if (typeof module !== "undefined" && module.exports) module.exports = GrpoMath;
  else root.GrpoMath = GrpoMath;
})(typeof globalThis !== "undefined" ? globalThis : this);
