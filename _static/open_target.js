/* A link to a place inside a folded part of a page (a section's checks, or a section folded as a detail by
   _ext/details_sections.py) opens the folds around it and scrolls to it: on arrival and on every link followed
   within the page. Chromium does this itself; this is for a browser that does not. */
(function () {
  function openTarget() {
    const id = decodeURIComponent(window.location.hash.slice(1));
    const target = id && document.getElementById(id);
    if (!target) return;
    let opened = false;
    for (let el = target.parentElement; el; el = el.parentElement) {
      if (el.tagName === "DETAILS" && !el.open) {
        el.open = true;
        opened = true;
      }
    }
    if (opened) target.scrollIntoView();
  }
  window.addEventListener("hashchange", openTarget);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", openTarget);
  else openTarget();
})();
