"""Section "The success recursion in logit form" of the chapter "GRPO variants" (``book/variants_recursions.md``):
tabular runs from pi_0 = pi_ref against :func:`grpo_nb.variants.iterate`, and each variant's orbit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from grpo_nb.chapters.variants.variant_set import _NAMES, _P_REF, NORMALIZATIONS, _small, random_instance
from grpo_nb.dynamics.fixed_points import fixed_points
from grpo_nb.dynamics.orbits import classify_orbits, orbit_kind
from grpo_nb.report import Table
from grpo_nb.tabular.policy import expected_reward
from grpo_nb.variants.map import iterate_logit
from grpo_nb.variants.policy import policy_orbit
from grpo_nb.variants.variant import Variant

__all__ = ["RecursionAgreement", "VariantOrbit", "orbit_table", "recursion_agreement", "variant_orbit"]


@dataclass(frozen=True)
class RecursionAgreement:
    """Per variant: the largest |p_n (tabular) - p_n (variants.iterate)| along the run; the worst over variants."""

    table: Table
    worst: float


def recursion_agreement(
    rng: np.random.Generator,
    alphas: Sequence[float] = (0.0, 0.3, 0.5, 1.0),
    eps: float = 1e-2,
    *,
    n: int = 15,
    n_instances: int = 3,
) -> RecursionAgreement:
    """Exact tabular runs from pi_0 = pi_ref (:func:`grpo_nb.variants.policy_orbit`) against the logit recursion."""
    rows, worst = [], 0.0
    for normalization in NORMALIZATIONS:
        for alpha in alphas:
            err, last = 0.0, []
            for _ in range(n_instances):
                pi_ref, _, reward, beta = random_instance(rng)
                p = expected_reward(
                    policy_orbit(pi_ref, reward, beta, eps, n=n, normalization=normalization, alpha=alpha), reward
                )
                with np.errstate(over="ignore"):
                    predicted = expit(
                        iterate_logit(float(pi_ref @ reward), beta, eps, n=n, normalization=normalization, alpha=alpha)
                    )
                err = max(err, float(np.max(np.abs(p - predicted))))
                last.append(f"{p[0]:.3f} → {p[-1]:.3f}")
            worst = max(worst, err)
            rows.append([_NAMES[normalization], alpha, _small(err), ", ".join(last)])
    headers = [
        "normalisation",
        "α",
        rf"max $\lvert p_n^{{\mathrm{{tabular}}}} - p_n^{{\mathrm{{recursion}}}}\rvert$, $n \le {n}$",
        f"$p_0 \\to p_{{{n}}}$ per run",
    ]
    return RecursionAgreement(Table(headers, rows, ".3g"), worst)


@dataclass(frozen=True)
class VariantOrbit:
    """:func:`variant_orbit`: a variant's number of fixed points, the kind of its orbit from p_ref and the orbit's
    limit set as shown (section "The success recursion in logit form")."""

    label: str
    n_fixed_points: int
    verdict: str
    limit: str


def variant_orbit(variant: Variant, p_ref: float, beta: float, eps: float) -> VariantOrbit:
    """A variant's fixed points counted and its orbit from p_ref classified (the dynamics machinery)."""
    kind = orbit_kind(p_ref, beta, eps, variant=variant)
    summary = classify_orbits(p_ref, beta, eps, variant=variant)
    verdict = {"fixed_point": "fixed point", "chaotic": "chaotic"}.get(kind.kind, f"cycle, period {kind.period}")
    period = max(int(summary.period), 1)
    limit = summary.limit_logits[-period:]
    escaped = bool(np.isposinf(limit).all())
    verdict = "runs to p = 1" if escaped else verdict
    shown = "1 (logit +∞)" if escaped else " ↔ ".join(f"{expit(z):.4g}" for z in np.sort(limit))
    return VariantOrbit(variant.label, len(fixed_points(p_ref, beta, eps, variant=variant)), verdict, shown)


def orbit_table(orbits: Sequence[VariantOrbit]) -> Table:
    """The :class:`VariantOrbit` of each variant as a table."""
    rows = [[o.label, o.n_fixed_points, o.verdict, o.limit] for o in orbits]
    return Table(["variant", "fixed points", f"orbit from {_P_REF}", "limit $p$"], rows, ".4g")
