"""Small display helpers for chapters: Markdown tables with fixed number formatting.

Fixed formatting keeps committed outputs stable under nbval (no platform-dependent last digits).
The book renders Markdown outputs as MyST (``nb_render_markdown_format: myst`` in ``_config.yml``), like
its prose: ``$...$`` in a cell is math, and a ``|`` inside a cell must be escaped or it splits the cell.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources

from IPython.display import Markdown

__all__ = [
    "NO_VALUE",
    "SEED_SWEEP_FILE",
    "SweptClaim",
    "Table",
    "Verdicts",
    "bound",
    "escape_markdown",
    "markdown_table",
    "seed_claim",
    "seed_sweep_report",
    "seed_sweep_summary",
    "show_checked",
]

NO_VALUE = "—"  # a NaN in a table marks a cell with no value (e.g. no next term): shown as a dash, not "nan"

# Characters that start emphasis, code, links, math, HTML or a table cell in MyST/CommonMark text.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|$~])")
# A pipe that is not already escaped (preceded by an even number of backslashes).
_BARE_PIPE = re.compile(r"(?<!\\)((?:\\\\)*)\|")


def escape_markdown(text: str) -> str:
    """``text`` shown literally in Markdown: ``p*``, ``a_b``, ``|x|`` or ``$5`` stay as typed."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def _cell(text: str) -> str:
    """A table cell: Markdown as given, with every unescaped ``|`` escaped so that it stays in its cell."""
    return _BARE_PIPE.sub(r"\1\\|", text.replace("\n", " "))


def _fmt(value: object, fmt: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and math.isnan(value):
        return NO_VALUE
    try:
        return format(value, fmt)
    except (TypeError, ValueError):
        return str(value)


def bound(x: float, tol: float) -> str:
    """A residual shown as the bound its check uses: ``"< 1e-05"`` when ``x < tol``, else ``x`` itself.

    A rounding-level difference ("these agree") has last digits that vary with the CPU, the thread count and
    the library build; the page prints the tolerance it was checked against, never those digits. A value at
    or above the tolerance is printed as it is, so a failing check shows what it found."""
    return f"< {tol:.0e}" if x < tol else f"{x:.1e}"


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[object]], fmt: str = ".4g") -> Markdown:
    """A Markdown table; numbers are formatted with ``fmt`` (strings pass through unchanged).

    Headers and string cells are Markdown (``$p^*$`` is typeset); a ``|`` in them is kept in its cell.
    A NaN stands for "no value" and is shown as ``NO_VALUE`` (a dash).
    """
    lines = ["| " + " | ".join(_cell(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        lines.append("| " + " | ".join(_cell(_fmt(v, fmt)) for v in row) + " |")
    return Markdown("\n".join(lines))


def show_checked(identities: object, *, brief: bool = False) -> None:
    """Display checked identities and assert that each holds (the chapters' "show it, then check it" step).

    ``identities`` is one :class:`grpo_nb.symbolic.identity.Identity` or a list of them. Each is shown with both
    sides and its relation, or with ``brief=True`` as its name and the residual sympy simplified to; an identity
    that does not hold raises AssertionError naming it.
    """
    import sympy as sp
    from IPython.display import display

    for ident in identities if isinstance(identities, (list, tuple)) else [identities]:
        if brief:
            display(Markdown(f"**{ident.name}**: residual simplifies to ${sp.latex(ident.residual)}$"))
        else:
            display(ident)
        if not ident.holds:
            raise AssertionError(f"{ident.name} does not hold")


class Table:
    """A table that a grpo_nb function returns with its verdicts: headers, rows and the number format.

    Displayed in a notebook as a Markdown table (:func:`markdown_table`); its plain-text form is the same Markdown, so
    a committed output shows the formatted numbers only.
    """

    def __init__(self, headers: Sequence[str], rows: Iterable[Sequence[object]], fmt: str = ".4g") -> None:
        self.headers = list(headers)
        self.rows = [list(r) for r in rows]
        self.fmt = fmt

    def column(self, header: str) -> list[object]:
        """The raw (unformatted) values of one column."""
        i = self.headers.index(header)
        return [row[i] for row in self.rows]

    def _repr_markdown_(self) -> str:
        return markdown_table(self.headers, self.rows, self.fmt).data

    def __repr__(self) -> str:
        return self._repr_markdown_()


class Verdicts:
    """The base of a check's result that carries ``verdicts``, one bool per statement it checks: the result
    ``holds`` when every statement does. It adds no field (each result declares its own ``verdicts``)."""

    verdicts: Mapping[object, bool]

    @property
    def holds(self) -> bool:
        return all(self.verdicts.values())


# --- claims about sampled runs, stated from the seed sweep ----------------------------------------------------------

SEED_SWEEP_FILE = "seed_sweep.json"  # under grpo_nb/data/, written by tools/seed_sweep.py


def seed_sweep_report() -> dict:
    """The committed seed sweep (``tools/seed_sweep.py``): per chapter, its seeds, the machine, and for each claim
    about a sampled run at how many seeds it held and its smallest margin. Ships with the package."""
    return json.loads((resources.files("grpo_nb") / "data" / SEED_SWEEP_FILE).read_text())


@dataclass(frozen=True)
class SweptClaim:
    """A claim about a sampled run that does not hold at every seed, stated as how often it held in the sweep."""

    chapter: str
    name: str
    held: int
    n_seeds: int

    def __str__(self) -> str:
        return f"{self.name}: at {self.held} of the sweep's {self.n_seeds} seeds"


def seed_claim(chapter: str, name: str, value: object) -> SweptClaim:
    """State the claim ``name`` of ``chapter`` as the frequency the seed sweep measured, not as an assert.

    ``value`` is the claim on this page's draw; a live run does not read it (the page would then depend on the seed),
    but the sweep records it, under ``name``, at every seed (``tools/seed_sweep.py``). ValueError where the committed
    report has no such claim."""
    del value  # evaluated by the caller, recorded by the sweep
    entry = seed_sweep_report()["chapters"].get(chapter)
    claims = {c["key"]: c for c in entry["claims"]} if entry else {}
    if name not in claims:
        raise ValueError(f"name={name!r}: no such claim of chapter={chapter!r} in grpo_nb/data/{SEED_SWEEP_FILE}")
    return SweptClaim(chapter, name, claims[name]["held"], claims[name]["n_seeds"])


def seed_sweep_summary(chapter: str) -> str:
    """One sentence on the committed seed sweep of ``chapter``: its seeds and machine, that every live assert held at
    each seed (``tests/chapters/test_seed_sweep.py`` enforces it), how many claims are stated as frequencies, and how
    many asserts the sweep never reached (a GPU-only branch)."""
    entry = seed_sweep_report()["chapters"].get(chapter)
    if entry is None:
        raise ValueError(f"chapter={chapter!r}: not in grpo_nb/data/{SEED_SWEEP_FILE}")
    seeds, claims = entry["seeds"], [c for c in entry["claims"] if c["n_seeds"] > 0]
    asserted, stated = [c for c in claims if c["kind"] == "assert"], [c for c in claims if c["kind"] == "stated"]
    unreached = len(entry["claims"]) - len(claims)  # asserts on a branch the sweep's machine never takes (a GPU's)
    span = f"{min(seeds)} to {max(seeds)}" if len(seeds) == max(seeds) - min(seeds) + 1 else ", ".join(map(str, seeds))
    held = sum(c["held"] == c["n_seeds"] for c in asserted)
    text = (
        f"The seed sweep ran this page's sampled computations at {len(seeds)} seeds ({span}), each in a fresh kernel "
        f"on one thread of an {entry['machine']['processor']} with another CPU's rounding simulated: {held} of its "
        f"{len(asserted)} asserts held at every seed"
    )
    if len(stated) == 1:
        text += "; 1 claim that did not is stated with its frequency"
    elif stated:
        text += f"; {len(stated)} claims that did not are stated with their frequency"
    if unreached:
        text += f" ({unreached} more only run{'s' if unreached == 1 else ''} on a GPU, which the sweep's machine lacks)"
    return text + "."
