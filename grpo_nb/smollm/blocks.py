"""A decoder-only transformer split at a layer: a frozen lower part and the top blocks that GRPO trains.

GRPO here updates the last ``trained`` decoder blocks and the final norm of the network (the embedding, which the
output layer shares, stays frozen): on a CPU a full step of a 135M-parameter model is too slow for the book's runs.
The lower part is then a fixed function of the tokens, so its output is computed once per set of sequences
(:meth:`SplitModel.lower`) and every inner step runs only the top blocks (:meth:`SplitModel.answer_logprobs`).
The blocks are the model's own modules, called as the model calls them (rotary position embeddings, a causal
mask, sequences of one length and no padding), so the split computes what the whole model computes
(``tests/chapters/test_smollm.py`` compares the two).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch

from grpo_nb.validation import check_positive_int

__all__ = ["SplitModel"]


@dataclass
class SplitModel:
    """``model`` (a Llama-type causal LM of transformers) with its last ``trained`` blocks trainable and the rest
    frozen; ``ref_blocks`` and ``ref_norm`` keep the top blocks and norm as they were at creation (pi_ref)."""

    model: torch.nn.Module
    trained: int

    def __post_init__(self) -> None:
        n_layers = len(self.model.model.layers)
        check_positive_int("trained", self.trained)
        if self.trained > n_layers:
            raise ValueError(f"trained={self.trained} is out of range; valid range is 1 <= trained <= {n_layers}")
        for p in self.model.parameters():
            p.requires_grad_(False)
        for p in self.parameters():
            p.requires_grad_(True)
        self.ref_blocks = copy.deepcopy(self.top_blocks).requires_grad_(False)
        self.ref_norm = copy.deepcopy(self.model.model.norm).requires_grad_(False)

    @property
    def cut(self) -> int:
        """The index of the first trained block."""
        return len(self.model.model.layers) - self.trained

    @property
    def top_blocks(self) -> torch.nn.ModuleList:
        return self.model.model.layers[self.cut :]

    def parameters(self) -> list[torch.nn.Parameter]:
        """The trained parameters: the top blocks' and the final norm's."""
        return [*self.top_blocks.parameters(), *self.model.model.norm.parameters()]

    def n_parameters(self) -> tuple[int, int]:
        """(trained, all) parameter counts."""
        return sum(p.numel() for p in self.parameters()), sum(p.numel() for p in self.model.parameters())

    def _run(self, blocks: torch.nn.ModuleList, hidden: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(hidden.shape[1], device=hidden.device).unsqueeze(0)
        rotary = self.model.model.rotary_emb(hidden, position_ids=positions)
        for block in blocks:  # no mask: causal attention over unpadded sequences of one length
            hidden = block(hidden, attention_mask=None, position_embeddings=rotary, position_ids=positions)
        return hidden

    @torch.no_grad()
    def lower(self, ids: torch.Tensor) -> torch.Tensor:
        """The frozen lower part's output for token ids (N, T): the hidden states entering the first trained block."""
        return self._run(self.model.model.layers[: self.cut], self.model.model.embed_tokens(ids))

    def answer_logprobs(
        self, hidden: torch.Tensor, ids: torch.Tensor, n_answer: int, *, ref: bool = False
    ) -> torch.Tensor:
        """log pi(o_t | q, o_<t) of the last ``n_answer`` tokens of each sequence ``ids`` (N, T), from the lower
        part's output ``hidden``: (N, n_answer). ``ref=True`` uses the top blocks of pi_ref."""
        blocks, norm = (self.ref_blocks, self.ref_norm) if ref else (self.top_blocks, self.model.model.norm)
        top = norm(self._run(blocks, hidden))[:, -n_answer - 1 : -1]  # the positions that predict the answer
        logp = torch.log_softmax(self.model.lm_head(top).float(), dim=-1)
        return logp.gather(2, ids[:, -n_answer:].unsqueeze(2)).squeeze(2)
