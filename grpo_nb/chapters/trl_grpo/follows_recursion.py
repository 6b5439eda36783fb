"""Section "When TRL follows the recursion, and when it cannot" of the chapter "GRPO in TRL": does the cached run
that meets the page's table's conditions for "follows" follow either prediction (:func:`follow_check`)?
"""

from __future__ import annotations

from dataclasses import dataclass

from grpo_nb.chapters.trl_grpo.full_runs import _arrays, prediction_gaps

__all__ = ["FOLLOW_TOL", "FollowCheck", "follow_check"]


FOLLOW_TOL = 0.1  # a run "follows" a prediction when its median worst gap is below this


@dataclass(frozen=True)
class FollowCheck:
    """The first run's settings against the conditions of the page's table (``meets``: beta > 0, group scaling,
    clip range >= 100, mu >= 10), its median worst gap to the nearer prediction, and how many prompts end below
    p_ref."""

    meets: bool
    settings: dict
    median_gap: float
    below_ref: int
    n_prompts: int

    @property
    def follows(self) -> bool:
        """Whether the run follows a prediction: median worst gap below :data:`FOLLOW_TOL` and no prompt below p_ref."""
        return self.median_gap < FOLLOW_TOL and self.below_ref == 0


def follow_check(result: dict, key: str) -> FollowCheck:
    """Section "When TRL follows the recursion": does the run that meets the table's conditions for "follows" follow
    either prediction?"""
    trl = result["runs"][key]["trl"]
    meets = (
        trl["beta"] > 0 and trl["scale_rewards"] == "group" and trl["epsilon"] >= 100 and trl["num_iterations"] >= 10
    )
    gaps = prediction_gaps(result, key)
    a = _arrays(result, key)
    return FollowCheck(
        bool(meets),
        {k: trl[k] for k in ("beta", "epsilon", "num_iterations", "G")},
        min(gaps.infinite_g, gaps.finite_g),
        int((a["p"][-1] < a["p"][0]).sum()),
        int(a["p"].shape[1]),
    )
