"""The tabular policy's gradients: the contrastive decomposition of the clipped surrogate and REINFORCE's
score-function gradient, each against an independent computation and a wrong formula."""

from __future__ import annotations

import numpy as np
from scipy.special import softmax

from grpo_nb.tabular import policy
from grpo_nb.tabular.algorithm1 import reinforce_gradient


def test_contrastive_decomposition_gap_and_its_negative(monkeypatch):
    rng = np.random.default_rng(1)
    pi_old, pi_new = rng.dirichlet(np.ones(5), size=(2, 40))
    reward = (rng.random((40, 5)) < 0.5).astype(float)
    reward[:, 0], reward[:, 1] = 1.0, 0.0
    assert (
        policy.contrastive_decomposition_gap(pi_old, pi_new, reward, eps=1e-5, clip_eps_values=(0.1, 0.2, np.inf))
        < 1e-12
    )
    monkeypatch.setattr(policy, "clipped_term", lambda x, a, c: x * a)  # forget the clipping
    assert policy.contrastive_decomposition_gap(pi_old, pi_new, reward, eps=1e-5, clip_eps_values=(0.1,)) > 1e-3


def test_reinforce_gradient_is_the_score_function_gradient():
    rng = np.random.default_rng(2)
    logits, w, adv = rng.normal(size=(3, 4)), rng.dirichlet(np.ones(4), size=3), rng.normal(size=(3, 4))
    # d/dtheta sum_o w_o A_o log pi(o), by central differences
    f = lambda th: np.sum(w * adv * np.log(softmax(th, axis=-1)))  # noqa: E731
    num = np.zeros_like(logits)
    for idx in np.ndindex(logits.shape):
        d = np.zeros_like(logits)
        d[idx] = 1e-6
        num[idx] = (f(logits + d) - f(logits - d)) / 2e-6
    assert np.allclose(reinforce_gradient(logits, w, adv), num, atol=1e-7)
