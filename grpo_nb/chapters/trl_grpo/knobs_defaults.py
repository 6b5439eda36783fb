"""Section "Every knob, checked by TRL's own code" of the chapter "GRPO in TRL": TRL's defaults against the book's
statement of them (:data:`BOOK_DEFAULTS`, :func:`defaults_check`), and ``beta``'s default 0: no reference model, no
KL in the loss (:func:`beta_default_check`).

:func:`defaults_check` reads :data:`BOOK_DEFAULTS` when it runs, so replacing an entry by a wrong statement (as the
tests do) makes it fail.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import torch

from grpo_nb.chapters.trl_grpo.advantage_probe import make_probe
from grpo_nb.constants import CLIP_EPS

__all__ = ["BOOK_DEFAULTS", "BetaDefault", "SPG_KEY", "beta_default_check", "defaults_check"]


def _default_config(**changes):
    """TRL's ``GRPOConfig`` at its defaults (on the CPU). TRL 1.16 still sets transformers' deprecated
    ``gradient_checkpointing`` (True by default), and transformers 5.23 warns about that on every construction: the
    warning is about TRL's default, not the book's code, so it is silenced here, for this construction only."""
    from trl import GRPOConfig

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*gradient_checkpointing.* is deprecated", category=FutureWarning)
        return GRPOConfig(output_dir="unused", use_cpu=True, **changes)


@dataclass(frozen=True)
class BetaDefault:
    """TRL's default beta, whether a trainer at that default builds a reference model, and |loss| with advantages 0,
    ratio 1 and reference log-probabilities 1 nat off (a KL term would make it positive)."""

    default: float
    has_reference: bool
    loss: float


def beta_default_check() -> BetaDefault:
    """TRL's default beta and what a trainer at that default does (the fields of :class:`BetaDefault`); a row of
    :func:`knob_table` (section "Every knob, checked by TRL's own code")."""
    default = _default_config(bf16=False).beta
    probe = make_probe(beta=default)
    loss = probe.loss(
        advantages=torch.zeros(probe.logp.shape[0], device=probe.logp.device),
        old_per_token_logps=probe.logp,
        ref_per_token_logps=probe.logp + 1.0,
    )
    return BetaDefault(float(default), probe.trainer.ref_model is not None, abs(loss))


SPG_KEY = "steps_per_generation (gradient_accumulation_steps 4)"

BOOK_DEFAULTS: dict[str, object] = {
    "beta": 0.0,
    "num_iterations": 1,
    "num_generations": 8,
    "steps_per_generation": 1,
    SPG_KEY: 4,
    "epsilon": CLIP_EPS,
    "epsilon_high (trainer)": CLIP_EPS,
    "delta": None,
    "scale_rewards": "group",
    "loss_type": "dapo",
    "importance_sampling_level": "token",
    "use_bias_correction_kl": True,
    "sync_ref_model": False,
    "ref_model_mixup_alpha": 0.6,
    "ref_model_sync_steps": 512,
    "learning_rate": 1e-6,
    "max_completion_length": 512,
    "gradient_checkpointing": True,
}


def defaults_check() -> dict[str, tuple[object, object]]:
    """The knobs whose TRL default differs from the book's statement :data:`BOOK_DEFAULTS`, as
    {name: (TRL's default, the book's)}; empty when every stated default is TRL's. ``epsilon_high (trainer)`` is the
    upper clip range a trainer built at the defaults uses; :data:`SPG_KEY` is ``steps_per_generation`` when only
    ``gradient_accumulation_steps`` = 4 is set (it follows it). A row of :func:`knob_table` (section "Every knob,
    checked by TRL's own code")."""
    claimed = BOOK_DEFAULTS
    config = _default_config()
    special = {"epsilon_high (trainer)", SPG_KEY}
    actual = {name: getattr(config, name) for name in claimed if name not in special}
    if "epsilon_high (trainer)" in claimed:
        actual["epsilon_high (trainer)"] = make_probe(beta=config.beta).trainer.epsilon_high
    if SPG_KEY in claimed:
        actual[SPG_KEY] = _default_config(gradient_accumulation_steps=4).steps_per_generation
    return {name: (actual[name], claimed[name]) for name in claimed if actual[name] != claimed[name]}
