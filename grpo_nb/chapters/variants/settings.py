"""The settings that the pages of the chapter "GRPO variants" share: the paper's "divergent" run of Fig. 5 as
``(p_ref, beta, eps)`` and the (p_ref, beta) grid on which the one-step and mirror surveys and the mixed-KL checks run.
One home, so that the pages, each run alone, compute the same things."""

from __future__ import annotations

import numpy as np

from grpo_nb.constants import PAPER_EPS

__all__ = ["BETA_GRID", "FIG5", "P_REF_GRID"]

FIG5 = (1e-3, 5.0, PAPER_EPS)  # p_ref, beta and eps of the paper's "divergent" run
P_REF_GRID = np.geomspace(1e-9, 1 - 1e-9, 25)[:, None]  # a column: p_ref from 1e-9 to 1 - 1e-9
BETA_GRID = np.geomspace(1e-3, 1e3, 25)[None, :]  # a row: beta from 1e-3 to 1e3
