"""The analyses of the chapter "GRPO in TRL" (``book/trl_grpo.md``): TRL's GRPO knobs against the book's formulas,
each checked by running TRL's own code, and the cached TRL runs against the recursion. One module per section:

* "TRL's advantage, read from a real step": :mod:`~grpo_nb.chapters.trl_grpo.advantage_probe` (the probe, TRL's
  advantages against the book's);
* "Every knob, checked by TRL's own code": :mod:`~grpo_nb.chapters.trl_grpo.knobs` (the knob map), its checks in
  :mod:`~grpo_nb.chapters.trl_grpo.knobs_defaults` (TRL's defaults, ``beta`` = 0),
  :mod:`~grpo_nb.chapters.trl_grpo.knobs_loss` (KL term, loss aggregation, clip range, ratio level),
  :mod:`~grpo_nb.chapters.trl_grpo.knobs_training` (``num_iterations``, stored pi_old, reference sync) and
  :mod:`~grpo_nb.chapters.trl_grpo.knobs_kl_direction` (which KL's gradient k3 gives);
* "The same prompts under TRL: β > 0 and the default β = 0": :mod:`~grpo_nb.chapters.trl_grpo.full_runs` (the cached
  runs, their gaps and times) and, for its subsection "TRL's default, β = 0",
  :mod:`~grpo_nb.chapters.trl_grpo.beta_zero`;
* "Why TRL leaves the recursion: one knob at a time": :mod:`~grpo_nb.chapters.trl_grpo.ladder` (the ablation
  ladder), which the chapter reads as ``checks.ladder``;
* "What breaks amplification: one knob against a fixed baseline": :mod:`~grpo_nb.chapters.trl_grpo.knob_grid` (the
  knob grid, read as ``checks.knob_grid``) and :mod:`~grpo_nb.chapters.trl_grpo.k3_numerics` (k3's float32
  cancellation in TRL's own loss, read as ``checks.k3_numerics``);
* "When TRL follows the recursion, and when it cannot": :mod:`~grpo_nb.chapters.trl_grpo.follows_recursion`;
* "In practice: what this book suggests for TRL users": :mod:`~grpo_nb.chapters.trl_grpo.in_practice`.

The chapter imports them through this package, ``from grpo_nb.chapters import trl_grpo as checks`` (with the
tolerances ``TOL`` and ``FOLLOW_TOL`` and the defaults key ``SPG_KEY`` it and its tests read). A check reads
the book's side of its comparison (a module-level name of its own module) when it runs: to state a formula wrongly
(as the tests do), replace the name in that module.
"""

from grpo_nb.chapters.trl_grpo import k3_numerics, knob_grid, ladder
from grpo_nb.chapters.trl_grpo.advantage_probe import (
    BOOK_ADVANTAGES,
    Probe,
    advantage_check,
    make_probe,
    trl_advantages,
)
from grpo_nb.chapters.trl_grpo.advantage_probe import TOL as TOL
from grpo_nb.chapters.trl_grpo.beta_zero import AdamCarry, BetaZeroFacts, adam_zero_gradient_step, beta_zero_facts
from grpo_nb.chapters.trl_grpo.follows_recursion import FOLLOW_TOL as FOLLOW_TOL
from grpo_nb.chapters.trl_grpo.follows_recursion import FollowCheck, follow_check
from grpo_nb.chapters.trl_grpo.full_runs import (
    AmplificationFacts,
    GapDifference,
    PerPromptTable,
    PredictionGaps,
    amplification_facts,
    gap_difference,
    load_result,
    per_prompt_table,
    prediction_gaps,
    run_label,
    timing_table,
    trajectories,
)
from grpo_nb.chapters.trl_grpo.in_practice import PracticeNumbers, practice_numbers
from grpo_nb.chapters.trl_grpo.knobs import KnobCheck, KnobTable, knob_table
from grpo_nb.chapters.trl_grpo.knobs_defaults import BOOK_DEFAULTS, BetaDefault, beta_default_check, defaults_check
from grpo_nb.chapters.trl_grpo.knobs_defaults import SPG_KEY as SPG_KEY
from grpo_nb.chapters.trl_grpo.knobs_kl_direction import KL_GRADIENT_DIRECTION, kl_direction_check
from grpo_nb.chapters.trl_grpo.knobs_loss import (
    LOSS_TYPES,
    aggregate,
    book_clipped_term,
    book_delta_ratio,
    book_kl,
    book_log_ratio,
    clip_check,
    kl_check,
    loss_type_check,
    sequence_ratio_check,
)
from grpo_nb.chapters.trl_grpo.knobs_training import (
    OLD_LOGPS_CASES,
    MuCheck,
    OldLogpsCheck,
    RefSyncCheck,
    book_ref_sync,
    book_stores_old_logps,
    mu_check,
    old_logps_check,
    ref_sync_check,
)

__all__ = [
    "AdamCarry",
    "AmplificationFacts",
    "BOOK_ADVANTAGES",
    "BOOK_DEFAULTS",
    "BetaDefault",
    "BetaZeroFacts",
    "FollowCheck",
    "GapDifference",
    "KL_GRADIENT_DIRECTION",
    "KnobCheck",
    "KnobTable",
    "ladder",
    "k3_numerics",
    "knob_grid",
    "LOSS_TYPES",
    "MuCheck",
    "OLD_LOGPS_CASES",
    "OldLogpsCheck",
    "PerPromptTable",
    "PracticeNumbers",
    "PredictionGaps",
    "Probe",
    "RefSyncCheck",
    "adam_zero_gradient_step",
    "advantage_check",
    "aggregate",
    "amplification_facts",
    "beta_default_check",
    "beta_zero_facts",
    "book_clipped_term",
    "book_delta_ratio",
    "book_kl",
    "book_log_ratio",
    "book_ref_sync",
    "book_stores_old_logps",
    "clip_check",
    "defaults_check",
    "follow_check",
    "gap_difference",
    "kl_check",
    "kl_direction_check",
    "knob_table",
    "load_result",
    "loss_type_check",
    "make_probe",
    "mu_check",
    "old_logps_check",
    "per_prompt_table",
    "practice_numbers",
    "prediction_gaps",
    "ref_sync_check",
    "run_label",
    "sequence_ratio_check",
    "timing_table",
    "trajectories",
    "trl_advantages",
]
