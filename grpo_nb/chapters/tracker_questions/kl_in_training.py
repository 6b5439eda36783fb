"""Section "The KL goes negative" of the chapter "Questions from the trackers" (``book/tracker_questions.md``): the KL
in training (the value of TRL's float32 k3: :mod:`~.kl_numerics`).

* :func:`early_kl` runs one real TRL training step from pi_ref at several learning rates: the logged KL of that step
  (pi = pi_ref: 0) and, on a fixed batch, TRL's logged KL of the moved policy against the exact mean of k3, which
  grows as the square of the learning rate (:data:`EARLY_KL`);
* :func:`token_gradients` reads the per-token gradient of TRL's KL term at large d (a token the policy has made
  e^d times less likely than pi_ref), with and without ``use_bias_correction_kl``
  (:func:`~grpo_nb.chapters.tracker_questions.kl_numerics.trl_kl_token_gradient`), against
  :data:`TOKEN_GRADIENT_GROWTH`;
* :func:`grid_verdicts` reads the TRL chapter's cached knob grid (:mod:`grpo_nb.chapters.trl_grpo.knob_grid`):
  whether a cell takes away prompts that end below p_ref, against the book's :data:`GRID_CLAIMS`, and
  :func:`placebo_verdicts` where its effect lies against the grid's placebo (:data:`PLACEBO_CLAIMS`).

Every check reads the book's statement (a module-level name) when it runs, so a test that replaces it with a wrong
one (monkeypatch) sees the check fail.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

from grpo_nb.chapters.tracker_questions.kl_numerics import K3_BOUNDS, trl_config_fields, trl_kl_token_gradient
from grpo_nb.kl import k3
from grpo_nb.report import Table, Verdicts
from grpo_nb.validation import check_choice

if TYPE_CHECKING:
    from grpo_nb.chapters.trl_grpo.advantage_probe import Probe

__all__ = [
    "EARLY_KL",
    "EarlyKL",
    "GRID_CLAIMS",
    "PLACEBO_CLAIMS",
    "TOKEN_GRADIENT_GROWTH",
    "TokenGradients",
    "early_kl",
    "grid_verdicts",
    "placebo_verdicts",
    "token_gradients",
]


# --- the early KL -------------------------------------------------------------------------------------------------

#: The book's statement of the early logged KL: at the first step pi = pi_ref, so the logged KL is ``first_step``
#: (0, to within :data:`K3_BOUNDS`' rounding); after one step it grows as the learning rate to the power
#: ``growth_power`` (k3 ~ d^2/2 and Adam's first step moves every weight by the learning rate times a fixed vector);
#: at TRL's default learning rate it is below ``default_lr_below`` on the toy task (tokens' |d| around 1e-3 or less,
#: where float32 k3 has lost most of its digits).
EARLY_KL: dict[str, float] = {"first_step": 0.0, "growth_power": 2.0, "default_lr_below": 1e-6}
GROWTH_TOL = 0.1  # |measured exponent - stated| allowed (the O(lr^3) terms and the float32 rounding)


@dataclass(frozen=True)
class EarlyKL(Verdicts):
    """Per learning rate (``learning_rates``, largest first): the KL TRL logged at its first training step
    (``first_step``), and after that step, on the probe's fixed batch, TRL's logged KL (``logged``) and the exact
    mean of k3 in float64 (``exact``); the exponent of the exact KL's growth between the two smallest learning rates,
    where the terms of higher order in the step are smallest (``growth_power``); the verdicts against
    :data:`EARLY_KL`."""

    learning_rates: tuple[float, ...]
    first_step: tuple[float, ...]
    logged: tuple[float, ...]
    exact: tuple[float, ...]
    growth_power: float
    verdicts: dict[str, bool]

    @property
    def table(self) -> Table:
        headers = [
            "learning rate",
            "logged KL, step 1",
            "after one step: TRL's logged KL",
            "exact (float64)",
            "float32 error",
        ]
        rows = [
            [f"{lr:g}", f"{f:.1e}", f"{lg:.3e}", f"{ex:.3e}", f"{abs(lg - ex):.1e}"]
            for lr, f, lg, ex in zip(self.learning_rates, self.first_step, self.logged, self.exact, strict=True)
        ]
        return Table(headers, rows)


def early_kl(learning_rates: tuple[float, ...] = (1e-4, 3e-6, 1e-6), *, beta: float = 2.0, seed: int = 0) -> EarlyKL:
    """Section "The KL goes negative": for each learning rate, a probe at ``beta`` (its batch drawn at ``seed``) takes
    one real TRL training step from pi_ref (AdamW, the probe task's batch drawn by TRL at its own seed); then TRL's
    ``compute_loss`` on the probe's batch logs the KL of the moved policy, compared with the mean of k3 in float64
    over the same tokens (:func:`grpo_nb.kl.k3`). Every learning rate's step is on the same batch with the same
    gradient (Adam's first step is the learning rate times a fixed vector), so the exact KLs differ by the learning
    rate alone. The verdict on TRL's default learning rate (from ``GRPOConfig``) is given when it is among them."""
    from grpo_nb.chapters.trl_grpo.advantage_probe import _np, make_probe

    lrs = tuple(sorted((float(lr) for lr in learning_rates), reverse=True))
    if len(lrs) < 2 or lrs[-1] <= 0 or len(set(lrs)) != len(lrs):
        raise ValueError(f"learning_rates={learning_rates!r} is out of range; valid: two or more distinct values > 0")
    first, logged, exact = [], [], []
    for lr in lrs:
        probe = make_probe(beta=beta, seed=seed, learning_rate=lr)
        trainer, inputs = probe.trainer, probe.inputs
        trainer.train()
        first.append(next(h["kl"] for h in trainer.state.log_history if "kl" in h))
        trainer.model.eval()
        probe.loss()
        logged.append(probe.logged("kl"))
        ids = torch.cat([inputs["prompt_ids"], inputs["completion_ids"]], dim=1)
        att = torch.cat([inputs["prompt_mask"], inputs["completion_mask"]], dim=1)
        with torch.no_grad():
            logp = trainer._get_per_token_logps_and_entropies(
                trainer.model, ids, att, inputs["completion_ids"].size(1)
            )[0]
        mask = _np(inputs["completion_mask"])
        exact.append(float((k3(_np(logp), _np(inputs["ref_per_token_logps"])) * mask).sum() / mask.sum()))
    power = float(np.log(exact[-2] / exact[-1]) / np.log(lrs[-2] / lrs[-1]))
    claim, rounding = EARLY_KL, K3_BOUNDS["rounding"]
    verdicts = {
        "first step": all(abs(f - claim["first_step"]) <= rounding for f in first),
        "growth": abs(power - claim["growth_power"]) <= GROWTH_TOL,
        "rounding": all(abs(lg - ex) <= rounding for lg, ex in zip(logged, exact, strict=True)),
    }
    default_lr = float(trl_config_fields()["learning_rate"])
    if default_lr in lrs:
        verdicts["small at TRL's default learning rate"] = exact[lrs.index(default_lr)] < claim["default_lr_below"]
    return EarlyKL(lrs, tuple(first), tuple(logged), tuple(exact), power, verdicts)


# --- why k3 spikes ----------------------------------------------------------------------------------------------------

#: The book's statement of how the per-token gradient of TRL's KL term grows with d = log pi_ref - log pi, per value
#: of ``use_bias_correction_kl``: without the ratio (k3 in the loss, 1 - e^d) exponentially, with it (-d) linearly.
TOKEN_GRADIENT_GROWTH: dict[bool, str] = {True: "linear", False: "exponential"}
GROWTH_D = (4.0, 8.0)  # the two log-ratios the growth is read between
GROWTH_SLOPE_TOL = 0.05


@dataclass(frozen=True)
class TokenGradients(Verdicts):
    """TRL's per-token gradient of its KL term at log-ratios ``d``, per flag (``gradient``); per flag, the slope of
    log|gradient| between the two d of :data:`GROWTH_D` against d (1 for e^d: ``exp_slope``) and against log d
    (1 for d: ``power_slope``); the verdicts against :data:`TOKEN_GRADIENT_GROWTH`."""

    d: tuple[float, ...]
    gradient: dict[bool, tuple[float, ...]]
    exp_slope: dict[bool, float]
    power_slope: dict[bool, float]
    verdicts: dict[bool, bool]

    @property
    def table(self) -> Table:
        headers = [
            "$d = \\log\\pi_{\\mathrm{ref}} - \\log\\pi$",
            "$k_3$ (its value)",
            "TRL's token gradient, `use_bias_correction_kl=False`",
            "the same, `True` (TRL's default)",
        ]
        values = k3(np.zeros(len(self.d)), np.asarray(self.d))
        rows = [
            [f"{d:g}", f"{v:.4g}", f"{g0:.4g}", f"{g1:.4g}"]
            for d, v, g0, g1 in zip(self.d, values, self.gradient[False], self.gradient[True], strict=True)
        ]
        return Table(headers, rows)


def token_gradients(probe: Probe, d: tuple[float, ...] = (1.0, 2.0, 4.0, 8.0), *, logp: float = -1.0) -> TokenGradients:
    """Section "The KL goes negative": TRL's per-token gradient of its KL term with respect to log pi at log pi =
    ``logp`` and log pi_ref = ``logp`` + d, for each d, on-policy, with and without ``use_bias_correction_kl``
    (:func:`trl_kl_token_gradient`); how it grows between the two
    d of :data:`GROWTH_D` (which must be among ``d``)."""
    d = tuple(float(x) for x in d)
    if not set(GROWTH_D) <= set(d):
        raise ValueError(f"d={d!r} is out of range; valid: log-ratios that include {GROWTH_D}")
    grads, exp_slope, power_slope, verdicts = {}, {}, {}, {}
    claim = TOKEN_GRADIENT_GROWTH
    for flag in (True, False):
        g = trl_kl_token_gradient(probe, [logp] * len(d), [logp + x for x in d], bias_correction=flag)
        grads[flag] = tuple(float(x) for x in g)
        lo, hi = (float(np.log(abs(g[d.index(x)]))) for x in GROWTH_D)
        exp_slope[flag] = (hi - lo) / (GROWTH_D[1] - GROWTH_D[0])
        power_slope[flag] = (hi - lo) / float(np.log(GROWTH_D[1] / GROWTH_D[0]))
        kind = check_choice("growth", claim[flag], ("linear", "exponential"))
        slope = power_slope[flag] if kind == "linear" else exp_slope[flag]
        verdicts[flag] = abs(slope - 1.0) <= GROWTH_SLOPE_TOL
    return TokenGradients(d, grads, exp_slope, power_slope, verdicts)


# --- the knob grid ----------------------------------------------------------------------------------------------------

#: The book's statement of what a cell of the TRL chapter's knob grid does to the number of prompts that end below
#: p_ref, against its baseline (TRL's trainer at beta = 2), paired by seed: "fewer" (mean + 2 standard errors below
#: 0) or "not fewer" (mean above -2 standard errors).
GRID_CLAIMS: dict[str, str] = {"trl+k3_float64": "not fewer", "trl+kl_exact": "fewer"}


def grid_verdicts(claims: dict[str, str] | None = None) -> dict[str, tuple[object, bool]]:
    """Per cell of ``claims`` (default :data:`GRID_CLAIMS`, read when called): its paired effect on the prompts ending
    below p_ref in the cached knob grid (:func:`grpo_nb.chapters.trl_grpo.knob_grid.effects`) and whether the claim
    holds."""
    from grpo_nb.chapters.trl_grpo.knob_grid import effects, load_grid

    claims = GRID_CLAIMS if claims is None else claims
    found = effects(load_grid())
    out = {}
    for key, claim in claims.items():
        check_choice("claim", claim, ("fewer", "not fewer"))
        check_choice("key", key, tuple(found))
        e = found[key]["ended"]
        out[key] = (e, e.mean + 2 * e.se < 0 if claim == "fewer" else e.mean > -2 * e.se)
    return out


#: The book's statement of where a cell's effect lies against the knob grid's placebo (the same trainer with its loss
#: computed by the book's code): ``"beyond"`` its reach, ``"within"`` it (not told apart from the change of code)
#: (:func:`grpo_nb.chapters.trl_grpo.knob_grid.placebo_reach`).
PLACEBO_CLAIMS: dict[str, str] = {"trl+k3_float64": "within", "trl+kl_exact": "beyond"}


def placebo_verdicts() -> tuple[float, dict[str, bool]]:
    """The placebo's reach on the prompts ending below p_ref in the cached knob grid, and per cell of
    :data:`PLACEBO_CLAIMS` (read when called) whether the grid finds it where the claim puts it."""
    from grpo_nb.chapters.trl_grpo.knob_grid import load_grid, placebo_reach

    reach = placebo_reach(load_grid())
    out = {}
    for key, claim in PLACEBO_CLAIMS.items():
        check_choice("claim", claim, ("beyond", "within"))
        check_choice("key", key, tuple(reach.verdicts))
        out[key] = reach.verdicts[key] == claim
    return reach.reach, out
