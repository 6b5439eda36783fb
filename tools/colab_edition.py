"""The Colab edition: every chapter's notebook with its Markdown in plain CommonMark, for Colab and Jupyter.

    python tools/colab_edition.py            # write colab/<chapter>.ipynb for every chapter of _toc.yml
    python tools/colab_edition.py --check    # exit 1, naming them, where a committed edition differs

The book's notebooks (``book/<chapter>.ipynb``) are MyST: admonitions, proofs and dropdowns are fenced directives,
citations and cross-references are roles, sections carry ``(label)=`` targets. Jupyter Book renders them; Colab and
Jupyter show them as text. The Colab edition keeps every code cell of the book's notebook as it is (source, tags,
outputs) and converts each Markdown cell, parsed by markdown-it-py with the MyST plugins of mdit-py-plugins (the
parser MyST itself uses), block by block:

- ``(label)=`` targets, ``%`` comments and ``+++`` breaks are dropped;
- an admonition or a theorem-like block (``prf:theorem``, ``prf:lemma`` …) becomes a box with a bold title
  (Jupyter's alert block, a plain block in Colab), a proof text that starts with **Proof.**; a dropdown becomes
  ``<details><summary>``; a ``{math}`` block becomes ``$$ … $$``; a fold's ``{rubric}`` (``_ext/details_sections.py``)
  becomes a bold line, and what it folds on the hosted page stays in view below it;
- a slider figure (``browser-figure``) becomes one line that links to it on the hosted page (its sliders run there;
  the chapter's ipywidgets explorer is in the code cell below it), and the page scripts it needs are dropped;
- ``{cite}`` becomes "(Author et al., year)" linked to the entry of the hosted bibliography; ``{ref}``, ``{doc}`` and
  ``{prf:ref}`` become the text the book shows, linked to the hosted page and anchor.

Everything else (paragraphs, headings, lists, tables, ``$ … $`` and ``$$ … $$`` math) is copied as written. A
directive or role the converter does not know stops it with its name, so that no MyST reaches a reader. The
edition's first cell says what it is and links to the chapter on the hosted book.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import nbformat
import yaml
from docutils.nodes import make_id
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.amsmath import amsmath_plugin
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin
from mdit_py_plugins.myst_role import myst_role_plugin
from pybtex.database import parse_file

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
EDITION = ROOT / "colab"
DROPPED_BLOCKS = ("myst_target", "myst_line_comment", "myst_block_break")
TITLED = {"admonition": None, "note": "Note", "tip": "Tip", "warning": "Warning", "important": "Important"}


def myst_parser() -> MarkdownIt:
    """markdown-it with the MyST syntax the book uses: roles, targets, colon fences, dollar and amsmath math, tables."""
    parser = MarkdownIt("commonmark").enable("table")
    for plugin in (myst_role_plugin, myst_block_plugin, colon_fence_plugin, dollarmath_plugin, amsmath_plugin):
        parser = parser.use(plugin)
    return parser


PARSER = myst_parser()


@dataclass(frozen=True)
class Book:
    """What a converted cell links to: the hosted book's address, each chapter's number and title, the page and
    kind of every label, each bibliography entry's "Author et al., year", and the anchor of an entry (``cite_id``,
    ``_config.yml``'s ``bibtex_cite_id``, a template of its key)."""

    url: str
    cite_id: str
    chapters: dict[str, tuple[int | str | None, str]]  # a sub-page's number is its chapter's and its own: "10.2"
    labels: dict[str, tuple[str, str]]
    citations: dict[str, str]

    def page_url(self, page: str, anchor: str = "") -> str:
        return f"{self.url}{page}.html" + (f"#{anchor}" if anchor else "")


def _toc_pages() -> list[tuple[str, bool, bool]]:
    """Every page of ``_toc.yml`` in order, with whether its part is numbered (the root is not) and whether it is a
    chapter's sub-page (listed under the chapter's ``sections``)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    pages = [(toc["root"], False, False)]
    for part in toc.get("parts", []):
        numbered = bool(part.get("numbered"))
        for chapter in part["chapters"]:
            pages.append((chapter["file"], numbered, False))
            pages += [(section["file"], numbered, True) for section in chapter.get("sections", [])]
    return pages


def chapter_pages() -> list[str]:
    """The chapters with a notebook, in the book's order (``book/<name>``)."""
    return [page for page, *_ in _toc_pages() if (ROOT / f"{page}.ipynb").is_file()]


def _title(source: str) -> str:
    match = re.search(r"^# (.+)$", source, flags=re.MULTILINE)
    if match is None:
        raise ValueError("a page without a '# ' title")
    return match.group(1).strip()


def _author_year(entry) -> str:
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [" ".join(p.last_names) for p in people if " ".join(p.last_names) != "others"]
    if not names:
        names = [entry.fields.get("organization", entry.fields.get("title", "?"))]
    etal = len(names) > 2 or len(names) < len(people)
    who = f"{names[0]} et al." if etal else " and ".join(names)
    return f"{who}, {entry.fields.get('year', 'n.d.')}".replace("{", "").replace("}", "")


def _labels(page: str, source: str) -> dict[str, tuple[str, str]]:
    """Every label of a page: ``(label)=`` targets ("section") and theorem-like ``:label:`` options (their kind)."""
    found = {m.group(1): (page, "section") for m in re.finditer(r"^\(([^)\s]+)\)=\s*$", source, flags=re.MULTILINE)}
    for m in re.finditer(r"^[`:]{3,}\{prf:(\w+)\}[^\n]*\n:label: (\S+)", source, flags=re.MULTILINE):
        found[m.group(2)] = (page, m.group(1))
    return found


def _own_sections(source: str) -> int:
    """How many ``##`` headings a page has outside its code blocks: the numbers Sphinx gives them come before its
    sub-pages' (a first page whose sections are rubrics has none)."""
    prose = re.sub(r"^(`{3,}|:{3,}).*?^\1\s*$", "", source, flags=re.MULTILINE | re.DOTALL)
    return len(re.findall(r"^## ", prose, flags=re.MULTILINE))


@cache
def book() -> Book:
    """The :class:`Book` of this repository: ``_config.yml``, ``_toc.yml``, the pages' sources, ``references.bib``."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["config"]
    chapters, labels, number, sub = {}, {}, 0, 0
    for page, numbered, section in _toc_pages():
        path = ROOT / f"{page}.md"
        source = path.read_text()
        # Sphinx numbers a chapter's own ## sections first (n.1, n.2, ...), its sub-pages after them
        number, sub = (number, sub + 1) if section else (number + numbered, _own_sections(source))
        chapters[page] = ((f"{number}.{sub}" if section else number) if numbered else None, _title(source))
        labels.update(_labels(page, source))
    entries = parse_file(str(ROOT / "references.bib")).entries
    citations = {key: _author_year(entry) for key, entry in entries.items()}
    return Book(config["ogp_site_url"], config["bibtex_cite_id"], chapters, labels, citations)


def _split_target(content: str) -> tuple[str | None, str]:
    """A role's ``text <target>`` as (text, target); a bare target as (None, target)."""
    match = re.fullmatch(r"(.*?)\s*<([^<>]+)>", content.strip(), flags=re.DOTALL)
    return (match.group(1), match.group(2)) if match else (None, content.strip())


def _resolve_doc(page: str, target: str) -> str:
    """The toc page a ``{doc}`` target names, relative to ``page`` (from ``book/x``, ``cheat_sheet`` is
    ``book/cheat_sheet``)."""
    base = Path(page).parent
    resolved = Path(target.lstrip("/")) if target.startswith("/") else base / target
    parts: list[str] = []
    for part in resolved.parts:
        if part == "..":
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def _theorem_number(label: str) -> str:
    """The number the book gives a theorem-like block that a bare ``{prf:ref}`` names: chapter.k, k counting the
    blocks of the same kind on the chapter's pages, in the book's order."""
    b = book()
    page, kind = b.labels[label]
    chapter = str(b.chapters[page][0]).split(".")[0]  # a chapter's sub-pages continue its count
    same = [name for name, (p, k) in b.labels.items() if str(b.chapters[p][0]).split(".")[0] == chapter and k == kind]
    return f"{kind.capitalize()} {chapter}.{same.index(label) + 1}"


def convert_role(name: str, content: str, page: str) -> str:
    """One MyST role as plain Markdown (module docstring); an unknown role raises ValueError naming it."""
    b = book()
    if name == "cite":
        keys = [k.strip() for k in content.split(",")]
        missing = [k for k in keys if k not in b.citations]
        if missing:
            raise ValueError(f"{page}: {{cite}} of unknown keys {missing}")
        cites = [f"[{b.citations[k]}]({b.url}bibliography.html#{make_id(b.cite_id.format(key=k))})" for k in keys]
        return "(" + "; ".join(cites) + ")"
    if name == "math":
        return f"${content}$"
    text, target = _split_target(content)
    if name == "doc":
        doc = _resolve_doc(page, target)
        if doc not in b.chapters:
            raise ValueError(f"{page}: {{doc}} of an unknown page {target!r}")
        return f"[{text or b.chapters[doc][1]}]({b.page_url(doc)})"
    if name in ("ref", "prf:ref"):
        if target not in b.labels:
            raise ValueError(f"{page}: {{{name}}} of an unknown label {target!r}")
        where, kind = b.labels[target]
        if text is None:
            if kind == "section":
                raise ValueError(f"{page}: {{ref}}`{target}` needs its text")
            text = _theorem_number(target)
        return f"[{text}]({b.page_url(where, target)})"
    raise ValueError(f"{page}: the role {{{name}}} has no plain-Markdown form")


def convert_href(href: str, page: str) -> str:
    """A link's target on the hosted book: ``#anchor`` on the page that holds that label (as MyST resolves it: this
    page's own anchor, else a label of another page), or a chapter's source (``x.md#anchor``, ``x.ipynb``) relative
    to it; any other link is kept."""
    target, _, anchor = href.partition("#")
    if not target:
        return book().page_url(book().labels.get(anchor, (page,))[0], anchor)
    if "://" in target or not target.endswith((".md", ".ipynb")):
        return href
    doc = _resolve_doc(page, target.rsplit(".", 1)[0])
    if doc not in book().chapters:
        raise ValueError(f"{page}: a link to {href!r}, which is no page of the book")
    return book().page_url(doc, anchor)


def _convert_links(text: str, tokens: list[Token], page: str) -> str:
    """``text`` with each relative link of the parsed ``tokens`` pointing at the hosted book (:func:`convert_href`)."""
    for token in tokens:
        for link in (t for t in token.children or [] if t.type == "link_open"):
            href = str(link.attrs["href"])
            moved = convert_href(href, page)
            if moved != href:
                if f"]({href})" not in text:
                    raise ValueError(f"{page}: cannot find the link ({href}) in its block")
                text = text.replace(f"]({href})", f"]({moved})", 1)
    return text


def _roles(tokens: list[Token]) -> list[Token]:
    found = []
    for token in tokens:
        found += [t for t in token.children or [] if t.type == "myst_role"]
    return found


def _convert_inline(text: str, tokens: list[Token], page: str) -> str:
    """``text`` (the source of parsed ``tokens``) with each role the tokens hold replaced by its plain form."""
    for role in _roles(tokens):
        name, content = role.meta["name"], role.content
        words = r"\s+".join(re.escape(word) for word in content.split())  # a role may run over a line break
        found = re.search(rf"\{{{re.escape(name)}\}}(`+){words}\1", text)
        if found is None:
            raise ValueError(f"{page}: cannot find the role {{{name}}}`{content}` in its block")
        text = text[: found.start()] + convert_role(name, " ".join(content.split()), page) + text[found.end() :]
    return text


def _directive(token: Token) -> tuple[str, str, dict[str, str], str]:
    """A fenced directive's name, argument, ``:key: value`` options and body."""
    info = token.info.strip()
    name, argument = info[1 : info.index("}")], info[info.index("}") + 1 :].strip()
    lines = token.content.splitlines()
    options = {}
    while lines and re.match(r"^:[\w-]+:", lines[0]):
        key, _, value = lines.pop(0)[1:].partition(":")
        options[key] = value.strip()
    return name, argument, options, "\n".join(lines).strip("\n")


def _box(title: str, body: str, kind: str = "info") -> str:
    """A titled block: Jupyter's alert box (a plain block in Colab) around Markdown, with blank lines so that the
    Markdown inside is rendered. Not a ``>`` quote: Jupyter takes math out before Markdown, and a quote's ``>``
    markers inside a ``$$`` block would become part of the formula."""
    return f'<div class="alert alert-block alert-{kind}">\n\n**{title}**\n\n{body}\n\n</div>'


def _browser_figure(options: dict[str, str], page: str) -> str:
    url = book().page_url(page, options.get("name", ""))
    return (
        f"*This figure's sliders run in the browser on [the book's page]({url}). In this notebook, the explorer in "
        "the code cell below draws it with ipywidgets.*"
    )


def convert_directive(token: Token, page: str) -> str:
    """One fenced directive as plain Markdown (module docstring); an unknown one raises ValueError naming it."""
    name, argument, options, body = _directive(token)
    if name == "browser-figure":
        return _browser_figure(options, page)
    inner = convert_markdown(body, page)
    title = _convert_inline(argument, PARSER.parseInline(argument), page) if argument else ""
    if name in TITLED:
        return _box(title or TITLED[name] or "Note", inner, "success" if "tip" in options.get("class", "") else "info")
    if name.startswith("prf:"):
        kind = name[4:].capitalize()
        if kind == "Proof":  # follows its statement's box, as plain text
            joined = not inner.startswith(("$$", "<", "-", "*", "1."))  # a paragraph: on the title's line
            return f"**Proof.** {inner}" if joined else f"**Proof.**\n\n{inner}"
        return _box(f"{kind} ({title})." if title else f"{kind}.", inner)
    if name == "rubric":  # a fold's label on the hosted page (_ext/details_sections.py); here what follows is in view
        return f"**{title}**"
    if name == "dropdown":
        return f"<details><summary>{title}</summary>\n\n{inner}\n\n</details>"
    if name == "math":
        return f"$$\n{inner}\n$$"
    raise ValueError(f"{page}: the directive {{{name}}} has no plain-Markdown form")


def _is_page_script(token: Token) -> bool:
    return token.type == "html_block" and all(
        line.strip().startswith("<script") for line in token.content.splitlines() if line.strip()
    )


def convert_markdown(source: str, page: str) -> str:
    """A Markdown cell's MyST source as plain Markdown, block by block (module docstring)."""
    lines = source.splitlines()
    tokens = PARSER.parse(source)
    out: list[str] = []
    done = 0
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.level != 0 or token.map is None:
            i += 1
            continue
        start, end = token.map
        close = i
        if token.nesting == 1:  # the block's tokens run to its closing token
            depth = 0
            for close in range(i, len(tokens)):
                depth += tokens[close].nesting
                if depth == 0:
                    break
        out += lines[done:start]
        block = "\n".join(lines[start:end])
        if token.type in DROPPED_BLOCKS or _is_page_script(token):
            converted = None
        elif token.type in ("fence", "colon_fence") and token.info.strip().startswith("{"):
            converted = convert_directive(token, page)
        else:
            converted = _convert_inline(_convert_links(block, tokens[i : close + 1], page), tokens[i : close + 1], page)
        if converted is not None:
            out.append(converted)
        done = end
        i = close + 1
    out += lines[done:]
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


def myst_leftovers(source: str) -> list[str]:
    """What of MyST a Markdown text still holds: roles, targets, comments, block breaks, colon fences and directive
    fences, each as the parser found it (empty for plain Markdown)."""
    found = []
    for token in PARSER.parse(source):
        if token.type in ("myst_target", "myst_line_comment", "myst_block_break", "colon_fence"):
            found.append(f"{token.type}: {token.content or token.info}".strip())
        elif token.type == "fence" and token.info.strip().startswith("{"):
            found.append(f"directive: {token.info.strip()}")
        found += [f"role: {{{t.meta['name']}}}`{t.content}`" for t in _roles([token])]
    return found


def _header(page: str) -> nbformat.NotebookNode:
    b = book()
    number, title = b.chapters[page]
    name = f"{'Section' if '.' in str(number) else 'Chapter'} {number}, {title}" if number else title
    text = (
        f"*GRPO, executable*: {name}. This is the page's notebook for Colab and Jupyter; the book's own page, "
        f"with its slider figures and its folds, is [on the book's website]({b.page_url(page)}). Run the first code "
        "cell to install the book's package, then the others from top to bottom."
    )
    return nbformat.v4.new_markdown_cell(text, id="colab-edition")


def colab_edition(page: str) -> nbformat.NotebookNode:
    """The Colab edition of ``page`` (``book/<name>``): the book's notebook with its Markdown cells converted and a
    first cell that says what it is."""
    nb = nbformat.read(ROOT / f"{page}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = convert_markdown(cell.source, page)
    nb.cells.insert(0, _header(page))
    return nb


def edition_path(page: str) -> Path:
    return EDITION / f"{Path(page).name}.ipynb"


def write_edition(page: str, *, check: bool = False) -> bool:
    """Write (or, with ``check``, only compare) the edition of ``page``; whether the committed one differed."""
    text = nbformat.writes(colab_edition(page)) + "\n"
    path = edition_path(page)
    differs = not path.is_file() or path.read_text() != text
    if differs and not check:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    return differs


def write_all(check: bool = False) -> list[Path]:
    """Write (or, with ``check``, compare) every chapter's edition; returns the editions that differ."""
    return [edition_path(page) for page in chapter_pages() if write_edition(page, check=check)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed editions, write nothing")
    args = parser.parse_args(argv)
    differ = write_all(check=args.check)
    for path in differ:
        print(f"{'differs' if args.check else 'wrote'}: {path.relative_to(ROOT)}")
    return 1 if args.check and differ else 0


if __name__ == "__main__":
    sys.exit(main())
