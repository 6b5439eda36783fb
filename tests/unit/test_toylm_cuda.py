"""The CUDA path of grpo_nb.toylm: the quick configuration on a GPU, and its agreement with the CPU.

Runs only where ``torch.cuda.is_available()``; elsewhere every test is skipped with the reason. Without a
GPU the device handling is checked by tests/unit/test_toylm_device.py (statically, and with a second device). The
parametric-GRPO chapter's claims on the GPU's numbers are tests/chapters/test_parametric_grpo_cuda.py.
"""

from __future__ import annotations

import copy
import json
import warnings
from dataclasses import replace

import numpy as np
import pytest
import torch

from grpo_nb.toylm import configs
from grpo_nb.toylm.configs import QUICK
from grpo_nb.toylm.experiment import prepare, run_experiment, run_plan
from grpo_nb.toylm.grpo import train_grpo

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available(),
    reason="no CUDA GPU on this machine (torch.cuda.is_available() is False); the CUDA path runs where one "
    "exists, and tests/unit/test_toylm_device.py checks the device handling without one",
)

TINY = replace(configs.TINY, beta_sweep=(), weak_inner=(), device="cuda")  # the smoke configuration's main runs


@pytest.fixture(scope="module")
def quick_on_cuda():
    assert configs.QUICK.device == "auto"  # the quick configuration itself picks CUDA here
    return run_experiment(QUICK, progress=False)


def test_quick_configuration_runs_on_cuda(quick_on_cuda):
    assert quick_on_cuda.hardware.startswith("GPU:")
    assert set(quick_on_cuda.runs) == {key for key, _, _ in run_plan(QUICK)}
    for run in quick_on_cuda.runs.values():
        assert np.isfinite(run.p_tilde).all() and len(run.step_s) == run.p_tilde.shape[0] - 1
    assert quick_on_cuda.runs["sampled"].rollout_tokens_per_s > 0


def test_cpu_and_cuda_agree_up_to_rounding():
    """Same initial weights and data, no random draw in these runs: only the kernels' rounding differs.

    Adam turns a rounding-level difference in a near-zero gradient into a step of size lr, so the
    tolerances are those of the chapter's claims, not of float32 rounding.
    """
    cfg = replace(TINY, sampled_run=False)
    cpu = run_experiment(replace(cfg, device="cpu"), progress=False)
    gpu = run_experiment(cfg, progress=False)
    np.testing.assert_array_equal(gpu.noise, cpu.noise)
    assert abs(gpu.sft_loss[0] - cpu.sft_loss[0]) < 1e-4  # the same initial weights
    assert abs(gpu.sft_loss[-1] - cpu.sft_loss[-1]) < 1e-2
    assert np.abs(gpu.p_ref - cpu.p_ref).max() < 2e-2
    assert np.abs(gpu.runs["main"].p_tilde - cpu.runs["main"].p_tilde).max() < 3e-2


@pytest.fixture(scope="module")
def tiny_cuda_setup():
    return prepare(TINY, progress=False)


@pytest.mark.parametrize("estimator", ["exact", "sampled"])
def test_inner_steps_never_wait_for_the_gpu(tiny_cuda_setup, estimator):
    """torch's sync debug mode warns at every synchronising call: their number must not grow with mu.

    The first training call on a fresh process also pays one-time synchronisations (lazy CUDA and library set-up; on an
    H200 the first of the two counts was one higher when nothing ran before it), so a call with mu = 1 runs first and
    is not counted.
    """
    counts = []
    for mu in (1, 2, 6):
        policy = copy.deepcopy(tiny_cuda_setup.ref_model).requires_grad_(True)
        gcfg = replace(TINY.grpo, n=1, mu=mu, estimator=estimator, kl="k3")
        gen = torch.Generator(device=tiny_cuda_setup.device).manual_seed(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            torch.cuda.set_sync_debug_mode("warn")
            try:
                train_grpo(policy, tiny_cuda_setup.ref_model, tiny_cuda_setup.tensors, cfg=gcfg, generator=gen)
            finally:
                torch.cuda.set_sync_debug_mode("default")
        counts.append(sum("synchroniz" in str(w.message) for w in caught))
    assert counts[1] == counts[2], counts


def test_a_cpu_generator_is_refused_for_cuda_data(tiny_cuda_setup):
    policy = copy.deepcopy(tiny_cuda_setup.ref_model).requires_grad_(True)
    with pytest.raises(ValueError, match="generator"):
        train_grpo(
            policy, tiny_cuda_setup.ref_model, tiny_cuda_setup.tensors, cfg=TINY.grpo, generator=torch.Generator()
        )


def test_cli_quick_runs_on_cuda(tmp_path, monkeypatch, capsys):
    from grpo_nb.toylm.__main__ import main

    monkeypatch.setitem(configs.CONFIGS, "quick", replace(TINY, device="auto"))
    out = tmp_path / "summary.json"
    assert main(["--config", "quick", "--out", str(out), "--no-progress"]) == 0
    assert "GPU:" in capsys.readouterr().out
    assert json.loads(out.read_text())["hardware"].startswith("GPU:")
