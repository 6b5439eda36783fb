/* Search results show an excerpt of each page, which Sphinx cuts from the page's HTML before MathJax has run, so
   its formulas came out as raw TeX ("\(\omega^+_\varepsilon(p)\)"). Here each formula of the fetched page is
   written as plain text (ω^+_ε(p)) before the excerpt is cut. Only the search page loads Sphinx's Search. */
(function () {
  const SYMBOLS = {
    alpha: "α", beta: "β", gamma: "γ", delta: "δ", Delta: "Δ", varepsilon: "ε", epsilon: "ε", zeta: "ζ",
    eta: "η", theta: "θ", lambda: "λ", mu: "μ", nu: "ν", pi: "π", rho: "ρ", sigma: "σ", tau: "τ", phi: "φ",
    chi: "χ", psi: "ψ", omega: "ω", Omega: "Ω", nabla: "∇", partial: "∂", infty: "∞", sum: "∑", prod: "∏",
    le: "≤", leq: "≤", ge: "≥", geq: "≥", ne: "≠", neq: "≠", approx: "≈", sim: "~", to: "→", mapsto: "↦",
    rightarrow: "→", leftarrow: "←", Rightarrow: "⇒", cdot: "·", times: "×", pm: "±", mid: "|", in: "∈",
    log: "log", exp: "exp", min: "min", max: "max", sqrt: "√", ldots: "…", dots: "…", cdots: "…", propto: "∝",
    lVert: "‖", rVert: "‖", Vert: "‖", "|": "‖", ",": " ", ";": " ", "!": "", quad: " ", qquad: " ",
  };
  /** A TeX formula as plain text: greek letters and relations as symbols, \frac{a}{b} as a/b, no braces. */
  function plainMath(tex) {
    let s = tex.trim().replace(/^\\[([]/, "").replace(/\\[)\]]$/, "").replace(/\$/g, "");
    for (let i = 0; i < 5; i++) {
      s = s.replace(/\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}/g, "($1)/($2)");
      s = s.replace(/\\sqrt\s*\{([^{}]*)\}/g, "√($1)");
    }
    s = s.replace(/\\(?:mathrm|text|operatorname|mathbb|mathcal|mathbf|boldsymbol|tilde|hat|bar)\s*\{([^{}]*)\}/g, "$1");
    s = s.replace(/\\(?:left|right|big|Big|bigg|Bigg)\b/g, "");
    s = s.replace(/\\([A-Za-z]+|[|,;!])/g, (m, name) => (name in SYMBOLS ? SYMBOLS[name] : ""));
    // a sub- or superscript of more than one symbol keeps its grouping: e^{1/β} as e^(1/β), 10^{-12} as 10^-12
    s = s.replace(/([_^])\{([^{}]*)\}/g, (m, op, arg) => (/^[-+−]?[\w.]*$/u.test(arg) ? op + arg : `${op}(${arg})`));
    return s.replace(/[{}]/g, "").replace(/\s+/g, " ").trim();
  }
  function patch() {
    // searchtools.js declares Search with const: a global binding, not a property of window
    if (typeof Search === "undefined" || Search._plainMath) return;
    const htmlToText = Search.htmlToText;
    Search.htmlToText = (htmlString, anchor) => {
      const doc = new DOMParser().parseFromString(htmlString, "text/html");
      doc.querySelectorAll("span.math, div.math").forEach((el) => (el.textContent = ` ${plainMath(el.textContent)} `));
      return htmlToText(doc.documentElement.outerHTML, anchor);
    };
    Search._plainMath = true;
  }
  window.grpoPlainMath = plainMath; // for the book's tests
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", patch);
  else patch();
})();
