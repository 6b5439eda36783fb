"""Section "Every knob, checked by TRL's own code" of the chapter "GRPO in TRL": which KL's gradient Schulman's k3
gives, with and without the importance ratio (:func:`kl_direction_check` against :data:`KL_GRADIENT_DIRECTION`,
which it reads when it runs).
"""

from __future__ import annotations

import numpy as np

__all__ = ["KL_GRADIENT_DIRECTION", "kl_direction_check"]


#: The book's statement of which KL's gradient Schulman's k3 gives in expectation, per placement of
#: :func:`grpo_nb.kl.expected_estimator_gradient`: as a loss without the ratio, the forward KL(pi_ref || pi_theta);
#: times the importance ratio (``use_bias_correction_kl``), the reverse KL(pi_theta || pi_ref) of Eq. (2).
KL_GRADIENT_DIRECTION: dict[str, str] = {"loss": "forward", "ratio_weighted": "reverse"}


def _autograd_gaps(rng: np.random.Generator, n_answers: int) -> dict[str, float]:
    """Per placement, by torch's autograd on enumerated softmax policies (:mod:`grpo_nb.tabular.token_policy`): the
    gap between k3's expected gradient and the stated KL's, for one-token answers (the KL of the answers) and for
    answers of two tokens over a vocabulary of three (the per-token KL, each prefix's weight held fixed)."""
    import torch

    from grpo_nb.tabular.token_policy import TokenPolicy, flat_gradient, kl_term, per_token_kl, sequence_kl

    gaps = dict.fromkeys(KL_GRADIENT_DIRECTION, 0.0)
    one_token = TokenPolicy((torch.tensor(rng.normal(size=(1, n_answers)), requires_grad=True),))
    two_tokens = TokenPolicy.random(3, 2, rng, grad=True)
    for policy, kl in ((one_token, sequence_kl), (two_tokens, per_token_kl)):
        ref = TokenPolicy(tuple(torch.tensor(rng.normal(size=tuple(t.shape))) for t in policy.logits))
        for placement, direction in KL_GRADIENT_DIRECTION.items():
            term = flat_gradient(kl_term(policy, ref, "k3", placement=placement), policy)
            target = flat_gradient(kl(policy, ref, direction=direction), policy)
            gaps[placement] = max(gaps[placement], float(np.abs(term - target).max()))
    return gaps


def kl_direction_check(n_draws: int = 50, n_answers: int = 6, *, seed: int = 0) -> dict[str, float]:
    """Section "Every knob, checked by TRL's own code": per placement of k3 (``loss``, ``ratio_weighted``), the
    largest gap, over ``n_draws`` seeded softmax policies and references on ``n_answers`` answers, between k3's exact
    expected gradient (:func:`grpo_nb.kl.expected_estimator_gradient`) and the gradient of the KL direction that
    :data:`KL_GRADIENT_DIRECTION` states (:func:`grpo_nb.kl.softmax_kl_gradients`); and the same by autograd, on
    one-token answers and token by token on answers of two tokens (:func:`_autograd_gaps`)."""
    from grpo_nb.kl import expected_estimator_gradient, softmax_kl_gradients

    rng = np.random.default_rng(seed)
    gaps = dict.fromkeys(KL_GRADIENT_DIRECTION, 0.0)
    for _ in range(n_draws):
        logits, ref_logits = rng.normal(size=(2, n_answers))
        log_ref = ref_logits - np.logaddexp.reduce(ref_logits)
        reverse, forward = softmax_kl_gradients(logits, log_ref)
        for placement, direction in KL_GRADIENT_DIRECTION.items():
            target = {"reverse": reverse, "forward": forward}[direction]
            gap = np.abs(expected_estimator_gradient(logits, log_ref, "k3", placement=placement) - target).max()
            gaps[placement] = max(gaps[placement], float(gap))
        for placement, gap in _autograd_gaps(rng, n_answers).items():
            gaps[placement] = max(gaps[placement], gap)
    return gaps
