"""The analyses of the chapter "Questions from the trackers" (``book/tracker_questions.md``): the questions GRPO users
ask in TRL's and verl's issue trackers, each reproduced on the toy task with TRL's own code and explained by a check
that measures its cause. One module per question (two for the KL's numerics), in the chapter's order:

* "The loss is exactly 0 at the first step, and yet the model learns": :mod:`~.zero_loss`;
* "All my rewards in a group are equal: loss 0, grad_norm 0": :mod:`~.silent_groups`;
* "Clip-higher cannot do anything": :mod:`~.clip_higher`;
* "Why is the KL missing, and where is the reference model?" (beta = 0): :mod:`~.no_reference`;
* "The KL goes negative": k3's float32 rounding in :mod:`~.kl_numerics`, the early KL, its spikes and the knob grid
  in :mod:`~.kl_in_training`;
* "Which KL estimator, and where": :mod:`~.kl_placement`;
* "What does scale_rewards do?": :mod:`~.scale_rewards`;
* "How many generations per prompt?": :mod:`~.group_count`;
* "Long, wrong answers get longer" (loss aggregation and length bias): :mod:`~.length_bias`, on the variable-length
  policy of :mod:`grpo_nb.family.length_bias`;
* "Which ``vllm_importance_sampling_mode`` should I use?" and "Sequence masking drops my long answers" (off-policy
  correction, on the same policy with a stale sampler): :mod:`~.off_policy`.

Most checks run TRL on a probe (:func:`make_probe`, the TRL chapter's: TRL's trainer on four toy prompts, G = 8, and
one real generation batch of it). The chapter imports this package as ``checks``. A check reads the book's side of
its comparison (a module-level name of its own module) when it runs: to state an explanation wrongly (as the tests
do), replace the name in that module.
"""

from grpo_nb.chapters.tracker_questions import (
    clip_higher,
    group_count,
    kl_in_training,
    kl_numerics,
    kl_placement,
    length_bias,
    no_reference,
    off_policy,
    scale_rewards,
    silent_groups,
    zero_loss,
)
from grpo_nb.chapters.trl_grpo.advantage_probe import make_probe

__all__ = [
    "clip_higher",
    "group_count",
    "kl_in_training",
    "kl_numerics",
    "kl_placement",
    "length_bias",
    "make_probe",
    "no_reference",
    "off_policy",
    "scale_rewards",
    "silent_groups",
    "zero_loss",
]
