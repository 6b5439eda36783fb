"""Regenerate a chapter's .ipynb from its MyST .md and execute it in place.

The MyST .md is the reviewed source; the .ipynb (with outputs) is what the book, Colab and nbval
read. Never use ``jupytext --sync`` (it picks the newer file by mtime and can drop an edit):

    python tools/render_notebook.py book/policy_dynamics.md [more.md ...]

Each notebook is executed with the chapter folder as working directory, as nbval and Colab do.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient


def render(md_path: Path, timeout: int = 900) -> Path:
    nb = jupytext.read(md_path)
    nb.metadata.setdefault("kernelspec", {"name": "python3", "display_name": "Python 3", "language": "python"})
    nb.metadata["jupytext"] = {"formats": "ipynb,md:myst"}
    start = time.perf_counter()
    NotebookClient(
        nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(md_path.parent)}}
    ).execute()
    out = md_path.with_suffix(".ipynb")
    nbformat.write(nb, out)
    print(f"{md_path} -> {out} executed in {time.perf_counter() - start:.1f}s")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sources", nargs="+", type=Path, help="MyST .md chapter sources")
    parser.add_argument("--timeout", type=int, default=900, help="per-cell timeout in seconds")
    args = parser.parse_args(argv)
    for src in args.sources:
        if src.suffix != ".md":
            parser.error(f"{src} is not a .md source")
        render(src, args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
