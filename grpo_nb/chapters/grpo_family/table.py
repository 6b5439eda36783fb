"""Section "One table, every row computed" of the chapter "The GRPO family" (``book/grpo_family.md``).

:func:`family_table`: the family's rows (:data:`grpo_nb.family.METHODS`) in three tables narrow enough for a phone
(the advantage, the loss, TRL's flags with what they leave out: each record's ``trl`` and ``trl_note``), each
advantage computed by :func:`grpo_nb.family.advantage` from the record.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grpo_nb import family
from grpo_nb.report import Table

__all__ = ["EXAMPLE_REWARDS", "FamilyTable", "family_table"]

EXAMPLE_REWARDS = np.array([[1.0, 0.0, 0.0, 0.0]])  # one success in a group of four
_NAMES = {"centring": {family.Centring.GROUP: "group mean", family.Centring.LEAVE_ONE_OUT: "mean of the other $G-1$",
                       family.Centring.BATCH: "batch mean"},
          "scaling": {family.Scaling.GROUP_STD: "group std", family.Scaling.BATCH_STD: "batch std",
                      family.Scaling.GROUP_THEN_BATCH_STD: "group std, then batch std",
                      family.Scaling.GROUP_MEAN: r"group mean $\hat p$", family.Scaling.NONE: "none"},
          "ratio": {family.Ratio.TOKEN: "token", family.Ratio.SEQUENCE_MEAN: "sequence (geometric mean)",
                    family.Ratio.SEQUENCE_SUM: "sequence (product)"},
          "clip": {family.Clip.SYMMETRIC: r"$[1-\epsilon, 1+\epsilon]$",
                   family.Clip.CLIP_HIGHER: r"$[1-\epsilon, 1+\epsilon_h]$",
                   family.Clip.IS_WEIGHT: r"weight $\min(x, \epsilon_{\max})$, detached",
                   family.Clip.SOFT_GATE: r"soft gate $\tfrac{4}{\tau}\sigma(\tau(x-1))$",
                   family.Clip.GAMMA_WEIGHT: r"weight $\phi(w)$ of the answer's ratio, detached",
                   family.Clip.NONE: "none"},
          "aggregation": {family.Aggregation.SEQUENCE_MEAN: "answer mean, then mean",
                          family.Aggregation.BATCH_TOKENS: "batch token mean",
                          family.Aggregation.LOCAL_TOKENS: "batch token mean",
                          family.Aggregation.CONSTANT: r"sum$/(B L_{\max})$",
                          family.Aggregation.SEQUENCE: "mean over answers"}}  # fmt: skip


def _kl(m: family.Method) -> str:
    """Where the method's KL sits and its estimator: "loss, $k_3$", "reward, $k_1$" or "none"."""
    if m.kl is family.KLPlacement.NONE:
        return "none"
    return f"{m.kl.value}, $k_{m.kl_estimator.value[1:]}$"


@dataclass(frozen=True)
class FamilyTable:
    """The family table, in three parts narrow enough for a phone (the advantage, the loss, TRL's flags), and the
    advantages (success, failure) of :data:`EXAMPLE_REWARDS` per method."""

    table: Table
    loss_table: Table
    trl_table: Table
    success: dict[str, float]
    failure: dict[str, float]


def _flags(trl: str) -> str:
    """TRL's flags as separate code spans, so that a narrow column can break the line between two flags."""
    return ", ".join(f"`{flag.strip()}`" for flag in trl.split(", ")) if trl else "—"


def family_table() -> FamilyTable:
    """The family's rows (:data:`grpo_nb.family.METHODS`), with the advantage of a success and of a failure in a group
    of four with one success, computed by :func:`grpo_nb.family.advantage` (section "One table, every row
    computed")."""
    rows, loss_rows, trl_rows, success, failure = [], [], [], {}, {}
    for m in family.METHODS:
        a = family.advantage(m, EXAMPLE_REWARDS)[0]
        success[m.name], failure[m.name] = float(a[0]), float(a[1])
        rows.append([m.label, f"{a[0]:.3f} / {a[1]:.3f}", _NAMES["centring"][m.centring],
                     _NAMES["scaling"][m.scaling], m.silent_groups.value])  # fmt: skip
        loss_rows.append([m.label, _NAMES["ratio"][m.ratio], _NAMES["clip"][m.clip], _kl(m),
                          _NAMES["aggregation"][m.aggregation]])  # fmt: skip
        trl_rows.append([m.label, _flags(m.trl), m.trl_note])
    headers = ["method", "$A$ success / failure", "baseline", "scale", "all-equal group"]
    loss_headers = ["method", "ratio", "clip", "KL", "aggregation"]
    trl_headers = ["method", "TRL 1.16", "what the flags leave out"]
    return FamilyTable(Table(headers, rows), Table(loss_headers, loss_rows), Table(trl_headers, trl_rows), success,
                       failure)  # fmt: skip
