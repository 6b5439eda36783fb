"""What a chapter's fresh run must show besides its committed outputs: a pytest plugin with no imports from the
repository, used by the repository's ``conftest.py`` and copied beside a chapter run alone in an empty folder
(``tests/chapters/chapter_runs.py``).

nbval compares a fresh run's text with the committed one, but not its images, and not the outputs of a cell tagged
``nbval-ignore-output``. Two things the page needs are checked on every cell's fresh run instead:

- a cell with MyST-NB figure metadata (``mystnb: {figure: ...}``) shows a PNG, as an image or in the book's
  two-layout ``<picture>`` (``grpo_nb/plots/narrow_screens.py``) with both its PNGs: a matplotlib or IPython version
  that displays a figure as its text only (``<Figure size ...>``) leaves the page without it;
- no cell writes to stderr: a warning or an error message there would show on the page, with a local path.

A failure names the cell and its source, as nbval's own failures do.
"""

from __future__ import annotations

PNG = "image/png"
PICTURE = '<picture class="grpo-figure"'
INLINE_PNG = "data:image/png;base64,iVBOR"  # the start of a PNG file, base64-encoded


def shows_png(output: dict) -> bool:
    """Whether a display output shows a PNG: as an image, or as a two-layout picture that holds two."""
    data = output.get("data", {})
    html = data.get("text/html", "")
    html = "".join(html) if isinstance(html, list) else html
    return PNG in data or (PICTURE in html and html.count(INLINE_PNG) == 2)


def run_problems(cell, outputs: list) -> list[str]:
    """What is wrong with ``outputs``, the fresh run of the notebook cell ``cell`` (empty when nothing is)."""
    problems = []
    if "figure" in cell.get("metadata", {}).get("mystnb", {}) and not any(map(shows_png, outputs)):
        shown = sorted({key for o in outputs for key in o.get("data", {})})
        problems.append(f"the cell has figure metadata but its run shows no PNG (it shows {shown})")
    for out in outputs:
        if out.get("output_type") == "stream" and out.get("name") == "stderr":
            problems.append(f"the cell's run writes to stderr:\n{out.get('text', '')[-2000:]}")
    return problems


def check_every_run(items: list) -> None:
    """Make every nbval cell item among ``items`` fail when its fresh run has a problem (``run_problems``)."""
    for item in items:
        if not type(item).__module__.startswith("nbval") or not hasattr(item, "raise_cell_error"):
            continue
        run = item.runtest

        def run_and_check(_item=item, _run=run) -> None:
            _run()
            problems = run_problems(_item.cell, getattr(_item, "test_outputs", []))
            if problems:
                _item.raise_cell_error("The cell ran, but its output is not what the page needs", "\n".join(problems))

        item.runtest = run_and_check


def pytest_collection_modifyitems(items: list) -> None:
    check_every_run(items)
