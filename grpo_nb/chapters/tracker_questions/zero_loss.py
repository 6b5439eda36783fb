"""Section "The loss is exactly 0 at the first step, and yet the model learns" of the chapter "Questions from the
trackers" (``book/tracker_questions.md``).

On-policy (the first optimiser step on a generation, ``num_iterations`` = 1) TRL's ratio pi_theta/pi_old is
exp(0) = 1 on every token, so the clipped term of Eq. (5) is the advantage A_i itself and, with TRL's default
``loss_type="dapo"`` and beta = 0, the loss's *value* is -(1/N) sum_i A_i |o_i| (N the batch's token count). With
answers of one length this is proportional to sum_i A_i, which is 0 in every group: TRL centres the rewards on the
group mean. The loss's *gradient* is not 0: the ratio's gradient at ratio 1 is grad log pi, so the gradient is
-(1/N) sum_i A_i sum_t grad log pi(o_it), the policy gradient with a group baseline.

* :func:`first_step_run` reproduces the symptom: one step of TRL's ``GRPOTrainer`` on the probe task, TRL's logged
  loss and gradient norm and the exact change of every prompt's success probability;
* :func:`first_step_check` measures the cause on TRL's own ``compute_loss``: its value against
  :func:`book_first_step_value` (on the batch as generated, where it vanishes, and with answers cut to random
  lengths, where it does not), and its gradient against the gradient of :func:`book_first_step_surrogate`.

A check reads the book's statements (the module-level functions) when it runs, so replacing one by a wrong
statement (as the tests do) makes the check fail.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

__all__ = [
    "FirstStep",
    "FirstStepCheck",
    "book_first_step_surrogate",
    "book_first_step_value",
    "first_step_check",
    "first_step_run",
]

TOL = 1e-5  # float32 arithmetic on O(1) numbers (TRL's loss and gradients are float32)


def book_first_step_value(advantages: np.ndarray, mask: np.ndarray) -> float:
    """The book's statement of TRL's loss value at ratio 1 (``loss_type="dapo"``, beta = 0, one process):
    -(1/N) sum_i A_i |o_i|, |o_i| the answer's token count (its row of ``mask``) and N = sum_i |o_i|."""
    lengths = np.asarray(mask, dtype=float).sum(axis=1)
    return float(-(np.asarray(advantages, dtype=float) * lengths).sum() / lengths.sum())


def book_first_step_surrogate(logp: torch.Tensor, advantages: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The book's statement of what TRL's first-step loss differentiates like: -(1/N) sum_i A_i sum_t log pi(o_it),
    the policy gradient's surrogate with the group-centred advantage as the weight (``logp`` (B, T) with autograd,
    ``mask`` (B, T), N = the mask's token count)."""
    return -(advantages[:, None] * logp * mask).sum() / mask.sum()


@dataclass(frozen=True)
class FirstStep:
    """One TRL step from pi_ref: the loss and gradient norm TRL logged, each prompt's exact success probability
    before and after (``p_before``, ``p_after``), and the successes of each prompt's group (``successes``)."""

    loss: float
    grad_norm: float
    p_before: np.ndarray
    p_after: np.ndarray
    successes: np.ndarray

    @property
    def largest_change(self) -> float:
        """max over prompts of |p_after - p_before|."""
        return float(np.abs(self.p_after - self.p_before).max())


def first_step_run(*, seed: int = 0) -> FirstStep:
    """One step of TRL's ``GRPOTrainer`` (TRL's defaults ``loss_type="dapo"``, beta = 0, ``num_iterations`` = 1) on
    the probe task (:data:`~grpo_nb.chapters.trl_grpo.advantage_probe.PROBE_CONFIG`: four prompts, G = 8, pi_ref
    after SFT); gradient clipping is off (a threshold of 1e9, so that TRL logs the gradient norm it never clips)."""
    from grpo_nb.chapters.trl_grpo.advantage_probe import _probe_setup
    from grpo_nb.trl_adapters.trainer import TRLRun, make_trainer, train_measured

    setup = _probe_setup()
    log: list = []
    trainer = make_trainer(setup, TRLRun("first step", 0.0, 0.2), reward_log=log, seed=seed, max_grad_norm=1e9)
    measured = train_measured(trainer, setup, log)
    logged = trainer.state.log_history[0]
    return FirstStep(float(logged["loss"]), float(logged["grad_norm"]), measured.p[0], measured.p[1], measured.k[0])


@dataclass(frozen=True)
class FirstStepCheck:
    """The cause of the zero loss, measured on TRL's ``compute_loss`` (eval mode, one probe batch):

    ``value``: TRL's loss on the batch as generated; ``value_gap``: |TRL's value - :func:`book_first_step_value`|;
    ``group_sum``: the largest |sum of TRL's advantages over a group|; ``cut_value`` and ``cut_gap``: the same
    value and gap with the answers cut to random lengths (the value is no longer 0); ``grad_norm``: the norm of
    TRL's gradient; ``grad_gap``: ||TRL's gradient - the surrogate's|| / ||TRL's gradient||."""

    value: float
    value_gap: float
    group_sum: float
    cut_value: float
    cut_gap: float
    grad_norm: float
    grad_gap: float

    @property
    def explained(self) -> bool:
        """The book's statements match TRL to float32 rounding, and the gradient is not 0."""
        gaps_small = max(self.value_gap, self.cut_gap, self.grad_gap) <= TOL
        return gaps_small and self.group_sum <= TOL and self.grad_norm > 100 * TOL


def _trl_gradient(probe, inputs: dict) -> tuple[float, np.ndarray]:
    """TRL's ``compute_loss`` on ``inputs`` (eval mode) and its gradient over the model's parameters, flattened."""
    model = probe.trainer.model
    model.zero_grad()
    loss = probe.trainer.compute_loss(model, inputs)
    loss.backward()
    return loss.item(), torch.cat([p.grad.reshape(-1) for p in model.parameters() if p.grad is not None]).numpy()


def _surrogate_gradient(probe, inputs: dict) -> np.ndarray:
    """The gradient of :func:`book_first_step_surrogate` over the model's parameters, by autograd on the model's
    own log-probabilities of the batch's answers (TRL's helper that reads them off the logits)."""
    trainer, model = probe.trainer, probe.trainer.model
    model.zero_grad()
    ids = torch.cat([inputs["prompt_ids"], inputs["completion_ids"]], dim=1)
    mask = torch.cat([inputs["prompt_mask"], inputs["completion_mask"]], dim=1)
    logp = trainer._get_per_token_logps_and_entropies(model, ids, mask, inputs["completion_ids"].size(1))[0]
    book_first_step_surrogate(logp, inputs["advantages"], inputs["completion_mask"].float()).backward()
    return torch.cat([p.grad.reshape(-1) for p in model.parameters() if p.grad is not None]).numpy()


def first_step_check(*, seed: int = 0) -> FirstStepCheck:
    """Measure the cause on a probe (:func:`~grpo_nb.chapters.trl_grpo.advantage_probe.make_probe`, beta = 0, TRL's
    ``loss_type="dapo"``, its generation drawn at ``seed``): TRL's loss value and gradient at ratio 1 against the
    book's statements (:func:`book_first_step_value`, :func:`book_first_step_surrogate`)."""
    from grpo_nb.chapters.trl_grpo.advantage_probe import make_probe

    probe = make_probe(beta=0.0, seed=seed)
    probe.trainer.model.eval()
    inputs = dict(probe.inputs)
    adv, mask = inputs["advantages"], inputs["completion_mask"]
    adv_np, g = adv.double().numpy(), probe.trainer.num_generations
    value, trl_grad = _trl_gradient(probe, inputs)
    book_grad = _surrogate_gradient(probe, inputs)
    gen = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, mask.shape[1] + 1, (mask.shape[0],), generator=gen)
    cut_mask = (torch.arange(mask.shape[1])[None, :] < lengths[:, None]).long()
    # TRL's dapo divides by the token count counted at generation; recount it for the cut batch
    cut_inputs = inputs | {"completion_mask": cut_mask, "num_items_in_batch": cut_mask.sum()}
    with torch.no_grad():
        cut_value = float(probe.trainer.compute_loss(probe.trainer.model, cut_inputs))
    return FirstStepCheck(
        value=value,
        value_gap=abs(value - book_first_step_value(adv_np, mask.numpy())),
        group_sum=float(np.abs(adv_np.reshape(-1, g).sum(axis=1)).max()),
        cut_value=cut_value,
        cut_gap=abs(cut_value - book_first_step_value(adv_np, cut_mask.numpy())),
        grad_norm=float(np.linalg.norm(trl_grad)),
        grad_gap=float(np.linalg.norm(trl_grad - book_grad) / np.linalg.norm(trl_grad)),
    )
