"""Section "Side by side with the papers" of the chapter "What GRPO does to the whole distribution"
(``book/distribution.md``): each cited claim, what the book computed for it, and whether the two agree; every verdict
is computed from the section results it names, so it changes when they do."""

from __future__ import annotations

from dataclasses import dataclass

from grpo_nb.chapters.distribution.entropy_law import CovarianceLawCheck, EntropyPaths, EntropyRuns
from grpo_nb.chapters.distribution.random_rewards import OneStepChanges
from grpo_nb.chapters.distribution.signed_parts import SignedSampled
from grpo_nb.chapters.distribution.support import Crossover, PerPromptPassAtK
from grpo_nb.chapters.distribution.toy_lm import EntropyOrder, PassAtKChanges, TopMassChanges
from grpo_nb.report import Table

__all__ = ["Findings", "side_by_side"]


@dataclass(frozen=True)
class Findings:
    """The section results the comparison reads."""

    per_prompt: PerPromptPassAtK
    crossover: Crossover
    toy_pass: PassAtKChanges
    law: CovarianceLawCheck
    paths: EntropyPaths
    runs: EntropyRuns
    toy_entropy: EntropyOrder
    one_step: OneStepChanges
    random_paths: EntropyPaths
    toy_top: TopMassChanges
    signed: SignedSampled


def _verdict(agrees: bool, partly: bool = False) -> str:
    return "agrees" if agrees else ("partly" if partly else "disagrees")


def side_by_side(f: Findings) -> Table:
    """One row per cited claim: the claim in brief with its paper, the book's numbers, the verdict."""
    n = f.toy_entropy.n_seeds
    sampled_up = f.toy_pass.rises_everywhere["sampled/symmetric"]
    falls = f.crossover.change[-1] < 0 or sampled_up < n  # pass@k falls somewhere: shared policy or sampled groups
    pass_row = (
        "Yue et al. 2025 (2504.13837)",
        "RLVR raises pass@1 but lowers pass@k at large k: it sharpens, it does not widen",
        f"exact, one prompt: up at every k ({f.per_prompt.n_orbits} orbits per anchor); shared policy: pass@1 "
        f"{f.crossover.change[0]:+.3f}, pass@256 {f.crossover.change[-1]:+.3f}; toy LM: up at every k at "
        f"{sampled_up} of {n} seeds (sampled), {f.toy_pass.rises_everywhere['exact']} of {n} (exact)",
        _verdict(f.toy_pass.mean_change["sampled/symmetric"][-1] < 0, partly=falls),
    )
    law_ok = f.law.growth < 2 and f.law.wrong_sign_growth > 50
    law_row = (
        "Cui et al. 2025 (2505.22617)",
        "entropy changes by about −η Cov(log π, Δlogit) per step",
        f"residual / η² stays flat from η = 1e-2 to 1e-4 (growth {f.law.growth:.2f}) on {f.law.n_policies} random "
        "policies, plain and natural gradient",
        _verdict(law_ok),
    )
    low_up = f.runs.gap("low_only", "none") > 4 and f.paths.entropy["low_only"][-1] > f.paths.entropy["none"][-1]
    toy = f.toy_entropy.above
    high_down_toy = toy["none", "high_only"] == n
    clip_row = (
        "2509.26114",
        "clipping the ratio from below raises entropy, clipping it from above lowers it",
        "bandit: the lower clip alone keeps entropy above no clip (path; sampled runs by > 4 s.e.); the upper "
        f"clip alone lowers it on the path from iteration {f.paths.high_below_none_from}, not measurably in runs; "
        f"toy LM: upper clip alone above no clip at {toy['high_only', 'none']} of {n} seeds, lower alone at "
        f"{toy['low_only', 'none']}",
        _verdict(low_up and high_down_toy, partly=low_up),
    )
    high, none = f.random_paths.top_mass["high_only"][-1], f.random_paths.top_mass["none"][-1]
    shao_row = (
        "Shao et al. 2025 (2506.10947)",
        "with random rewards the clip moves mass to answers that are already likely",
        f"clip bandit, expected path: top mass {high:.2f} with the upper clip alone against {none:.2f} without; toy "
        f"LM: the upper clip loses less top mass than no clip ({f.toy_top.gap('high_only', 'none'):.1f} s.e.), but "
        "still loses some",
        _verdict(high > none and f.toy_top.mean["high_only"] > 0, partly=high > none),
    )
    s = f.signed
    zhu_row = (
        "Zhu et al. 2025 (2506.01347)",
        "negative-only reinforcement keeps entropy and pass@k at large k; positive-only collapses them",
        f"clip bandit, Eq. 4's parts: entropy {s.entropy['negative'][-1]:.3f} (failures' part) against "
        f"{s.entropy['positive'][-1]:.3f} (successes' part) after {len(s.entropy['positive']) - 1} iterations",
        _verdict(s.entropy["negative"][-1] > s.entropy["positive"][-1]),
    )
    rows = [
        [f"{claim} ({paper})", ours, verdict]
        for paper, claim, ours, verdict in (pass_row, law_row, clip_row, shao_row, zhu_row)
    ]
    return Table(["claim (paper)", "this chapter", "verdict"], rows)
