"""Interactive view of the toy-LM GRPO runs (paper §5): pick a run and any prompt, see its trajectory.

Defaults reproduce the chapter's static trajectory figure (main run, lowest p_ref prompt). No torch here:
it takes the recorded runs (objects with ``label``, ``p_tilde`` and ``p_theory`` arrays of shape (M+1, P)).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from ipywidgets import Dropdown, interact

from grpo_nb.plots.toylm import plot_trajectories
from grpo_nb.widgets.sliders import show

__all__ = ["trajectory_explorer"]


def trajectory_explorer(
    runs: Mapping[str, object], prompts: Sequence[str], run: str = "main", *, prompt: int | None = None
):
    """Menus for the run and the prompt (listed by p_ref); draws measured p~_n against h^n(p_ref) and the gap."""
    first = next(iter(runs.values()))
    order = np.argsort(first.p_tilde[0], kind="stable")
    options = [(f"{prompts[i]}  p_ref={first.p_tilde[0, i]:.3f}", int(i)) for i in order]
    default = int(order[0]) if prompt is None else int(prompt)

    def draw(run: str = run, prompt: int = default) -> None:
        rec = runs[run]
        fig = plot_trajectories(rec.p_tilde, rec.p_theory, {"chosen": prompt}, prompts=prompts, title=rec.label)
        show(fig)

    return interact(
        draw,
        run=Dropdown(options=[(r.label, k) for k, r in runs.items()], value=run, description="run"),
        prompt=Dropdown(options=options, value=default, description="prompt"),
    )
