"""Subsection "TRL's default, β = 0" of the chapter "GRPO in TRL": what an outer step did to a prompt's success, by
what its group held (:func:`beta_zero_facts`, on the cached full runs of
:mod:`~grpo_nb.chapters.trl_grpo.full_runs`), and what moves a prompt whose own loss is zero: AdamW moves a weight
whose gradient is 0 (:func:`adam_zero_gradient_step`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np
import torch

from grpo_nb.chapters.trl_grpo.full_runs import _arrays
from grpo_nb.chapters.trl_grpo.knobs_defaults import _default_config

__all__ = ["AdamCarry", "BetaZeroFacts", "adam_zero_gradient_step", "beta_zero_facts"]


@dataclass(frozen=True)
class BetaZeroFacts:
    """:func:`beta_zero_facts`: what an outer step did to a prompt's success, by what its group held. Each field's
    ``label`` is its row in the chapter's table (:attr:`rows`)."""

    mixed_steps: int = field(metadata={"label": "steps with a mixed group"})
    mean_change_mixed: float = field(metadata={"label": "mean change after a mixed group"})
    full_steps: int = field(metadata={"label": "steps with an all-success group"})
    mean_change_full: float = field(metadata={"label": "mean change after an all-success group"})
    empty_steps: int = field(metadata={"label": "steps with no success"})
    largest_change_empty: float = field(metadata={"label": "largest change after no success"})
    mean_size_change_mixed: float = field(metadata={"label": "mean size of a change after a mixed group"})
    easy_share_higher: float = field(metadata={"label": "share of easy prompts that end higher"})
    never_successful: int = field(metadata={"label": "prompts without a success in any group"})

    @property
    def rows(self) -> list[tuple[str, float | int]]:
        """(label, value) per field, in order: the rows of the chapter's table."""
        return [(f.metadata["label"], getattr(self, f.name)) for f in fields(self)]


def beta_zero_facts(result: dict, key: str, G: int) -> BetaZeroFacts:
    """What an outer step did to a prompt's success, by what its group of G answers held (section "The same prompts
    under TRL"): mixed (k = 1..G-1: TRL's advantage moves it), all successes (k = G) or no success (k = 0). In the
    last two TRL's advantage is 0, and with beta = 0 there is no KL term: the prompt's own loss is zero. Changes
    p_n - p_{n-1} over every (prompt, outer step); also the share of prompts with p_ref >= 1/2 that end above their
    p_ref (NaN for a kind of group that never occurred)."""
    a = _arrays(result, key)
    dp = np.diff(a["p"], axis=0)  # (M, P): step n's change, made from the group drawn at step n
    k = a["k"]
    mixed, full, empty = (k > 0) & (k < G), k == G, k == 0
    easy = a["p"][0] >= 0.5
    return BetaZeroFacts(
        mixed_steps=int(mixed.sum()),
        mean_change_mixed=float(dp[mixed].mean()),
        full_steps=int(full.sum()),
        mean_change_full=float(dp[full].mean()) if full.any() else float("nan"),
        empty_steps=int(empty.sum()),
        largest_change_empty=float(np.abs(dp[empty]).max()) if empty.any() else float("nan"),
        mean_size_change_mixed=float(np.abs(dp[mixed]).mean()),
        easy_share_higher=float((a["p"][-1][easy] > a["p"][0][easy]).mean()),
        never_successful=int((k.sum(axis=0) == 0).sum()),
    )


@dataclass(frozen=True)
class AdamCarry:
    """One AdamW step with a gradient, then one with gradient 0, at the TRL config's optimizer settings: the second
    step's largest weight change (``move``) and the learning rate, for scale."""

    optim: str
    move: float
    lr: float


def adam_zero_gradient_step(lr: float = 5e-4, *, seed: int = 0) -> AdamCarry:
    """Section "TRL's default, beta = 0": whether a weight whose gradient is exactly 0 on a step still moves under
    the optimizer TRL builds by default (``optim``, ``adam_beta1``, ``adam_beta2``, ``adam_epsilon``,
    ``weight_decay`` of TRL's ``GRPOConfig``), after one step with a seeded N(0, 1) gradient."""
    config = _default_config()
    w = torch.zeros(16, requires_grad=True)
    opt = torch.optim.AdamW(
        [w],
        lr=lr,
        betas=(config.adam_beta1, config.adam_beta2),
        eps=config.adam_epsilon,
        weight_decay=config.weight_decay,
    )
    gen = torch.Generator().manual_seed(seed)
    for grad in (torch.randn(16, generator=gen), torch.zeros(16)):
        before = w.detach().clone()
        w.grad = grad
        opt.step()
    return AdamCarry(str(getattr(config.optim, "value", config.optim)), float((w.detach() - before).abs().max()), lr)
