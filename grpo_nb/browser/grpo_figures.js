/*
 * Kernel-free interactive figures of "GRPO, executable": the browser twin of grpo_nb.plots and grpo_nb.widgets.
 *
 * The success recursion is a closed form, so the figures compute in the reader's browser, with no Python behind
 * them. Every number they plot comes from grpo_math.js (window.GrpoMath: Theorem 2's map in logit coordinates, its
 * orbits and fixed points, the variants' maps, Eq. 4's weights), which the page loads first; this file draws them.
 * tests/book/test_browser_figures.py checks the plotted numbers against grpo_nb in headless Chromium.
 *
 * A figure is a <div data-grpo-figure="map|orbit|weights|bifurcation|variant|distribution" id=...> with optional
 * data-beta, data-p-ref, data-eps, data-n, data-alpha, data-normalization and data-clip (its defaults) and a
 * <p class="grpo-caption"> inside, which stays below the figure. The "variant" figure is the twin of
 * grpo_nb/variants/map.py (the GRPO variants: mean-only normalisation, KL to the previous policy with weight
 * 1 - alpha); the "distribution" figure the twin of grpo_nb/tabular/distribution.py and clip_bias.py (pass@k before
 * and after exact steps, one prompt and prompts sharing a policy; the entropy of GRPO-Clip's expected updates).
 * window.grpoFigures[id] exposes its state, its plotted numbers (.data), .redraw() and .set({beta, p_ref, eps, n}).
 */
(function () {
  "use strict";
  if (window.grpoFigures) return; // loaded twice on one page: the first copy runs every figure
  const G = window.GrpoMath; // the numbers: grpo_math.js, loaded first
  if (!G) throw new Error('grpo_figures.js needs grpo_math.js: <script src="../grpo_math.js"></script> before it');
  const { logit, sigmoid, logitMap, orbit, variantMap, variantOrbit, fixedPoints, variantFixedPoints, weights } = G;
  const { longRun, period, linGrid, logGrid, pGrid: pGridN } = G;
  const { passAtK, sharedSuccessOrbit, expectedUpdateOrbit, clipModes, examples } = G;
  const M = Math;
  const figures = (window.grpoFigures = {});

  // ------------------------------------------------------------------ numbers and SVG

  function fmt(x, digits = 3) {
    if (x === 0) return "0";
    if (!isFinite(x)) return x > 0 ? "∞" : "−∞";
    const ax = M.abs(x);
    const s = ax >= 1e-3 && ax < 1e5 ? String(+x.toPrecision(digits)) : x.toExponential(digits - 1);
    return s
      .replace(/\.?0+e/, "e")
      .replace("e+", "e")
      .replace(/-/g, "−");
  }

  /** A probability given by its logit, readable next to 1 (1 - p = 10^(-(z + log(1 + e^-z))/ln 10)). */
  function fmtP(z) {
    if (!(z > 6.9)) return fmt(sigmoid(z), 3);
    if (z === Infinity) return "1";
    const l = -(z + M.log1p(M.exp(-z))) / M.LN10;
    let e = M.floor(l);
    let mant = +(10 ** (l - e)).toPrecision(2);
    if (mant >= 10) [mant, e] = [mant / 10, e + 1];
    return `1 − ${mant}e${e}`.replace(/-/g, "−");
  }

  const sub = (s) => `<tspan baseline-shift="sub" font-size="75%">${s}</tspan>`; // in SVG text
  const P_REF = `p${sub("ref")}`;
  const hsub = (s) => `<sub>${s}</sub>`; // in HTML
  const P_REF_HTML = `p${hsub("ref")}`;

  function ticks(lo, hi, log) {
    const out = [];
    if (log) {
      const many = M.log10(hi / lo) < 2.5 ? [1, 2, 5] : [1];
      for (let e = M.floor(M.log10(lo)); e <= M.ceil(M.log10(hi)); e++) {
        for (const m of many)
          if (m * 10 ** e >= lo * (1 - 1e-9) && m * 10 ** e <= hi * (1 + 1e-9)) out.push(m * 10 ** e);
      }
      return out;
    }
    const raw = (hi - lo) / 5;
    const mag = 10 ** M.floor(M.log10(raw));
    const r = raw / mag;
    const step = (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
    for (let k = M.ceil(lo / step - 1e-9); k * step <= hi + 1e-9 * step; k++) out.push(+(k * step).toPrecision(12));
    return out;
  }

  let uid = 0;

  /** One panel: axes with ticks and labels, clipped curves and markers, rendered as an SVG string. */
  function plot(w, h, o) {
    const m = { l: 58, r: o.pAxis ? 62 : 14, t: o.title ? 28 : 12, b: 44 };
    const [W, H] = [w - m.l - m.r, h - m.t - m.b];
    const lx = o.xlog ? M.log10 : (v) => v;
    const [x0, x1] = o.xlim.map(lx);
    const [y0, y1] = o.ylim;
    const X = (v) => m.l + ((lx(v) - x0) / (x1 - x0)) * W;
    const Y = (v) => m.t + (1 - (v - y0) / (y1 - y0)) * H;
    const py = (v) => (v === Infinity ? m.t : v === -Infinity ? m.t + H : M.max(-1e4, M.min(1e4, Y(v))));
    const clip = `grpo-clip-${++uid}`;
    const [axes, body, over] = [[], [], []];
    for (const v of ticks(o.xlim[0], o.xlim[1], o.xlog)) {
      const x = X(v).toFixed(1);
      axes.push(`<line class="grid" x1="${x}" x2="${x}" y1="${m.t}" y2="${m.t + H}"/>`);
      axes.push(`<text x="${x}" y="${m.t + H + 16}" text-anchor="middle">${fmt(v)}</text>`);
    }
    for (const v of ticks(y0, y1)) {
      const y = Y(v).toFixed(1);
      axes.push(`<line class="grid" x1="${m.l}" x2="${m.l + W}" y1="${y}" y2="${y}"/>`);
      axes.push(`<text x="${m.l - 6}" y="${y}" dy="0.32em" text-anchor="end">${fmt(v)}</text>`);
    }
    if (o.pAxis) {
      for (const p of [1e-6, 1e-4, 1e-3, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999]) {
        if (logit(p) < y0 || logit(p) > y1) continue;
        const y = Y(logit(p)).toFixed(1);
        axes.push(`<line class="frame" x1="${m.l + W}" x2="${m.l + W + 4}" y1="${y}" y2="${y}"/>`);
        axes.push(`<text x="${m.l + W + 7}" y="${y}" dy="0.32em" class="small">${fmt(p)}</text>`);
      }
      axes.push(`<text x="${m.l + W + 7}" y="${m.t - 6}" class="small">p</text>`);
    }
    axes.push(`<rect class="frame" x="${m.l}" y="${m.t}" width="${W}" height="${H}"/>`);
    axes.push(`<text x="${m.l + W / 2}" y="${h - 8}" text-anchor="middle">${o.xlabel}</text>`);
    axes.push(`<text transform="translate(15 ${m.t + H / 2}) rotate(-90)" text-anchor="middle">${o.ylabel}</text>`);
    if (o.title) axes.push(`<text class="title" x="${m.l + W / 2}" y="17" text-anchor="middle">${o.title}</text>`);
    return {
      inverseX: (px) => (o.xlog ? 10 ** (x0 + ((px - m.l) / W) * (x1 - x0)) : x0 + ((px - m.l) / W) * (x1 - x0)),
      /** A polyline; NaN breaks it, +-Infinity is drawn at the edge. */
      line(xs, ys, cls) {
        const d = [];
        let pen = false;
        for (let i = 0; i < xs.length; i++) {
          if (ys[i] !== ys[i]) pen = false;
          else d.push((pen ? "L" : "M") + X(xs[i]).toFixed(1) + " " + py(ys[i]).toFixed(1)), (pen = true);
        }
        body.push(`<path class="${cls}" d="${d.join("")}"/>`);
      },
      /** Markers on top of the frame, kept inside it (a fixed point next to 1 sits on the edge). */
      marker(x, y, cls, r = 4.5) {
        if (!(X(x) >= m.l - 0.5 && X(x) <= m.l + W + 0.5)) return;
        const cy = M.max(m.t, M.min(m.t + H, py(y)));
        over.push(`<circle class="${cls}" cx="${X(x).toFixed(1)}" cy="${cy.toFixed(1)}" r="${r}"/>`);
      },
      path(d, cls) {
        body.push(`<path class="${cls}" d="${d}"/>`);
      },
      vline(x, cls) {
        body.push(`<line class="${cls}" x1="${X(x)}" x2="${X(x)}" y1="${m.t}" y2="${m.t + H}"/>`);
      },
      dotPath(xs, ys) {
        // tiny round-capped segments; points that fall on the same half pixel are drawn once
        const seen = new Set();
        const d = [];
        for (let i = 0; i < xs.length; i++) {
          const y = M.max(m.t + 3, M.min(m.t + H - 3, py(ys[i])));
          const key = M.round(2 * X(xs[i])) * 1e5 + M.round(2 * y);
          if (!seen.has(key)) seen.add(key), d.push(`M${X(xs[i]).toFixed(1)} ${y.toFixed(1)}h0`);
        }
        return d.join("");
      },
      svg(label) {
        return (
          `<svg width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="${label}">` +
          `<defs><clipPath id="${clip}"><rect x="${m.l}" y="${m.t}" width="${W}" height="${H}"/></clipPath></defs>` +
          `${axes.join("")}<g clip-path="url(#${clip})">${body.join("")}</g>${over.join("")}</svg>`
        );
      },
    };
  }

  /** Cobweb of an orbit x_0, x_1, ...: (x0, x0) -> (x0, x1) -> (x1, x1) -> (x1, x2) ... (plots.plot_cobweb). */
  function cobweb(P, xs) {
    const px = [];
    const py = [];
    for (let k = 0; k + 1 < xs.length; k++) px.push(xs[k], xs[k]), py.push(xs[k], xs[k + 1]);
    P.line(px, py, "orbit");
    P.marker(xs[0], xs[0], "start", 4);
  }

  /** An HTML legend row: items [label, "line" | "dot", SVG class]. */
  const legend = (items) =>
    items
      .map(([label, kind, cls]) => {
        const mark =
          kind === "dot" ? `<circle class="${cls}" cx="13" cy="7" r="4.5"/>` : `<path class="${cls}" d="M1 7h24"/>`;
        return `<span><svg width="26" height="14">${mark}</svg><span>${label}</span></span>`;
      })
      .join("");
  const FP_ITEMS = [
    ["stable fixed point", "dot", "fp"],
    ["unstable fixed point", "dot", "fp open"],
  ];

  function fixedPointList(fps, slopeName = "h′(p*)") {
    if (!fps.length) return "no fixed point (the orbit leaves for p = 1)";
    const one = (f) =>
      `p* = ${fmtP(f.logit)} (logit ${fmt(f.logit, 4)}, ${slopeName} = ${fmt(f.slope)}, ${f.stable ? "stable" : "unstable"})`;
    return `${fps.length} fixed point${fps.length > 1 ? "s" : ""}: ${fps.map(one).join("; ")}`;
  }

  // ------------------------------------------------------------------ the figures

  const N_CURVE = 400; // points on each map or weight curve

  /** A grid of p on [0, 1], or on (0, 1) when eps = 0 (h and the weights are undefined at 0 and 1, Remark 1). */
  const pGrid = (eps) => pGridN(eps, N_CURVE);

  const params = (s) => `β = ${fmt(s.beta)}, ${P_REF} = ${fmtP(logit(s.p_ref))}, ε = ${fmt(s.eps)}`;

  /** Paper Fig. 2: h against p with the diagonal; fixed points filled when stable, open when not. */
  function drawMap(fig, [w]) {
    const { beta, p_ref, eps } = fig.state;
    const a = logit(p_ref);
    const p = pGrid(eps);
    const z = p.map((x) => logitMap(logit(x), a, beta, eps));
    const fps = fixedPoints(a, beta, eps);
    const P = plot(w, M.round(M.min(0.72 * w, 470)), {
      xlim: [0, 1],
      ylim: [0, 1.02],
      title: params(fig.state),
      xlabel: "p = success probability of the previous policy",
      ylabel: "h(p) = next success probability",
    });
    P.line([0, 1], [0, 1], "ink dashed");
    P.line(p, z.map(sigmoid), "c0 thick");
    fps.forEach((f) => P.marker(sigmoid(f.logit), sigmoid(f.logit), f.stable ? "fp" : "fp open"));
    const items = [["h(p)", "line", "c0 thick"], ["y = p", "line", "ink dashed"], ...FP_ITEMS];
    fig.show([P.svg("Fig. 2: the map h and its fixed points")], fixedPointList(fps), items);
    return { p, logit_h: z, fixed_points: fps };
  }

  /** Paper Fig. 5 (p_n against n) and the cobweb of the same orbit, in p or in logit coordinates. */
  function drawOrbit(fig, [w1, w2]) {
    const { beta, p_ref, eps, n, logitAxes } = fig.state;
    const a = logit(p_ref);
    const z = orbit(a, beta, eps, n);
    const fps = fixedPoints(a, beta, eps);
    const finite = [...z, ...fps.map((f) => f.logit)].filter((v) => M.abs(v) < 1e4);
    const [lo, hi] = [M.min(...finite) - 2, M.max(...finite) + 2];
    const x = logitAxes ? linGrid(lo, hi, N_CURVE) : pGrid(eps);
    const gx = x.map((v) => logitMap(logitAxes ? v : logit(v), a, beta, eps));
    const show = logitAxes ? (v) => v : sigmoid;
    const name = logitAxes ? "logit p" : "p";
    const h = M.round(M.min(0.9 * w1, 420));
    const left = plot(w1, h, {
      xlim: [0, n],
      ylim: logitAxes ? [lo, hi] : [0, 1.02],
      title: params(fig.state),
      xlabel: "GRPO iteration n",
      ylabel: `${name}${sub("n")}`,
      pAxis: logitAxes && hi - lo < 40,
    });
    left.line(
      Array.from(z, (_, k) => k),
      Array.from(z, show),
      "orbit thick",
    );
    const right = plot(w2, h, {
      xlim: logitAxes ? [lo, hi] : [0, 1],
      ylim: logitAxes ? [lo, hi] : [0, 1.02],
      title: "cobweb of the same orbit",
      xlabel: `${name}${sub("n−1")}`,
      ylabel: `${name}${sub("n")}`,
    });
    right.line(logitAxes ? [lo, hi] : [0, 1], logitAxes ? [lo, hi] : [0, 1], "ink dashed");
    right.line(x, gx.map(show), "c0 thick");
    cobweb(right, Array.from(z, show));
    fps.forEach((f) => right.marker(show(f.logit), show(f.logit), f.stable ? "fp" : "fp open"));
    const items = [
      [`orbit p${hsub("0")} = ${P_REF_HTML}, p${hsub("1")}, … (left: against n, right: cobweb)`, "line", "orbit thick"],
      [`map ${logitAxes ? "g = logit h" : "h"}`, "line", "c0 thick"],
      ["diagonal", "line", "ink dashed"],
      ...FP_ITEMS,
    ];
    const last = `After n = ${n} iterations p<sub>n</sub> = ${fmtP(z[n])} (logit ${fmt(z[n], 4)}). `;
    fig.show([left.svg("Fig. 5: p_n against n"), right.svg("cobweb plot")], last + fixedPointList(fps), items);
    return { z: Array.from(z), coords: logitAxes ? "logit" : "p", x, logit_gx: gx, fixed_points: fps };
  }

  /** Eq. 4's weights against p for the chosen eps, with the unsmoothed ones of the paper's Fig. 1 underneath. */
  function drawWeights(fig, [w]) {
    const { eps } = fig.state;
    const p = pGrid(eps);
    const [plus, minus] = [p.map((x) => weights(x, eps)[0]), p.map((x) => weights(x, eps)[1])];
    const p0 = pGrid(0);
    const P = plot(w, M.round(M.min(0.62 * w, 420)), {
      xlim: [0, 1],
      ylim: [0, 5],
      title: `ε = ${fmt(eps)}`,
      xlabel: "probability of success p of the old policy",
      ylabel: "weight",
    });
    P.line(
      p0,
      p0.map((x) => weights(x, 0)[0]),
      "muted",
    );
    P.line(
      p0,
      p0.map((x) => weights(x, 0)[1]),
      "muted dashed",
    );
    P.line([0.5, 0.5], [0, 5], "grid-strong");
    P.line(p, plus, "c0 thick");
    P.line(p, minus, "c1 thick dashed");
    const items = [
      ["ω⁺ (success)", "line", "c0 thick"],
      ["ω⁻ (failure)", "line", "c1 thick dashed"],
      ["ω<sup>±</sup> with ε = 0 (Fig. 1)", "line", "muted"],
    ];
    const ends =
      eps > 0 ? `ω⁺(0) = ω⁻(1) = 1/√ε = ${fmt(1 / M.sqrt(eps))}` : "with ε = 0 both weights diverge at one end";
    const cross = `the curves cross at p = 1/2, at height ${fmt(weights(0.5, eps)[0], 4)}`;
    fig.show([P.svg("Eq. 4: the weights against p")], `${ends}; ${cross}.`, items);
    return { p, omega_plus: plus, omega_minus: minus };
  }

  /** A GRPO variant: p_n against n, with the paper's orbit (alpha = 1, mean + variance) in grey, and the variant's
   *  cobweb in logit coordinates around its orbit, with the variant's fixed points. */
  function drawVariant(fig, [w1, w2]) {
    const { beta, p_ref, eps, n, alpha, meanOnly } = fig.state;
    const a = logit(p_ref);
    const z = variantOrbit(a, beta, eps, n, alpha, meanOnly);
    const zPaper = orbit(a, beta, eps, n);
    const fps = variantFixedPoints(a, beta, eps, alpha, meanOnly);
    const finite = Array.from(z).filter((v) => M.abs(v) < 1e4);
    const pad = 0.1 * (M.max(...finite) - M.min(...finite)) + 1;
    const [lo, hi] = [M.min(...finite) - pad, M.max(...finite) + pad];
    const x = linGrid(lo, hi, N_CURVE);
    const gx = x.map((v) => variantMap(v, a, beta, eps, alpha, meanOnly));
    const name = `${meanOnly ? "mean-only" : "mean + variance"}, α = ${fmt(alpha)}`;
    const h = M.round(M.min(0.9 * w1, 420));
    const left = plot(w1, h, {
      xlim: [0, n],
      ylim: [0, 1.02],
      title: `${params(fig.state)}, α = ${fmt(alpha)}`,
      xlabel: "GRPO iteration n",
      ylabel: `p${sub("n")}`,
    });
    const steps = Array.from(z, (_, k) => k);
    left.line(steps, Array.from(zPaper, sigmoid), "muted");
    left.line(steps, Array.from(z, sigmoid), "orbit thick");
    const right = plot(w2, h, {
      xlim: [lo, hi],
      ylim: [lo, hi],
      title: `cobweb: ${name}`,
      xlabel: `logit p${sub("n−1")}`,
      ylabel: `logit p${sub("n")}`,
    });
    right.line([lo, hi], [lo, hi], "ink dashed");
    right.line(x, gx, "c0 thick");
    cobweb(right, Array.from(z));
    fps.forEach((f) => right.marker(f.logit, f.logit, f.stable ? "fp" : "fp open"));
    const items = [
      [`orbit of the variant (${name})`, "line", "orbit thick"],
      ["the paper's orbit (α = 1, mean + variance)", "line", "muted"],
      ["map g of the variant", "line", "c0 thick"],
      ["diagonal", "line", "ink dashed"],
      ...FP_ITEMS,
    ];
    const last = `After n = ${n} iterations p<sub>n</sub> = ${fmtP(z[n])}; the paper's iteration: ${fmtP(zPaper[n])}. `;
    const svgs = [left.svg("a variant's p_n against n"), right.svg("cobweb plot")];
    fig.show(svgs, last + fixedPointList(fps, "g′(z*)"), items);
    return { z: Array.from(z), z_paper: Array.from(zPaper), x, logit_gx: gx, fixed_points: fps };
  }

  const BIF = { n: 300, lo: 0.2, hi: 30, T: 800, K: 64 }; // beta grid and orbit lengths of the diagram
  const BIF_BETAS = logGrid(BIF.lo, BIF.hi, BIF.n);

  /** The bifurcation diagram over beta for one p_ref (long-run logits, coloured by period) and the cobweb, in logit
   *  coordinates, of the orbit at the beta picked on it (slider, or a click on the diagram). */
  function drawBifurcation(fig, [w1, w2]) {
    const { p_ref, eps, n } = fig.state;
    const a = logit(p_ref);
    const key = `${p_ref} ${eps} ${w1}`;
    const h = M.round(M.min(0.9 * w1, 420));
    const lo = M.min(-11, a - 0.5);
    const i = fig.state.betaIndex;
    const beta = BIF_BETAS[i];
    const left = plot(w1, h, {
      xlim: [BIF.lo, BIF.hi],
      xlog: true,
      ylim: [lo, 11],
      pAxis: true,
      title: `${P_REF} = ${fmtP(a)}, ε = ${fmt(eps)}: long-run orbit`,
      xlabel: "KL coefficient β (click to pick)",
      ylabel: `logit p${sub("n")}, n > ${BIF.T}`,
    });
    if (!fig.cache || fig.cache.key !== key) {
      const t0 = performance.now();
      const limit = longRun(a, BIF_BETAS, eps, BIF.T, BIF.K);
      const periods = BIF_BETAS.map((_, j) => period(limit.subarray(j * BIF.K, (j + 1) * BIF.K), 32));
      const paths = ["", "", ""];
      BIF_BETAS.forEach((b, j) => {
        const cls = periods[j] === 1 ? 0 : periods[j] > 1 ? 1 : 2;
        paths[cls] += left.dotPath(Array(BIF.K).fill(b), limit.subarray(j * BIF.K, (j + 1) * BIF.K));
      });
      fig.cache = { key, limit, periods, paths, ms: performance.now() - t0 };
    }
    ["fixed", "cycle", "chaos"].forEach((c, k) => left.path(fig.cache.paths[k], `dots ${c}`));
    left.vline(beta, "pick");
    fig.inverseX = left.inverseX;
    const z = orbit(a, beta, eps, n);
    const fps = fixedPoints(a, beta, eps);
    const finite = Array.from(z).filter((v) => M.abs(v) < 1e4); // the orbit sets the range: the map is drawn around it
    const pad = 0.08 * (M.max(...finite) - M.min(...finite)) + 1;
    const [zlo, zhi] = [M.min(...finite) - pad, M.max(...finite) + pad];
    const x = linGrid(zlo, zhi, N_CURVE);
    const gx = x.map((v) => logitMap(v, a, beta, eps));
    const right = plot(w2, h, {
      xlim: [zlo, zhi],
      ylim: [zlo, zhi],
      title: `cobweb at β = ${fmt(beta, 4)}, ${n} iterations`,
      xlabel: `logit p${sub("n−1")}`,
      ylabel: `logit p${sub("n")}`,
    });
    right.line([zlo, zhi], [zlo, zhi], "ink dashed");
    right.line(x, gx, "c0 thick");
    cobweb(right, z);
    fps.forEach((f) => right.marker(f.logit, f.logit, f.stable ? "fp" : "fp open"));
    const items = [
      ["long-run fixed point", "dot", "fixed"],
      ["cycle", "dot", "cycle"],
      ["no period ≤ 32", "dot", "chaos"],
      ["map g", "line", "c0 thick"],
      [`cobweb of the orbit from ${P_REF_HTML}`, "line", "orbit"],
      ...FP_ITEMS,
    ];
    const k = fig.cache.periods[i];
    const win = fig.cache.limit.subarray(i * BIF.K, (i + 1) * BIF.K);
    const cyc = Array.from(win.subarray(BIF.K - k), fmtP).join(" → ");
    const verdict =
      k === 1
        ? `converges to p* = ${fmtP(win[BIF.K - 1])}`
        : k > 1
          ? `is on a ${k}-cycle: ${cyc}`
          : "has no period ≤ 32 (chaos, or a longer cycle)";
    const text = `At β = ${fmt(beta, 4)}, after ${BIF.T} iterations, the orbit from ${P_REF_HTML} ${verdict}.`;
    fig.show([left.svg("bifurcation diagram over beta"), right.svg("cobweb plot")], text, items);
    return {
      betas: BIF_BETAS,
      transient: BIF.T,
      keep: BIF.K,
      limit: Array.from(fig.cache.limit),
      periods: fig.cache.periods,
      diagram_ms: fig.cache.ms,
      z: Array.from(z),
      x,
      logit_gx: gx,
      fixed_points: fps,
    };
  }

  const PASS_K = Array.from({ length: 256 }, (_, i) => i + 1); // k = 1..256 on the pass@k panel
  // clip mode -> [name, the bound it puts on the ratio, line class]
  const MODE_LINES = {
    none: ["no clip", "", "ink thick"],
    symmetric: ["symmetric clip", ", 1 ± ε<sub>clip</sub>", "c4 thick dashed"],
    high_only: ["upper clip only", ", 1 + ε<sub>clip</sub>", "c2 thick dotted"],
    low_only: ["lower clip only", ", 1 − ε<sub>clip</sub>", "c3 thick dashdot"],
  };
  const signed = (x) => (x >= 0 ? "+" : "−") + fmt(M.abs(x), 2);
  const meanPassAtK = (ps, k) => ps.reduce((t, p) => t + passAtK(p, k), 0) / ps.length;

  /** pass@k against k before and after n exact steps: one prompt (Theorem 2's orbit from p_ref) and the crossover
   *  example's prompts sharing one policy (distribution.shared_success_orbit); and the entropy of the clip bandit's
   *  expected GRPO-Clip updates in each clip mode (clip_bias.expected_update_orbit), with verifiable or random
   *  rewards. The bandit does not depend on beta or p_ref: its orbits are kept until n, the clip or the rewards
   *  change. */
  function drawDistribution(fig, [w1, w2]) {
    const { beta, p_ref, eps, n, clip, randomRewards } = fig.state;
    const z = orbit(logit(p_ref), beta, eps, n);
    const pN = sigmoid(z[n]);
    const shared = sharedSuccessOrbit(examples.CROSSOVER_PI_REF, examples.CROSSOVER_REWARD, beta, eps, n);
    const curves = {
      one_prompt_before: PASS_K.map((k) => passAtK(p_ref, k)),
      one_prompt_after: PASS_K.map((k) => passAtK(pN, k)),
      shared_before: PASS_K.map((k) => meanPassAtK(shared[0], k)),
      shared_after: PASS_K.map((k) => meanPassAtK(shared[n], k)),
    };
    const key = `${n} ${clip} ${randomRewards}`;
    if (!fig.cache || fig.cache.key !== key) {
      const t0 = performance.now();
      const options = {
        groupSize: examples.BANDIT_GROUP_SIZE,
        lr: examples.BANDIT_LR,
        mu: examples.BANDIT_MU,
        n,
        clipEps: clip,
        rewardProb: 0.5,
        reward: randomRewards ? null : examples.BANDIT_REWARD,
      };
      const logits0 = examples.BANDIT_PI0.map(M.log);
      const modes = {};
      for (const mode of clipModes) {
        const o = expectedUpdateOrbit(logits0, { ...options, mode });
        const logits = o.logits.map((row) => Array.from(row));
        modes[mode] = { entropy: Array.from(o.entropy), top_mass: Array.from(o.topMass), logits };
      }
      fig.cache = { key, modes, ms: performance.now() - t0 };
    }
    const { modes } = fig.cache;
    const h = M.round(M.min(0.9 * w1, 420));
    const left = plot(w1, h, {
      xlim: [1, 256],
      xlog: true,
      ylim: [0, 1.02],
      title: `β = ${fmt(beta)}, ${P_REF} = ${fmtP(logit(p_ref))}, ${n} exact steps`,
      xlabel: "k (answers sampled per prompt)",
      ylabel: "pass@k",
    });
    left.line(PASS_K, curves.one_prompt_before, "c0 dashed");
    left.line(PASS_K, curves.one_prompt_after, "c0 thick");
    left.line(PASS_K, curves.shared_before, "c1 dashed");
    left.line(PASS_K, curves.shared_after, "c1 thick");
    const steps = Array.from({ length: n + 1 }, (_, m) => m);
    const right = plot(w2, h, {
      xlim: [0, n],
      ylim: [0, 1.5],
      title: `clip bandit, ε${sub("clip")} = ${fmt(clip)}, ${randomRewards ? "random" : "verifiable"} rewards`,
      xlabel: "GRPO iteration",
      ylabel: "entropy H(π)",
    });
    right.line([0, n], [M.log(4), M.log(4)], "grid-strong");
    for (const mode of clipModes) right.line(steps, modes[mode].entropy, MODE_LINES[mode][2]);
    const items = [
      [`one prompt: before (${P_REF_HTML})`, "line", "c0 dashed"],
      [`after n steps (p${hsub("n")})`, "line", "c0 thick"],
      ["shared policy, 3 prompts: before", "line", "c1 dashed"],
      ["after n shared steps", "line", "c1 thick"],
      ...clipModes.map((mode) => [MODE_LINES[mode][0] + MODE_LINES[mode][1], "line", MODE_LINES[mode][2]]),
      ["uniform policy, H = log 4", "line", "grid-strong"],
    ];
    const [gain1, gainK] = [0, 255].map((i) => curves.shared_after[i] - curves.shared_before[i]);
    const rises = pN > p_ref ? "rises at every k" : "does not rise";
    const passText =
      `After n = ${n} exact steps: shared example pass@1 ${signed(gain1)}, pass@256 ${signed(gainK)}; ` +
      `one prompt (p = ${fmtP(logit(p_ref))} → ${fmtP(z[n])}): pass@k ${rises}.`;
    const final = clipModes.map((mode) => {
      const { entropy, top_mass } = modes[mode];
      return `${MODE_LINES[mode][0]}: H = ${fmt(entropy[n])}, top mass ${fmt(top_mass[n])}`;
    });
    const top = "top: the answer most likely at the start, a wrong one";
    const entropyText = ` Clip bandit after ${n} iterations (${top}): ${final.join("; ")}.`;
    const svgs = [left.svg("pass@k against k"), right.svg("entropy against the iteration")];
    fig.show(svgs, passText + entropyText, items);
    const sharedP = shared.map((row) => Array.from(row));
    return { k: PASS_K, z: Array.from(z), p_n: pN, shared_p: sharedP, ...curves, modes, bandit_ms: fig.cache.ms };
  }

  // ------------------------------------------------------------------ sliders and set-up

  const SLIDERS = {
    beta: {
      label: "β",
      help: "KL coefficient β (log scale)",
      min: -3,
      max: 3,
      step: 0.01,
      to: (s) => 10 ** s,
      from: M.log10,
      show: fmt,
    },
    p_ref: {
      label: "p<sub>ref</sub>",
      help: "success probability of the reference policy (log-odds scale)",
      min: -20.7,
      max: 20.7,
      step: 0.01,
      to: sigmoid,
      from: logit,
      show: (p) => fmtP(logit(p)),
    },
    eps: {
      label: "ε",
      help: "variance smoothing ε (log scale; the left end is ε = 0)",
      min: -12,
      max: 0,
      step: 0.1,
      to: (s) => (s <= -12 ? 0 : 10 ** s),
      from: (v) => (v > 0 ? M.log10(v) : -12),
      show: fmt,
    },
    n: {
      label: "n",
      help: "number of GRPO iterations",
      min: 1,
      max: 200,
      step: 1,
      to: (s) => s,
      from: (v) => v,
      show: String,
    },
    alpha: {
      label: "α",
      help: "weight α of the KL to the reference policy (1 − α: KL to the previous policy)",
      min: 0,
      max: 1,
      step: 0.01,
      to: (s) => s,
      from: (v) => v,
      show: (v) => fmt(v),
    },
    clip: {
      label: "ε<sub>clip</sub>",
      help: "clip range of the ratio",
      min: 0.01,
      max: 1,
      step: 0.01,
      to: (s) => s,
      from: (v) => v,
      show: (v) => fmt(v),
    },
    betaIndex: {
      label: "β",
      help: "KL coefficient β picked on the diagram (log scale)",
      min: 0,
      max: BIF.n - 1,
      step: 1,
      to: (s) => s,
      from: (v) => v,
      show: (i) => fmt(BIF_BETAS[i], 4),
    },
  };

  const KINDS = {
    map: { sliders: ["beta", "p_ref", "eps"], panels: 1, draw: drawMap },
    orbit: { sliders: ["beta", "p_ref", "eps", "n"], panels: 2, draw: drawOrbit, toggle: ["logitAxes", "logit axes"] },
    weights: { sliders: ["eps"], panels: 1, draw: drawWeights },
    bifurcation: {
      sliders: ["p_ref", "eps", "betaIndex", "n"],
      panels: 2,
      draw: drawBifurcation,
      pRefMin: -13.8,
      pRefMax: 0,
    },
    variant: {
      sliders: ["beta", "p_ref", "eps", "alpha", "n"],
      panels: 2,
      draw: drawVariant,
      toggle: ["meanOnly", "mean-only normalisation"],
    },
    distribution: {
      sliders: ["beta", "p_ref", "n", "clip"],
      panels: 2,
      draw: drawDistribution,
      nMax: 40, // the bandit's exact expectation: 4 modes x n iterations x 1716 groups with random rewards
      toggle: ["randomRewards", "random rewards"],
    },
  };

  const nearestBeta = (beta) =>
    BIF_BETAS.reduce((best, b, i) => (M.abs(M.log(b / beta)) < M.abs(M.log(BIF_BETAS[best] / beta)) ? i : best), 0);

  function setup(root) {
    const kind = KINDS[root.dataset.grpoFigure];
    if (!kind || !root.id) return;
    const d = root.dataset;
    const num = (v, dflt) => (v === undefined ? dflt : +v);
    const state = {
      beta: num(d.beta, 1),
      p_ref: num(d.pRef, 0.1),
      eps: num(d.eps, 1e-5),
      n: num(d.n, 60),
      alpha: num(d.alpha, 1),
      meanOnly: d.normalization === "mean",
      logitAxes: false,
      clip: num(d.clip, 0.2),
      randomRewards: false,
    };
    state.betaIndex = nearestBeta(state.beta);
    const caption = root.querySelector(".grpo-caption"); // kept; the rest (a note for notebooks) is replaced
    root.classList.add("grpo-fig");
    root.innerHTML = ["grpo-controls", "grpo-plots", "grpo-legend", "grpo-readout"]
      .map((c) => `<div class="${c}" aria-live="${c === "grpo-readout" ? "polite" : "off"}"></div>`)
      .join("");
    if (caption) root.append(caption);
    const [controls, plots, legendRow, readout] = root.children;
    const inputs = {};
    const fig = {
      root,
      state,
      data: null,
      inputs,
      redraw() {
        const width = plots.clientWidth || 700;
        const cols = kind.panels === 2 && width >= 640 ? 2 : 1;
        const pw = kind.panels === 2 ? M.floor((cols === 2 ? width - 16 : width) / cols) : M.min(width, 680);
        fig.data = {
          params: { ...state, beta: kind === KINDS.bifurcation ? BIF_BETAS[state.betaIndex] : state.beta },
          ...kind.draw(fig, [pw, pw]),
        };
        return fig.data;
      },
      show(svgs, text, items) {
        plots.innerHTML = svgs.map((s) => `<div class="grpo-panel">${s}</div>`).join("");
        legendRow.innerHTML = legend(items);
        readout.innerHTML = text;
      },
      set(values) {
        if (values.beta !== undefined && kind === KINDS.bifurcation)
          values = { ...values, betaIndex: nearestBeta(values.beta) };
        Object.assign(state, values);
        for (const [key, input] of Object.entries(inputs)) sync(key, input);
        const boxes = root.querySelectorAll("input[type=checkbox]");
        if (kind.toggle) boxes.forEach((box) => (box.checked = state[kind.toggle[0]]));
        return fig.redraw();
      },
    };
    const sync = (key, input) => {
      input.value = SLIDERS[key].from(state[key]);
      input.nextElementSibling.innerHTML = SLIDERS[key].show(state[key]);
    };
    for (const key of kind.sliders) {
      const s = SLIDERS[key];
      let [min, max] = key === "p_ref" && kind.pRefMin !== undefined ? [kind.pRefMin, kind.pRefMax] : [s.min, s.max];
      if (key === "n" && kind.nMax !== undefined) max = kind.nMax;
      const label = document.createElement("label");
      label.title = s.help;
      const range = `<input type="range" min="${min}" max="${max}" step="${s.step}" aria-label="${s.help}">`;
      label.innerHTML = `<span class="name">${s.label}</span>${range}<output></output>`;
      const input = (inputs[key] = label.querySelector("input"));
      sync(key, input);
      input.addEventListener("input", () => {
        state[key] = s.to(+input.value);
        input.nextElementSibling.innerHTML = s.show(state[key]);
        fig.redraw();
      });
      controls.append(label);
    }
    if (kind.toggle) {
      const [key, text] = kind.toggle;
      const label = document.createElement("label");
      label.innerHTML = `<input type="checkbox"${state[key] ? " checked" : ""}> ${text}`;
      label.firstChild.addEventListener("change", (e) => fig.set({ [key]: e.target.checked }));
      controls.append(label);
    }
    if (kind === KINDS.bifurcation) {
      plots.addEventListener("click", (e) => {
        const svg = e.target.closest("svg");
        if (!svg || svg !== plots.querySelector("svg") || !fig.inverseX) return;
        const beta = fig.inverseX(e.clientX - svg.getBoundingClientRect().left);
        if (beta >= BIF.lo && beta <= BIF.hi) fig.set({ beta });
      });
    }
    figures[root.id] = fig;
    fig.redraw();
    let lastWidth = plots.clientWidth;
    new ResizeObserver(
      () => plots.clientWidth !== lastWidth && ((lastWidth = plots.clientWidth), fig.redraw()),
    ).observe(plots);
  }

  const STYLE = `
.grpo-fig{--ink:var(--pst-color-text-base,#222);--muted:var(--pst-color-text-muted,#777);
  --bg:var(--pst-color-background,#fff);--c0:#1f77b4;--c1:#ff7f0e;--orbit:#d2553f;
  margin:1.2em 0;padding:.6em .8em;border:1px solid var(--pst-color-border,#ddd);border-radius:6px}
.grpo-controls{display:flex;flex-wrap:wrap;gap:.3em 1.4em;margin-bottom:.4em;font-size:.9em;
  position:sticky;top:var(--grpo-sticky-top,0);z-index:3;background:var(--bg);padding:.3em 0;
  border-bottom:1px solid var(--pst-color-border,#ddd)}
.grpo-controls label{display:flex;align-items:center;gap:.45em;margin:0}
.grpo-controls .name{min-width:2.2em;text-align:right;font-style:italic}
.grpo-controls input[type=range]{width:150px}
.grpo-controls output{min-width:6.5em;font-variant-numeric:tabular-nums}
.grpo-plots{display:flex;flex-wrap:wrap;gap:16px}
.grpo-panel svg{display:block;overflow:visible}
.grpo-fig svg text{font:12px var(--pst-font-family-base,system-ui,sans-serif);fill:var(--ink)}
.grpo-fig svg text.title{font-size:13px}.grpo-fig svg text.small{font-size:10.5px}
.grpo-fig svg path,.grpo-fig svg line{fill:none;stroke-width:1.3}
.grpo-fig .grid{stroke:var(--pst-color-border,#e3e3e3);stroke-width:.7}
.grpo-fig .grid-strong{stroke:var(--muted);stroke-dasharray:2 3}
.grpo-fig .frame{fill:none;stroke:var(--muted);stroke-width:1}
.grpo-fig .ink{stroke:var(--ink)}.grpo-fig .dashed{stroke-dasharray:5 4}.grpo-fig .thick{stroke-width:2.2}
.grpo-fig .c0{stroke:var(--c0)}.grpo-fig .c1{stroke:var(--c1)}.grpo-fig .c2{stroke:#2ca02c}.grpo-fig .c3{stroke:#9467bd}
.grpo-fig .c4{stroke:#d62728}
.grpo-fig .dotted{stroke-dasharray:1.5 3.5;stroke-linecap:round}.grpo-fig .dashdot{stroke-dasharray:9 3 2 3}
.grpo-fig .muted{stroke:var(--muted);stroke-width:1;stroke-opacity:.55}
.grpo-fig .orbit{stroke:var(--orbit);stroke-width:1;stroke-opacity:.9}
.grpo-fig circle.start{fill:var(--orbit);stroke:none}
.grpo-fig circle.fp{fill:var(--ink);stroke:var(--ink);stroke-width:1.5}
.grpo-fig circle.fp.open{fill:var(--bg)}
.grpo-fig .dots{stroke-width:2.2;stroke-linecap:round}
.grpo-fig .fixed{stroke:#1f77b4;fill:#1f77b4}.grpo-fig .cycle{stroke:#2ca02c;fill:#2ca02c}
.grpo-fig .chaos{stroke:#d62728;fill:#d62728}
.grpo-fig .pick{stroke:var(--ink);stroke-width:1;stroke-dasharray:3 3}
.grpo-legend{display:flex;flex-wrap:wrap;gap:.2em 1.2em;font-size:.85em;margin-top:.4em}
.grpo-legend>span{display:inline-flex;align-items:center;gap:.3em}.grpo-legend svg{overflow:visible}
.grpo-readout{font-size:.88em;margin:.5em 0 0;line-height:1.45}
.grpo-caption{font-size:.88em;color:var(--muted);margin:.3em 0 0}`;

  // The sliders stay in view while a tall figure (two panels stacked on a phone) scrolls under them: they stick
  // below the page's own sticky header bar, whose height is measured here.
  function stickBelowHeader() {
    const bar = document.querySelector(".bd-header-article");
    const sticky = bar && ["sticky", "fixed"].includes(getComputedStyle(bar).position);
    document.documentElement.style.setProperty("--grpo-sticky-top", `${sticky ? bar.offsetHeight : 0}px`);
  }

  function init() {
    document.head.insertAdjacentHTML("beforeend", `<style>${STYLE}</style>`);
    stickBelowHeader();
    window.addEventListener("resize", stickBelowHeader);
    document.querySelectorAll("[data-grpo-figure]").forEach(setup);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
