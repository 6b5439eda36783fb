/* On a narrow screen (a phone), a displayed equation or a table printed by a code cell that is wider than the
   text column is set in a smaller font until it fits, instead of scrolling sideways; no smaller than half of
   its size (below that it would not be legible). Runs after MathJax has typeset the page, and again when the
   window changes size. */
(function () {
  const MIN_SCALE = 0.5;
  function fit(el) {
    el.style.fontSize = "";
    const box = el.parentElement ? el.parentElement.clientWidth : 0;
    if (!box || el.scrollWidth <= box) return;
    // A table does not shrink in proportion to its font (padding, borders and unbreakable words do not), so shrink
    // again from the width the last size gave, a few times, until it fits or reaches the smallest legible size.
    let scale = 1;
    for (let i = 0; i < 6 && el.scrollWidth > box && scale > MIN_SCALE; i++) {
      scale = Math.max(MIN_SCALE, (scale * (box - 2)) / el.scrollWidth);
      el.style.fontSize = (100 * scale).toFixed(1) + "%";
    }
  }
  function fitAll() {
    document.querySelectorAll('article mjx-container[display="true"]').forEach(fit);
    document.querySelectorAll("article table").forEach(fit);
    document.documentElement.dataset.fitWide = "done"; // tests wait for this before they measure
  }
  // MathJax is loaded asynchronously: wait until its startup promise exists (the configuration object alone has
  // none) and its first typesetting is done, so that equations and tables are measured with their math set.
  function whenTypeset() {
    return new Promise((resolve) => {
      const t0 = Date.now();
      (function poll() {
        const mj = window.MathJax;
        if (mj && mj.startup && mj.startup.promise) return mj.startup.promise.then(resolve, resolve);
        if (Date.now() - t0 > 20000 || !document.querySelector('script[src*="mathjax"]')) return resolve();
        setTimeout(poll, 50);
      })();
    });
  }
  function start() {
    whenTypeset().then(fitAll);
    let timer = null;
    window.addEventListener("resize", () => {
      clearTimeout(timer);
      timer = setTimeout(fitAll, 100);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
