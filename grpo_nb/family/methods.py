"""The GRPO family as data: one row per method, what its loss is made of (the chapter "The GRPO family").

Each :class:`Method` names the pieces in which the methods differ: the advantage and its normaliser, the
importance-ratio granularity, the clip, where the KL sits and which estimator it uses, the length aggregation, and
the TRL 1.16 flags that select it. The advantage and the loss themselves are computed by
:func:`grpo_nb.family.advantage` and :func:`grpo_nb.family.loss`, which read these rows.

Papers: GRPO (Shao et al. 2024, ``shao2024deepseekmath``; Mroueh 2025, Eq. 4), Dr. GRPO (Liu et al. 2025,
``liu2025drgrpo``), DAPO (Yu et al. 2025, ``yu2025dapo``), BNPO (TRL's ``loss_type="bnpo"``: the GRPO loss averaged
over the tokens of the local batch), GSPO (Zheng et al. 2025, ``zheng2025gspo``), CISPO (MiniMax 2025,
``minimax2025m1``), RLOO (Kool et al. 2019, ``kool2019buy4``; Ahmadian et al. 2024, ``ahmadian2024back``) and
REINFORCE++ (Hu 2025, ``hu2025reinforcepp``).
"""

from __future__ import annotations

from dataclasses import dataclass

from grpo_nb.validation import check_choice

__all__ = ["METHODS", "METHOD_NAMES", "Method", "method"]


@dataclass(frozen=True)
class Method:
    """One row of the family table.

    ``centring``: "group" (the group mean), "leave_one_out" (the mean of the other G - 1 answers) or "batch" (the
    mean of every reward in the batch); ``scaling``: "group_std" (the group's standard deviation), "batch_std" (the
    batch's) or "none"; ``ratio``: "token", "sequence_mean" (the geometric mean of the token ratios, GSPO) or
    "sequence_sum" (their product, the ratio of the whole answer's probabilities);
    ``clip``: "symmetric", "clip_higher" (a wider upper range), "is_weight" (the ratio itself is capped and detached)
    or "none"; ``kl``: "loss" (a k3 term added to the loss), "reward" (k1 subtracted from the reward) or "none";
    ``aggregation`` names how token terms are averaged: "sequence_mean" (each answer's token mean, then the mean over
    answers), "batch_tokens" (the sum over the batch's tokens over their number), "constant" (over B L_max) or
    "sequence" (one term per answer); ``trl``: the TRL 1.16 flags that select it ("" where TRL has none).
    """

    name: str
    label: str
    cite: str
    centring: str
    scaling: str
    ratio: str
    clip: str
    kl: str
    aggregation: str
    trl: str
    silent_groups: str


METHODS: tuple[Method, ...] = (
    Method("grpo", "GRPO", "shao2024deepseekmath", "group", "group_std", "token", "symmetric", "loss",
           "sequence_mean", 'loss_type="grpo"', "zero advantage, kept"),
    Method("dr_grpo", "Dr. GRPO", "liu2025drgrpo", "group", "none", "token", "symmetric", "loss",
           "constant", 'loss_type="dr_grpo", scale_rewards="none"', "zero advantage, kept"),
    Method("dapo", "DAPO", "yu2025dapo", "group", "group_std", "token", "clip_higher", "none",
           "batch_tokens", 'loss_type="dapo", epsilon_high=0.28, beta=0', "dropped, batch refilled"),
    Method("bnpo", "BNPO (TRL)", "vonwerra2020trl", "group", "group_std", "token", "symmetric", "loss",
           "batch_tokens", 'loss_type="bnpo"', "zero advantage, kept"),
    Method("gspo", "GSPO", "zheng2025gspo", "group", "group_std", "sequence_mean", "symmetric", "none",
           "sequence_mean", 'importance_sampling_level="sequence", loss_type="grpo"', "zero advantage, kept"),
    Method("cispo", "CISPO", "minimax2025m1", "group", "group_std", "token", "is_weight", "none",
           "batch_tokens", 'loss_type="cispo", epsilon_high=5.0', "zero advantage, kept"),
    Method("rloo", "RLOO", "ahmadian2024back", "leave_one_out", "none", "sequence_sum", "symmetric", "reward",
           "sequence", "RLOOTrainer", "zero advantage, kept"),
    Method("reinforce_pp", "REINFORCE++", "hu2025reinforcepp", "batch", "batch_std", "token", "symmetric",
           "reward", "batch_tokens", "", "nonzero advantage"),
)  # fmt: skip
METHOD_NAMES: tuple[str, ...] = tuple(m.name for m in METHODS)


def method(name: str) -> Method:
    """The row of method ``name`` (one of :data:`METHOD_NAMES`); ValueError for any other name."""
    check_choice("name", name, METHOD_NAMES)
    return next(m for m in METHODS if m.name == name)
