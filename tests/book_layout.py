"""Where the book's pieces are: the table of contents, the chapters and their jupytext pairs."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"


def config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text())


def toc_files() -> list[str]:
    """Every document of _toc.yml (root first), as paths without suffix relative to the repo root."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(entries: list[dict]) -> None:
        for entry in entries:
            if "file" in entry:
                files.append(entry["file"])
            for key in ("chapters", "sections", "parts"):
                walk(entry.get(key, []))

    for key in ("chapters", "parts"):
        walk(toc.get(key, []))
    return files


def chapter_of_page() -> dict[str, str]:
    """Each page of book/ (its file name without suffix) with the chapter it belongs to: itself for a chapter's first
    page, the chapter whose ``sections`` in _toc.yml list it for a sub-page."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    out = {Path(toc["root"]).name: Path(toc["root"]).name}
    for part in toc.get("parts", []):
        for chapter in part.get("chapters", []):
            if not chapter["file"].startswith("book/"):
                continue  # the back matter
            name = Path(chapter["file"]).name
            out[name] = name
            out |= {Path(section["file"]).name: name for section in chapter.get("sections", [])}
    return out


def chapter_text(chapter: str) -> str:
    """The markdown of a chapter: its first page and then each sub-page, in the order of _toc.yml."""
    pages = [page for page, owner in chapter_of_page().items() if owner == chapter]
    return "\n\n".join((BOOK / f"{page}.md").read_text() for page in pages)


def chapter_notebooks() -> list[Path]:
    """The chapters: every notebook under book/ (each must be listed in _toc.yml)."""
    return sorted(BOOK.glob("*.ipynb"))
