"""One name per concept: the names CONTRIBUTING.md's vocabulary retired stay out of the package and the chapters.

The package's Python is read token by token (names in code, not words in prose); the chapters' code cells likewise,
and their imports are held to one convention: the chapter's analyses ``as checks``, its symbolic module ``as proofs``,
its figures ``as figs``. A synthetic snippet with every retired name shows that the scan finds each of them.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

from grpo_nb.plots.paper_figures import FIG5_CASES
from tests.book_layout import ROOT

PACKAGE = ROOT / "grpo_nb"
BOOK = ROOT / "book"

#: retired identifier -> the name that replaced it
RETIRED = {
    "n_outer": "n (GRPO iterations)",
    "n_iter": "n (GRPO iterations)",
    "n_iterations": "n (GRPO iterations)",
    "n_orbit": "n (GRPO iterations)",
    "N_ITER": "N (a chapter's iteration count)",
    "burn_in": "transient (steps left out before measuring)",
    "V1": "dynamics.THEOREM2 or variants.Variant()",
    "centred_advantage": "mean_only_advantage",
    "n_failure": "n_fail (as n_success)",
    "clip_values": "clip_eps_values",
    "eps_low": "clip_eps (the clip range)",
    "eps_high": "clip_eps_high (the clip range)",
    "TRL_EPS": "TRL_EQUIVALENT_EPS (Eq. 3's eps equivalent to TRL's advantage, 1e-8)",
}
#: identifiers kept in a few files only: TRL's own name for the clip range, and optimiser steps outside Algorithm 1
RESTRICTED = {
    "epsilon": ({"trl_adapters/trainer.py"}, "clip_eps (TRL's ``epsilon`` only where the book passes it to TRL)"),
    "n_steps": (
        {
            "toylm/configs.py",
            "toylm/sft.py",
            "trl_adapters/model.py",
            "toylm/cost.py",
            "chapters/trl_grpo/knobs_training.py",
        },
        "n (GRPO iterations) or mu (inner steps); n_steps counts plain optimiser steps (SFT)",
    ),
}
#: a chapter's imports: (pattern, what to write instead)
IMPORT_RULES = (
    (re.compile(r"from grpo_nb\.symbolic import \w+ as (?!proofs\b)\w+"), "as proofs"),
    (re.compile(r"from grpo_nb\.chapters import \w+ as (?!checks\b)\w+"), "as checks"),
    (re.compile(r"from grpo_nb\.chapters\.\w+ import"), "from grpo_nb.chapters import <chapter> as checks"),
    (re.compile(r"from grpo_nb\.plots import \w+ as (?!figs\b)\w+"), "as figs"),
    (re.compile(r"import show_checked as \w+"), "show_checked under its own name"),
)
CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", re.M | re.S)


def _names(code: str) -> list[tuple[int, str]]:
    """(line, identifier) of every name token of ``code``."""
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    return [(t.start[0], t.string) for t in tokens if t.type == tokenize.NAME]


def name_findings(code: str, where: str, module: str | None = None) -> list[str]:
    """The retired names in ``code``; ``module`` (path below grpo_nb/) decides where a restricted name may stay."""
    out = []
    for line, name in _names(code):
        if name in RETIRED:
            out.append(f"{where}:{line}: {name} is retired; write {RETIRED[name]}")
        elif name in RESTRICTED and module not in RESTRICTED[name][0]:
            out.append(f"{where}:{line}: {name} is retired here; write {RESTRICTED[name][1]}")
    return out


def import_findings(code: str, where: str) -> list[str]:
    """A chapter's imports that break the convention."""
    return [f"{where}: {m.group(0)!r}: write {fix}" for pattern, fix in IMPORT_RULES for m in pattern.finditer(code)]


def _cells(md: Path) -> str:
    """A chapter's code cells as one Python text (cell options and shell lines blanked)."""
    lines = "\n".join(m.group(1) for m in CELL.finditer(md.read_text(encoding="utf-8"))).split("\n")
    return "\n".join("" if line.startswith((":", "%", "!")) else line for line in lines)


def test_the_package_uses_no_retired_name() -> None:
    findings = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        findings += name_findings(path.read_text(encoding="utf-8"), f"grpo_nb/{module}", module)
    assert not findings, "\n".join(findings)


@pytest.mark.parametrize("md", sorted(BOOK.glob("*.md")), ids=lambda p: p.stem)
def test_a_chapter_uses_no_retired_name_and_the_import_convention(md: Path) -> None:
    code = _cells(md)
    findings = name_findings(code, f"book/{md.name}") + import_findings(code, f"book/{md.name}")
    assert not findings, "\n".join(findings)


def test_the_scan_finds_every_retired_name_and_alias_in_a_snippet() -> None:
    snippet = "\n".join(
        [
            *(f"{name} = 1" for name in RETIRED),
            "epsilon, n_steps = 0.2, 3",
            "from grpo_nb.symbolic import amplification as amp",
            "from grpo_nb.chapters import variants as v",
            "from grpo_nb.chapters.grpo_iterations import clip_ratios",
            "from grpo_nb.plots import bifurcation as figures",
            "from grpo_nb.report import show_checked as show",
        ]
    )
    found = "\n".join(name_findings(snippet, "snippet", "toylm/grpo.py") + import_findings(snippet, "snippet"))
    for name in [*RETIRED, *RESTRICTED, "as amp", "as v", "chapters.grpo_iterations", "as figures", "as show"]:
        assert re.search(rf"{re.escape(name)}\b", found), name
    # the names that replaced them, and the restricted ones where they stay, pass
    fine = "n, mu, transient, clip_eps, clip_eps_high = 8, 40, 20, 0.2, 0.28\nfrom grpo_nb.chapters import x as checks"
    assert not name_findings(fine, "fine") and not import_findings(fine, "fine")
    assert not name_findings("epsilon = 1e3", "trl", "trl_adapters/trainer.py")
    assert not name_findings("n_steps = 300", "sft", "toylm/configs.py")


def test_case_tuples_are_p_ref_then_beta() -> None:
    """Fig. 5's cases are (p_ref, beta), the order of every (p_ref, beta, eps) in the package: p_ref is a probability
    and the paper's "divergent" case (p_ref = 0.001, beta = 5) is among them in that order."""
    assert all(0 < p_ref < 1 and beta > 0 for p_ref, beta in FIG5_CASES)
    assert (0.001, 5.0) in FIG5_CASES and (5.0, 0.001) not in FIG5_CASES
