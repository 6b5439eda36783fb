"""The settings that the pages of the chapter "Hard prompts" share: the two smoothings it compares, the paper's
"divergent" run of Fig. 5 as ``(p_ref, beta, eps)``, the grid of its bifurcation diagrams and the cascades it follows.
One home, so that the pages, each run alone, compute the same things."""

from __future__ import annotations

import numpy as np
from tqdm.auto import tqdm

from grpo_nb.constants import PAPER_EPS
from grpo_nb.dynamics.bifurcation import BifurcationDiagram, bifurcation_diagram

__all__ = ["CASCADES", "DIAGRAM_BETAS", "DIAGRAM_P_REFS", "EPS_LARGE", "EPS_PAPER", "FIG5", "chapter_diagrams"]

EPS_PAPER = PAPER_EPS  # the paper's smoothing, 1e-5
EPS_LARGE = 1e-2  # a larger smoothing, for contrast
FIG5 = (1e-3, 5.0, PAPER_EPS)  # p_ref, beta and eps of the paper's "divergent" run
DIAGRAM_BETAS = np.geomspace(0.2, 30.0, 1500)  # the beta grid of the bifurcation diagrams
DIAGRAM_P_REFS = (1e-4, 1e-3, 1e-2)  # the prompts of the bifurcation diagrams, at each smoothing
CASCADES = ((1e-4, EPS_PAPER), (1e-4, EPS_LARGE), (1e-3, EPS_PAPER))  # (p_ref, eps) of the period-doubling cascades


def chapter_diagrams(*, progress: bool = False) -> dict[tuple[float, float], BifurcationDiagram]:
    """The chapter's bifurcation diagrams of Eq. (8) over :data:`DIAGRAM_BETAS`, one per ``(p_ref, eps)`` of
    :data:`DIAGRAM_P_REFS` and the two smoothings, keyed ``(p_ref, eps)`` with eps the outer loop (section "Bifurcation
    diagrams over beta"; the cascade and training sections read them again)."""
    pairs = [(p_ref, eps) for eps in (EPS_PAPER, EPS_LARGE) for p_ref in DIAGRAM_P_REFS]
    shown = tqdm(pairs, desc="diagrams", disable=not progress)
    return {(p_ref, eps): bifurcation_diagram(p_ref, DIAGRAM_BETAS, eps) for p_ref, eps in shown}
