"""Section "What breaks amplification, one knob at a time" of the TRL chapter: k3's float32 cancellation, measured in
TRL's own ``_compute_loss``.

TRL 1.16 computes Schulman's k3 per token as ``exp(d) - d - 1`` with d = log pi_ref - log pi in float32
(``trl/trainer/grpo_trainer.py``). For small |d|, exp(d) rounds to within half an ulp of 1 (about 6e-8) while the
true value is about d^2/2, so the value loses its digits below |d| of about 1e-3 and can come out negative;
``expm1(d) - d`` (:func:`grpo_nb.kl.k3`) does not. :func:`trl_k3_values` reads the per-token k3 that TRL's loss
computes: on the probe's batch (:func:`grpo_nb.chapters.trl_grpo.advantage_probe.make_probe`, beta > 0) it sets
``ref_per_token_logps`` = log pi + d, keeps one token in the mask at a time, and reads TRL's logged ``kl`` metric,
which is then that token's k3. The exact value is computed in float64 from the same d that TRL's float32
subtraction produced.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from grpo_nb.kl import k3

__all__ = ["Cancellation", "GradientError", "cancellation", "gradient_error", "measure_cancellation", "trl_k3_values"]


def trl_k3_values(probe, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TRL's per-token k3 and the exact k3 (float64) for the log-ratios ``d`` (any number: the probe's completion
    tokens take them in turn, a batch's worth at a time). Returns (TRL's values, exact values).

    TRL's loss keeps one token at a time in the completion mask; the policy's log-probabilities are held at the
    probe's (TRL's forward pass is replaced by them), because TRL builds the attention mask from the completion mask
    and a forward pass with one token kept would give the other tokens other log-probabilities than the ``d`` was
    set against."""
    logp = probe.logp
    mask = probe.inputs["completion_mask"]
    cells = torch.nonzero(mask, as_tuple=False).tolist()
    d = np.asarray(d, dtype=float).ravel()
    trl_vals, d_seen = [], []
    trainer = probe.trainer
    trainer._get_per_token_logps_and_entropies = lambda *args, **kwargs: (logp, torch.zeros_like(logp), None)
    try:
        for start in range(0, d.size, len(cells)):
            chunk = d[start : start + len(cells)]
            shift = torch.zeros_like(logp)
            for (i, j), x in zip(cells, chunk, strict=False):
                shift[i, j] = float(x)
            ref = logp + shift
            for i, j in cells[: chunk.size]:
                one = torch.zeros_like(mask)
                one[i, j] = 1
                probe.loss(ref_per_token_logps=ref, old_per_token_logps=logp, completion_mask=one)
                trl_vals.append(probe.logged("kl"))
                d_seen.append(float((ref[i, j] - logp[i, j]).item()))  # TRL's own float32 subtraction
    finally:
        del trainer._get_per_token_logps_and_entropies
    d64 = np.asarray(d_seen, dtype=float)
    return np.asarray(trl_vals), k3(np.zeros_like(d64), d64)


@dataclass(frozen=True)
class Cancellation:
    """At one scale of |d|: the median relative error of TRL's k3 against the exact one, and the share of values
    below 0 (k3 is never negative)."""

    scale: float
    median_rel_error: float
    negative_share: float


def cancellation(scale: float, trl_vals: np.ndarray, exact: np.ndarray) -> Cancellation:
    """:class:`Cancellation` of TRL's values against the exact ones at the scale ``scale``."""
    rel = np.abs(trl_vals - exact) / exact
    return Cancellation(scale, float(np.median(rel)), float(np.mean(trl_vals < 0)))


def measure_cancellation(probe, *, scales=(1e-2, 1e-3, 1e-4), n: int = 256, seed: int = 0) -> list[Cancellation]:
    """:func:`cancellation` of TRL's k3 at each scale: ``n`` log-ratios d = scale x U(0.5, 1.5) x a random sign
    (numpy's generator seeded ``seed``), each computed by TRL's loss (:func:`trl_k3_values`)."""
    rng = np.random.default_rng(seed)
    found = []
    for scale in scales:
        d = scale * rng.uniform(0.5, 1.5, n) * rng.choice([-1.0, 1.0], n)
        found.append(cancellation(scale, *trl_k3_values(probe, d)))
    return found


@dataclass(frozen=True)
class GradientError:
    """At one scale of |d|, over many float32 log-probabilities: the share of TRL's float32 k3 values below 0 on this
    machine (``negative_share``: it rests on the last bit of the machine's float32 exp near 1, which rounds the true
    e^d - d - 1 of a few 1e-9 to a multiple of 2^-23 or 2^-24) and with a correctly rounded exp
    (``negative_share_rounded``: float64 exp rounded once to float32, the same on every machine), the largest absolute
    error of the float32 gradient of k3 with respect to log pi (autograd through TRL's ``exp(d) - d - 1``) against the
    exact 1 - e^d, and the smallest |gradient| itself."""

    scale: float
    negative_share: float
    negative_share_rounded: float
    max_abs_error: float
    min_abs_gradient: float


def gradient_error(scale: float, *, n: int = 100_000, seed: int = 0) -> GradientError:
    """:class:`GradientError` over ``n`` float32 log-probabilities in [-3, 0] and log-ratios d = scale x U(0.5, 1.5) x
    a random sign: TRL's float32 k3 (:func:`grpo_nb.trl_adapters.ladder.k3_per_token`, the same expression, tested
    equal to TRL's loss) and its gradient against -expm1(d) in float64 at the d that float32 produced."""
    from grpo_nb.trl_adapters.ladder import k3_per_token

    rng = np.random.default_rng(seed)
    logp = torch.tensor(-3 * rng.random(n), dtype=torch.float32, requires_grad=True)
    d_target = scale * rng.uniform(0.5, 1.5, n) * rng.choice([-1.0, 1.0], n)
    ref = (logp.detach() + torch.tensor(d_target, dtype=torch.float32)).detach()
    values = k3_per_token(logp, ref, "float32")
    values.sum().backward()
    d64 = (ref - logp.detach()).double().numpy()
    exact = -np.expm1(d64)
    keep = d64 != 0
    err = np.abs(logp.grad.double().numpy() - exact)[keep]
    negative = float((values.detach().numpy() < 0).mean())
    d32 = ref - logp.detach()  # TRL's float32 d
    rounded = torch.exp(d32.double()).float() - d32 - 1  # TRL's expression with a correctly rounded exp
    negative_rounded = float((rounded < 0).double().mean())
    return GradientError(scale, negative, negative_rounded, float(err.max()), float(np.abs(exact[keep]).min()))
