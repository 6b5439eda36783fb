"""The GRPO family as data: one record per method, everything its advantage and its loss are made of (the chapter
"The GRPO family").

Each :class:`Method` holds the pieces in which the methods differ: the advantage (its centring and its scaling, the
advantage's normaliser), the importance-ratio granularity, the clip kind and its default range, where the KL sits and
which estimator it uses, the length aggregation, the TRL 1.16 trainer and ``GRPOConfig`` flags that select it, and
what those flags leave out. The categorical fields are enumerations; a string is converted when the record is made,
and a value that is not one of them raises ValueError there, as do flags TRL could not take and a note that would
break the table it is printed in. The advantage and the loss themselves are computed by
:func:`grpo_nb.family.advantage` and :func:`grpo_nb.family.loss`, and the chapters' tables print the records: adding
a method is one record.

Papers: GRPO (Shao et al. 2024, ``shao2024deepseekmath``; Mroueh 2025, Eq. 4), Dr. GRPO (Liu et al. 2025,
``liu2025drgrpo``), DAPO (Yu et al. 2025, ``yu2025dapo``), BNPO (TRL's ``loss_type="bnpo"``: the GRPO loss averaged
over the tokens of the local batch), GSPO (Zheng et al. 2025, ``zheng2025gspo``), CISPO (MiniMax 2025,
``minimax2025m1``), RLOO (Kool et al. 2019, ``kool2019buy4``; Ahmadian et al. 2024, ``ahmadian2024back``),
REINFORCE++ (Hu 2025, ``hu2025reinforcepp``), SAPO (Gao et al. 2025, ``gao2025sapo``), VESPO (Shen et al. 2026,
``shen2026vespo``), MaxRL (Tajwar et al. 2026, ``tajwar2026maxrl``) and GDPO (Liu et al. 2026, ``liu2026gdpo``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from grpo_nb.constants import (
    CISPO_WEIGHT_CAP,
    CLIP_EPS,
    DAPO_CLIP_EPS_HIGH,
    GSPO_CLIP_EPS,
    GSPO_CLIP_EPS_HIGH,
)
from grpo_nb.validation import check_choice, check_clip_eps

__all__ = [
    "GATE_PARAMETERS",
    "METHODS",
    "METHOD_NAMES",
    "SAPO_TEMPERATURES",
    "VESPO_GAMMA",
    "Aggregation",
    "Centring",
    "Clip",
    "KLEstimator",
    "KLPlacement",
    "Method",
    "Ratio",
    "Scaling",
    "SilentGroups",
    "TRLTrainer",
    "method",
]


class Centring(str, Enum):
    """The baseline subtracted from a reward: the group mean, the mean of the other G - 1 answers of the group (RLOO)
    or the mean of every reward in the batch (REINFORCE++)."""

    GROUP = "group"
    LEAVE_ONE_OUT = "leave_one_out"
    BATCH = "batch"


class Scaling(str, Enum):
    """The advantage's normaliser: the group's standard deviation (Eq. 4 or TRL's form), the batch's, the group's
    standard deviation and then the batch's (GDPO), the group's mean reward p_hat (MaxRL), or none."""

    GROUP_STD = "group_std"
    BATCH_STD = "batch_std"
    GROUP_THEN_BATCH_STD = "group_then_batch_std"
    GROUP_MEAN = "group_mean"
    NONE = "none"


class Ratio(str, Enum):
    """The importance ratio: per token, or per answer as the geometric mean of the token ratios (GSPO) or as their
    product (the ratio of the whole answer's probabilities)."""

    TOKEN = "token"
    SEQUENCE_MEAN = "sequence_mean"
    SEQUENCE_SUM = "sequence_sum"


class Clip(str, Enum):
    """The clip: PPO's symmetric range, a wider upper range (clip-higher), the ratio itself capped and detached as a
    weight (CISPO), a soft gate (4/tau) sigmoid(tau (x - 1)) in place of the ratio (SAPO), a detached weight
    phi(w) = e^lambda w^k e^(-lambda w) of the answer's ratio (VESPO), or none."""

    SYMMETRIC = "symmetric"
    CLIP_HIGHER = "clip_higher"
    IS_WEIGHT = "is_weight"
    SOFT_GATE = "soft_gate"
    GAMMA_WEIGHT = "gamma_weight"
    NONE = "none"


class KLPlacement(str, Enum):
    """Where the KL to pi_ref sits: a term added to the loss, a penalty subtracted from the reward, or nowhere."""

    LOSS = "loss"
    REWARD = "reward"
    NONE = "none"


class KLEstimator(str, Enum):
    """Schulman's estimator of the KL (:mod:`grpo_nb.kl`): k1 (in the reward) or k3 (in the loss; also the term TRL's
    trainer adds to a method without KL when it is given beta > 0)."""

    K1 = "k1"
    K3 = "k3"


class Aggregation(str, Enum):
    """How the token terms are averaged: each answer's token mean, then the mean over answers (``sequence_mean``);
    the sum over the batch's tokens over the generation batch's token count ``n_tokens`` where given
    (``batch_tokens``); the same over the local batch's own tokens, whatever ``n_tokens`` (``local_tokens``, BNPO);
    over B L_max (``constant``); one term per answer (``sequence``)."""

    SEQUENCE_MEAN = "sequence_mean"
    BATCH_TOKENS = "batch_tokens"
    LOCAL_TOKENS = "local_tokens"
    CONSTANT = "constant"
    SEQUENCE = "sequence"


class SilentGroups(str, Enum):
    """What happens to a group whose rewards are all equal (a silent group), as the family table words it."""

    KEPT = "zero advantage, kept"
    DROPPED = "dropped, batch refilled"
    NONZERO = "nonzero advantage"


class TRLTrainer(str, Enum):
    """The TRL 1.16 trainer that runs a method, or none."""

    GRPO = "GRPOTrainer"
    RLOO = "RLOOTrainer"
    NONE = ""


#: The enumerated fields of :class:`Method` and their enumerations.
_ENUM_FIELDS: dict[str, type[Enum]] = {
    "centring": Centring,
    "scaling": Scaling,
    "ratio": Ratio,
    "clip": Clip,
    "kl": KLPlacement,
    "kl_estimator": KLEstimator,
    "aggregation": Aggregation,
    "silent_groups": SilentGroups,
    "trl_trainer": TRLTrainer,
}


def _flag(key: str, value: object) -> str:
    """One TRL flag as the book writes it: strings in double quotes, numbers as Python prints them."""
    return f'{key}="{value}"' if isinstance(value, str) else f"{key}={value!r}"


def _check_trl_flags(flags: object, trainer: TRLTrainer) -> tuple[tuple[str, object], ...]:
    """``trl_flags`` as (name, value) pairs: each name a keyword of ``GRPOConfig`` (an identifier), each value a
    string or a number, and flags only for TRL's ``GRPOTrainer``; ValueError naming the field and the value
    otherwise."""
    pairs = tuple(flags.items() if isinstance(flags, Mapping) else flags)
    for pair in pairs:
        key, value = pair if isinstance(pair, tuple | list) and len(pair) == 2 else (None, None)
        if not (isinstance(key, str) and key.isidentifier()) or not isinstance(value, str | int | float):
            raise ValueError(f"trl_flags={flags!r} is not valid; valid: (GRPOConfig keyword, str or number) pairs")
    if pairs and trainer is not TRLTrainer.GRPO:
        raise ValueError(f"trl_flags={flags!r} is not valid for trl_trainer={trainer.value!r}; valid: ()")
    return tuple((key, value) for key, value in pairs)


#: SAPO's gate temperatures (name, value): 1.0 where A > 0, 1.05 where A <= 0 (Gao et al. 2025; TRL 1.16's
#: ``sapo_temperature_pos`` and ``sapo_temperature_neg`` defaults); the record's ``gate``.
SAPO_TEMPERATURES: tuple[tuple[str, float], ...] = (("temperature_pos", 1.0), ("temperature_neg", 1.05))
#: VESPO's kernel phi(w) = e^lambda w^k e^(-lambda w): (k, lambda) = (2, 3) where A >= 0, (3, 2) where A < 0 (Shen et
#: al. 2026; TRL 1.16's ``vespo_k_pos``, ``vespo_lambda_pos``, ``vespo_k_neg``, ``vespo_lambda_neg`` defaults).
VESPO_GAMMA: tuple[tuple[str, float], ...] = (("k_pos", 2.0), ("lambda_pos", 3.0), ("k_neg", 3.0), ("lambda_neg", 2.0))

#: The parameters each soft weighting takes (``Method.gate``), by clip kind; the other kinds take none.
GATE_PARAMETERS: dict[Clip, tuple[str, ...]] = {
    Clip.SOFT_GATE: tuple(name for name, _ in SAPO_TEMPERATURES),
    Clip.GAMMA_WEIGHT: tuple(name for name, _ in VESPO_GAMMA),
}


def _check_gate(gate: object, clip: Clip) -> tuple[tuple[str, float], ...]:
    """``gate`` as (name, value) pairs: exactly the names :data:`GATE_PARAMETERS` lists for ``clip``, each value a
    finite number > 0; ValueError naming the field, the value and the valid names otherwise."""
    pairs = tuple(gate.items() if isinstance(gate, Mapping) else gate)
    names = GATE_PARAMETERS.get(clip, ())
    ok = all(isinstance(pair, tuple | list) and len(pair) == 2 for pair in pairs)
    ok = ok and sorted(str(pair[0]) for pair in pairs) == sorted(names)
    ok = ok and all(isinstance(v, int | float) and 0 < float(v) < float("inf") for _, v in pairs)
    if not ok:
        raise ValueError(f"gate={gate!r} is not valid for clip={clip.value!r}; valid: the names {names}, each > 0")
    return tuple((str(key), float(value)) for key, value in pairs)


def _check_trl_note(note: object) -> str:
    """``trl_note``: one line of Markdown for a table cell (no newline, no ``|``), "—" when there is nothing to add;
    ValueError naming the field and the value otherwise."""
    if not isinstance(note, str) or not note.strip() or "\n" in note or "|" in note:
        raise ValueError(f"trl_note={note!r} is not valid; valid: one line of text without '|' ('—': nothing to add)")
    return note


@dataclass(frozen=True)
class Method:
    """One method of the family: every field the advantage, the loss and the family tables read.

    ``centring`` (:class:`Centring`) and ``scaling`` (:class:`Scaling`): the advantage; ``ratio`` (:class:`Ratio`);
    ``clip`` (:class:`Clip`) and ``clip_range``, its default (clip_eps, clip_eps_high) (for ``is_weight`` the second
    entry is the cap on the weight; for ``none`` both are inf); ``kl`` (:class:`KLPlacement`) and ``kl_estimator``
    (:class:`KLEstimator`); ``aggregation`` (:class:`Aggregation`); ``silent_groups`` (:class:`SilentGroups`);
    ``trl_trainer`` (:class:`TRLTrainer`) and ``trl_flags``, the ``GRPOConfig`` keyword arguments that select the
    method in TRL 1.16, as (name, value) pairs in the order the book prints them (a mapping is accepted), shown as
    :attr:`trl`; ``trl_note`` (keyword only): what those flags leave out or do differently from the method's paper,
    one line of Markdown ("—": nothing); ``gate`` (keyword only): the parameters of a soft weighting (SAPO's
    temperatures, VESPO's (k, lambda) pairs; :data:`GATE_PARAMETERS`), shown as :attr:`gate_config`. A string
    is converted to its enumeration here, and every field is checked:
    ValueError naming the field, the value and the valid values otherwise.
    """

    name: str
    label: str
    cite: str
    centring: Centring
    scaling: Scaling
    ratio: Ratio
    clip: Clip
    clip_range: tuple[float, float]
    kl: KLPlacement
    kl_estimator: KLEstimator
    aggregation: Aggregation
    silent_groups: SilentGroups
    trl_trainer: TRLTrainer
    trl_flags: tuple[tuple[str, object], ...] = ()
    trl_note: str = field(kw_only=True)
    gate: tuple[tuple[str, float], ...] = field(default=(), kw_only=True)

    def __post_init__(self) -> None:
        for name, enum in _ENUM_FIELDS.items():
            value = check_choice(name, getattr(self, name), tuple(member.value for member in enum))
            object.__setattr__(self, name, enum(value))
        lo, hi = (float(check_clip_eps(c)) for c in self.clip_range)
        if self.clip in (Clip.NONE, *GATE_PARAMETERS) and (lo, hi) != (float("inf"), float("inf")):
            raise ValueError(
                f"clip_range={self.clip_range!r} is not valid for clip={self.clip.value!r}; valid: (inf, inf)"
            )
        object.__setattr__(self, "gate", _check_gate(self.gate, self.clip))
        object.__setattr__(self, "clip_range", (lo, hi))
        object.__setattr__(self, "trl_flags", _check_trl_flags(self.trl_flags, self.trl_trainer))
        _check_trl_note(self.trl_note)

    @property
    def trl_config(self) -> dict[str, object]:
        """The ``GRPOConfig`` keyword arguments of :attr:`trl_flags`, as a dict."""
        return dict(self.trl_flags)

    @property
    def gate_config(self) -> dict[str, float]:
        """The parameters of :attr:`gate`, as a dict (empty for a method without a soft weighting)."""
        return dict(self.gate)

    @property
    def trl(self) -> str:
        """The TRL flags as the family table prints them (``loss_type="dapo", epsilon_high=0.28, beta=0``); the
        trainer's name where it needs no flags, "" where TRL has none."""
        if self.trl_flags:
            return ", ".join(_flag(key, value) for key, value in self.trl_flags)
        return self.trl_trainer.value


_DEFAULT_CLIP = (CLIP_EPS, CLIP_EPS)
_NO_CLIP = (float("inf"), float("inf"))
_GRPO, _KEPT = TRLTrainer.GRPO, SilentGroups.KEPT
# what TRL 1.16's flags of a row do not say (the GRPO family chapter checks the DAPO and KL notes against TRL's code)
_RATIO_KL = r"no KL term unless `beta` > 0 (TRL's default is 0); with it, $k_3$ × ratio (`use_bias_correction_kl=True`)"
METHODS: tuple[Method, ...] = (
    Method("grpo", "GRPO", "shao2024deepseekmath", Centring.GROUP, Scaling.GROUP_STD, Ratio.TOKEN, Clip.SYMMETRIC,
           _DEFAULT_CLIP, KLPlacement.LOSS, KLEstimator.K3, Aggregation.SEQUENCE_MEAN, _KEPT, _GRPO,
           (("loss_type", "grpo"),), trl_note=_RATIO_KL),
    Method("dr_grpo", "Dr. GRPO", "liu2025drgrpo", Centring.GROUP, Scaling.NONE, Ratio.TOKEN, Clip.SYMMETRIC,
           _DEFAULT_CLIP, KLPlacement.LOSS, KLEstimator.K3, Aggregation.CONSTANT, _KEPT, _GRPO,
           (("loss_type", "dr_grpo"), ("scale_rewards", "none")), trl_note=_RATIO_KL),
    Method("dapo", "DAPO", "yu2025dapo", Centring.GROUP, Scaling.GROUP_STD, Ratio.TOKEN, Clip.CLIP_HIGHER,
           (CLIP_EPS, DAPO_CLIP_EPS_HIGH), KLPlacement.NONE, KLEstimator.K3, Aggregation.BATCH_TOKENS,
           SilentGroups.DROPPED, _GRPO, (("loss_type", "dapo"), ("epsilon_high", DAPO_CLIP_EPS_HIGH), ("beta", 0)),
           trl_note="no dynamic sampling: a silent group stays, with $A = 0$, and its tokens count in the normaliser; "
           "DAPO's overlong filtering and punishment need `mask_truncated_completions=True` and a length reward of "
           "their own"),
    Method("bnpo", "BNPO (TRL)", "vonwerra2020trl", Centring.GROUP, Scaling.GROUP_STD, Ratio.TOKEN, Clip.SYMMETRIC,
           _DEFAULT_CLIP, KLPlacement.LOSS, KLEstimator.K3, Aggregation.LOCAL_TOKENS, _KEPT, _GRPO,
           (("loss_type", "bnpo"),),
           trl_note="a token mean over the local batch, not the Beta-density normalisation of the BNPO paper; "
           + _RATIO_KL),
    Method("gspo", "GSPO", "zheng2025gspo", Centring.GROUP, Scaling.GROUP_STD, Ratio.SEQUENCE_MEAN, Clip.SYMMETRIC,
           (GSPO_CLIP_EPS, GSPO_CLIP_EPS_HIGH), KLPlacement.NONE, KLEstimator.K3, Aggregation.SEQUENCE_MEAN, _KEPT,
           _GRPO, (("importance_sampling_level", "sequence"), ("loss_type", "grpo"), ("epsilon", GSPO_CLIP_EPS),
                  ("epsilon_high", GSPO_CLIP_EPS_HIGH)),
           trl_note=r"without the two `epsilon` flags the sequence ratio is clipped at TRL's default $0.2$"),
    Method("cispo", "CISPO", "minimax2025m1", Centring.GROUP, Scaling.GROUP_STD, Ratio.TOKEN, Clip.IS_WEIGHT,
           (CLIP_EPS, CISPO_WEIGHT_CAP), KLPlacement.NONE, KLEstimator.K3, Aggregation.BATCH_TOKENS, _KEPT, _GRPO,
           (("loss_type", "cispo"), ("epsilon_high", CISPO_WEIGHT_CAP)), trl_note="—"),
    Method("rloo", "RLOO", "ahmadian2024back", Centring.LEAVE_ONE_OUT, Scaling.NONE, Ratio.SEQUENCE_SUM,
           Clip.SYMMETRIC, _DEFAULT_CLIP, KLPlacement.REWARD, KLEstimator.K1, Aggregation.SEQUENCE, _KEPT,
           TRLTrainer.RLOO,
           trl_note=r"its own trainer: $k_1$ of the whole answer in the reward, the answer's ratio clipped"),
    Method("reinforce_pp", "REINFORCE++", "hu2025reinforcepp", Centring.BATCH, Scaling.BATCH_STD, Ratio.TOKEN,
           Clip.SYMMETRIC, _DEFAULT_CLIP, KLPlacement.REWARD, KLEstimator.K1, Aggregation.BATCH_TOKENS,
           SilentGroups.NONZERO, TRLTrainer.NONE,
           trl_note="no flag; its paper's group variant, REINFORCE++-baseline, centres by the group mean instead, "
           "so a silent group gets $A = 0$"),
    Method("sapo", "SAPO", "gao2025sapo", Centring.GROUP, Scaling.GROUP_STD, Ratio.TOKEN, Clip.SOFT_GATE, _NO_CLIP,
           KLPlacement.NONE, KLEstimator.K3, Aggregation.SEQUENCE_MEAN, _KEPT, _GRPO, (("loss_type", "sapo"),),
           gate=SAPO_TEMPERATURES,
           trl_note="the temperatures are TRL's defaults, `sapo_temperature_pos=1.0`, `sapo_temperature_neg=1.05`"),
    Method("vespo", "VESPO", "shen2026vespo", Centring.GROUP, Scaling.GROUP_STD, Ratio.SEQUENCE_SUM,
           Clip.GAMMA_WEIGHT, _NO_CLIP, KLPlacement.NONE, KLEstimator.K3, Aggregation.BATCH_TOKENS, _KEPT, _GRPO,
           (("loss_type", "vespo"),), gate=VESPO_GAMMA,
           trl_note=r"$(k, \lambda)$ are TRL's `vespo_k_pos`, `vespo_lambda_pos`, `vespo_k_neg`, `vespo_lambda_neg`; "
           r'the log-weight is clamped to $[\log 10^{-8}, 20]$; needs `importance_sampling_level="token"`'),
    Method("maxrl", "MaxRL", "tajwar2026maxrl", Centring.GROUP, Scaling.GROUP_MEAN, Ratio.TOKEN, Clip.SYMMETRIC,
           _DEFAULT_CLIP, KLPlacement.NONE, KLEstimator.K3, Aggregation.SEQUENCE_MEAN, _KEPT, TRLTrainer.NONE,
           trl_note=r"no flag; the row keeps GRPO's ratio, clip and aggregation and changes the advantage only, "
           r"$(r - \hat p)/\hat p$, $0$ where $\hat p = 0$"),
    Method("gdpo", "GDPO", "liu2026gdpo", Centring.GROUP, Scaling.GROUP_THEN_BATCH_STD, Ratio.TOKEN, Clip.SYMMETRIC,
           _DEFAULT_CLIP, KLPlacement.NONE, KLEstimator.K3, Aggregation.SEQUENCE_MEAN, _KEPT, _GRPO,
           (("multi_objective_aggregation", "normalize_then_sum"),),
           trl_note='GRPO\'s loss (`loss_type="grpo"`); each reward function is normalised in its group, the '
           "weighted sum then over the batch, both with TRL's std + $10^{-4}$"),
)  # fmt: skip
METHOD_NAMES: tuple[str, ...] = tuple(m.name for m in METHODS)


def method(name: str | Method) -> Method:
    """The record of method ``name`` (one of :data:`METHOD_NAMES`), or ``name`` itself when it is a :class:`Method`
    (a method outside the table); ValueError for any other name."""
    if isinstance(name, Method):
        return name
    check_choice("name", name, METHOD_NAMES)
    return next(m for m in METHODS if m.name == name)
