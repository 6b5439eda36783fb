"""Errata of Mroueh (2025) v1, each with a check that the corrected statement holds and, where the printed one is a
formula, that the printed one fails.

Only slips of the paper itself are listed. Gaps left by the PDF-to-text extraction of our copy (a vanished minus
sign, "<" or inline formula, e.g. "Assuming 0 and replacing" or "(1ϵ)") are not errata and are not listed.
A row whose printed text could also be what the extraction made of a correct formula (a lost pair of parentheses,
say) is kept, with :attr:`Erratum.extraction` set: the table marks it "unverified: extraction".
Four kinds: ``formula`` (a printed expression is wrong), ``reference`` (a step cites the wrong lemma), ``step`` (a
true inequality too weak for the conclusion drawn from it), and ``statement`` (the claim needs a stronger or weaker
form; the chapter named in :attr:`Erratum.chapter` settles it).

The rows live in :mod:`grpo_nb.symbolic.errata_rows`, one module per group of the paper's sections; this module
puts them together in the paper's order (:func:`errata`), sets them as a table (:func:`errata_table`, with
:func:`typeset` for their plain-text formulas) and re-exports the checks the chapter and its tests read. The row on
TRL (§2.3) reads TRL's loss as :func:`grpo_nb.family.loss` models it; the family sits above the symbolic layer, so
the caller passes that function in (``family_loss``), as the chapter's :func:`grpo_nb.chapters.appendix_proofs.errata`
does.
"""

from __future__ import annotations

import re

from IPython.display import Markdown

from grpo_nb.report import escape_markdown, markdown_table
from grpo_nb.symbolic.errata_rows import (
    amplification,
    convergence,
    effective_loss,
    parametric,
    policy_dynamics,
    proofs,
    trl,
)
from grpo_nb.symbolic.errata_rows.amplification import fig3_readings, fig4_reading_checks
from grpo_nb.symbolic.errata_rows.convergence import (
    CONVERGENCE_CASES,
    absorbing_p_ref_check,
    divergent_remark,
    orbit_converges,
    p_c_prediction,
    stable_two_cycle,
    threshold_reading_check,
)
from grpo_nb.symbolic.errata_rows.effective_loss import (
    EQ3_PRINTED_READINGS,
    eq3_printed_check,
    eq3_weights_check,
    section21_display_check,
    section21_numeric_gap,
    unclipped_deviation,
)
from grpo_nb.symbolic.errata_rows.parametric import DELTAS, TV0, theorem5_unrolled_check
from grpo_nb.symbolic.errata_rows.proofs import (
    LEMMA2_DISPLAY_RHS,
    f_at_zero_check,
    lemma2_display_check,
    printed_eq9_ratio,
    printed_lemma3_sigma_product,
)
from grpo_nb.symbolic.errata_rows.record import Erratum
from grpo_nb.symbolic.errata_rows.trl import FamilyLoss, clip_gradient_gap, k3_gradient_gaps, trl_checks

__all__ = [
    "CONVERGENCE_CASES",
    "DELTAS",
    "EQ3_PRINTED_READINGS",
    "Erratum",
    "FamilyLoss",
    "LEMMA2_DISPLAY_RHS",
    "TV0",
    "absorbing_p_ref_check",
    "clip_gradient_gap",
    "divergent_remark",
    "eq3_printed_check",
    "eq3_weights_check",
    "errata",
    "errata_table",
    "f_at_zero_check",
    "fig3_readings",
    "fig4_reading_checks",
    "k3_gradient_gaps",
    "lemma2_display_check",
    "orbit_converges",
    "p_c_prediction",
    "printed_eq9_ratio",
    "printed_lemma3_sigma_product",
    "section21_display_check",
    "section21_numeric_gap",
    "stable_two_cycle",
    "theorem5_unrolled_check",
    "threshold_reading_check",
    "trl_checks",
    "typeset",
    "unclipped_deviation",
]


def errata(family_loss: FamilyLoss) -> list[Erratum]:
    """Every erratum we found, in the order of the paper: the abstract's claim of convergence, §2 to §2.3, §3, §4,
    §5 and the appendix's proofs. ``family_loss`` is TRL's loss as :func:`grpo_nb.family.loss` computes it (the row
    on TRL reads it)."""
    return [
        *convergence.rows(),
        *effective_loss.rows(),
        *trl.rows(family_loss),
        *policy_dynamics.rows(),
        *amplification.rows(),
        *parametric.rows(),
        *proofs.rows(),
    ]


# Typesetting of the plain-text formulas of the errata and of the checks' names: ``p_ref``, ``V^{3/2}``,
# ``e^{−z}``, ``lim_{n→∞}`` become inline math, the Greek names (beta, eps, pi, ...) their letters.
_GREEK_WORDS = {"beta": "β", "eps": "ε", "pi": "π", "sigma": "σ", "delta": "δ", "xi": "ξ"}
_WORDS = re.compile(r"(?<![A-Za-z])(" + "|".join(_GREEK_WORDS) + r")(?![A-Za-z])")
_SYMBOLS = (("<=", "≤"), (">=", "≥"), ("->", "→"), ("||", "‖"), ("sqrt", "√"), ("p~", "p̃"), ("^2", "²"))
_TIMES = re.compile(r"(?<=\d)x(?=\d)|(?<=[\d\])]) x (?=\S)| x (?=\d)")
_TEX_NAMES = {
    "p̃": r"\tilde p",
    "π̃": r"\tilde\pi",
    "TV": r"\mathrm{TV}",
    "lim": r"\lim",
    "limsup": r"\limsup",
    "sum": r"\sum",
    "Σδ": r"\Sigma\delta",
}
# a base (a word, a Greek letter, a number or a closing bracket) with sub- and superscripts: X_{...}, X^{...}, X_y
_SCRIPT = re.compile(
    r"(?P<base>(?<![A-Za-z_.])(?:[A-Za-zΣ\u0370-\u03ff]\u0303?)+|\d+(?:\.\d+)?|\)|\])"
    r"(?P<script>(?:[_^]\{[^{}]*\}|_[A-Za-z0-9\u0370-\u03ff]+\*?|\^[A-Za-z0-9])+)"
)


def _tex_script(script: str) -> str:
    """A sub- or superscript in TeX: p_ref's subscript upright, arrows, infinity and ≤ as commands, braces added."""
    script = re.sub(r"^_ref\b", r"_{\\mathrm{ref}}", script)
    script = script.replace("→", r"\to ").replace("∞", r"\infty").replace("≤", r"\le ")
    return re.sub(r"([_^])([^{\\][^_^{}]*)", lambda m: m.group(1) + "{" + m.group(2) + "}", script)


def typeset(text: str) -> str:
    """``text``, plain words with formulas typed as ``p_ref``, ``V^{3/2}``, ``e^{−z}`` or ``lim_{n→∞}``, as MyST
    Markdown: each sub- or superscripted symbol becomes inline math, Greek names become their letters, ``<=`` and
    ``sqrt`` become ≤ and √, and the rest is escaped so that it shows as typed."""
    for plain, symbol in _SYMBOLS:
        text = text.replace(plain, symbol)
    text = _WORDS.sub(lambda m: _GREEK_WORDS[m.group(1)], text)
    text = _TIMES.sub(lambda m: "×" if m.group(0) == "x" else " × ", text)
    out, last = [], 0
    for m in _SCRIPT.finditer(text):
        base, script = m.group("base"), m.group("script")
        out.append(escape_markdown(text[last : m.start()]))
        if base in (")", "]"):
            out.append(f"{escape_markdown(base)}${_tex_script(script)}$")
        else:
            out.append(f"${_TEX_NAMES.get(base, base)}{_tex_script(script)}$")
        last = m.end()
    out.append(escape_markdown(text[last:]))
    return "".join(out)


def errata_table(entries: list[Erratum]) -> Markdown:
    """The errata ``entries`` (:func:`errata`) as a Markdown table: location and kind, printed, corrected, and the
    outcome of both checks.

    Five columns, so that the long printed and corrected statements get the width of the page.
    """
    rows = []
    for i, e in enumerate(entries, start=1):
        printed = "n/a" if e.printed_check is None else ("fails" if not e.printed_check.holds else "HOLDS")
        corrected = "holds" if e.corrected_check.holds else "FAILS"
        rows.append(
            [
                str(i),
                f"{typeset(e.location)} ({e.kind}{'; unverified: extraction' if e.extraction else ''})",
                typeset(e.printed),
                typeset(e.corrected),
                f"{corrected} / {printed}",
            ]
        )
    return markdown_table(["#", "where (kind)", "printed", "corrected", "corrected check / printed check"], rows)
