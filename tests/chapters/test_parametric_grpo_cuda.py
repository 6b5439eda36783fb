"""The parametric-GRPO chapter's claims (:mod:`grpo_nb.chapters.parametric_grpo`) on the quick configuration trained on
a GPU: its asserts, with the same tolerances, on CUDA's numbers.

Runs only where ``torch.cuda.is_available()``; elsewhere the test is skipped with the reason. The CUDA path of the
toy LM itself is tests/unit/test_toylm_cuda.py; ``tools/gpu_run.sh`` runs both files.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from grpo_nb.chapters.parametric_grpo import run_summary
from grpo_nb.toylm import configs
from grpo_nb.toylm.configs import QUICK
from grpo_nb.toylm.experiment import run_experiment

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available(),
    reason="no CUDA GPU on this machine (torch.cuda.is_available() is False); the CUDA path runs where one "
    "exists, and tests/unit/test_toylm_device.py checks the device handling without one",
)


@pytest.fixture(scope="module")
def quick_on_cuda():
    assert configs.QUICK.device == "auto"  # the quick configuration itself picks CUDA here
    return run_experiment(QUICK, progress=False)


def test_quick_on_cuda_keeps_the_chapter_claims(quick_on_cuda):
    """The parametric-GRPO chapter's asserts, with the same tolerances, on the GPU's numbers."""
    res = quick_on_cuda
    assert res.sft_loss[-1] <= res.sft_floor + 0.05 and res.sft_loss[-1] < res.sft_loss[0]
    assert res.p_ref.min() < 0.1 and res.p_ref.max() > 0.9
    main = res.runs["main"]
    s = run_summary(main)
    assert s.mean_p_tilde > s.mean_p_ref + 0.1 and abs(s.mean_p_tilde - s.mean_p_theory) <= 0.02
    tau = 0.03
    solved_well = main.one_step_tv.max(axis=0) <= tau
    assert solved_well.mean() >= 0.75 and (main.gap[:, solved_well] <= tau).all()
    for run in res.runs.values():
        assert (run.gap <= run.gap_bound + 1e-12).all(), run.label
        assert np.abs(run.mass_error).max() < 1e-4, run.label
