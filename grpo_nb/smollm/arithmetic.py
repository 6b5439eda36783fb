"""Few-shot addition for a pretrained LM: the prompts, the verifiable reward and each prompt's exact success
probability.

A prompt is four worked sums and a fifth left open, ``"1+1=2\\n3+4=7\\n5+2=7\\n8+6=14\\n{a}+{b}="``, with a two-digit
``a`` (10 to 19) and a one-digit ``b`` (1 to 9), so every prompt has the same number of tokens and every answer
a + b has two digits. SmolLM2's tokenizer writes digits one per token, so the correct answer is three tokens:
the two digits and a newline. The reward of a sampled three-token answer is 1 when it is exactly those tokens
(the first line of the answer is the sum) and 0 otherwise; hence the success probability of the policy is exact,

    p(q) = pi(d1 | q) pi(d2 | q, d1) pi("\\n" | q, d1, d2),

one forward pass over the prompt and its correct answer, with no sampling error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from grpo_nb.validation import check_positive_int

__all__ = [
    "ANSWER_TOKENS",
    "FEW_SHOT",
    "ArithmeticTask",
    "build_task",
    "candidate_pairs",
    "choose_prompts",
    "success_probability",
    "token_reward",
]

FEW_SHOT = "1+1=2\n3+4=7\n5+2=7\n8+6=14\n"
ANSWER_TOKENS = 3  # two digits and a newline


def candidate_pairs() -> list[tuple[int, int]]:
    """Every (a, b) with 10 <= a <= 19 and 1 <= b <= 9: 90 prompts, each with a two-digit sum."""
    return [(a, b) for a in range(10, 20) for b in range(1, 10)]


@dataclass(frozen=True)
class ArithmeticTask:
    """Prompts (P, T0) and their correct answers (P, 3) as token ids, and the (a, b) of each prompt."""

    pairs: tuple[tuple[int, int], ...]
    prompt_ids: torch.Tensor
    target_ids: torch.Tensor

    @property
    def sequences(self) -> torch.Tensor:
        """Each prompt followed by its correct answer, (P, T0 + 3)."""
        return torch.cat([self.prompt_ids, self.target_ids], dim=1)

    def labels(self) -> list[str]:
        return [f"{a}+{b}" for a, b in self.pairs]


def build_task(tokenizer: object, pairs: object) -> ArithmeticTask:
    """Tokenise the prompts of ``pairs`` and their answers; ValueError if a pair is out of the candidates' range or
    the tokenizer does not write the prompts in one length and each answer as its two digits and a newline."""
    pairs = tuple((int(a), int(b)) for a, b in pairs)
    if not pairs:
        raise ValueError("pairs=() is empty; valid: at least one (a, b) with 10 <= a <= 19, 1 <= b <= 9")
    allowed = set(candidate_pairs())
    for a, b in pairs:
        if (a, b) not in allowed:
            raise ValueError(f"pair=({a}, {b}) is out of range; valid range is 10 <= a <= 19 and 1 <= b <= 9")
    prompts = [tokenizer(f"{FEW_SHOT}{a}+{b}=").input_ids for a, b in pairs]
    answers = [
        tokenizer(f"{FEW_SHOT}{a}+{b}={a + b}\n").input_ids[len(p) :] for p, (a, b) in zip(prompts, pairs, strict=True)
    ]
    if len({len(p) for p in prompts}) != 1 or {len(t) for t in answers} != {ANSWER_TOKENS}:
        raise ValueError(
            "the tokenizer does not write every prompt in one length and every answer as two digits and a newline; "
            "valid: a tokenizer that splits digits (SmolLM2's)"
        )
    return ArithmeticTask(pairs, torch.tensor(prompts), torch.tensor(answers))


def token_reward(answers: torch.Tensor, target_ids: torch.Tensor) -> torch.Tensor:
    """r = 1 where a sampled answer (N, 3) is exactly its prompt's correct answer (N, 3) token for token, else 0."""
    if answers.shape != target_ids.shape:
        raise ValueError(f"answers of shape {tuple(answers.shape)} and targets of {tuple(target_ids.shape)} differ")
    return (answers == target_ids).all(dim=1).to(torch.float32)


@torch.no_grad()
def success_probability(model: torch.nn.Module, task: ArithmeticTask, *, batch: int = 32) -> np.ndarray:
    """Exact p(q) = pi(correct answer | q) for every prompt of ``task``: the product of the answer's three token
    probabilities under ``model``, from one forward pass (in batches of ``batch`` prompts). Float64, shape (P,)."""
    batch = check_positive_int("batch", batch)
    seqs = task.sequences
    out = []
    for start in range(0, seqs.shape[0], batch):
        ids = seqs[start : start + batch]
        logits = model(ids).logits[:, -ANSWER_TOKENS - 1 : -1].float()
        logp = torch.log_softmax(logits, dim=-1).gather(2, ids[:, -ANSWER_TOKENS:].unsqueeze(2)).squeeze(2)
        out.append(logp.sum(dim=1).double())
    return torch.cat(out).exp().numpy()


def choose_prompts(p_ref: object, n: int) -> np.ndarray:
    """The rule that picks the prompt set: sort the candidates by p_ref and keep those of ranks
    round(linspace(0, N - 1, n)), n prompts spread over the whole range of p_ref. Returns their indices, in rank
    order."""
    p_ref = np.asarray(p_ref, dtype=float).reshape(-1)
    n = check_positive_int("n", n, minimum=2)
    if n > p_ref.size:
        raise ValueError(f"n={n} is out of range; valid range is 2 <= n <= {p_ref.size} (the candidates)")
    order = np.argsort(p_ref, kind="stable")
    return order[np.round(np.linspace(0, p_ref.size - 1, n)).astype(int)]
