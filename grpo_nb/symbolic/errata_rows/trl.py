"""The erratum of §2.3 of Mroueh (2025) v1: "GRPO-No-Clip is the one implemented in TRL", read against TRL's loss,
KL and advantage as the book models them.

TRL's loss is modelled by :func:`grpo_nb.family.loss`, in the layer above this one: the caller passes it in as
``family_loss`` (the chapter's :func:`grpo_nb.chapters.appendix_proofs.errata` does). :func:`k3_gradient_gaps` and
:func:`trl_checks` read :func:`~grpo_nb.kl.expected_estimator_gradient` and
:func:`~grpo_nb.advantage.group_advantage` from this module, so a test can replace either.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from grpo_nb.advantage import group_advantage, group_rewards
from grpo_nb.constants import CLIP_EPS, TRL_STD_EPS
from grpo_nb.kl import expected_estimator_gradient, softmax_kl_gradients
from grpo_nb.symbolic.errata_rows.record import Erratum, _all, _numeric
from grpo_nb.symbolic.identity import Identity

__all__ = ["FamilyLoss", "clip_gradient_gap", "k3_gradient_gaps", "rows", "trl_checks"]


class _LossValue(Protocol):
    """What a family loss returns: at least the gradient ``grad`` of the loss with respect to ``logp``."""

    grad: np.ndarray


class FamilyLoss(Protocol):
    """The signature of :func:`grpo_nb.family.loss` that the row uses: the loss of method ``name`` on a batch of
    per-token log-probabilities ``logp`` (B, T) with one advantage per answer, the old log-probabilities
    ``old_logp`` and the clip range ``clip_eps``."""

    def __call__(
        self, name: str, logp: np.ndarray, advantages: np.ndarray, *, old_logp: np.ndarray, clip_eps: float
    ) -> _LossValue: ...


def clip_gradient_gap(clip_eps: float, *, off_policy: bool, family_loss: FamilyLoss, seed: int = 0) -> float:
    """The largest |gradient difference| between GRPO-Clip with clip range ``clip_eps`` and GRPO-No-Clip (clip range
    inf), both as ``family_loss`` (:func:`grpo_nb.family.loss`) computes TRL's ``loss_type="grpo"`` loss, on 8 answers
    of 5 tokens with random advantages: on-policy (old log-probabilities equal to the current ones, TRL at
    ``num_iterations`` = 1) or off-policy (independent random old log-probabilities, a later inner step of
    ``num_iterations`` > 1)."""
    rng = np.random.default_rng(seed)
    logp, adv = np.log(rng.uniform(0.05, 0.95, size=(8, 5))), rng.normal(size=8)
    old = np.log(rng.uniform(0.05, 0.95, size=logp.shape)) if off_policy else logp
    clipped = family_loss("grpo", logp, adv, old_logp=old, clip_eps=clip_eps).grad
    free = family_loss("grpo", logp, adv, old_logp=old, clip_eps=np.inf).grad
    return float(np.max(np.abs(clipped - free)))


def k3_gradient_gaps(placement: str, *, seed: int = 0) -> tuple[float, float]:
    """k3's exact expected gradient (:func:`grpo_nb.kl.expected_estimator_gradient`, one-token answers, on-policy)
    placed as ``placement`` ("loss": k3 alone, TRL with ``use_bias_correction_kl=False``; "ratio_weighted": k3 times
    the token's ratio, TRL 1.16's default) against the gradients of the two KL directions
    (:func:`grpo_nb.kl.softmax_kl_gradients`) on 20 random softmax policies of 6 outcomes. Returns the largest
    distance to grad KL(pi || pi_ref), Eq. (2)'s reverse KL, and to grad KL(pi_ref || pi), the forward KL."""
    rng = np.random.default_rng(seed)
    reverse_gap = forward_gap = 0.0
    for _ in range(20):
        logits, log_ref = rng.normal(size=6), np.log(rng.dirichlet(np.ones(6)))
        k3 = expected_estimator_gradient(logits, log_ref, "k3", placement=placement)
        reverse, forward = softmax_kl_gradients(logits, log_ref)
        reverse_gap = max(reverse_gap, float(np.max(np.abs(k3 - reverse))))
        forward_gap = max(forward_gap, float(np.max(np.abs(k3 - forward))))
    return reverse_gap, forward_gap


def trl_checks(family_loss: FamilyLoss, seed: int = 0) -> Identity:
    """§2.3's "GRPO-No-Clip is the one implemented in TRL", read against TRL's loss as ``family_loss``
    (:func:`grpo_nb.family.loss`), :mod:`grpo_nb.kl` and :mod:`grpo_nb.advantage` model it: the clip does not act
    on-policy (TRL's default ``num_iterations`` = 1, clip ranges 0.2 and 1e-3) and does act off-policy
    (``num_iterations`` > 1); k3 times the ratio has the expected gradient of Eq. (2)'s reverse KL and k3 alone that
    of the forward KL
    (:func:`k3_gradient_gaps`); TRL's group advantage (Bessel std + 1e-4 outside the root) is not Eq. (4)'s weight
    with the same 1e-4 inside it, for every success count of a group of 8."""
    on = max(clip_gradient_gap(e, off_policy=False, family_loss=family_loss, seed=seed) for e in (CLIP_EPS, 1e-3))
    off = min(clip_gradient_gap(e, off_policy=True, family_loss=family_loss, seed=seed) for e in (CLIP_EPS, 1e-3))
    weighted, alone = k3_gradient_gaps("ratio_weighted", seed=seed)[0], k3_gradient_gaps("loss", seed=seed)[1]
    rewards = group_rewards(np.arange(1, 8), 8)
    ratio = group_advantage(rewards, "trl")[:, 0] / group_advantage(rewards, "paper", eps=TRL_STD_EPS)[:, 0]
    return _all(
        "TRL's clip acts only off-policy, its KL gradient depends on the ratio, its advantage is not Eq. (4)'s",
        [
            _numeric("on-policy (mu = 1): largest gradient gap, clip 0.2 or 1e-3 vs no clip", on, 1e-12, on < 1e-12,
                     relation="<"),
            _numeric("off-policy (mu > 1): smallest such gap, the clip acts", off, 1e-3, off > 1e-3, relation=">"),
            _numeric("k3 times the ratio: largest distance to grad KL(pi || pi_ref)", weighted, 1e-12,
                     weighted < 1e-12, relation="<"),
            _numeric("k3 alone: largest distance to grad KL(pi_ref || pi)", alone, 1e-12, alone < 1e-12,
                     relation="<"),
            _numeric("G = 8, k = 1..7: largest TRL / Eq. (4) advantage of a success (Bessel: below 1)",
                     float(ratio.max()), 0.99, bool(np.all(ratio < 0.99)), relation="<"),
        ],
    )  # fmt: skip


def _trl_no_clip(family_loss: FamilyLoss) -> Erratum:
    return Erratum(
        "§2.3, after (GRPO-No-Clip)",
        "the no-clip formulation (GRPO-No-Clip) 'is the one currently implemented' in TRL, 'hence we will focus in "
        "what follows on this version'",
        "True of the clip, not of the weights or the KL. When v1 appeared, TRL's release (0.15.2, 25 February 2025) "
        "had no clip and one gradient step per batch; the clip was already on TRL's main branch (pull request 2899, "
        "merged 20 February 2025, which notes that μ = 1 matches the loss before it). Since its release in 0.16.0 "
        "(22 March 2025) TRL implements GRPO-Clip with μ inner steps per batch; at its "
        "default μ = 1 (TRL 1.16 too, with its default batching) the ratio is 1 in value, the clip never acts and "
        "the gradient is No-Clip's; at μ > 1 the later steps clip. In 0.15.2 and 1.16 alike "
        "the advantage divides by the Bessel-corrected std plus 10⁻⁴, outside the root, not by "
        "√(p(1−p)+ε); the KL is k3 per token, whose expected gradient (one-token answers, on-policy) is that of the "
        "forward KL(π_ref‖π) without the ratio (TRL 0.15; 1.16 with its bias-correction flag off) and that of "
        "Eq. (2)'s KL(π‖π_ref) with it (1.16's default, when β > 0; its default β is 0)",
        "statement",
        trl_checks(family_loss),
        None,  # the sentence was true of TRL's latest release when v1 appeared: there is no printed claim to reject
        "trl_grpo",
    )


def rows(family_loss: FamilyLoss) -> list[Erratum]:
    """The row of §2.3, TRL's implementation, with TRL's loss as ``family_loss`` computes it."""
    return [_trl_no_clip(family_loss)]
