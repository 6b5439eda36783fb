"""A verifiable task with graded difficulty and an output space small enough to enumerate.

Prompt ``a + b =`` (digits a, b); an answer is a string of ``out_len`` digits, and the verifiable 0/1
reward is 1 exactly when its digits add up to a + b. Every prompt has 10**out_len possible answers, so
p(q) = sum_o pi(o|q) r(q, o) is computed exactly by enumeration.

Difficulty is graded through the SFT data: prompt i is demonstrated by a noisy demonstrator that gives a
uniformly random correct answer with probability 1 - eta_i and a uniformly random string otherwise, with
eta_i spread from ``noise_min`` to ``noise_max``. After SFT, p_ref(q) therefore spreads across (0, 1).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from grpo_nb.toylm.configs import TaskConfig

__all__ = ["EQ", "N_DIGITS", "PLUS", "VOCAB_SIZE", "DigitSumTask", "make_task"]

N_DIGITS = 10
PLUS, EQ = 10, 11
VOCAB_SIZE = 12


@dataclass(frozen=True)
class DigitSumTask:
    """Prompts (P, 4) token ids, their targets (P,), demonstrator noise (P,), every output (K, L)."""

    prompts: np.ndarray
    targets: np.ndarray
    noise: np.ndarray
    outputs: np.ndarray
    demos_per_prompt: int

    @property
    def n_prompts(self) -> int:
        return int(self.prompts.shape[0])

    @property
    def out_len(self) -> int:
        return int(self.outputs.shape[1])

    @property
    def prompts_text(self) -> list[str]:
        """The prompts as text, ``"a+b="``."""
        return [f"{a}+{b}=" for a, b in self.prompts[:, [0, 2]]]

    @property
    def prompt_len(self) -> int:
        return int(self.prompts.shape[1])

    def reward(self, prompt_index: np.ndarray, outputs: np.ndarray) -> np.ndarray:
        """The verifiable reward r(q, o) in {0, 1}: 1 iff the digits of o sum to a + b."""
        return (np.asarray(outputs).sum(axis=-1) == self.targets[np.asarray(prompt_index)]).astype(float)

    def reward_table(self) -> np.ndarray:
        """r(q, o) for every prompt and every output, shape (P, K)."""
        return (self.outputs.sum(axis=1)[None, :] == self.targets[:, None]).astype(float)

    def demonstrations(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Noisy SFT demonstrations: (prompt index (N,), answer (N, L)), N = P * demos_per_prompt."""
        table = self.reward_table()
        idx = np.repeat(np.arange(self.n_prompts), self.demos_per_prompt)
        noisy = rng.random(idx.size) < self.noise[idx]
        choice = np.empty(idx.size, dtype=np.int64)
        choice[noisy] = rng.integers(0, len(self.outputs), noisy.sum())
        for k in np.flatnonzero(~noisy):
            correct = np.flatnonzero(table[idx[k]])
            choice[k] = correct[rng.integers(0, correct.size)]
        return idx, self.outputs[choice]


def make_task(cfg: TaskConfig) -> DigitSumTask:
    """P distinct prompts ``a + b =`` drawn with ``cfg.seed``; demonstrator noise graded over them."""
    from grpo_nb.validation import check_positive_int

    n = check_positive_int("n_prompts", cfg.n_prompts)
    if n > N_DIGITS * N_DIGITS:
        raise ValueError(f"n_prompts={n!r} is out of range; valid range is 1 <= n_prompts <= 100")
    check_positive_int("out_len", cfg.out_len, minimum=2)  # a + b <= 18 needs two digits
    check_positive_int("demos_per_prompt", cfg.demos_per_prompt)
    if not 0.0 <= cfg.noise_min <= cfg.noise_max <= 1.0:
        raise ValueError(
            f"noise_min={cfg.noise_min!r}, noise_max={cfg.noise_max!r} are out of range; "
            "valid range is 0 <= noise_min <= noise_max <= 1"
        )
    rng = np.random.default_rng(cfg.seed)
    pairs = rng.choice(N_DIGITS * N_DIGITS, size=n, replace=False)
    a, b = pairs // N_DIGITS, pairs % N_DIGITS
    prompts = np.stack([a, np.full(n, PLUS), b, np.full(n, EQ)], axis=1).astype(np.int64)
    noise = rng.permutation(np.linspace(cfg.noise_min, cfg.noise_max, n))
    outputs = np.array(list(itertools.product(range(N_DIGITS), repeat=cfg.out_len)), dtype=np.int64)
    return DigitSumTask(prompts, (a + b).astype(np.int64), noise, outputs, cfg.demos_per_prompt)
