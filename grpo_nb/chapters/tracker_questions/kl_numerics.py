"""Section "The KL goes negative" of the chapter "Questions from the trackers" (``book/tracker_questions.md``).

TRL 1.16 logs ``kl``, the mean over the batch's tokens of Schulman's k3 = e^d - d - 1 (d = log pi_ref - log pi),
computed as ``exp(d) - d - 1`` in float32. In exact arithmetic k3 >= 0 (e^d >= 1 + d), so a negative value can only
be rounding; the form ``expm1(d) - d`` has no cancellation and no negative value.

* :func:`k3_numerics` measures the cancellation on 10^5 float32 log-probabilities of TRL's expression and of the
  expm1 form (:func:`grpo_nb.trl_adapters.ladder.k3_per_token`), the first of them also through TRL's own loss
  (:func:`trl_k3_logged`), against k3 in float64 (:func:`grpo_nb.kl.k3`); checked against :data:`K3_BOUNDS`,
  :data:`NEGATIVE_VALUES` and :data:`MEDIAN_ERROR`;
* :func:`early_kl` runs one real TRL training step from pi_ref at several learning rates: the logged KL of that step
  (pi = pi_ref: 0) and, on a fixed batch, TRL's logged KL of the moved policy against the exact mean of k3, which
  grows as the square of the learning rate (:data:`EARLY_KL`);
* :func:`token_gradients` reads the per-token gradient of TRL's KL term at large d (a token the policy has made
  e^d times less likely than pi_ref), with and without ``use_bias_correction_kl`` (:func:`trl_kl_token_gradient`),
  against :data:`TOKEN_GRADIENT_GROWTH`;
* :func:`grid_verdicts` reads the TRL chapter's cached knob grid (:mod:`grpo_nb.chapters.trl_grpo.knob_grid`):
  whether a cell takes away prompts that end below p_ref, against the book's :data:`GRID_CLAIMS`.

TRL's loss runs on given log-probabilities through :func:`trl_loss_on` (the model's forward pass replaced, so that
masking a token cannot move another token's log-probability; the section "Which KL estimator, and where" uses it
too, through :func:`trl_kl_token_gradient` and :func:`trl_config_fields`).

Every check reads the book's statement (a module-level name) when it runs, so a test that replaces it with a wrong
one (monkeypatch) sees the check fail.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

from grpo_nb.kl import k3
from grpo_nb.report import Table
from grpo_nb.validation import check_choice, check_positive_int

if TYPE_CHECKING:
    from grpo_nb.chapters.trl_grpo.advantage_probe import Probe

__all__ = [
    "EARLY_KL",
    "EarlyKL",
    "GRID_CLAIMS",
    "K3Numerics",
    "K3Scale",
    "K3_BOUNDS",
    "MEDIAN_ERROR",
    "NEGATIVE_VALUES",
    "TOKEN_GRADIENT_GROWTH",
    "TokenGradients",
    "early_kl",
    "grid_verdicts",
    "k3_numerics",
    "token_gradients",
    "trl_config_fields",
    "trl_k3_logged",
    "trl_kl_token_gradient",
    "trl_loss_on",
]

#: The book's bounds (section "The KL goes negative"): TRL's float32 k3 is within ``rounding`` of the exact k3 at
#: every |d| (two float32 spacings at 1, 2^-23 ~ 1.2e-7 each: the rounding of exp(d) and of the subtraction); the
#: expm1 form, computed in float64 and stored in float32 (the knob grid's stable k3), is within ``stable_relative``
#: of it relative to its size (one float32 rounding, 2^-24 ~ 6e-8); the float32 gradient of TRL's k3 with respect to
#: log pi is within ``gradient`` of the exact 1 - e^d and within ``gradient_relative`` of the gradient's own size.
K3_BOUNDS: dict[str, float] = {
    "rounding": 2.5e-7,
    "stable_relative": 1e-7,
    "gradient": 2.5e-7,
    "gradient_relative": 5e-3,
}

#: Which forms of k3 give values below 0 on the 10^5 float32 log-probabilities: TRL's ``exp(d) - d - 1`` (rounding),
#: the expm1 form and the exact value (never).
NEGATIVE_VALUES: dict[str, bool] = {"trl": True, "expm1": False, "exact": False}

#: The median relative error of TRL's k3 on its own loss, per scale of |d|: the interval (low, high) it lies in.
MEDIAN_ERROR: dict[float, tuple[float, float]] = {1e-2: (0.0, 0.01), 1e-3: (0.02, 0.3), 1e-4: (0.9, np.inf)}


def _float32_sample(scale: float, n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` float32 log-probabilities in [-3, 0] and references log pi + d, d = scale x U(0.5, 1.5) x a random sign
    (the sample of :func:`grpo_nb.chapters.trl_grpo.k3_numerics.gradient_error`, same seed, same values)."""
    rng = np.random.default_rng(seed)
    logp = torch.tensor(-3 * rng.random(n), dtype=torch.float32)
    d_target = scale * rng.uniform(0.5, 1.5, n) * rng.choice([-1.0, 1.0], n)
    return logp, logp + torch.tensor(d_target, dtype=torch.float32)


@dataclass(frozen=True)
class K3Scale:
    """At one scale of |d|: on TRL's own loss (the sample's first tokens) the median relative error of TRL's k3 and
    the largest gap to TRL's expression replayed outside the trainer (``loss_replica_gap``: 0 when the replay is
    TRL's arithmetic); on the whole float32 sample, TRL's expression's largest absolute error, its shares of values
    below 0 and exactly 0 and its smallest value, the expm1 form's share below 0 and largest relative error, the
    exact float64 value's share below 0; and the float32 gradient's largest error and smallest size."""

    scale: float
    median_rel_error: float
    loss_replica_gap: float
    trl_max_error: float
    trl_negative_share: float
    trl_zero_share: float
    trl_min: float
    expm1_negative_share: float
    expm1_max_rel_error: float
    exact_negative_share: float
    gradient_max_error: float
    min_gradient: float


@dataclass(frozen=True)
class K3Numerics:
    """:func:`k3_numerics`: one :class:`K3Scale` per scale, the verdict of each statement (``verdicts``) and ``holds``
    (all of them)."""

    rows: tuple[K3Scale, ...]
    verdicts: dict[str, bool]

    @property
    def holds(self) -> bool:
        return all(self.verdicts.values())

    @property
    def table(self) -> Table:
        headers = [
            "$\\lvert d\\rvert$ about",
            "median relative error (TRL's loss)",
            "values exactly 0",
            "values below 0: TRL / expm1 / exact",
            "most negative value",
            "largest error of the gradient",
        ]
        rows = [
            [
                f"{r.scale:g}",
                f"{r.median_rel_error:.1%}",
                f"{r.trl_zero_share:.1%}",
                f"{r.trl_negative_share:.2%} / {r.expm1_negative_share:.0%} / {r.exact_negative_share:.0%}",
                f"{r.trl_min:.1e}" if r.trl_min < 0 else "none below 0",
                f"{r.gradient_max_error:.1e}",
            ]
            for r in self.rows
        ]
        return Table(headers, rows)


def _verdicts(rows: tuple[K3Scale, ...]) -> dict[str, bool]:
    """Each statement of :data:`K3_BOUNDS`, :data:`NEGATIVE_VALUES` and :data:`MEDIAN_ERROR` against the rows."""
    bounds, negative, median = K3_BOUNDS, NEGATIVE_VALUES, MEDIAN_ERROR
    found = {
        "trl": max(r.trl_negative_share for r in rows) > 0,
        "expm1": max(r.expm1_negative_share for r in rows) > 0,
        "exact": max(r.exact_negative_share for r in rows) > 0,
    }
    return {
        "replay is TRL's loss": all(r.loss_replica_gap == 0 for r in rows),
        "rounding": all(r.trl_max_error <= bounds["rounding"] for r in rows),
        "negatives are rounding": all(r.trl_min >= -bounds["rounding"] for r in rows),
        "stable": all(r.expm1_max_rel_error <= bounds["stable_relative"] for r in rows),
        "gradient": all(
            r.gradient_max_error <= min(bounds["gradient"], bounds["gradient_relative"] * r.min_gradient) for r in rows
        ),
        "negative values": all(found[form] == negative[form] for form in found),
        "median error": all(median[r.scale][0] <= r.median_rel_error <= median[r.scale][1] for r in rows),
    }


def k3_numerics(
    probe: Probe,
    *,
    scales: tuple[float, ...] = (1e-2, 1e-3, 1e-4),
    n: int = 256,
    n_values: int = 100_000,
    seed: int = 0,
) -> K3Numerics:
    """Section "The KL goes negative": per scale of |d|, ``n_values`` float32 log-probabilities and references
    (:func:`_float32_sample`) through TRL's expression and the expm1 form
    (:func:`grpo_nb.trl_adapters.ladder.k3_per_token`), the first ``n`` of them also through TRL's own loss
    (:func:`trl_k3_logged`, beta > 0), against k3 in float64 at the d that float32 produced (:func:`grpo_nb.kl.k3`);
    the gradient by :func:`~grpo_nb.chapters.trl_grpo.k3_numerics.gradient_error` (the same sample). Each scale must
    be a key of :data:`MEDIAN_ERROR`."""
    from grpo_nb.chapters.trl_grpo.k3_numerics import cancellation, gradient_error
    from grpo_nb.trl_adapters.ladder import k3_per_token

    n_values = check_positive_int("n_values", n_values)
    n = check_positive_int("n", n)
    if n > n_values:
        raise ValueError(f"n={n} is out of range; valid: 1 to n_values={n_values}")
    rows = []
    for scale in scales:
        if scale not in MEDIAN_ERROR:
            raise ValueError(f"scale={scale!r} is not valid; valid values are {sorted(MEDIAN_ERROR)}")
        logp, ref = _float32_sample(scale, n_values, seed)
        trl = k3_per_token(logp, ref, "float32").double().numpy()
        stable = k3_per_token(logp, ref, "float64").double().numpy()
        exact = k3(np.zeros(n_values), (ref - logp).double().numpy())
        trl_loss = trl_k3_logged(probe, logp[:n].double().numpy(), ref[:n].double().numpy())
        rel = np.divide(np.abs(stable - exact), exact, out=np.abs(stable - exact), where=exact > 0)
        grad = gradient_error(scale, n=n_values, seed=seed)
        rows.append(
            K3Scale(
                scale,
                cancellation(scale, trl_loss, exact[:n]).median_rel_error,
                float(np.abs(trl_loss - trl[:n]).max()),
                float(np.abs(trl - exact).max()),
                float(np.mean(trl < 0)),
                float(np.mean(trl == 0)),
                float(trl.min()),
                float(np.mean(stable < 0)),
                float(rel.max()),
                float(np.mean(exact < 0)),
                grad.max_abs_error,
                grad.min_abs_gradient,
            )
        )
    rows = tuple(rows)
    return K3Numerics(rows, _verdicts(rows))


# --- TRL's loss with given log-probabilities ----------------------------------------------------------------------


def trl_config_fields() -> dict[str, object]:
    """The fields of the installed TRL's ``GRPOConfig`` and their defaults (read from the dataclass, nothing built)."""
    from dataclasses import fields

    from trl import GRPOConfig

    return {f.name: f.default for f in fields(GRPOConfig)}


def trl_loss_on(
    probe: Probe, logp: torch.Tensor, changes: dict, *, bias_correction: bool, loss_type: str = "bnpo"
) -> torch.Tensor:
    """TRL's own ``compute_loss`` on the probe's batch (:func:`~grpo_nb.chapters.trl_grpo.advantage_probe.make_probe`)
    with the model's per-token log-probabilities replaced by ``logp`` (B, T) (the forward pass is not run, so a change
    of the completion mask cannot move another token's log-probability), the batch's entries replaced by ``changes``,
    ``use_bias_correction_kl`` = ``bias_correction`` and ``loss_type``; the trainer's settings are restored after.
    Returns TRL's loss tensor (differentiable when ``logp`` requires grad); TRL logs its metrics as it runs."""
    trainer = probe.trainer
    if not trainer.beta > 0:
        raise ValueError(f"beta={trainer.beta!r} is out of range; valid: a probe with beta > 0 (a KL term)")
    saved = trainer.loss_type, trainer.args.use_bias_correction_kl
    trainer.loss_type, trainer.args.use_bias_correction_kl = loss_type, bias_correction
    trainer._get_per_token_logps_and_entropies = lambda *a, **k: (logp, torch.zeros_like(logp), None)
    try:
        return trainer.compute_loss(trainer.model, dict(probe.inputs) | changes)
    finally:
        del trainer._get_per_token_logps_and_entropies
        trainer.loss_type, trainer.args.use_bias_correction_kl = saved


def _token_cells(probe: Probe, logp: object, ref_logp: object) -> tuple[np.ndarray, np.ndarray, torch.Tensor]:
    """(logp, ref_logp) as flat float arrays of one size and the probe's first that many completion cells (rows,
    columns); ValueError for shapes that differ or more tokens than the probe's batch holds."""
    logp = np.asarray(logp, dtype=float).ravel()
    ref_logp = np.asarray(ref_logp, dtype=float).ravel()
    if logp.shape != ref_logp.shape or logp.size == 0:
        raise ValueError(
            f"logp and ref_logp have shapes {logp.shape} and {ref_logp.shape}; valid: one shape, size >= 1"
        )
    cells = torch.nonzero(probe.inputs["completion_mask"], as_tuple=False)
    if logp.size > len(cells):
        raise ValueError(f"len(logp)={logp.size} is out of range; valid: 1 to {len(cells)} (the probe's tokens)")
    return logp, ref_logp, cells[: logp.size]


def trl_kl_token_gradient(probe: Probe, logp: object, ref_logp: object, *, bias_correction: bool) -> np.ndarray:
    """d(TRL's per-token KL term)/d log pi_theta at each of the given tokens, on-policy (pi_old = pi_theta), from
    autograd through TRL's own loss (:func:`trl_loss_on`, beta > 0): the tokens' log-probabilities ``logp`` and the
    reference's ``ref_logp`` sit on the probe's first ``len(logp)`` completion tokens, the only ones kept in the mask,
    the advantages are 0 and ``loss_type="bnpo"`` (a mean over the kept tokens), so the gradient of TRL's loss is
    beta/n times the per-token gradient of its KL term."""
    logp, ref_logp, cells = _token_cells(probe, logp, ref_logp)
    rows, cols = cells[:, 0], cells[:, 1]
    base = probe.logp.detach().clone()
    base[rows, cols] = torch.as_tensor(logp, dtype=base.dtype)
    ref = base.clone()
    ref[rows, cols] = torch.as_tensor(ref_logp, dtype=base.dtype)
    mask = torch.zeros_like(probe.inputs["completion_mask"])
    mask[rows, cols] = 1
    leaf = base.clone().requires_grad_(True)
    changes = {
        "ref_per_token_logps": ref,
        "old_per_token_logps": base,
        "completion_mask": mask,
        "advantages": torch.zeros(base.shape[0], dtype=base.dtype),
    }
    trl_loss_on(probe, leaf, changes, bias_correction=bias_correction).backward()
    return leaf.grad[rows, cols].double().numpy() * logp.size / probe.trainer.beta


def trl_k3_logged(probe: Probe, logp: object, ref_logp: object) -> np.ndarray:
    """TRL's per-token k3 as its loss computes and logs it (``use_bias_correction_kl`` off: the bare k3), one token at
    a time: each (log pi, log pi_ref) pair of ``logp``, ``ref_logp`` (float32 values) on the probe's first completion
    token, the only one in the mask, and the ``kl`` TRL logs (:func:`trl_loss_on`), which is then that token's k3."""
    logp, ref_logp = np.asarray(logp, dtype=float).ravel(), np.asarray(ref_logp, dtype=float).ravel()
    if logp.shape != ref_logp.shape or logp.size == 0:
        raise ValueError(
            f"logp and ref_logp have shapes {logp.shape} and {ref_logp.shape}; valid: one shape, size >= 1"
        )
    i, j = (int(x) for x in torch.nonzero(probe.inputs["completion_mask"], as_tuple=False)[0])
    mask = torch.zeros_like(probe.inputs["completion_mask"])
    mask[i, j] = 1
    base, ref = probe.logp.detach().clone(), probe.logp.detach().clone()
    out = np.empty(logp.size)
    with torch.no_grad():
        for n, (lp, lr) in enumerate(zip(logp, ref_logp, strict=True)):
            base[i, j], ref[i, j] = float(lp), float(lr)
            changes = {"ref_per_token_logps": ref, "old_per_token_logps": base, "completion_mask": mask}
            trl_loss_on(probe, base, changes, bias_correction=False)
            out[n] = float(probe.trainer._metrics["eval"]["kl"][-1])
    return out


# --- the early KL -------------------------------------------------------------------------------------------------

#: The book's statement of the early logged KL: at the first step pi = pi_ref, so the logged KL is ``first_step``
#: (0, to within :data:`K3_BOUNDS`' rounding); after one step it grows as the learning rate to the power
#: ``growth_power`` (k3 ~ d^2/2 and Adam's first step moves every weight by the learning rate times a fixed vector);
#: at TRL's default learning rate it is below ``default_lr_below`` on the toy task (tokens' |d| around 1e-3 or less,
#: where float32 k3 has lost most of its digits).
EARLY_KL: dict[str, float] = {"first_step": 0.0, "growth_power": 2.0, "default_lr_below": 1e-6}
GROWTH_TOL = 0.1  # |measured exponent - stated| allowed (the O(lr^3) terms and the float32 rounding)


@dataclass(frozen=True)
class EarlyKL:
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
    def holds(self) -> bool:
        return all(self.verdicts.values())

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
class TokenGradients:
    """TRL's per-token gradient of its KL term at log-ratios ``d``, per flag (``gradient``); per flag, the slope of
    log|gradient| between the two d of :data:`GROWTH_D` against d (1 for e^d: ``exp_slope``) and against log d
    (1 for d: ``power_slope``); the verdicts against :data:`TOKEN_GRADIENT_GROWTH`."""

    d: tuple[float, ...]
    gradient: dict[bool, tuple[float, ...]]
    exp_slope: dict[bool, float]
    power_slope: dict[bool, float]
    verdicts: dict[bool, bool]

    @property
    def holds(self) -> bool:
        return all(self.verdicts.values())

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
