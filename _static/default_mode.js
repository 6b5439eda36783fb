/* The light/dark mode of a first visit. The theme's head script sets it from localStorage or, failing that, to
   the theme option `default_mode`, which Jupyter Book 1.x leaves empty (setting the option in _config.yml would
   replace every other theme option); the theme's own script then logs "Got invalid theme mode" on every page.
   This runs before that script (which is deferred) and starts a first visit in "auto", the theme's own fallback. */
(function () {
  const root = document.documentElement;
  if (!root.dataset.mode) root.dataset.mode = "auto";
})();
