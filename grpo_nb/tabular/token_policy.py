"""Answers of several tokens: where a KL estimate sits, token by token, against the KL of whole answers (autograd).

The paper's KL(pi || pi_ref) (Eq. 2) is a KL between distributions over whole answers. A trainer estimates it per
token instead, with Schulman's estimators of :mod:`grpo_nb.kl` on the tokens of sampled answers. This module makes
that comparable exactly. A :class:`TokenPolicy` is an autoregressive softmax policy over answers o = (o_1, ..., o_L)
of L tokens from a vocabulary of V: token t has its own row of V logits for each of the V^(t-1) prefixes before it
(a table, no parameter shared). All V^L answers are enumerated, so every expectation is a finite sum and torch's
autograd gives its exact gradient; nothing is sampled.

* :func:`kl_term` is the expected KL term of a trainer's loss, the answers drawn from ``old`` (on-policy when it is
  the policy itself, detached): ``"loss"`` sums the estimate over the tokens, the token log-probabilities
  differentiated; ``"ratio_weighted"`` multiplies each token's estimate by its ratio pi_theta / pi_old (TRL's
  ``use_bias_correction_kl``); ``"reward"`` subtracts the estimate of the whole answer, computed on ``old`` and
  detached, from the reward, so that it acts through the answer's ratio pi_theta(o) / pi_old(o) alone (the score).
* :func:`sequence_kl` is KL(pi || pi_ref) or KL(pi_ref || pi) between whole answers; :func:`per_token_kl` the sum
  over t of the KL of token t's distribution given its prefix, the prefixes weighted by ``old`` and held fixed.

By the chain rule of the KL, the sequence KL is the per-token one with the prefixes weighted by pi itself; the two
gradients differ by the gradient through those weights, which is what a per-token estimate on sampled prefixes
drops. For L = 1 there is no prefix and :func:`kl_term`'s gradient is the closed form of
:func:`grpo_nb.kl.expected_estimator_gradient` (a test compares them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from grpo_nb.validation import check_choice, check_positive_int

__all__ = ["PLACEMENTS", "TokenPolicy", "flat_gradient", "kl_term", "per_token_kl", "sequence_kl", "success"]

PLACEMENTS: tuple[str, ...] = ("loss", "ratio_weighted", "reward")
ESTIMATORS: tuple[str, ...] = ("k1", "k2", "k3")
DIRECTIONS: tuple[str, ...] = ("reverse", "forward")


def _estimate(estimator: str, logp: torch.Tensor, logp_ref: torch.Tensor) -> torch.Tensor:
    """Schulman's estimate at a sample, d = log pi_ref - log pi (the torch twin of :mod:`grpo_nb.kl`)."""
    d = logp_ref - logp
    return {"k1": lambda: -d, "k2": lambda: d**2 / 2, "k3": lambda: torch.expm1(d) - d}[estimator]()


@dataclass(frozen=True)
class TokenPolicy:
    """An autoregressive tabular softmax policy: ``logits[t]`` has shape (V^t, V), the logits of token t + 1 after
    each of the V^t prefixes of t tokens (in lexicographic order). Float64 tensors; leaves with ``requires_grad`` for
    the policy being differentiated."""

    logits: tuple[torch.Tensor, ...]

    def __post_init__(self) -> None:
        V = self.logits[0].shape[-1] if self.logits else 0
        for t, table in enumerate(self.logits):
            if tuple(table.shape) != (V**t, V) or V < 2:
                raise ValueError(f"logits[{t}] has shape {tuple(table.shape)}; valid: ({V}**{t}, {V}) with V >= 2")

    @classmethod
    def random(cls, V: int, L: int, rng: np.random.Generator, *, scale: float = 1.0, grad: bool = False) -> TokenPolicy:
        """Normal(0, scale) logits for answers of ``L`` tokens over a vocabulary of ``V``."""
        V, L = check_positive_int("V", V, minimum=2), check_positive_int("L", L)
        tables = (torch.tensor(rng.normal(0.0, scale, (V**t, V)), requires_grad=grad) for t in range(L))
        return cls(tuple(tables))

    @property
    def vocabulary(self) -> int:
        return int(self.logits[0].shape[-1])

    def detached(self) -> TokenPolicy:
        return TokenPolicy(tuple(table.detach() for table in self.logits))

    def prefix_log_probs(self) -> list[torch.Tensor]:
        """log P(prefix) for the prefixes of 0, 1, ..., L tokens: a list of L + 1 tensors of shape (V^t,)."""
        out = [torch.zeros(1, dtype=torch.float64)]
        for table in self.logits:
            out.append((out[-1][:, None] + torch.log_softmax(table, dim=-1)).reshape(-1))
        return out

    def token_log_probs(self) -> torch.Tensor:
        """log pi(o_t | o_<t) for every answer (rows, V^L of them, lexicographic) and token (columns): (V^L, L)."""
        V, L = self.vocabulary, len(self.logits)
        n = torch.arange(V**L)
        cols = [torch.log_softmax(table, dim=-1)[n // V ** (L - t), (n // V ** (L - 1 - t)) % V]
                for t, table in enumerate(self.logits)]  # fmt: skip
        return torch.stack(cols, dim=1)

    def log_probs(self) -> torch.Tensor:
        """log pi(o) of every answer, shape (V^L,)."""
        return self.prefix_log_probs()[-1]


def _pair(policy: TokenPolicy, other: TokenPolicy, name: str) -> None:
    shapes = [tuple(t.shape) for t in policy.logits], [tuple(t.shape) for t in other.logits]
    if shapes[0] != shapes[1]:
        raise ValueError(f"{name} has logit shapes {shapes[1]}; valid: the policy's {shapes[0]}")


def sequence_kl(policy: TokenPolicy, ref: TokenPolicy, direction: str = "reverse") -> torch.Tensor:
    """KL(pi || pi_ref) (``"reverse"``, Eq. 2's) or KL(pi_ref || pi) (``"forward"``) between whole answers."""
    check_choice("direction", direction, DIRECTIONS)
    _pair(policy, ref, "ref")
    logp, logq = policy.log_probs(), ref.log_probs()
    return torch.sum(logp.exp() * (logp - logq)) if direction == "reverse" else torch.sum(logq.exp() * (logq - logp))


def per_token_kl(
    policy: TokenPolicy, ref: TokenPolicy, *, old: TokenPolicy | None = None, direction: str = "reverse"
) -> torch.Tensor:
    """sum_t E_{prefix ~ old}[KL of token t given the prefix], the prefixes' weights detached (``old`` defaults to the
    policy itself): what a per-token estimate on answers drawn from ``old`` follows, token by token."""
    check_choice("direction", direction, DIRECTIONS)
    _pair(policy, ref, "ref")
    old = policy.detached() if old is None else old.detached()
    _pair(policy, old, "old")
    total = torch.zeros((), dtype=torch.float64)
    for table, ref_table, prefix in zip(policy.logits, ref.logits, old.prefix_log_probs(), strict=False):
        logp, logq = torch.log_softmax(table, dim=-1), torch.log_softmax(ref_table, dim=-1)
        rows = (logp.exp() * (logp - logq)) if direction == "reverse" else (logq.exp() * (logq - logp))
        total = total + torch.sum(prefix.exp() * rows.sum(dim=-1))
    return total


def kl_term(
    policy: TokenPolicy, ref: TokenPolicy, estimator: str, *, placement: str, old: TokenPolicy | None = None
) -> torch.Tensor:
    """The expected KL term a trainer minimises, E_{o ~ old}[...] over every answer (module docstring), with the
    answers drawn from ``old`` (default: the policy itself, detached: on-policy)."""
    check_choice("estimator", estimator, ESTIMATORS)
    check_choice("placement", placement, PLACEMENTS)
    _pair(policy, ref, "ref")
    old = policy.detached() if old is None else old.detached()
    _pair(policy, old, "old")
    lp, lq, lo = policy.token_log_probs(), ref.token_log_probs().detach(), old.token_log_probs()
    weight = lo.sum(dim=1).exp()  # pi_old(o), detached
    if placement == "loss":
        per_answer = _estimate(estimator, lp, lq).sum(dim=1)
    elif placement == "ratio_weighted":
        per_answer = (torch.exp(lp - lo) * _estimate(estimator, lp, lq)).sum(dim=1)
    else:  # the whole answer's estimate on old's log-probabilities, detached; pi_theta(o)/pi_old(o) carries the score
        per_answer = torch.exp(lp.sum(dim=1) - lo.sum(dim=1)) * _estimate(estimator, lo.sum(dim=1), lq.sum(dim=1))
    return torch.sum(weight * per_answer)


def success(policy: TokenPolicy, reward: object) -> torch.Tensor:
    """p = E_pi[r], ``reward`` a 0/1 array over the V^L answers (lexicographic)."""
    r = torch.as_tensor(np.asarray(reward, dtype=float))
    logp = policy.log_probs()
    if r.shape != logp.shape:
        raise ValueError(f"reward has shape {tuple(r.shape)}; valid: one per answer, ({logp.shape[0]},)")
    return torch.sum(logp.exp() * r)


def flat_gradient(value: torch.Tensor, policy: TokenPolicy) -> np.ndarray:
    """The gradient of ``value`` with respect to every logit of ``policy`` (leaves with ``requires_grad``), flat."""
    grads = torch.autograd.grad(value, policy.logits, allow_unused=True)
    return np.concatenate([np.zeros(t.numel()) if g is None else g.detach().numpy().ravel()
                           for g, t in zip(grads, policy.logits, strict=True)])  # fmt: skip
