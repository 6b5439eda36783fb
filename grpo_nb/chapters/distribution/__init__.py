"""The analyses of the chapter "What GRPO does to the whole distribution" (``book/distribution.md``), one module per
section, each returning its table and the values its asserts need:

* :mod:`~grpo_nb.chapters.distribution.support` ("Support and diversity"): exact steps keep the ratios inside each
  reward class and raise one prompt's pass@k at every k; a policy shared by prompts can lower pass@k at large k;
  sampled groups reshape the correct class (:func:`class_ratios`, :func:`per_prompt_pass_at_k`, :func:`crossover`,
  :func:`sampled_sharpening`);
* :mod:`~grpo_nb.chapters.distribution.entropy_law` ("Entropy"): the covariance law, and the entropy of clipped GRPO
  on the clip bandit (:func:`covariance_law_check`, :func:`entropy_paths`, :func:`entropy_runs`);
* :mod:`~grpo_nb.chapters.distribution.random_rewards` ("Clipping under random rewards"): the exact expected change
  of the most likely answer's mass, and why the upper clip favours it (:func:`one_step_changes`,
  :func:`upper_clip_margin`, :func:`first_step_ratios`);
* :mod:`~grpo_nb.chapters.distribution.signed_parts` ("Only the successes, or only the failures"):
  :func:`signed_exact`, :func:`signed_shared`, :func:`signed_sampled`, :func:`raw_reward_parts`;
* :mod:`~grpo_nb.chapters.distribution.toy_lm` ("The toy language model"): the cached runs of the toy LM and of TRL
  (:func:`load_record`, :func:`pass_at_k_changes`, :func:`entropy_order`, :func:`random_reward_top_mass`,
  :func:`trl_pass_at_k`);
* :mod:`~grpo_nb.chapters.distribution.papers` ("Side by side with the papers"): :func:`side_by_side`, the numbers
  measured for each cited claim beside the book's reading of them.

The chapter imports them all through this package, ``from grpo_nb.chapters import distribution as checks``.
"""

from grpo_nb.chapters.distribution.entropy_law import (
    CovarianceLawCheck,
    EntropyPaths,
    EntropyRuns,
    covariance_law_check,
    entropy_paths,
    entropy_runs,
)
from grpo_nb.chapters.distribution.papers import Findings, side_by_side
from grpo_nb.chapters.distribution.random_rewards import (
    FirstStepRatios,
    OneStepChanges,
    UpperClipMargin,
    first_step_ratios,
    one_step_changes,
    upper_clip_margin,
)
from grpo_nb.chapters.distribution.signed_parts import (
    RawRewardParts,
    SignedExact,
    SignedSampled,
    SignedShared,
    raw_reward_parts,
    signed_exact,
    signed_sampled,
    signed_shared,
)
from grpo_nb.chapters.distribution.support import (
    ClassRatios,
    Crossover,
    PerPromptPassAtK,
    SampledSharpening,
    class_ratios,
    crossover,
    per_prompt_pass_at_k,
    sampled_sharpening,
)
from grpo_nb.chapters.distribution.toy_lm import (
    EntropyOrder,
    PassAtKChanges,
    TopMassChanges,
    TrlPassAtK,
    entropy_order,
    load_record,
    pass_at_k_changes,
    random_reward_top_mass,
    trl_pass_at_k,
)

__all__ = [
    "ClassRatios",
    "CovarianceLawCheck",
    "Crossover",
    "EntropyOrder",
    "EntropyPaths",
    "EntropyRuns",
    "Findings",
    "FirstStepRatios",
    "OneStepChanges",
    "PassAtKChanges",
    "PerPromptPassAtK",
    "RawRewardParts",
    "SampledSharpening",
    "SignedExact",
    "SignedSampled",
    "SignedShared",
    "TopMassChanges",
    "TrlPassAtK",
    "UpperClipMargin",
    "class_ratios",
    "covariance_law_check",
    "crossover",
    "entropy_order",
    "entropy_paths",
    "entropy_runs",
    "first_step_ratios",
    "load_record",
    "one_step_changes",
    "pass_at_k_changes",
    "per_prompt_pass_at_k",
    "random_reward_top_mass",
    "raw_reward_parts",
    "sampled_sharpening",
    "side_by_side",
    "signed_exact",
    "signed_sampled",
    "signed_shared",
    "trl_pass_at_k",
    "upper_clip_margin",
]
