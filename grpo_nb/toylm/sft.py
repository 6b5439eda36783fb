"""Supervised fine-tuning on noisy demonstrations: the network that becomes pi_ref.

The loss is the mean per-token cross-entropy of the demonstrations. Because every answer can be
enumerated, the full-batch loss over all demonstrations is computed exactly from the table of their
frequencies f(o|q) (count of o among q's demonstrations / their number):

    loss = -(1/(P L)) sum_q sum_o f(o|q) log pi(o|q),

one forward pass over the enumerated answers instead of one per demonstration. Its minimum is the
demonstrations' own conditional entropy per token, which ``entropy_floor`` returns.
"""

from __future__ import annotations

import numpy as np
import torch
from tqdm.auto import tqdm

from grpo_nb.toylm.configs import SFTConfig
from grpo_nb.toylm.model import TinyLM
from grpo_nb.toylm.rollout import enumerate_logprobs

__all__ = ["demo_frequencies", "entropy_floor", "train_sft"]


def demo_frequencies(
    demo_prompt: np.ndarray, demo_output_index: np.ndarray, *, n_prompts: int, n_outputs: int
) -> np.ndarray:
    """Empirical f(o|q) of the demonstrations, shape (P, K); rows sum to 1."""
    counts = np.zeros((n_prompts, n_outputs))
    np.add.at(counts, (demo_prompt, demo_output_index), 1.0)
    return counts / counts.sum(axis=1, keepdims=True)


def entropy_floor(freq: np.ndarray, out_len: int) -> float:
    """The smallest possible SFT loss: mean over prompts of the entropy of f(.|q), per token."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.where(freq > 0, freq * np.log(freq), 0.0).sum(axis=1)
    return float(ent.mean() / out_len)


def train_sft(
    model: TinyLM,
    prompts: torch.Tensor,
    outputs: torch.Tensor,
    *,
    freq: torch.Tensor,
    cfg: SFTConfig,
    progress: bool = True,
) -> np.ndarray:
    """Full-batch Adam on the demonstrations' cross-entropy; returns the loss curve (one value per step).

    The losses stay on the device until the end (one copy to the host, no wait per step).
    """
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay, foreach=True)
    out_len = outputs.shape[1]
    losses = []
    for _ in tqdm(range(cfg.n_steps), desc="SFT", disable=not progress):
        loss = -(freq * enumerate_logprobs(model, prompts, outputs)).sum(dim=1).mean() / out_len
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return torch.stack(losses).cpu().numpy().astype(float)
