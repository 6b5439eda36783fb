"""Algorithm 1 (Mroueh 2025, §2.4) on SmolLM2: sampled groups, the paper's stabilised advantage, the loss of the
book's toy-LM trainer, and every prompt's exact success probability after each outer step.

Each outer iteration n freezes pi_old <- pi_theta, draws G three-token answers per prompt from pi_old (temperature 1,
with a KV cache), scores them with the verifiable reward, forms each group's advantage
(r - p_hat)/sqrt(p_hat(1 - p_hat) + eps) (Eq. 3) and takes ``mu`` Adam steps on
:func:`grpo_nb.toylm.grpo.grpo_loss`: minus the mean of ratio x advantage (no clip, the paper's GRPO-No-Clip, unless
``clip_eps`` is set) plus beta times Schulman's k3 estimate of KL(pi_theta || pi_ref) summed over the answer's tokens.
Only the top blocks are trained (:class:`~grpo_nb.smollm.blocks.SplitModel`); a sequence that several answers of a
group share is run once and its log-probabilities are copied to each of them, which leaves the loss unchanged.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch

from grpo_nb.smollm.arithmetic import ANSWER_TOKENS, ArithmeticTask, token_reward
from grpo_nb.smollm.blocks import SplitModel
from grpo_nb.toylm.grpo import group_advantage, grpo_loss
from grpo_nb.validation import check_beta, check_eps, check_open_interval, check_positive_int, check_scalar

__all__ = ["SmolGRPOConfig", "SmolRun", "sample_answers", "train_smollm"]


@dataclass(frozen=True)
class SmolGRPOConfig:
    """Algorithm 1's settings for SmolLM2 (checked at creation; a bad value raises ValueError)."""

    n: int = 6  # outer iterations
    mu: int = 16  # inner Adam steps per outer iteration
    lr: float = 1e-4
    beta: float = 2.0
    eps: float = 1e-2
    G: int = 16
    trained_blocks: int = 2
    clip_eps: float | None = None

    def __post_init__(self) -> None:
        check_positive_int("n", self.n)
        check_positive_int("mu", self.mu)
        check_open_interval("lr", self.lr, lo=0.0, hi=1.0)
        check_scalar("beta", check_beta(self.beta))
        check_scalar("eps", check_eps(self.eps))
        check_positive_int("G", self.G, minimum=2)
        check_positive_int("trained_blocks", self.trained_blocks)
        if self.clip_eps is not None:
            check_open_interval("clip_eps", self.clip_eps, lo=0.0, hi=np.inf)


@dataclass
class SmolRun:
    """One run: exact p_n(q) for n = 0..N (shape (N+1, P)), each outer step's mean sampled reward p_hat (N, P),
    the inner losses (N, mu), the wall time of each outer step and the number of distinct sequences trained on."""

    p: np.ndarray
    p_hat: np.ndarray
    inner_loss: np.ndarray
    step_s: list[float] = field(default_factory=list)
    distinct: list[int] = field(default_factory=list)


@torch.no_grad()
def sample_answers(
    model: torch.nn.Module, prompt_ids: torch.Tensor, G: int, *, generator: torch.Generator
) -> torch.Tensor:
    """G answers of three tokens per prompt, drawn from ``model`` at temperature 1: (P G, 3), prompt-major.

    The prompts are run once; their cache is repeated G times and the answers are drawn one token per step.
    """
    G = check_positive_int("G", G)
    out = model(prompt_ids, use_cache=True)
    cache = out.past_key_values
    cache.batch_repeat_interleave(G)
    logits = out.logits[:, -1].float().repeat_interleave(G, dim=0)
    tokens = []
    for step in range(ANSWER_TOKENS):
        nxt = torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=generator)
        tokens.append(nxt)
        if step + 1 < ANSWER_TOKENS:
            out = model(nxt, past_key_values=cache, use_cache=True)
            cache, logits = out.past_key_values, out.logits[:, -1].float()
    return torch.cat(tokens, dim=1)


def _exact_p(split: SplitModel, target_hidden: torch.Tensor, task: ArithmeticTask) -> np.ndarray:
    with torch.no_grad():
        logp = split.answer_logprobs(target_hidden, task.sequences, ANSWER_TOKENS)
    return logp.sum(dim=1).double().exp().cpu().numpy()


def _outer_step(
    split: SplitModel, task: ArithmeticTask, cfg: SmolGRPOConfig, generator: torch.Generator
) -> tuple[np.ndarray, np.ndarray, int]:
    """One outer iteration in place: sample, score, then mu inner steps. Returns (p_hat, losses, distinct)."""
    n_prompts = task.prompt_ids.shape[0]
    answers = sample_answers(split.model, task.prompt_ids, cfg.G, generator=generator)
    targets = task.target_ids.repeat_interleave(cfg.G, dim=0)
    rewards = token_reward(answers, targets).view(n_prompts, cfg.G)
    adv = group_advantage(rewards, "paper", cfg.eps).reshape(-1)
    seqs = torch.cat([task.prompt_ids.repeat_interleave(cfg.G, dim=0), answers], dim=1)
    distinct, inverse = torch.unique(seqs, dim=0, return_inverse=True)
    hidden = split.lower(distinct)
    with torch.no_grad():
        old_lp = split.answer_logprobs(hidden, distinct, ANSWER_TOKENS)[inverse]
        ref_lp = split.answer_logprobs(hidden, distinct, ANSWER_TOKENS, ref=True)[inverse]
    opt = torch.optim.Adam(split.parameters(), lr=cfg.lr)  # a fresh optimiser for every inner problem
    losses = []
    for _ in range(cfg.mu):
        lp = split.answer_logprobs(hidden, distinct, ANSWER_TOKENS)[inverse]
        loss = grpo_loss(lp, old_lp, adv, beta=cfg.beta, clip_eps=cfg.clip_eps, logp_ref=ref_lp)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
    return rewards.mean(dim=1).double().cpu().numpy(), np.asarray(losses), int(distinct.shape[0])


def train_smollm(split: SplitModel, task: ArithmeticTask, cfg: SmolGRPOConfig, *, seed: int) -> SmolRun:
    """Algorithm 1 on ``split`` (its top blocks are updated in place) for ``cfg.n`` outer iterations; the draws
    follow ``seed``. Returns the exact p_n of every prompt before the first and after every outer iteration."""
    if not isinstance(cfg, SmolGRPOConfig):
        raise ValueError(f"cfg={cfg!r} is not valid; valid: a SmolGRPOConfig (checked at creation)")
    if split.trained != cfg.trained_blocks:
        raise ValueError(f"split.trained={split.trained} differs from cfg.trained_blocks={cfg.trained_blocks}")
    generator = torch.Generator(device=task.prompt_ids.device).manual_seed(int(seed))
    target_hidden = split.lower(task.sequences)
    p, p_hat, losses, run = (
        [_exact_p(split, target_hidden, task)],
        [],
        [],
        SmolRun(np.empty(0), np.empty(0), np.empty(0)),
    )
    for _ in range(cfg.n):
        start = time.perf_counter()
        ph, ls, distinct = _outer_step(split, task, cfg, generator)
        p.append(_exact_p(split, target_hidden, task))
        p_hat.append(ph)
        losses.append(ls)
        run.step_s.append(time.perf_counter() - start)
        run.distinct.append(distinct)
    run.p, run.p_hat, run.inner_loss = np.stack(p), np.stack(p_hat), np.stack(losses)
    return run
