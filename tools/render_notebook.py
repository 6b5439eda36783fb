"""Regenerate a chapter's .ipynb from its MyST .md and execute it in place.

The MyST .md is the reviewed source; the .ipynb (with outputs) is what the book, Colab and nbval
read. Never use ``jupytext --sync`` (it picks the newer file by mtime and can drop an edit):

    python tools/render_notebook.py book/policy_dynamics.md [more.md ...]

Each notebook is executed with the chapter folder as working directory, as nbval and Colab do. Its figures are
saved at twice their pixel density, in two layouts, wide and restacked for a phone (``grpo_nb/plots/
narrow_screens.py``): sharp on a high-density screen and legible on a phone. The inline backend's "retina" format
is kept for any image that is not a matplotlib figure. Colab and Jupyter, which start their own kernel, show the
committed figures until a cell runs again, then their own.
Widget views (ipywidgets sliders, tqdm.auto progress bars) and the saved widget state are dropped from
the result: they need a live kernel, so on the hosted book they would be sliders that move nothing and
finished bars. In Colab, Binder or Jupyter they come back when the cell runs.
With ``--markdown-only`` only the prose and the cells' metadata (tags such as ``hide-input``, MyST-NB's figure
captions) are copied into the existing .ipynb, keeping each code cell's outputs (less the widget views): Markdown
cells may be added, split or moved, but it refuses when the code cells' sources or order differ (then the chapter
must be re-executed).
Either way the chapter's Colab edition (``colab/<name>.ipynb``, ``tools/colab_edition.py``) is written anew from the
notebook.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

RETINA_FIGURES = "--InlineBackend.figure_formats={'retina'}"


def render(md_path: Path, timeout: int = 900) -> Path:
    nb = jupytext.read(md_path)
    nb.metadata.setdefault("kernelspec", {"name": "python3", "display_name": "Python 3", "language": "python"})
    nb.metadata["jupytext"] = {"formats": "ipynb,md:myst"}
    start = time.perf_counter()
    NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(md_path.parent)}},
        extra_arguments=[RETINA_FIGURES],
    ).execute()
    out = md_path.with_suffix(".ipynb")
    drop_widget_views(nb)
    _keep_review_noise_out(nb, out)
    nbformat.write(nb, out)
    print(f"{md_path} -> {out} executed in {time.perf_counter() - start:.1f}s")
    return out


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def drop_widget_views(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Remove the saved widget state and every output that displays a widget (they need a live kernel)."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if WIDGET_VIEW not in o.get("data", {})]
    return nb


def _keep_review_noise_out(nb: nbformat.NotebookNode, out: Path) -> None:
    """Drop execution timestamps and keep the previous cell ids, so a re-render diffs only in content."""
    old = nbformat.read(out, as_version=4).cells if out.exists() else []
    same_layout = [c.cell_type for c in old] == [c.cell_type for c in nb.cells]
    for k, cell in enumerate(nb.cells):
        cell.metadata.pop("execution", None)
        if same_layout and "id" in old[k]:
            cell["id"] = old[k]["id"]


def copy_markdown(md_path: Path) -> Path:
    """Rebuild the .ipynb from the .md's Markdown cells and cell metadata, keeping each code cell's outputs.

    Markdown cells may be added, split, merged or moved between code cells; the code cells must be the same, in the
    same order, and each keeps the outputs (and execution count) of its counterpart in the old notebook."""
    source = jupytext.read(md_path)
    out = md_path.with_suffix(".ipynb")
    old = nbformat.read(out, as_version=4)
    old_code = [c for c in old.cells if c.cell_type == "code"]
    new_code = [c for c in source.cells if c.cell_type == "code"]
    if [c.source for c in new_code] != [c.source for c in old_code]:
        raise SystemExit(f"{md_path}: code cells differ from {out.name}; re-render without --markdown-only")
    for new, kept in zip(new_code, old_code, strict=True):
        new.outputs = kept.outputs
        new.execution_count = kept.get("execution_count")
        if "execution" in kept.metadata:
            new.metadata["execution"] = kept.metadata["execution"]
        if "id" in kept:
            new["id"] = kept["id"]
    same_layout = [c.cell_type for c in old.cells] == [c.cell_type for c in source.cells]
    old_ids = {c.source: c["id"] for c in old.cells if c.cell_type == "markdown" and "id" in c}
    for k, cell in enumerate(source.cells):  # a Markdown cell keeps its id where it stands or where its text is kept
        if cell.cell_type == "markdown" and same_layout and "id" in old.cells[k]:
            cell["id"] = old.cells[k]["id"]
        elif cell.cell_type == "markdown" and cell.source in old_ids:
            cell["id"] = old_ids[cell.source]
    nb = old
    nb.cells = source.cells
    drop_widget_views(nb)
    nbformat.write(nb, out)
    print(f"{md_path} -> {out}: Markdown cells and cell metadata copied, outputs kept")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sources", nargs="+", type=Path, help="MyST .md chapter sources")
    parser.add_argument("--timeout", type=int, default=900, help="per-cell timeout in seconds")
    parser.add_argument("--markdown-only", action="store_true", help="copy prose and cell metadata only; keep outputs")
    args = parser.parse_args(argv)
    for src in args.sources:
        if src.suffix != ".md":
            parser.error(f"{src} is not a .md source")
        copy_markdown(src) if args.markdown_only else render(src, args.timeout)
    from colab_edition import ROOT, write_edition  # tools/colab_edition.py, beside this file

    for src in args.sources:  # each chapter's Colab edition follows its notebook
        page = src.resolve().relative_to(ROOT).with_suffix("").as_posix()
        if write_edition(page):
            print(f"{src} -> colab/{src.stem}.ipynb (the Colab edition)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
