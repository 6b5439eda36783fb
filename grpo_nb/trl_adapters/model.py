"""The toy task's policy as a ``transformers`` model, for TRL's GRPOTrainer: a tiny GPT-2 and a tokenizer built in code.

- ``build_tokenizer``: one token per character; the digits keep the ids of :mod:`grpo_nb.toylm.task` (0-9, ``+`` 10,
  ``=`` 11), so a prompt's ids are the task's own, plus ``<eos>`` (12), which TRL needs as end and padding token.
  Built from a ``tokenizers`` word-level model: nothing is downloaded.
- ``build_model``: ``GPT2LMHeadModel`` from a config with the book's sizes (``ModelConfig``: width, layers, heads),
  no dropout, on the CPU in float32. Its head covers the whole vocabulary, so unlike the book's ``TinyLM`` it can
  emit ``+``, ``=`` or ``<eos>``: such an answer earns reward 0.
- ``enumerate_logprobs_hf``: log pi(o|q) of every digit answer o, exactly (the softmax runs over the whole
  vocabulary, so sum_o pi(o|q) < 1 by the mass on non-digit tokens); ``enumerate_outcomes_hf`` adds every way to
  leave the digit answers (a digit prefix, then a non-digit token), so that its probabilities sum to 1.
- ``sft_hf``: the book's SFT (:mod:`grpo_nb.toylm.sft`: full-batch AdamW on the demonstrations' frequency table).
- ``save_local``: model and tokenizer written to a folder, which becomes the model's ``name_or_path``: TRL rebuilds
  the reference model from it when beta > 0 (offline, no hub).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from grpo_nb.toylm.configs import ModelConfig, SFTConfig
from grpo_nb.toylm.task import EQ, N_DIGITS, PLUS

__all__ = [
    "EOS",
    "TRL_VOCAB_SIZE",
    "build_model",
    "build_tokenizer",
    "enumerate_logprobs_hf",
    "enumerate_outcomes_hf",
    "save_local",
    "sft_hf",
]

EOS = 12
TRL_VOCAB_SIZE = 13
_TOKENS = {**{str(d): d for d in range(N_DIGITS)}, "+": PLUS, "=": EQ, "<eos>": EOS}


def build_tokenizer():
    """A fast tokenizer with one token per character (digit ids as in the task) and ``<eos>`` as end and padding."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(vocab=_TOKENS, unk_token="<eos>"))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")
    tok.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<eos>", pad_token="<eos>", bos_token="<eos>", unk_token="<eos>"
    )


def build_model(cfg: ModelConfig, max_len: int, seed: int):
    """GPT-2 with the book's width, depth and heads, ``max_len`` positions, no dropout, seeded (CPU, float32)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(
        vocab_size=TRL_VOCAB_SIZE,
        n_positions=max_len,
        n_embd=cfg.d_model,
        n_layer=cfg.n_layer,
        n_head=cfg.n_head,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        bos_token_id=EOS,
        eos_token_id=EOS,
        pad_token_id=EOS,
    )
    torch.manual_seed(seed)
    with torch.device("cpu"):
        return GPT2LMHeadModel(config).float()


def _prefix_logprobs(model: torch.nn.Module, prompts: torch.Tensor, out_len: int) -> torch.Tensor:
    """log pi(v | q, d_1..d_t) over the whole vocabulary v, at every position t < L after every digit prefix:
    (P, 10**(L-1), L, V), the second axis the first L-1 digits in product order (position t reads only d_1..d_t).
    One forward pass over the 10**(L-1) prefixes per prompt."""
    n_prompts, t0 = prompts.shape
    dev = prompts.device
    index = torch.arange(N_DIGITS ** (out_len - 1), device=dev)
    place = N_DIGITS ** torch.arange(out_len - 2, -1, -1, device=dev)
    pre = index.unsqueeze(1) // place % N_DIGITS
    n_pre = pre.shape[0]
    seq = torch.cat([prompts.repeat_interleave(n_pre, 0), pre.repeat(n_prompts, 1)], dim=1)
    logits = model(input_ids=seq).logits
    lp = torch.log_softmax(logits[:, t0 - 1 :].float(), dim=-1)
    return lp.reshape(n_prompts, n_pre, out_len, -1)


def _digit_answers(lp: torch.Tensor, outputs: torch.Tensor) -> torch.Tensor:
    """log pi(o|q) of every digit answer (K, L) from :func:`_prefix_logprobs`' table: (P, K)."""
    n_prompts = lp.shape[0]
    k, out_len = outputs.shape
    lp = lp[..., :N_DIGITS][:, torch.arange(k, device=lp.device) // N_DIGITS]
    idx = outputs.view(1, k, out_len, 1).expand(n_prompts, k, out_len, 1)
    return lp.gather(-1, idx).squeeze(-1).sum(-1)


def enumerate_logprobs_hf(model: torch.nn.Module, prompts: torch.Tensor, outputs: torch.Tensor) -> torch.Tensor:
    """log pi(o|q) for every prompt (P, T0) and every digit answer (K, L) in product order: shape (P, K).

    As :func:`grpo_nb.toylm.rollout.enumerate_logprobs`: one forward pass over the 10**(L-1) prefixes per prompt.
    """
    return _digit_answers(_prefix_logprobs(model, prompts, outputs.shape[1]), outputs)


def enumerate_outcomes_hf(model: torch.nn.Module, prompts: torch.Tensor, outputs: torch.Tensor) -> torch.Tensor:
    """log pi(y|q) of every *outcome* y of an answer, shape (P, K + M): the K digit answers (product order, as
    :func:`enumerate_logprobs_hf`), then every way to leave them, a digit prefix d_1..d_t (t = 0..L-1, product
    order) followed by one non-digit token (``+``, ``=`` or ``<eos>``): M = 3 (1 + 10 + ... + 10**(L-1)).

    Every answer the model can emit has exactly one outcome (an answer that leaves the digits is cut after the
    first non-digit token: its reward is 0 whatever follows), so the outcomes' probabilities sum to 1 and a KL over
    them is a KL (over the digit answers alone it is not: the network can move mass off them). The outcome space is
    finite and the reward a function of the outcome, so Theorem 1 applies to it as it stands.
    """
    out_len = outputs.shape[1]
    lp = _prefix_logprobs(model, prompts, out_len)
    n_prompts, n_pre = lp.shape[:2]
    parts = [_digit_answers(lp, outputs)]
    for t in range(out_len):
        rows = torch.arange(N_DIGITS**t, device=lp.device) * N_DIGITS ** (out_len - 1 - t)  # prefixes d_1..d_t, 0s
        at = lp[:, rows]  # (P, 10**t, L, V)
        prefix = torch.zeros(n_prompts, rows.numel(), device=lp.device)
        for j in range(t):
            digit = (rows // N_DIGITS ** (out_len - 2 - j)) % N_DIGITS
            prefix = prefix + at[:, torch.arange(rows.numel(), device=lp.device), j, digit]
        leave = at[:, :, t, N_DIGITS:]  # (P, 10**t, V - 10): the non-digit tokens at position t
        parts.append((prefix.unsqueeze(-1) + leave).reshape(n_prompts, -1))
    return torch.cat(parts, dim=1)


def sft_hf(
    model: torch.nn.Module, prompts: torch.Tensor, outputs: torch.Tensor, *, freq: np.ndarray, cfg: SFTConfig
) -> np.ndarray:
    """The book's SFT (:func:`grpo_nb.toylm.sft.train_sft`) on the GPT-2 policy; returns the loss curve."""
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay, foreach=True)
    f = torch.as_tensor(freq, dtype=torch.float32, device=prompts.device)
    losses = []
    model.train()
    for _ in range(cfg.n_steps):
        loss = -(f * enumerate_logprobs_hf(model, prompts, outputs)).sum(dim=1).mean() / outputs.shape[1]
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return torch.stack(losses).numpy().astype(float)


def save_local(model: torch.nn.Module, tokenizer: object, folder: Path) -> Path:
    """Write model and tokenizer to ``folder`` and make it the model's ``name_or_path`` (TRL's reference model)."""
    folder = Path(folder)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    model.config.name_or_path = str(folder)
    model.name_or_path = str(folder)
    return folder
