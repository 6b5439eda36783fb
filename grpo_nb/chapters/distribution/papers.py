"""Section "Side by side with the papers" of the chapter "What GRPO does to the whole distribution"
(``book/distribution.md``): each cited claim, the numbers the chapter measured for it, and the book's reading of them.

The numbers are computed from the section results of :class:`Findings`, each asserted in the section it comes from.
The readings (:data:`READINGS`) are the book's judgement of those numbers, written as text and shown as such: a
computed verdict would only restate the sections' asserts, which already fix every comparison it could make."""

from __future__ import annotations

from dataclasses import dataclass

from grpo_nb.chapters.distribution.entropy_law import CovarianceLawCheck, EntropyPaths, EntropyRuns
from grpo_nb.chapters.distribution.random_rewards import UpperClipMargin
from grpo_nb.chapters.distribution.signed_parts import RawRewardParts, SignedSampled
from grpo_nb.chapters.distribution.support import Crossover, PerPromptPassAtK
from grpo_nb.chapters.distribution.toy_lm import EntropyOrder, PassAtKChanges, TopMassChanges
from grpo_nb.report import Table

__all__ = ["CLAIMS", "NUMBERS", "READINGS", "Findings", "side_by_side"]

#: Per cited paper, the book's reading of the numbers beside it (text, not computed).
READINGS = {
    "yue": "partly: sampled training sharpens (some prompts lose p), but pass@k at large k fell only with a shared "
    "policy or sampled groups, and the toy task, solved by π_ref at k = 256, cannot show a fall below the base model",
    "cui": "agrees, to first order, for a softmax over a finite answer set",
    "clip": "partly: the bandit's sampled runs agree on both sides under random rewards, the bandit on the lower clip "
    "under verifiable ones; on the toy LM the upper clip alone raises the entropy under either reward",
    "shao": "partly: the upper clip alone keeps more of the likely answer's mass than no clip in every setting "
    "measured, but raises that mass on some bandits only; on the toy LM every mode loses some",
    "zhu": "disagrees on the bandit's expected-update path, with Eq. 4's weights and with raw ±1 rewards; not run "
    "on the toy LM or with sampled runs",
}


@dataclass(frozen=True)
class Findings:
    """The section results the comparison quotes."""

    per_prompt: PerPromptPassAtK
    crossover: Crossover
    toy_pass: PassAtKChanges
    law: CovarianceLawCheck
    paths: EntropyPaths
    toy_entropy: EntropyOrder
    grid: UpperClipMargin
    random_paths: EntropyPaths
    random_runs: EntropyRuns
    toy_top: TopMassChanges
    toy_random_entropy: EntropyOrder
    signed: SignedSampled
    raw: RawRewardParts


def _pass_at_k_numbers(f: Findings) -> str:
    """Yue et al.: one prompt's exact steps, the shared policy, the toy LM."""
    n, up, falls = f.toy_pass.n_seeds, f.toy_pass.rises_everywhere, f.toy_pass.some_prompt_falls["sampled/symmetric"]
    return (
        f"exact, one prompt: up at every k ({f.per_prompt.n_orbits} orbits per anchor); shared policy: pass@1 "
        f"{f.crossover.change[0]:+.3f}, pass@256 {f.crossover.change[-1]:+.3f}; toy LM: up at every k at "
        f"{up['sampled/symmetric']} of {n} seeds (sampled), {up['exact']} of {n} (exact); some prompt loses p at "
        f"{falls} of {n} seeds (sampled)"
    )


def _law_numbers(f: Findings) -> str:
    """Cui et al.: the covariance law's residual."""
    return (
        f"residual / η² grows by {f.law.growth:.2f} from η = 1e-2 to 1e-4 (wrong sign: by "
        f"{f.law.wrong_sign_growth:.0f}) on {f.law.n_policies} random policies, plain and natural gradient"
    )


def _clip_entropy_numbers(f: Findings) -> str:
    """2509.26114: the entropy per clip mode, verifiable rewards then random ones, bandit then toy LM."""
    toy, rand, n = f.toy_entropy.above, f.toy_random_entropy, f.toy_entropy.n_seeds
    modes = ("high_only", "none", "low_only")
    path = ", ".join(f"{f.random_paths.entropy[m][-1]:.2f}" for m in modes)
    runs = ", ".join(f"{f.random_runs.entropy_mean[m]:.2f}" for m in modes)
    toy_lm = ", ".join(f"{rand.final_mean[m]:.2f}" for m in modes)
    return (
        "verifiable rewards: bandit, lower clip alone above no clip (path, runs), upper alone below it on the path "
        f"from iteration {f.paths.high_below_none_from}, unresolved in runs; toy LM, upper alone above no clip at "
        f"{toy['high_only', 'none']} of {n} seeds. Random rewards, entropy with the upper clip alone, no clip, the "
        f"lower clip alone: bandit path {path}; runs (this page's draw) {runs}; toy LM {toy_lm} (upper alone above "
        f"no clip at {rand.above['high_only', 'none']} of {n} seeds)"
    )


def _top_mass_numbers(f: Findings) -> str:
    """Shao et al.: the mass of the most likely answer under random rewards."""
    top, runs = f.random_paths.top_mass, f.random_runs.top_mean
    return (
        f"exact, one iteration, {f.grid.n_settings} bandits: upper-clip modes above the others by ≥ "
        f"{f.grid.margin:.4f}, upper alone up in {f.grid.high_only_positive}; clip bandit at 40, upper alone against "
        f"no clip: path {top['high_only'][-1]:.2f} against {top['none'][-1]:.2f}, runs (this page's draw) "
        f"{runs['high_only']:.2f} against {runs['none']:.2f}; toy LM: every mode loses top mass, upper alone less "
        f"than no clip ({f.toy_top.gap('high_only', 'none'):.1f} s.e.)"
    )


def _signed_numbers(f: Findings) -> str:
    """Zhu et al.: the entropy of each part on the bandit's expected-update path."""
    s, raw, n = f.signed.entropy, f.raw.final_entropy, len(f.signed.entropy["positive"]) - 1
    at = "; ".join(
        f"{raw['negative', lr]:.3f} against {raw['positive', lr]:.3f} at step size {lr:g}" for lr in f.raw.lrs
    )
    return (
        f"clip bandit, expected-update path, {n} iterations, entropy of the failures' part against the successes': "
        f"Eq. 4's weights {s['negative'][-1]:.3f} against {s['positive'][-1]:.3f}; raw ±1 rewards {at}"
    )


#: Per cited paper: its key in :data:`READINGS`, the paper, and its claim in brief.
CLAIMS = (
    ("yue", "Yue et al. 2025 (2504.13837)", "RLVR raises pass@1 but lowers pass@k at large k: it sharpens, not widens"),
    ("cui", "Cui et al. 2025 (2505.22617)", "entropy changes by about −η Cov(log π, Δlogit) per step"),
    ("clip", "2509.26114", "clipping the ratio from below raises entropy, clipping it from above lowers it"),
    ("shao", "Shao et al. 2025 (2506.10947)", "with random rewards the clip moves mass to answers already likely"),
    (
        "zhu",
        "Zhu et al. 2025 (2506.01347)",
        "negative-only updates keep entropy and pass@k at large k; positive-only not",
    ),
)
#: Per cited paper, the numbers this chapter measured for its claim.
NUMBERS = {
    "yue": _pass_at_k_numbers,
    "cui": _law_numbers,
    "clip": _clip_entropy_numbers,
    "shao": _top_mass_numbers,
    "zhu": _signed_numbers,
}


def side_by_side(f: Findings) -> Table:
    """One row per cited claim (:data:`CLAIMS`): the claim in brief with its paper, the numbers measured here
    (:data:`NUMBERS`, from ``f``), the book's reading (:data:`READINGS`)."""
    rows = [[f"{claim} ({paper})", NUMBERS[key](f), READINGS[key]] for key, paper, claim in CLAIMS]
    return Table(["claim (paper)", "measured here", "the book's reading"], rows)
