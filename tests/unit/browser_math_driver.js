/*
 * node driver of tests/unit/test_browser_math_parity.py:  node browser_math_driver.js GRPO_MATH.js [...] < spec.json
 *
 * Loads each grpo_math.js named (the book's, or copies with a formula altered) with require() (no DOM: node has
 * none), evaluates its functions on the parameter grid of the spec the test writes to stdin, and prints a JSON list,
 * one entry per file, non-finite numbers as the bare tokens Infinity, -Infinity and NaN (Python's json reads them).
 */
"use strict";
const fs = require("fs");
const path = require("path");

const spec = JSON.parse(fs.readFileSync(0, "utf8"));
const arr = (x) => Array.from(x);
const fixed = (fps) => fps.map((f) => [f.logit, f.slope, f.stable]);

const evaluate = (G) => ({
  exports: Object.keys(G).sort(),
  logit: spec.p.map(G.logit),
  sigmoid: spec.z.map(G.sigmoid),
  variance: spec.z.map(G.variance),
  grids: {
    pGrid: spec.grid_eps.map((eps) => G.pGrid(eps, spec.curve)),
    linGrid: G.linGrid(spec.lin[0], spec.lin[1], spec.curve),
    logGrid: G.logGrid(spec.log[0], spec.log[1], spec.log[2]),
  },
  weights: spec.grid_eps.map((eps) => G.pGrid(eps, spec.curve).map((p) => G.weights(p, eps))),
  // Theorem 2's map at every (p_ref, beta, eps): on the p grid of its figure (logit h), on the z grid, its slope,
  // the orbit from p_ref and every fixed point
  map: spec.cases.map(([pRef, beta, eps]) => {
    const a = G.logit(pRef);
    return {
      logit_h: G.pGrid(eps, spec.map_curve).map((p) => G.logitMap(G.logit(p), a, beta, eps)),
      gz: spec.z.map((z) => G.logitMap(z, a, beta, eps)),
      slope: spec.z.map((z) => G.slope(z, beta, eps)),
      z: arr(G.orbit(a, beta, eps, spec.n)),
      fixed: fixed(G.fixedPoints(a, beta, eps)),
    };
  }),
  // a variant at every (p_ref, beta, eps) of its sub-grid, for each (alpha, mean-only)
  variant: spec.variants.map(([alpha, meanOnly]) =>
    spec.variant_cases.map(([pRef, beta, eps]) => {
      const a = G.logit(pRef);
      return {
        gz: spec.variant_z.map((z) => G.variantMap(z, a, beta, eps, alpha, meanOnly)),
        z: arr(G.variantOrbit(a, beta, eps, spec.n, alpha, meanOnly)),
        fixed: fixed(G.variantFixedPoints(a, beta, eps, alpha, meanOnly)),
      };
    }),
  ),
  // the bifurcation diagram's long-run windows over a beta grid, and the period of each window
  long_run: spec.long_run_cases.map(([pRef, eps]) => {
    const limit = G.longRun(G.logit(pRef), spec.betas, eps, spec.transient, spec.keep);
    const windows = spec.betas.map((_, j) => limit.subarray(j * spec.keep, (j + 1) * spec.keep));
    return { limit: arr(limit), periods: windows.map((w) => G.period(w, spec.max_period)) };
  }),
  // pass@k at every (p, k) of the p grid and the k grid
  pass_at_k: spec.p.map((p) => spec.ks.map((k) => G.passAtK(p, k))),
  // the success probabilities of shared exact steps, for each problem (pi_ref, reward table) at every (beta, eps)
  shared: spec.shared_problems.map(({ pi_ref, reward }) =>
    spec.shared_cases.map(([beta, eps]) => G.sharedSuccessOrbit(pi_ref, reward, beta, eps, spec.shared_n).map(arr)),
  ),
  // the expected-update orbits of GRPO-Clip, one per case (logits0 and the options of expectedUpdateOrbit)
  update: spec.update_cases.map(({ logits0, ...options }) => {
    const o = G.expectedUpdateOrbit(logits0, options);
    return { logits: o.logits.map(arr), top_mass: arr(o.topMass), entropy: arr(o.entropy) };
  }),
  // the fixed problems of the distribution figure and the clip modes
  constants: { examples: G.examples, clip_modes: G.clipModes },
});

const out = process.argv.slice(2).map((file) => evaluate(require(path.resolve(file))));

const NON_FINITE = { Infinity: "Infinity", "-Infinity": "-Infinity", NaN: "NaN" };
const text = JSON.stringify(out, (_, v) => (typeof v === "number" && !isFinite(v) ? `@@${String(v)}@@` : v));
process.stdout.write(text.replace(/"@@(-?Infinity|NaN)@@"/g, (_, v) => NON_FINITE[v]));
