"""Section "When the iteration settles on a fixed point" of the chapter "GRPO variants"
(``book/variants_effective_beta.md``): orbits that do not."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tqdm.auto import tqdm

from grpo_nb.chapters.variants.success_recursion import VariantOrbit, variant_orbit
from grpo_nb.chapters.variants.variant_set import _P_REF
from grpo_nb.report import Table
from grpo_nb.variants.variant import Variant

__all__ = ["ConvergenceCases", "convergence_counterexamples"]


@dataclass(frozen=True)
class ConvergenceCases:
    """:func:`convergence_counterexamples`: each case's orbit (:class:`VariantOrbit`) and the table of them."""

    table: Table
    orbits: list[VariantOrbit]


def convergence_counterexamples(cases: Sequence[tuple[Variant, float, float, float]]) -> ConvergenceCases:
    """Section "When the iteration settles on a fixed point": the orbit of each (variant, p_ref, beta, eps) case.

    Each case goes through :func:`variant_orbit` (fixed points counted, the orbit from p_ref classified by the dynamics
    machinery), so a case whose orbit settles on a fixed point reads "fixed point" and the others say what they do.
    """
    orbits = [variant_orbit(v, p_ref, beta, eps) for v, p_ref, beta, eps in tqdm(cases, desc="orbits")]
    rows = [
        [o.label, p_ref, beta, eps, o.n_fixed_points, o.verdict, o.limit]
        for o, (_, p_ref, beta, eps) in zip(orbits, cases, strict=True)
    ]
    headers = ["variant", _P_REF, "β", "ε", "fixed points", f"orbit from {_P_REF}", "limit $p$"]
    return ConvergenceCases(Table(headers, rows, ".4g"), orbits)
