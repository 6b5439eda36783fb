/* On a narrow screen (a phone), a displayed equation that is wider than the text column is set in a smaller font
   until it fits, but never below MIN_MATH_PX (below that it would not be legible): what is still too wide scrolls
   sideways in its own box. A table shrinks to no less than 0.85 of its size, then scrolls sideways in its own box
   with its first column kept in view (_static/book.css). Every box that scrolls sideways says so with a line above
   it. Runs after MathJax has typeset the page, and again when the window changes size. */
(function () {
  const MIN_MATH_PX = 12;
  const MIN_TABLE_SCALE = 0.85;
  const CUE = "Scroll sideways for the rest \u2192";
  function fit(el, minScale) {
    el.style.fontSize = "";
    const box = el.parentElement ? el.parentElement.clientWidth : 0;
    if (!box || el.scrollWidth <= box) return;
    if (minScale === "math") minScale = Math.min(1, MIN_MATH_PX / parseFloat(getComputedStyle(el).fontSize));
    // A table does not shrink in proportion to its font (padding, borders and unbreakable words do not), so shrink
    // again from the width the last size gave, a few times, until it fits or reaches the smallest legible size.
    let scale = 1;
    for (let i = 0; i < 6 && el.scrollWidth > box && scale > minScale; i++) {
      scale = Math.max(minScale, (scale * (box - 2)) / el.scrollWidth);
      el.style.fontSize = (100 * scale).toFixed(1) + "%";
    }
  }
  // A table cell that holds one number (a sign, digits, a point, an exponent, a percent sign, a power of ten) is
  // marked, so that _static/book.css keeps it on one line.
  const NUMBER = /^[-+−–]?[0-9][0-9.,]*(e[-+−]?[0-9]+)?\s*%?$|^[-+−]?[0-9.]+\s*[×x]\s*10\S*$/;
  function markNumbers() {
    document.querySelectorAll("article td, article th").forEach((cell) => {
      if (NUMBER.test(cell.textContent.trim())) cell.classList.add("number");
    });
  }
  // A box that scrolls sideways (a wide equation, a table's container) gets the class "scrolls"
  // and a one-line cue above it; a box that fits loses both.
  function scroller(el) {
    for (let box = el; box && box.tagName !== "ARTICLE"; box = box.parentElement) {
      if (["auto", "scroll"].includes(getComputedStyle(box).overflowX)) return box;
    }
    return null;
  }
  function cueScrolling() {
    document.querySelectorAll("article .scroll-cue").forEach((cue) => cue.remove());
    const boxes = new Set();
    document.querySelectorAll('article mjx-container[display="true"], article table')
      .forEach((el) => {
        const box = scroller(el);
        if (box) boxes.add(box);
      });
    boxes.forEach((box) => {
      const wide = box.scrollWidth > box.clientWidth + 1 && box.checkVisibility();
      box.classList.toggle("scrolls", wide);
      if (!wide) return;
      const cue = document.createElement("div");
      cue.className = "scroll-cue";
      cue.setAttribute("aria-hidden", "true");
      cue.textContent = CUE;
      box.before(cue);
    });
  }
  function fitAll() {
    document.querySelectorAll('article mjx-container[display="true"]').forEach((el) => fit(el, "math"));
    document.querySelectorAll("article table").forEach((el) => fit(el, MIN_TABLE_SCALE));
    cueScrolling();
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
    markNumbers();
    whenTypeset().then(fitAll);
    let timer = null;
    window.addEventListener("resize", () => {
      clearTimeout(timer);
      timer = setTimeout(fitAll, 100);
    });
    // what a closed fold holds has no width until it opens: fit it then
    document.addEventListener("toggle", () => {
      clearTimeout(timer);
      timer = setTimeout(fitAll, 50);
    }, true);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
