"""Reading the policy pi_theta(o|q) off the network: exact enumeration, teacher forcing, sampling.

- ``enumerate_logprobs``: log pi(o|q) for every output o, exactly. An output's last symbol needs only
  its (L-1)-symbol prefix as context, so one forward pass over the 10**(L-1) prefixes per prompt gives
  all 10**L answers' log-probabilities.
- ``token_logprobs``: per-token log pi(o_t | q, o_<t) of given answers (teacher forcing).
- ``sample``: batched sampling with a KV cache (prefill the prompts once, then one token per step).
- ``sample_naive``: the baseline for the benchmark, one sequence at a time and no cache.
"""

from __future__ import annotations

import torch

from grpo_nb.toylm.model import TinyLM

__all__ = ["enumerate_logprobs", "sample", "sample_naive", "token_logprobs"]


def _prefixes(n_out: int, out_len: int, device: torch.device) -> torch.Tensor:
    """Every (L-1)-symbol prefix in product order, (n_out**(L-1), L-1), computed on ``device`` (no host copy)."""
    index = torch.arange(n_out ** (out_len - 1), device=device)
    place = n_out ** torch.arange(out_len - 2, -1, -1, device=device)
    return index.unsqueeze(1) // place % n_out


def enumerate_logprobs(model: TinyLM, prompts: torch.Tensor, outputs: torch.Tensor) -> torch.Tensor:
    """log pi(o|q) for every prompt (P, T0) and every output (K, L) in product order: shape (P, K)."""
    n_prompts, t0 = prompts.shape
    n_out = model.head.out_features
    k, out_len = outputs.shape
    pre = _prefixes(n_out, out_len, prompts.device)  # (K / n_out, L - 1)
    n_pre = pre.shape[0]
    seq = torch.cat([prompts.repeat_interleave(n_pre, 0), pre.repeat(n_prompts, 1)], dim=1)
    logits, _ = model(seq)
    lp = torch.log_softmax(logits[:, t0 - 1 :], dim=-1).view(n_prompts, n_pre, out_len, n_out)
    lp = lp[:, torch.arange(k, device=prompts.device) // n_out]  # (P, K, L, n_out): each output's prefix
    index = outputs.view(1, k, out_len, 1).expand(n_prompts, k, out_len, 1)
    return lp.gather(-1, index).squeeze(-1).sum(-1)


def token_logprobs(model: TinyLM, prompts: torch.Tensor, answers: torch.Tensor) -> torch.Tensor:
    """log pi(o_t | q, o_<t) of answers (N, L) to prompts (N, T0) by teacher forcing: shape (N, L)."""
    t0 = prompts.shape[1]
    logits, _ = model(torch.cat([prompts, answers[:, :-1]], dim=1))
    lp = torch.log_softmax(logits[:, t0 - 1 :], dim=-1)
    return lp.gather(-1, answers.unsqueeze(-1)).squeeze(-1)


@torch.no_grad()
def sample(model: TinyLM, prompts: torch.Tensor, out_len: int, *, generator: torch.Generator) -> torch.Tensor:
    """One answer of ``out_len`` symbols per row of ``prompts`` (N, T0), all rows at once, with a KV cache."""
    logits, cache = model(prompts)
    out = []
    for t in range(out_len):
        probs = torch.softmax(logits[:, -1], dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator)
        out.append(tok)
        if t + 1 < out_len:
            logits, cache = model(tok, cache)
    return torch.cat(out, dim=1)


@torch.no_grad()
def sample_naive(model: TinyLM, prompts: torch.Tensor, out_len: int, *, generator: torch.Generator) -> torch.Tensor:
    """Same distribution as ``sample``, one sequence at a time and a full forward pass per token."""
    rows = []
    for i in range(prompts.shape[0]):
        seq = prompts[i : i + 1]
        for _ in range(out_len):
            logits, _ = model(seq)
            tok = torch.multinomial(torch.softmax(logits[:, -1], dim=-1), 1, generator=generator)
            seq = torch.cat([seq, tok], dim=1)
        rows.append(seq[:, prompts.shape[1] :])
    return torch.cat(rows, dim=0)
