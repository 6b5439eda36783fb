"""The random batch of answers the chapter "The GRPO family" computes its losses on (TRL's and the book's)."""

from __future__ import annotations

import numpy as np

__all__ = ["random_batch"]


def random_batch(seed: int = 0, B: int = 6, T: int = 5) -> dict[str, np.ndarray]:
    """B answers of at most T tokens (random lengths, at least one token): log-probabilities of the policy, of an
    older one (off-policy by about 0.15 per token) and of pi_ref, the mask, one Normal(0, 1) advantage per answer."""
    rng = np.random.default_rng(seed)
    mask = (np.arange(T)[None, :] < rng.integers(1, T + 1, size=B)[:, None]).astype(float)
    logp = np.log(rng.uniform(0.05, 0.95, size=(B, T)))
    return {"logp": logp, "old_logp": logp + rng.normal(0, 0.15, (B, T)),
            "ref_logp": logp + rng.normal(0, 0.3, (B, T)), "mask": mask, "advantages": rng.normal(0, 1, B)}  # fmt: skip
