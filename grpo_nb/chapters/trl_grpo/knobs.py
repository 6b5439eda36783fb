"""Section "Every knob, checked by TRL's own code" of the chapter "GRPO in TRL": the knob map, every row of it from
one check that runs TRL's own code.

The rows, in order, and the modules of their checks: TRL's defaults and ``beta``'s default 0
(:mod:`~grpo_nb.chapters.trl_grpo.knobs_defaults`); the KL estimate and ``use_bias_correction_kl``
(:mod:`~grpo_nb.chapters.trl_grpo.knobs_loss`); ``scale_rewards`` and ``num_generations``
(:mod:`~grpo_nb.chapters.trl_grpo.advantage_probe`); ``num_iterations`` and the rule for storing pi_old's
log-probabilities (:mod:`~grpo_nb.chapters.trl_grpo.knobs_training`); the clip range and ``delta``
(:mod:`~grpo_nb.chapters.trl_grpo.knobs_loss`); the reference sync (:mod:`~grpo_nb.chapters.trl_grpo.knobs_training`);
``loss_type`` and ``importance_sampling_level`` (:mod:`~grpo_nb.chapters.trl_grpo.knobs_loss`).
"""

from __future__ import annotations

from dataclasses import dataclass

from grpo_nb.chapters.trl_grpo.advantage_probe import PROBE_CONFIG, TOL, Probe, advantage_check, make_probe
from grpo_nb.chapters.trl_grpo.knobs_defaults import BOOK_DEFAULTS, beta_default_check, defaults_check
from grpo_nb.chapters.trl_grpo.knobs_loss import LOSS_TYPES, clip_check, kl_check, loss_type_check, sequence_ratio_check
from grpo_nb.chapters.trl_grpo.knobs_training import mu_check, old_logps_check, ref_sync_check
from grpo_nb.constants import CLIP_EPS, DAPO_CLIP_EPS_HIGH
from grpo_nb.report import Table, bound

__all__ = ["KnobCheck", "KnobTable", "knob_table"]


def _share(x: float) -> str:
    """A clipped-token share as the check reads it: exactly 0, or above 0 (its value depends on the draw)."""
    return "0" if x == 0 else "> 0"


@dataclass(frozen=True)
class KnobCheck:
    """One row of the knob map: the knob, what it is in the theory, what TRL's own code gave, and whether the check
    passed."""

    knob: str
    theory: str
    measured: str
    passed: bool


@dataclass(frozen=True)
class KnobTable:
    """The knob map: its table (one row per :class:`KnobCheck`, "passes" or "FAILS") and its rows."""

    table: Table
    rows: tuple[KnobCheck, ...]


def knob_table(seed: int = 0) -> KnobTable:
    """Section "Every knob, checked by TRL's own code": every row of the knob map, checked by TRL's own code (module
    docstring); ``seed`` seeds every sampled draw (the probes' answers, the training steps of the ``num_iterations``
    row). Every row must pass at any seed."""
    rows = [*_default_rows(), *_kl_rows(seed)]
    probe = make_probe(beta=0.0, seed=seed)
    rows += _advantage_rows(probe)
    rows += _iteration_rows(seed)
    rows += _clip_rows(probe)
    rows.append(_ref_sync_row(seed))
    rows += _aggregation_rows(probe)
    table = Table(
        ["TRL knob", "in the theory (stated; the check runs the formula)", "TRL's own code gives", "check"],
        [[r.knob, r.theory, r.measured, "passes" if r.passed else "FAILS"] for r in rows],
    )
    return KnobTable(table, tuple(rows))


def _default_rows() -> list[KnobCheck]:
    """The rows of TRL's defaults (against :data:`BOOK_DEFAULTS`) and of ``beta``'s default 0."""
    wrong = defaults_check()
    beta0 = beta_default_check()
    return [
        KnobCheck(
            "TRL's defaults",
            ", ".join(f"`{k}` {v}" for k, v in BOOK_DEFAULTS.items()),
            "all as stated" if not wrong else f"differ: {wrong}",
            not wrong,
        ),
        KnobCheck(
            "`beta` (default 0)",
            r"the KL weight $\beta$ of Eq. (6); at 0 no KL term: the recursion's $\beta \to 0$ limit, $h(p) = 1$",
            f"default {beta0.default:g}; reference model built: {beta0.has_reference}; "
            rf"loss with $\pi_{{\mathrm{{ref}}}}$ 1 nat off: {bound(beta0.loss, TOL)}",
            beta0.default == 0 and not beta0.has_reference and beta0.loss < TOL,
        ),
    ]


def _kl_rows(seed: int) -> list[KnobCheck]:
    """The rows of the KL estimate (Schulman's k3) without and with ``use_bias_correction_kl``, on a probe with
    beta = 0.5."""
    probe_kl = make_probe(beta=0.5, seed=seed)
    gap = kl_check(probe_kl)
    gap_bc = kl_check(probe_kl, bias_correction=True)
    return [
        KnobCheck(
            "`beta` > 0: the KL estimate",
            r"Schulman's k3 per token, $e^{d} - d - 1$, $d = \log\pi_{\mathrm{ref}} - \log\pi_\theta$ "
            "(flag below off: no ratio)",
            f"|TRL − k3| {bound(gap, TOL)}",
            gap < TOL,
        ),
        KnobCheck(
            "`use_bias_correction_kl`",
            r"on (TRL's default): k3 times the importance ratio $\pi_\theta/\pi_{\mathrm{old}}$ per token",
            f"|TRL − ratio·k3| {bound(gap_bc, TOL)}",
            gap_bc < TOL,
        ),
    ]


def _advantage_rows(probe: Probe) -> list[KnobCheck]:
    """The rows of ``scale_rewards`` (group, batch, none) and of ``num_generations`` = G."""
    rows = []
    for scale, theory in (
        (
            "group",
            r"Eq. (3) with Bessel's std $+ 10^{-4}$: "
            r"$\beta_{\mathrm{eff}} = \beta\sqrt{G/(G-1)}$, $\varepsilon \approx 0$",
        ),
        ("batch", "mean per group, one std for the whole batch: not a per-prompt recursion"),
        ("none", "mean only (Dr. GRPO): the variants chapter's mean-only map"),
    ):
        gap = advantage_check(probe, scale)
        rows.append(KnobCheck(f"`scale_rewards={scale}`", theory, f"max abs gap {bound(gap, TOL)}", gap < TOL))
    groups, gap_g = probe.rewards.shape[1], advantage_check(probe, "group")
    rows.append(
        KnobCheck(
            "`num_generations` = $G$",
            "the group size $G$ of Eq. (3): each prompt's advantage uses its own $G$ answers",
            f"`num_generations` {probe.trainer.num_generations}, groups of {groups} rewards; "
            f"per-group advantage: max abs gap {bound(gap_g, TOL)}",
            groups == probe.trainer.num_generations == PROBE_CONFIG.G and gap_g < TOL,
        )
    )
    return rows


def _iteration_rows(seed: int) -> list[KnobCheck]:
    """The rows of ``num_iterations`` = mu (real training steps at mu = 1 and 3) and of the rule for storing pi_old's
    log-probabilities (``steps_per_generation``, ``gradient_accumulation_steps``)."""
    mu1, mu3 = mu_check(1, seed=seed), mu_check(3, seed=seed)
    old = old_logps_check(seed=seed)
    return [
        KnobCheck(
            "`num_iterations` = μ",
            "μ inner steps per generation (at `steps_per_generation` = `gradient_accumulation_steps`, "
            "the default); at μ = 1 the ratio is 1 and the clip never acts",
            f"μ = 1: old log-probs stored {mu1.stored}, clipped share {_share(mu1.clipped)}; "
            f"μ = 3: {mu3.stored}, {_share(mu3.clipped)}",
            not mu1.stored and mu1.clipped == 0 and mu3.stored and mu3.clipped > 0,
        ),
        KnobCheck(
            "`steps_per_generation`, `gradient_accumulation_steps`",
            r"$\pi_{\mathrm{old}}$'s log-probs are stored (the ratio can leave 1) iff `gradient_accumulation_steps` "
            "is not a multiple of `steps_per_generation` × μ, or vLLM's correction is on",
            "(μ, spg, gas) → stored: "
            + ", ".join(f"{c} {s}" for c, s in zip(old.cases, old.trl, strict=True))
            + f"; vLLM in TRL's rule: {old.vllm_in_rule}",
            old.agree,
        ),
    ]


def _clip_rows(probe: Probe) -> list[KnobCheck]:
    """The rows of the clip range (``epsilon``, ``epsilon_high``) and of ``delta`` (two-sided clip)."""
    gap_sym = clip_check(probe, CLIP_EPS)
    gap_asym = clip_check(probe, CLIP_EPS, DAPO_CLIP_EPS_HIGH)
    gap_delta = clip_check(probe, CLIP_EPS, delta=1.5)
    return [
        KnobCheck(
            "`epsilon`, `epsilon_high`",
            r"clip range $[1 - \epsilon, 1 + \epsilon_{\mathrm{high}}]$ of the ratio, "
            r"$f(x, A) = \min(xA, \mathrm{clip}(x)A)$",
            f"|TRL − book|: symmetric {bound(gap_sym, TOL)}, "
            + rf"$\epsilon_{{\mathrm{{high}}}} = 0.28$: {bound(gap_asym, TOL)}",
            max(gap_sym, gap_asym) < TOL,
        ),
        KnobCheck(
            "`delta` (default None)",
            r"two-sided clip: the unclipped term's ratio capped at $\delta$, "
            r"$\min(\min(x, \delta)A, \mathrm{clip}(x)A)$",
            rf"|TRL − book| at $\delta = 1.5$: {bound(gap_delta, TOL)}",
            gap_delta < TOL,
        ),
    ]


def _ref_sync_row(seed: int) -> KnobCheck:
    """The row of the reference sync (``sync_ref_model``, ``ref_model_mixup_alpha``, ``ref_model_sync_steps``)."""
    sync = ref_sync_check(seed=seed)
    return KnobCheck(
        "`sync_ref_model`, `ref_model_mixup_alpha`, `ref_model_sync_steps`",
        r"every τ steps $\pi_{\mathrm{ref}}$'s weights become $\alpha\theta + (1-\alpha)\theta_{\mathrm{ref}}$ "
        r"(a mix of weights): the KL target moves; at $\alpha = 1$ it is the current policy",
        f"|TRL − book| at α = 0.6: {bound(sync.gap, TOL)}; change one step early: {bound(sync.early, TOL)}",
        sync.gap < TOL and sync.early < TOL,
    )


def _aggregation_rows(probe: Probe) -> list[KnobCheck]:
    """The rows of ``loss_type`` (each aggregation) and of ``importance_sampling_level`` (token, sequence)."""
    gaps = {lt: loss_type_check(probe, lt) for lt in LOSS_TYPES}
    gap_seq, gap_tok = sequence_ratio_check(probe, "sequence"), sequence_ratio_check(probe, "token")
    return [
        KnobCheck(
            "`loss_type`",
            r"grpo: mean of per-answer token means; bnpo: token mean; dapo: sum / tokens generated in the batch; "
            r"dr_grpo: sum $/\,(B\,L_{\max})$, $L_{\max}$ = `max_completion_length`",
            "|TRL − book|: " + ", ".join(f"{k} {bound(v, TOL)}" for k, v in gaps.items()),
            max(gaps.values()) < TOL,
        ),
        KnobCheck(
            "`importance_sampling_level`",
            "token: ratio per token; sequence: exp(mean of the log ratios) per answer",
            f"|TRL − book|: token {bound(gap_tok, TOL)}, sequence {bound(gap_seq, TOL)}",
            max(gap_seq, gap_tok) < TOL,
        ),
    ]
