"""Section "Feigenbaum's constant" of the chapter "Hard prompts: bifurcations, cycles and chaos"
(``book/hard_prompts_cascade.md``): the ratios delta_k of the doubling and superstable points of each cascade against
Feigenbaum's delta.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grpo_nb.chapters.hard_prompts.period_doubling import Cascade
from grpo_nb.dynamics.bifurcation import FEIGENBAUM_DELTA, accumulation_point, feigenbaum_ratios

__all__ = ["FeigenbaumSummary", "feigenbaum_summary"]


@dataclass(frozen=True)
class FeigenbaumSummary:
    """Ratios delta_k of every cascade (B and R sequences), their distance to Feigenbaum's delta, and a table.

    ratios: label -> delta_1, delta_2, ...; first_error / last_error: |delta_1 - delta| and |delta_last - delta|
    per sequence; rows: p_ref, eps, sequence, delta_1, delta_3, the last two ratios, :func:`accumulation_point`.
    """

    ratios: dict[str, np.ndarray]
    first_error: np.ndarray
    last_error: np.ndarray
    rows: list[list]


def _tex(x: float) -> str:
    """A power of ten as TeX (``10^{-4}``), any other number as ``format(x, "g")``."""
    mantissa, exponent = f"{x:.12e}".split("e")  # decimal digits, not log10: the same on every machine
    return f"10^{{{int(exponent)}}}" if float(mantissa) == 1.0 else f"{x:g}"


def feigenbaum_summary(cascades: Sequence[Cascade]) -> FeigenbaumSummary:
    """Feigenbaum ratios (:func:`feigenbaum_ratios`) of the B_k and R_k of each cascade (>= 5 points each) (section
    "Feigenbaum's constant")."""
    if not isinstance(cascades, Sequence) or not cascades or not all(isinstance(c, Cascade) for c in cascades):
        raise ValueError(f"cascades={cascades!r} is invalid; valid input is a non-empty list of cascade_check results")
    ratios, first, last, rows = {}, [], [], []
    for i, c in enumerate(cascades):
        for name, seq in (("B", c.doubling), ("R", c.superstable)):
            if seq.size < 5:
                raise ValueError(
                    f"cascades[{i}] has {seq.size} points {name}_k; valid: >= 5 (cascade_check with n_doublings >= 5)"
                )
            d = feigenbaum_ratios(seq)
            ratios[rf"${name}_k$, $p_{{\mathrm{{ref}}}} = {_tex(c.p_ref)}$, $\varepsilon = {_tex(c.eps)}$"] = d
            first.append(abs(d[0] - FEIGENBAUM_DELTA))
            last.append(abs(d[-1] - FEIGENBAUM_DELTA))
            rows.append([c.p_ref, c.eps, name, d[0], d[2], d[-2], d[-1], accumulation_point(seq)])
    return FeigenbaumSummary(ratios, np.array(first), np.array(last), rows)
