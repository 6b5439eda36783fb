"""A tiny causal transformer (nanoGPT-style, pre-LayerNorm) with a KV cache for batched sampling.

The policy pi_theta(o | q) of Algorithm 1 (Mroueh 2025, §2.4) is this network read autoregressively:
pi(o | q) = prod_t softmax(head(x_t))[o_t]. Attention is torch's scaled_dot_product_attention; the
output head covers only the answer alphabet (the digits), so every output it can emit is a valid answer.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from grpo_nb.toylm.configs import ModelConfig

__all__ = ["KVCache", "TinyLM"]

KVCache = list[tuple[torch.Tensor, torch.Tensor]]


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.n_head = cfg.n_head
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.proj = nn.Linear(cfg.d_model, cfg.d_model)

    def forward(
        self, x: torch.Tensor, past: tuple[torch.Tensor, torch.Tensor] | None
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.n_head, d // self.n_head).transpose(1, 2) for z in (q, k, v))
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        # Without a cache the block is causal; with one, the t new queries are the last t positions.
        if past is None or t == 1:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=past is None and t > 1)
        else:
            s = k.shape[2]
            mask = torch.ones(t, s, dtype=torch.bool, device=x.device).tril(diagonal=s - t)
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        y = y.transpose(1, 2).contiguous().view(b, t, d)
        return self.proj(y), (k, v)


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.attn = CausalSelfAttention(cfg)
        self.ln2 = nn.LayerNorm(cfg.d_model)
        self.mlp = nn.Sequential(
            nn.Linear(cfg.d_model, 4 * cfg.d_model), nn.GELU(), nn.Linear(4 * cfg.d_model, cfg.d_model)
        )

    def forward(
        self, x: torch.Tensor, past: tuple[torch.Tensor, torch.Tensor] | None
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        a, kv = self.attn(self.ln1(x), past)
        x = x + a
        return x + self.mlp(self.ln2(x)), kv


class TinyLM(nn.Module):
    """Token + position embeddings, ``n_layer`` pre-LN blocks, a head over the ``n_out`` answer symbols."""

    def __init__(self, cfg: ModelConfig, vocab_size: int, n_out: int, max_len: int) -> None:
        super().__init__()
        self.cfg = cfg
        self.max_len = max_len
        self.tok = nn.Embedding(vocab_size, cfg.d_model)
        self.pos = nn.Embedding(max_len, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layer))
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, n_out)
        self.apply(self._init)

    @staticmethod
    def _init(m: nn.Module) -> None:
        if isinstance(m, nn.Linear | nn.Embedding):
            nn.init.normal_(m.weight, mean=0.0, std=0.02)
        if isinstance(m, nn.Linear) and m.bias is not None:
            nn.init.zeros_(m.bias)

    def forward(self, idx: torch.Tensor, cache: KVCache | None = None) -> tuple[torch.Tensor, KVCache]:
        """Logits over the answer symbols at every position of ``idx`` (B, T), and the updated KV cache.

        With ``cache`` (from an earlier call) ``idx`` holds only the new tokens.
        """
        start = 0 if cache is None else cache[0][0].shape[2]
        pos = torch.arange(start, start + idx.shape[1], device=idx.device)
        x = self.tok(idx) + self.pos(pos)
        new_cache: KVCache = []
        for i, block in enumerate(self.blocks):
            x, kv = block(x, None if cache is None else cache[i])
            new_cache.append(kv)
        return self.head(self.ln_f(x)), new_cache
