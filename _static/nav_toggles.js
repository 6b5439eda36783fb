/* The sidebar and contents toggles. The themes (pydata-sphinx-theme 0.17, sphinx-book-theme 1.3) attach their
   click handlers to the first `.primary-toggle` and the first `.secondary-toggle` of the page, and
   sphinx-book-theme hides those first buttons and shows others in the article header: clicking what a reader
   sees did nothing. A click on any toggle is passed on to the first one, which the themes listen to. */
(function () {
  document.addEventListener(
    "click",
    function (event) {
      for (const name of ["primary-toggle", "secondary-toggle"]) {
        const button = event.target.closest("." + name);
        const listened = document.querySelector("." + name);
        if (button && listened && button !== listened) {
          event.preventDefault();
          event.stopPropagation();
          listened.click();
          return;
        }
      }
    },
    true
  );
})();
