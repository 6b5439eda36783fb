"""Section "The KL goes negative" of the chapter "Questions from the trackers" (``book/tracker_questions.md``): the
value of TRL's k3 in float32 (the KL in training, from the same section: :mod:`~.kl_in_training`).

TRL 1.16 logs ``kl``, the mean over the batch's tokens of Schulman's k3 = e^d - d - 1 (d = log pi_ref - log pi),
computed as ``exp(d) - d - 1`` in float32. In exact arithmetic k3 >= 0 (e^d >= 1 + d), so a negative value can only
be rounding; the form ``expm1(d) - d`` has no cancellation and no negative value.

* :func:`k3_numerics` measures the cancellation on 10^5 float32 log-probabilities of TRL's expression and of the
  expm1 form (:func:`grpo_nb.trl_adapters.ladder.k3_per_token`), the first of them also through TRL's own loss
  (:func:`trl_k3_logged`), against k3 in float64 (:func:`grpo_nb.kl.k3`); checked against :data:`K3_BOUNDS`,
  :data:`NEGATIVE_VALUES` and :data:`MEDIAN_ERROR`;
* :func:`k3_large_d` measures TRL's expression at |d| <= 1/2 and at large |d| (:data:`LARGE_D`): an absolute bound
  holds only at small |d|; at large d the absolute error grows as e^d while the relative error stays about 1e-7
  (:data:`K3_BOUNDS`, :data:`LARGE_D_GROWTH`, :data:`LARGE_D_ORDER`).

TRL's loss runs on given log-probabilities through :func:`trl_loss_on` (the model's forward pass replaced, so that
masking a token cannot move another token's log-probability; :mod:`~.kl_in_training` and the section "Which KL
estimator, and where" use it too, through :func:`trl_kl_token_gradient` and :func:`trl_config_fields`).

Every check reads the book's statement (a module-level name) when it runs, so a test that replaces it with a wrong
one (monkeypatch) sees the check fail.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

from grpo_nb.kl import k3
from grpo_nb.report import Table, Verdicts, bound
from grpo_nb.validation import check_positive_int

if TYPE_CHECKING:
    from grpo_nb.chapters.trl_grpo.advantage_probe import Probe

__all__ = [
    "K3LargeD",
    "K3LargeDRow",
    "LARGE_D",
    "LARGE_D_GROWTH",
    "LARGE_D_ORDER",
    "K3Numerics",
    "K3Scale",
    "K3_BOUNDS",
    "MEDIAN_ERROR",
    "NEGATIVE_VALUES",
    "k3_large_d",
    "k3_numerics",
    "trl_config_fields",
    "trl_k3_logged",
    "trl_kl_token_gradient",
    "trl_loss_on",
]

#: The book's bounds (section "The KL goes negative") on TRL's float32 k3 = exp(d) - d - 1 against the exact k3:
#: within ``rounding`` for |d| <= ``rounding_max_d`` (two float32 spacings at 1, 2^-23 ~ 1.2e-7 each: the rounding of
#: exp(d) and of the subtraction, while e^d < 2); at any d within ``terms_relative`` times the size of the expression's
#: terms, e^d + |d| + 1 (each float32 operation rounds to within 2^-24 of its result, and the exp to within 2^-23), so
#: that the absolute error grows as e^d for large positive d while the relative error stays within
#: ``large_d_relative`` at the large |d| of :data:`LARGE_D`, and for d < 0 there (k3 ~ |d| - 1) the absolute error
#: stays below ``negative_d``; the expm1 form, computed in float64 and stored in float32
#: (the knob grid's stable k3), is within ``stable_relative`` of it relative to its size (one float32 rounding,
#: 2^-24 ~ 6e-8); the float32 gradient of TRL's k3 with respect to log pi is within ``gradient`` of the exact 1 - e^d
#: and within ``gradient_relative`` of the gradient's own size (at the scales of :data:`MEDIAN_ERROR`).
K3_BOUNDS: dict[str, float] = {
    "rounding": 2.5e-7,
    "rounding_max_d": 0.5,
    "terms_relative": 2.5e-7,
    "large_d_relative": 3e-7,
    "negative_d": 1e-6,
    "stable_relative": 1e-7,
    "gradient": 2.5e-7,
    "gradient_relative": 5e-3,
}

#: The large log-ratios at which the error of TRL's k3 is measured: d = +-s x U(0.99, 1.01) for each s.
LARGE_D: tuple[float, ...] = (4.0, 8.0, 12.0)
#: The book's statement of how the absolute error grows with d > 0 at large d: as e^d, the slope of log(error)
#: against d between the first and the last of :data:`LARGE_D` within ``LARGE_D_SLOPE_TOL`` of ``LARGE_D_GROWTH``.
LARGE_D_GROWTH = 1.0
#: The book's statement of the size of the largest absolute error at d about +s, per s of :data:`LARGE_D`: its power
#: of ten (of the order of 1e-6 at d ~ 4, 1e-4 at 8 and 1e-2 at 12).
LARGE_D_ORDER: dict[float, int] = {4.0: -6, 8.0: -4, 12.0: -2}
LARGE_D_SLOPE_TOL = 0.15  # about one float32 spacing of e^d, which moves by up to 2x with its binade: log 2 / 8 ~ 0.09

#: Which forms of k3 give values below 0 on the 10^5 float32 log-probabilities: TRL's ``exp(d) - d - 1`` (rounding),
#: the expm1 form and the exact value (never).
NEGATIVE_VALUES: dict[str, bool] = {"trl": True, "expm1": False, "exact": False}

#: The median relative error of TRL's k3 on its own loss, per scale of |d|: the interval (low, high) it lies in.
MEDIAN_ERROR: dict[float, tuple[float, float]] = {1e-2: (0.0, 0.01), 1e-3: (0.02, 0.3), 1e-4: (0.9, np.inf)}


def _float32_logp(rng: np.random.Generator, n: int) -> torch.Tensor:
    """``n`` float32 log-probabilities uniform in [-3, 0], drawn from ``rng``."""
    return torch.tensor(-3 * rng.random(n), dtype=torch.float32)


def _float32_sample(scale: float, n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` float32 log-probabilities in [-3, 0] and references log pi + d, d = scale x U(0.5, 1.5) x a random sign
    (the sample of :func:`grpo_nb.chapters.trl_grpo.k3_numerics.gradient_error`, same seed, same values)."""
    rng = np.random.default_rng(seed)
    logp = _float32_logp(rng, n)
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
class K3Numerics(Verdicts):
    """:func:`k3_numerics`: one :class:`K3Scale` per scale, the verdict of each statement (``verdicts``) and ``holds``
    (all of them)."""

    rows: tuple[K3Scale, ...]
    verdicts: dict[str, bool]

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
        "rounding": all(
            r.trl_max_error <= bounds["rounding"] for r in rows if 1.5 * r.scale <= bounds["rounding_max_d"]
        ),
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


# --- large |d| -------------------------------------------------------------------------------------------------------


def _terms(d: np.ndarray) -> np.ndarray:
    """The size of k3's terms, e^d + |d| + 1: what TRL's float32 operations round."""
    return np.exp(d) + np.abs(d) + 1.0


def _trl_k3_errors(d_target: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """TRL's float32 k3 at log-ratios ``d_target`` (on float32 log-probabilities in [-3, 0]): the d float32 produced,
    the absolute error against k3 in float64 at that d (:func:`grpo_nb.kl.k3`) and the exact value."""
    from grpo_nb.trl_adapters.ladder import k3_per_token

    logp = _float32_logp(np.random.default_rng(seed), d_target.size)
    ref = logp + torch.tensor(d_target, dtype=torch.float32)
    d = (ref - logp).double().numpy()
    exact = k3(np.zeros(d.size), d)
    return d, np.abs(k3_per_token(logp, ref, "float32").double().numpy() - exact), exact


def _order_or_value(x: float, order: int) -> str:
    """``x`` shown as the decade [10^order, 10^(order + 1)) it is stated to lie in, or as itself where it does not
    (a measured error printed without the CPU's last digits)."""
    return f"{10.0**order:.0e} to {10.0 ** (order + 1):.0e}" if 10.0**order <= x < 10.0 ** (order + 1) else f"{x:.1e}"


@dataclass(frozen=True)
class K3LargeDRow:
    """At d about +-``scale``: the largest absolute error of TRL's float32 k3 for d > 0 and for d < 0, and the largest
    relative error."""

    scale: float
    max_error_pos: float
    max_error_neg: float
    max_rel_error: float


@dataclass(frozen=True)
class K3LargeD(Verdicts):
    """:func:`k3_large_d`: the largest error on |d| <= ``rounding_max_d`` (``small_max_error``), one
    :class:`K3LargeDRow` per scale of :data:`LARGE_D`, the slope of log(largest error, d > 0) against d between the
    first and the last scale (``growth_slope``), the largest error over the size of k3's terms on every value
    (``terms_ratio``), and the verdict of each statement (``verdicts``)."""

    small_max_error: float
    rows: tuple[K3LargeDRow, ...]
    growth_slope: float
    terms_ratio: float
    verdicts: dict[str, bool]

    @property
    def table(self) -> Table:
        headers = [
            "$d$ about",
            "$k_3$ at $+d$ / $-d$",
            "largest error, $d > 0$",
            "largest error, $d < 0$",
            "relative error",
        ]
        rel, neg = K3_BOUNDS["large_d_relative"], K3_BOUNDS["negative_d"]
        rows = [
            [f"±{r.scale:g}", f"{np.expm1(r.scale) - r.scale:.3g} / {np.expm1(-r.scale) + r.scale:.3g}",
             _order_or_value(r.max_error_pos, LARGE_D_ORDER[r.scale]), bound(r.max_error_neg, neg),
             bound(r.max_rel_error, rel)]
            for r in self.rows
        ]  # fmt: skip
        return Table(headers, rows)


def k3_large_d(*, n_values: int = 100_000, seed: int = 0) -> K3LargeD:
    """Section "The KL goes negative": TRL's float32 k3 (:func:`grpo_nb.trl_adapters.ladder.k3_per_token`, TRL's
    expression, tested equal to its loss) against k3 in float64 on ``n_values`` log-ratios uniform on |d| <=
    :data:`K3_BOUNDS` ``rounding_max_d`` and on ``n_values`` at d = +-s x U(0.99, 1.01) for each s of
    :data:`LARGE_D`; checked against :data:`K3_BOUNDS`, :data:`LARGE_D_GROWTH` and :data:`LARGE_D_ORDER`. The bound
    ``rounding`` is checked on every sample that lies within ``rounding_max_d``, so a statement of it at every |d|
    meets the large ones."""
    n_values = check_positive_int("n_values", n_values)
    bounds, rng = K3_BOUNDS, np.random.default_rng(seed)
    reach = bounds["rounding_max_d"]
    d, err, _ = _trl_k3_errors(rng.uniform(-min(reach, 20.0), min(reach, 20.0), n_values), seed)
    within, ratio, rows = [err[np.abs(d) <= reach]], [float((err / _terms(d)).max())], []
    for s in LARGE_D:
        target = s * rng.uniform(0.99, 1.01, n_values) * rng.choice([-1.0, 1.0], n_values)
        d, err, exact = _trl_k3_errors(target, seed + 1)
        within.append(err[np.abs(d) <= reach])
        ratio.append(float((err / _terms(d)).max()))
        pos = d > 0
        rows.append(K3LargeDRow(s, float(err[pos].max()), float(err[~pos].max()), float((err / exact).max())))
    slope = float(np.log(rows[-1].max_error_pos / rows[0].max_error_pos) / (LARGE_D[-1] - LARGE_D[0]))
    verdicts = {
        "absolute within rounding_max_d": all(e.size == 0 or e.max() <= bounds["rounding"] for e in within),
        "terms": max(ratio) <= bounds["terms_relative"],
        "relative at large |d|": all(r.max_rel_error <= bounds["large_d_relative"] for r in rows),
        "d < 0": all(r.max_error_neg < bounds["negative_d"] for r in rows),
        "beyond the small-|d| bound": all(r.max_error_pos > bounds["rounding"] for r in rows),
        "grows as e^d": abs(slope - LARGE_D_GROWTH) <= LARGE_D_SLOPE_TOL,
        "orders": all(np.floor(np.log10(r.max_error_pos)) == LARGE_D_ORDER[r.scale] for r in rows),
    }
    small = float(within[0].max()) if within[0].size else 0.0
    return K3LargeD(small, tuple(rows), slope, max(ratio), verdicts)


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


def _flat_pair(logp: object, ref_logp: object) -> tuple[np.ndarray, np.ndarray]:
    """(logp, ref_logp) as flat float arrays of one size >= 1; ValueError for shapes that differ or no value."""
    logp = np.asarray(logp, dtype=float).ravel()
    ref_logp = np.asarray(ref_logp, dtype=float).ravel()
    if logp.shape != ref_logp.shape or logp.size == 0:
        raise ValueError(
            f"logp and ref_logp have shapes {logp.shape} and {ref_logp.shape}; valid: one shape, size >= 1"
        )
    return logp, ref_logp


def _token_cells(probe: Probe, logp: object, ref_logp: object) -> tuple[np.ndarray, np.ndarray, torch.Tensor]:
    """(logp, ref_logp) as flat float arrays of one size (:func:`_flat_pair`) and the probe's first that many
    completion cells (rows, columns); ValueError for more tokens than the probe's batch holds."""
    logp, ref_logp = _flat_pair(logp, ref_logp)
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
    logp, ref_logp = _flat_pair(logp, ref_logp)
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
