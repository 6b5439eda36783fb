"""What a chapter's kernel loads in a seed sweep (``tools/seed_sweep.py``): it records each claim instead of stopping.

The sweep rewrites every ``assert <test>`` of a chapter's code cells into ``record(key, <test, instrumented>)`` and the
value of every ``seed_claim(chapter, name, <test>)`` into ``record_value(name, <test, instrumented>)``. The
instrumented test computes, besides whether it holds, its *margin*: how far it is from its threshold.

- ``left < right`` (or ``<=``) has margin ``right - left``; ``left > right`` (or ``>=``) has margin ``left - right``;
  the relative margin divides by the larger of ``|left|`` and ``|right|``. On arrays both are elementwise until a
  reduction: ``.all()``/``np.all`` keeps the smallest, ``.any()``/``np.any`` the largest.
- ``a and b`` holds when both hold (evaluated left to right, stopping at the first that fails) and its margin is the
  smaller one; ``a or b`` the larger.
- Anything else (``==``, a call, ``not``) holds or fails and has no margin (``None``).

At the end of the notebook the sweep calls :func:`dump`, which writes the records as JSON.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

RECORDS: list[dict] = []
ORDERED = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}


@dataclass
class Verdict:
    """A claim's value: ``held`` (bool or elementwise bool array) and its ``margin``/``relative`` (same shape or
    None)."""

    held: object
    margin: object = None
    relative: object = None

    def reduced(self, how: str = "all") -> Verdict:
        held = np.asarray(self.held, dtype=bool)
        if self.margin is None:
            return Verdict(bool(held.all() if how == "all" else held.any()))
        pick = np.min if how == "all" else np.max
        margin, relative = np.asarray(self.margin, dtype=float), np.asarray(self.relative, dtype=float)
        if margin.size == 0:
            return Verdict(bool(held.all() if how == "all" else held.any()))
        return Verdict(bool(held.all() if how == "all" else held.any()), float(pick(margin)), float(pick(relative)))


def _numeric(x: object) -> np.ndarray | None:
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        return None
    return a


def compare(left: object, op: str, right: object) -> Verdict:
    """``left op right`` with its elementwise margin (``op`` one of < <= > >=; other operators carry no margin)."""
    if op not in ORDERED:
        value = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b}[op](left, right)
        return Verdict(np.asarray(value, dtype=bool) if isinstance(value, np.ndarray) else bool(value))
    lnum, rnum = _numeric(left), _numeric(right)
    held = ORDERED[op](left, right)
    if lnum is None or rnum is None:
        return Verdict(held)
    margin = rnum - lnum if op in ("<", "<=") else lnum - rnum
    scale = np.maximum(np.abs(lnum), np.abs(rnum))
    with np.errstate(divide="ignore", invalid="ignore"):
        relative = np.where(scale > 0, margin / np.where(scale > 0, scale, 1.0), np.sign(margin))
    return Verdict(held, margin, relative)


def chain(values: list, ops: list[str]) -> Verdict:
    """``a < b <= c`` as ``(a < b) and (b <= c)``, every operand evaluated once."""
    parts = [compare(values[i], op, values[i + 1]) for i, op in enumerate(ops)]
    return both(*[(lambda v=v: v) for v in parts])


def as_verdict(value: object) -> Verdict:
    return value if isinstance(value, Verdict) else Verdict(bool(value))


def reduce(value: object, how: str) -> Verdict:
    """``value.all()``/``value.any()`` (``np.all``/``np.any``) of an instrumented comparison, margins reduced too."""
    if isinstance(value, Verdict):
        return value.reduced(how)
    return Verdict(bool(np.all(value) if how == "all" else np.any(value)))


def _top(value: object) -> Verdict:
    verdict = as_verdict(value)
    return verdict.reduced("all") if isinstance(verdict.held, np.ndarray) else verdict


def both(*thunks) -> Verdict:
    """``a and b and ...``: stops at the first part that fails; the margin is the smallest of those evaluated."""
    parts = []
    for thunk in thunks:
        part = _top(thunk())
        parts.append(part)
        if not part.held:
            break
    margins = [p for p in parts if p.margin is not None]
    held = all(p.held for p in parts) and len(parts) == len(thunks)
    if not margins:
        return Verdict(held)
    return Verdict(held, min(p.margin for p in margins), min(p.relative for p in margins))


def either(*thunks) -> Verdict:
    """``a or b or ...``: stops at the first part that holds; the margin is the largest of those evaluated."""
    parts = []
    for thunk in thunks:
        part = _top(thunk())
        parts.append(part)
        if part.held:
            break
    margins = [p for p in parts if p.margin is not None]
    held = any(p.held for p in parts)
    if not margins:
        return Verdict(held)
    return Verdict(held, max(p.margin for p in margins), max(p.relative for p in margins))


def negate(value: object) -> Verdict:
    return Verdict(not _top(value).held)


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def record(key: str, value: object) -> None:
    """Record one evaluation of the claim ``key`` (an assert's test; a claim inside a loop is recorded per pass)."""
    verdict = _top(value)
    RECORDS.append(
        {
            "key": key,
            "held": bool(verdict.held),
            "margin": _finite(verdict.margin),
            "relative_margin": _finite(verdict.relative),
        }
    )


def record_value(key: str, value: object) -> bool:
    """Record the claim ``key`` stated as a frequency (``seed_claim``) and hand its truth value on."""
    record(key, value)
    return bool(_top(value).held)


def stated(chapter: str, name: str, held: bool) -> str:
    """Stands in for ``grpo_nb.report.seed_claim`` during a sweep: the claim was recorded by :func:`record_value`."""
    return f"{name}: {'holds' if held else 'fails'} at this seed ({chapter})"


def summary(chapter: str) -> str:
    """Stands in for ``grpo_nb.report.seed_sweep_summary`` during a sweep (the report is being made)."""
    return f"the seed sweep of {chapter} is being made"


def dump(path: str) -> None:
    with open(path, "w") as f:
        json.dump(RECORDS, f)
