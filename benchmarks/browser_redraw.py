"""How fast the hosted book's browser figures redraw when a reader moves a slider, in headless Chromium.

    python benchmarks/browser_redraw.py [--html _build/html] [--moves 200] [--out timings.json]

Builds the book as the site is built (or serves ``--html``), opens each page with a browser figure in the system
Chromium (Playwright; every request off 127.0.0.1 aborted), sets every figure to 200 iterations and a 400-point
curve (the distribution figure to its most iterations, 40, with random rewards), and times slider moves as a reader
makes them (new value, ``input`` event, redraw, layout; ``performance.now`` in the page). Reported per slider: the
median of ``--moves`` moves, and its ratio to a baseline measured in the same page: the same event dispatched to a
detached input that no figure listens to (the cost of the event and the timing itself; a mean over 100 times as many
moves, timed as one loop, since one such move is below the timer's resolution). The test suite checks that these
moves redraw (``tests/book/test_browser_figures.py``); this script says how fast.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.book.browser_checks import launch_chromium  # noqa: E402
from tests.book.test_browser_figures import FIGURES, TIMED_MOVES, open_page  # noqa: E402
from tests.conftest import build_book, serve_folder  # noqa: E402

# The figure's own slider: each move timed on its own (a redraw takes milliseconds, far above the timer's 0.1 ms).
MOVE_MEDIAN = """([id, key, a, b, reps]) => {
  const f = window.grpoFigures[id], input = f.inputs[key], t = [];
  for (let i = 0; i < reps; i++) {
    input.value = i % 2 ? a : b;
    const t0 = performance.now();
    input.dispatchEvent(new Event("input"));
    f.root.getBoundingClientRect();
    t.push(performance.now() - t0);
  }
  t.sort((x, y) => x - y);
  return t[t.length >> 1];
}"""

# The baseline: the same event and layout read on a detached input that no figure listens to. One such move takes
# less than the browser's timer resolution (0.1 ms in headless Chromium), so the loop is timed as a whole and divided.
BASELINE_MEAN = """([id, reps]) => {
  const f = window.grpoFigures[id], input = Object.assign(document.createElement("input"), {type: "range"});
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) {
    input.value = i % 2 ? "0" : "1";
    input.dispatchEvent(new Event("input"));
    f.root.getBoundingClientRect();
  }
  return (performance.now() - t0) / reps;
}"""


def measure(url: str, moves: int) -> dict[str, dict[str, float]]:
    out = {}
    with launch_chromium() as browser:
        for doc, key, a, b, settings in TIMED_MOVES:
            page = open_page(browser, {"url": url}, doc)
            fid, _ = FIGURES[doc]
            page.evaluate("([id, s]) => window.grpoFigures[id].set(s)", [fid, settings])
            page.evaluate(MOVE_MEDIAN, [fid, key, a, b, 20])  # warm-up
            redraw = page.evaluate(MOVE_MEDIAN, [fid, key, a, b, moves])
            base = page.evaluate(BASELINE_MEAN, [fid, 100 * moves])
            label = f"{Path(doc).name}: {key}" + (" (logit axes)" if settings.get("logitAxes") else "")
            label += " (random rewards)" if settings.get("randomRewards") else ""
            out[label] = {"median_ms": redraw, "baseline_ms": base, "ratio": redraw / base}
            page.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, default=None, help="a built book's HTML folder (default: build one)")
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    html = args.html or build_book(Path(tempfile.mkdtemp(prefix="book-")))
    with serve_folder(html) as url:
        result = measure(url, args.moves)
    for label, r in result.items():
        base_us = 1e3 * r["baseline_ms"]
        print(f"{label:40s} median {r['median_ms']:6.2f} ms   baseline {base_us:5.2f} us   x{r['ratio']:.0f}")
    if args.out:
        args.out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
