"""The kinds of browser figure: one record per value of ``data-grpo-figure``, the one list that everything else reads.

A chapter places a figure whose sliders run in the reader's browser with ``<div id=... data-grpo-figure="KIND">``;
``grpo_figures.js`` draws it (its ``KINDS`` object: one entry per kind, with the same sliders and check box as the
record here) from the numbers of ``grpo_math.js``. The tests read :data:`FIGURE_KINDS`: the Python reference of each
kind's numbers (``tests/book/browser_reference.py``), the pages and figures the browser opens
(``tests/book/test_browser_figures.py``), and the check that the JS, the chapters and CONTRIBUTING.md name exactly
these kinds (``tests/unit/test_browser_kinds.py``). A new kind is one record here, its entry in ``grpo_figures.js``
(with its math in ``grpo_math.js``), its reference in ``tests/book/browser_reference.py`` and its chapter's figure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["FIGURE_KINDS", "KIND_NAMES", "SLIDERS", "FigureKind", "figure_kind"]

#: the sliders ``grpo_figures.js`` defines (its ``SLIDERS``), by the state key each one sets
SLIDERS = ("beta", "p_ref", "eps", "n", "alpha", "clip", "betaIndex")
_NAME = re.compile(r"[a-z][a-z_]*")
_ID = re.compile(r"[a-z0-9][a-z0-9-]*")


@dataclass(frozen=True)
class FigureKind:
    """One kind of browser figure.

    ``name``: the value of ``data-grpo-figure``; ``draws``: what it shows; ``sliders``: its sliders, in the order
    the page shows them (keys of :data:`SLIDERS`); ``toggle``: the state key of its check box, or None;
    ``chapter`` and ``figure_id``: the page (``book/<chapter>.md``) and the ``id`` of the figure shown there;
    ``twins``: the ``grpo_nb`` functions its numbers are checked against.
    """

    name: str
    draws: str
    sliders: tuple[str, ...]
    toggle: str | None
    chapter: str
    figure_id: str
    twins: tuple[str, ...]

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise ValueError(f"name={self.name!r} is not a kind's name; valid: lower-case letters and _")
        unknown = [s for s in self.sliders if s not in SLIDERS]
        if not self.sliders or unknown or len(set(self.sliders)) < len(self.sliders):
            raise ValueError(f"sliders={self.sliders!r} of {self.name!r}; valid: distinct keys of {SLIDERS}")
        if not _NAME.fullmatch(self.chapter) or not _ID.fullmatch(self.figure_id):
            raise ValueError(
                f"chapter={self.chapter!r}, figure_id={self.figure_id!r} of {self.name!r}; valid: a chapter's file "
                "name without .md and an HTML id of lower-case letters, digits and -"
            )
        if not self.draws or not self.twins:
            raise ValueError(f"draws={self.draws!r}, twins={self.twins!r} of {self.name!r}; valid: non-empty")

    @property
    def page(self) -> str:
        """The page that shows the figure, as the built site names it: ``book/<chapter>``."""
        return f"book/{self.chapter}"


FIGURE_KINDS: tuple[FigureKind, ...] = (
    FigureKind(
        "map",
        "Fig. 2: h(p) against p, every fixed point",
        ("beta", "p_ref", "eps"),
        None,
        "policy_dynamics",
        "fig2-browser",
        ("grpo_nb.dynamics.map.logit_h", "grpo_nb.dynamics.fixed_points.fixed_points_grid"),
    ),
    FigureKind(
        "orbit",
        "Fig. 5: p_n against n, and its cobweb",
        ("beta", "p_ref", "eps", "n"),
        "logitAxes",
        "amplification_convergence",
        "fig5-browser",
        ("grpo_nb.dynamics.map.iterate_logit", "grpo_nb.dynamics.map.logit_map"),
    ),
    FigureKind(
        "weights",
        "Eq. 4: omega^+_eps and omega^-_eps against p",
        ("eps",),
        None,
        "stabilised_grpo",
        "weights-browser",
        ("grpo_nb.weights.omega_plus", "grpo_nb.weights.omega_minus"),
    ),
    FigureKind(
        "bifurcation",
        "long-run logits over a beta grid, the cobweb at one beta (picked by slider or click)",
        ("p_ref", "eps", "betaIndex", "n"),
        None,
        "hard_prompts_chaos",
        "bifurcation-browser",
        ("grpo_nb.dynamics.map.iterate_logit",),
    ),
    FigureKind(
        "variant",
        "a GRPO variant's orbit and cobweb, the paper's orbit beside it",
        ("beta", "p_ref", "eps", "alpha", "n"),
        "meanOnly",
        "variants_effective_beta",
        "variants-browser",
        ("grpo_nb.variants.map.iterate_logit", "grpo_nb.variants.variant.Variant"),
    ),
    FigureKind(
        "distribution",
        "pass@k against k before and after n exact steps, one prompt and the shared crossover example; the clip "
        "bandit's entropy per clip mode",
        ("beta", "p_ref", "n", "clip"),
        "randomRewards",
        "distribution_papers",
        "distribution-browser",
        (
            "grpo_nb.tabular.distribution.pass_at_k",
            "grpo_nb.tabular.distribution.shared_success_orbit",
            "grpo_nb.tabular.clip_bias.expected_update_orbit",
        ),
    ),
)
KIND_NAMES: tuple[str, ...] = tuple(kind.name for kind in FIGURE_KINDS)
if len(set(KIND_NAMES)) < len(KIND_NAMES) or len({k.figure_id for k in FIGURE_KINDS}) < len(FIGURE_KINDS):
    raise ValueError(f"two browser figure kinds share a name or a figure id: {KIND_NAMES}")


def figure_kind(name: str) -> FigureKind:
    """The record of the kind ``name``; ValueError naming the valid kinds for any other."""
    for kind in FIGURE_KINDS:
        if kind.name == name:
            return kind
    raise ValueError(f"kind={name!r} is not a browser figure; valid kinds are {', '.join(KIND_NAMES)}")
