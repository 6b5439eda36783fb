"""Section "Every knob, checked by TRL's own code" of the chapter "GRPO in TRL": the knobs that act across TRL's
steps, checked on real training steps, on probes (:func:`~grpo_nb.chapters.trl_grpo.advantage_probe.make_probe`) and
on TRL's own callback:

- ``num_iterations`` = 1 (no stored old log-probabilities: the ratio is identically 1, the clip never acts) against
  ``num_iterations`` > 1 in real training steps (:func:`mu_check`);
- TRL's rule for storing them (``steps_per_generation``, ``gradient_accumulation_steps``) against
  :func:`book_stores_old_logps` (:func:`old_logps_check`);
- ``sync_ref_model`` against :func:`book_ref_sync` (:func:`ref_sync_check`).

The book's side of each check is a module-level name of this module; a check reads it when it runs, so replacing one
by a wrong statement (as the tests do) makes its check fail.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from grpo_nb.chapters.trl_grpo.advantage_probe import _np, _probe_setup, make_probe
from grpo_nb.trl_adapters.trainer import TRLRun, make_trainer

__all__ = [
    "MuCheck",
    "OLD_LOGPS_CASES",
    "OldLogpsCheck",
    "RefSyncCheck",
    "book_ref_sync",
    "book_stores_old_logps",
    "mu_check",
    "old_logps_check",
    "ref_sync_check",
]


@dataclass(frozen=True)
class MuCheck:
    """Whether TRL stored old log-probabilities in a generation batch, and the largest share of clipped tokens it
    logged in the training steps."""

    stored: bool
    clipped: float


def mu_check(mu: int, n_steps: int = 3, lr: float = 3e-2, *, seed: int = 0) -> MuCheck:
    """``n_steps`` real training steps with TRL's ``num_iterations`` = ``mu``, a large learning rate and clip range
    0.01 (``steps_per_generation`` = ``gradient_accumulation_steps`` = 1, no vLLM): whether TRL stored old
    log-probabilities (it does not at mu = 1: the ratio is then pi_theta/pi_theta.detach() = 1), and the largest
    share of clipped tokens TRL logged. ``seed`` seeds TRL's trainer and the probe's draw. A row of
    :func:`knob_table` (section "Every knob, checked by TRL's own code")."""
    setup = _probe_setup()
    trainer = make_trainer(
        setup, TRLRun("mu", 0.0, 0.01), num_iterations=mu, max_steps=n_steps, learning_rate=lr, seed=seed
    )
    stored = "old_per_token_logps" in make_probe(num_iterations=mu, seed=seed).inputs
    trainer.train()
    clipped = max(h.get("clip_ratio/region_mean", 0.0) for h in trainer.state.log_history)
    return MuCheck(stored, float(clipped))


def book_stores_old_logps(mu: int, steps_per_generation: int, grad_accum: int) -> bool:
    """The book's statement of when TRL (no vLLM) computes and stores pi_old's log-probabilities at generation: when
    ``gradient_accumulation_steps`` is not a multiple of ``steps_per_generation`` x ``num_iterations`` (the batch is
    then used after an optimizer step). Otherwise the ratio is pi_theta/pi_theta.detach() = 1 and the clip never
    acts."""
    return grad_accum % (steps_per_generation * mu) != 0


#: (num_iterations, steps_per_generation, gradient_accumulation_steps) cases of :func:`old_logps_check`: TRL's
#: default, and settings where the rule and "only mu > 1 stores them" disagree.
OLD_LOGPS_CASES: tuple[tuple[int, int, int], ...] = ((1, 1, 1), (1, 2, 1), (3, 1, 1), (1, 2, 2), (2, 1, 2))


@dataclass(frozen=True)
class OldLogpsCheck:
    """Per case (mu, steps_per_generation, gradient_accumulation_steps): whether TRL stored old log-probabilities
    (``trl``) and whether :func:`book_stores_old_logps` says it does (``book``); and whether TRL's source names vLLM's
    importance-sampling correction as the other reason to store them (``vllm_in_rule``)."""

    cases: tuple[tuple[int, int, int], ...]
    trl: tuple[bool, ...]
    book: tuple[bool, ...]
    vllm_in_rule: bool

    @property
    def agree(self) -> bool:
        """Every case as the book states, and vLLM named in TRL's rule."""
        return self.trl == self.book and self.vllm_in_rule


def old_logps_check(seed: int = 0) -> OldLogpsCheck:
    """Section "Every knob, checked by TRL's own code", row ``num_iterations``: one probe per case of
    :data:`OLD_LOGPS_CASES` (TRL's ``_generate_and_score_completions`` decides whether to store pi_old's
    log-probabilities) against :func:`book_stores_old_logps`; the vLLM half of TRL's rule (vLLM does not run on the
    CPU) is read from TRL's source."""
    import inspect

    from trl import GRPOTrainer

    trl, book = [], []
    for mu, spg, ga in OLD_LOGPS_CASES:
        probe = make_probe(seed=seed, num_iterations=mu, steps_per_generation=spg, gradient_accumulation_steps=ga)
        trl.append("old_per_token_logps" in probe.inputs)
        book.append(bool(book_stores_old_logps(mu, spg, ga)))
    source = inspect.getsource(GRPOTrainer._generate_and_score_completions)
    vllm = "gradient_accumulation_steps % generate_every != 0 or (" in source and (
        "self.use_vllm and self.vllm_importance_sampling_correction" in source
    )
    return OldLogpsCheck(OLD_LOGPS_CASES, tuple(trl), tuple(book), vllm)


def book_ref_sync(theta: np.ndarray, theta_ref: np.ndarray, alpha: float) -> np.ndarray:
    """The book's statement of TRL's ``sync_ref_model``: every ``ref_model_sync_steps`` optimizer steps the reference
    network's *weights* become alpha theta + (1 - alpha) theta_ref (``ref_model_mixup_alpha`` = alpha), a mix of
    weights, not of policies; at alpha = 1 the reference is the current policy."""
    return alpha * theta + (1 - alpha) * theta_ref


@dataclass(frozen=True)
class RefSyncCheck:
    """TRL's reference sync on a probe: |TRL's reference weights - :func:`book_ref_sync`| after the step that syncs
    (``gap``), and the largest change of the reference weights one step before it (``early``, 0 when TRL waits)."""

    gap: float
    early: float


def ref_sync_check(alpha: float = 0.6, seed: int = 0) -> RefSyncCheck:
    """Section "Every knob, checked by TRL's own code", row ``sync_ref_model``: a probe with ``beta`` = 0.5 and
    ``sync_ref_model`` on, its policy's weights moved by N(0, 0.01) noise (seeded), then TRL's own sync callback at
    step ``ref_model_sync_steps`` - 1 and at ``ref_model_sync_steps``."""
    from trl.trainer.callbacks import SyncRefModelCallback

    probe = make_probe(beta=0.5, seed=seed, sync_ref_model=True, ref_model_mixup_alpha=alpha)
    trainer = probe.trainer
    callback = next(c for c in trainer.callback_handler.callbacks if isinstance(c, SyncRefModelCallback))
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for w in trainer.model.parameters():
            w.add_(0.01 * torch.randn(w.shape, generator=gen))
    theta = [_np(w) for w in trainer.model.parameters()]
    before = [_np(w) for w in trainer.ref_model.parameters()]
    tau = trainer.args.ref_model_sync_steps
    early = 0.0
    for step in (tau - 1, tau):
        trainer.state.global_step = step
        callback.on_step_end(trainer.args, trainer.state, trainer.control, model=trainer.model)
        ref = [_np(w) for w in trainer.ref_model.parameters()]
        if step < tau:
            early = max(float(np.abs(r - b).max()) for r, b in zip(ref, before, strict=True))
    book = [book_ref_sync(t, b, alpha) for t, b in zip(theta, before, strict=True)]
    gap = max(float(np.abs(r - w).max()) for r, w in zip(ref, book, strict=True))
    return RefSyncCheck(gap, early)
