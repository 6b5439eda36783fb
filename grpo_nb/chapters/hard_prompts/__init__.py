"""The analyses of the chapter "Hard prompts: bifurcations, cycles and chaos" (``book/hard_prompts.md`` and its
sub-pages): cycles, period doubling and chaos of Eq. (8) for small p_ref, one module per section.

In logit coordinates the recursion of Theorem 2 is z_n = g(z_{n-1}), g(z) = a + 1/(beta sqrt(v(z) + eps)),
a = logit p_ref (:mod:`grpo_nb.dynamics.map`). Each function runs one analysis of the chapter over that map and
returns its table rows together with the numbers the chapter asserts (errors, margins, extreme values), so the claim
stays visible and checked on the page. Nothing is asserted here: a function reports, the chapter decides.

* :mod:`~grpo_nb.chapters.hard_prompts.unimodal_map` ("The recursion in logit coordinates is a unimodal map", with
  "Why a fixed point below 1/2 turns into a cycle, and why easy prompts never cycle" and "Where the cycles live"):
  g maps its bounded interval I into itself (:func:`invariant_interval_excess`), the monotone orbits of easy prompts
  (:func:`monotone_after_first_step`), where the attracting cycles lie (:func:`cycle_location_table`);
* :mod:`~grpo_nb.chapters.hard_prompts.two_cycle` ('The paper's "divergent" run is a 2-cycle'): a cycle found by
  iteration, checked against g and against the fixed-point solver (:func:`two_cycle_check`,
  :func:`attractor_report`, which also serves the period-3 window of "Where chaos occurs at eps = 1e-5");
* :mod:`~grpo_nb.chapters.hard_prompts.bifurcation_diagrams` ("Bifurcation diagrams over beta", with "Where chaos
  occurs at eps = 1e-5"): the bifurcation diagrams, read and cross-checked (:func:`diagram_summary`,
  :func:`lower_fixed_point_slope`, :func:`escape_beta`);
* :mod:`~grpo_nb.chapters.hard_prompts.period_doubling` ("Where the cycles appear: the period-doubling cascade"):
  the cascade of doubling and superstable points (:func:`cascade_check`);
* :mod:`~grpo_nb.chapters.hard_prompts.feigenbaum` ("Feigenbaum's constant"): the ratios of each cascade against
  Feigenbaum's delta (:func:`feigenbaum_summary`);
* :mod:`~grpo_nb.chapters.hard_prompts.chaos_in_high_precision` ("Is it really chaos? A check in high precision"):
  chaos confirmed in high precision, against the standard error of a finite-time exponent (:func:`chaos_check`,
  :func:`confirm_chaos`);
* :mod:`~grpo_nb.chapters.hard_prompts.training` ("What it means for training"): the recursion with a finite group
  of G samples, the fixed-point branch above the first doubling point, and the window of beta in which the orbit from
  p_ref swings instead of converging (:func:`finite_group_summary`, :func:`fixed_point_branch`,
  :func:`swing_window`, with its lower edge bisected by :func:`exit_edge`).

The settings every page reads (the two smoothings, the paper's "divergent" run) are in
:mod:`~grpo_nb.chapters.hard_prompts.settings`. The chapter's pages (``book/hard_prompts_*.md``) import them all
through this package, ``from grpo_nb.chapters import hard_prompts as checks``.
"""

from grpo_nb.chapters.hard_prompts.bifurcation_diagrams import (
    DiagramSummary,
    diagram_summary,
    escape_beta,
    lower_fixed_point_slope,
)
from grpo_nb.chapters.hard_prompts.chaos_in_high_precision import ChaosCheck, ChaosSamples, chaos_check, confirm_chaos
from grpo_nb.chapters.hard_prompts.feigenbaum import FeigenbaumSummary, feigenbaum_summary
from grpo_nb.chapters.hard_prompts.period_doubling import Cascade, cascade_check
from grpo_nb.chapters.hard_prompts.settings import (
    CASCADES,
    DIAGRAM_BETAS,
    DIAGRAM_P_REFS,
    EPS_LARGE,
    EPS_PAPER,
    FIG5,
    chapter_diagrams,
)
from grpo_nb.chapters.hard_prompts.training import (
    EXIT_EDGE_TOL,
    FiniteGroupSummary,
    FixedPointBranch,
    SwingWindow,
    exit_edge,
    finite_group_summary,
    fixed_point_branch,
    swing_window,
)
from grpo_nb.chapters.hard_prompts.two_cycle import AttractorReport, TwoCycleCheck, attractor_report, two_cycle_check
from grpo_nb.chapters.hard_prompts.unimodal_map import (
    cycle_location_table,
    invariant_interval_excess,
    monotone_after_first_step,
)

__all__ = [
    "CASCADES",
    "DIAGRAM_BETAS",
    "DIAGRAM_P_REFS",
    "EPS_LARGE",
    "EPS_PAPER",
    "EXIT_EDGE_TOL",
    "FIG5",
    "AttractorReport",
    "Cascade",
    "ChaosCheck",
    "ChaosSamples",
    "DiagramSummary",
    "FeigenbaumSummary",
    "FiniteGroupSummary",
    "FixedPointBranch",
    "SwingWindow",
    "TwoCycleCheck",
    "attractor_report",
    "chapter_diagrams",
    "cascade_check",
    "chaos_check",
    "confirm_chaos",
    "cycle_location_table",
    "diagram_summary",
    "escape_beta",
    "exit_edge",
    "feigenbaum_summary",
    "finite_group_summary",
    "fixed_point_branch",
    "invariant_interval_excess",
    "lower_fixed_point_slope",
    "monotone_after_first_step",
    "swing_window",
    "two_cycle_check",
]
