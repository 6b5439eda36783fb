"""The analyses of the chapter "GRPO's effective loss" (``book/effective_loss.md``, paper §2.1-2.2).

* :func:`contrastive_step_split` (section "The contrastive reading: two parallel forces"): one exact GRPO gradient step
  on a tabular policy, split into the pull-up of successes and the push-down of failures (:class:`ContrastiveSplit`).
  It illustrates the identity that :func:`grpo_nb.symbolic.effective_loss.contrastive_gradient_split` proves (the two
  terms' gradients are parallel, in the ratio omega^+/omega^-); the measured ratio differs from it only at second
  order in the step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import softmax

from grpo_nb.report import Table
from grpo_nb.tabular.algorithm1 import TabularTask, grpo_surrogate, logits_expected_reward
from grpo_nb.validation import check_eps
from grpo_nb.weights import omega_minus, omega_plus, stabilised_advantage

__all__ = ["ContrastiveSplit", "contrastive_step_split"]


@dataclass(frozen=True)
class ContrastiveSplit:
    """One exact GRPO gradient step at theta_old, split into its two forces (per prompt, shape (Q,)):
    the pull-up of successes (omega^+ term), the push-down of failures (omega^- term) and the whole step."""

    p: np.ndarray
    w_plus: np.ndarray
    w_minus: np.ndarray
    dp_pull_successes: np.ndarray
    dp_push_failures: np.ndarray
    dp_step: np.ndarray

    @property
    def share_pull(self) -> np.ndarray:
        """The pull-up's share of the two forces' change of p; to first order (1 - p) (the ratio is omega+/omega-)."""
        return self.dp_pull_successes / (self.dp_pull_successes + self.dp_push_failures)

    def table(self) -> Table:
        """Per prompt: p, the weights, each force's change of p and the full step's (x 1e-6), the pull-up's share."""
        rows = [
            (f"{p:.1f}", wp, wm, 1e6 * dpu, 1e6 * dpd, 1e6 * dps, f"{100 * s:.1f} %", f"{100 * (1 - p):.1f} %")
            for p, wp, wm, dpu, dpd, dps, s in zip(
                self.p, self.w_plus, self.w_minus, self.dp_pull_successes, self.dp_push_failures, self.dp_step,
                self.share_pull, strict=True,
            )
        ]  # fmt: skip
        unit = r"($\times 10^{-6}$)"
        headers = ["$p$", r"$\omega^+$", r"$\omega^-$", rf"$\Delta p$ from pull-up {unit}",
                   rf"$\Delta p$ from push-down {unit}", rf"$\Delta p$ of full step {unit}", "share of pull-up",
                   "$1 - p$"]  # fmt: skip
        return Table(headers, rows, ".4f")


def contrastive_step_split(task: TabularTask, logits: np.ndarray, *, eps: float, lr: float) -> ContrastiveSplit:
    """§2.1-2.2's contrastive reading on a tabular policy: one gradient step of size ``lr`` on the logits of
    omega^+ E_theta[1_{r=1}] - omega^- E_theta[1_{r=0}] (exact expectations, importance ratio at theta_old,
    KL left out to isolate the reward forces), and the same step with only one of the two terms.

    The change of the success probability from each step is recorded: to first order in lr the two
    parts are lr omega^+ |grad p|^2 and lr omega^- |grad p|^2, so their ratio is omega^+/omega^- = (1-p)/p.
    """
    eps_f = float(check_eps(eps))
    q, o = logits.shape
    p = logits_expected_reward(logits, task.reward)
    outcomes = np.broadcast_to(np.arange(o), (q, o))
    weights = softmax(logits, axis=-1)
    adv = stabilised_advantage(task.reward, p[:, None], eps_f)
    parts = {"pull": np.where(task.reward == 1.0, adv, 0.0), "push": np.where(task.reward == 0.0, adv, 0.0), "all": adv}
    dp = {}
    for name, a in parts.items():
        _, grad = grpo_surrogate(
            logits, logits, task.ref_logits, outcomes=outcomes, weights=weights, advantages=a, beta=0.0
        )
        dp[name] = logits_expected_reward(logits + lr * grad, task.reward) - p
    return ContrastiveSplit(
        p=p,
        w_plus=np.asarray(omega_plus(p, eps_f)),
        w_minus=np.asarray(omega_minus(p, eps_f)),
        dp_pull_successes=dp["pull"],
        dp_push_failures=dp["push"],
        dp_step=dp["all"],
    )
