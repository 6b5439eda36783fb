"""The GPU-time estimate of grpo_nb.toylm.cost: FLOPs, launches and bytes counted on the CPU."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from grpo_nb.toylm import configs
from grpo_nb.toylm.configs import BookTrainerConfig, ModelConfig, RunConfig, SFTConfig, TaskConfig
from grpo_nb.toylm.cost import T4, Hardware, LaunchCounter, StepCost, count_cost, estimate_gpu_time, pick_config
from grpo_nb.toylm.experiment import run_plan

SMALL = RunConfig(
    name="small",
    task=TaskConfig(n_prompts=4, out_len=2, demos_per_prompt=16),
    model=ModelConfig(d_model=16, n_layer=1, n_head=2),
    sft=SFTConfig(n_steps=7),
    grpo=BookTrainerConfig(n=3, mu=5, G=4),
    beta_sweep=(4.0,),
    weak_inner=((2, 1e-3),),
    device="cpu",
)


def _matmul_weights(cfg: ModelConfig, n_out: int = 10) -> int:
    d = cfg.d_model
    return cfg.n_layer * (d * 3 * d + d * d + 2 * d * 4 * d) + d * n_out


def test_launch_counter_counts_compute_not_views():
    x = torch.ones(8, 4)
    counter = LaunchCounter()
    with counter:
        y = x.view(4, 8).t().unsqueeze(0)  # views only (a reshape of the transpose would copy)
    assert counter.launches == 0 and y.numel() == 32
    with counter:
        _ = x + 1.0
    assert counter.launches == 1 and counter.bytes == 2 * 8 * 4 * 4  # one read, one write of 32 floats
    cost = count_cost(lambda: torch.ones(5, 3) @ torch.ones(3, 7))
    assert cost.flops == 2 * 5 * 3 * 7


def test_flops_are_model_size_times_tokens():
    """Per outer step of the exact run: one forward over the enumerated prefixes (2 N T) and mu steps of
    forward + backward (6 N T each), N the matmul weights and T the tokens; a run's last table is 2 N T."""
    est = estimate_gpu_time(SMALL)
    tokens = SMALL.task.n_prompts * 10 ** (SMALL.task.out_len - 1) * (4 + SMALL.task.out_len - 1)
    forward = 2 * _matmul_weights(SMALL.model) * tokens
    main = est.phases[1]
    assert main.phase.startswith("main") and main.repeats == SMALL.grpo.n
    assert main.once.flops == forward
    assert main.per_step.flops == forward + SMALL.grpo.mu * 3 * forward
    weak = next(p for p in est.phases if p.phase.startswith("mu=2"))
    assert weak.per_step.flops == forward + 2 * 3 * forward


def test_estimate_covers_every_phase_and_adds_up():
    est = estimate_gpu_time(SMALL)
    assert [p.phase for p in est.phases] == ["SFT", *(label for _, label, _ in run_plan(SMALL))]
    assert est.phases[0].repeats == SMALL.sft.n_steps
    for p in est.phases:
        assert p.per_step.launches > 0 and p.per_step.bytes > 0 and p.once.launches >= 0
        assert p.bound in ("FLOPs", "launches", "memory")
        assert 0 < p.seconds <= p.upper_s
        assert p.seconds >= p.repeats * p.per_step.launches * T4.launch_s
    assert est.total_s == pytest.approx(sum(p.seconds for p in est.phases))
    headers, rows = est.rows()
    assert len(rows) == len(est.phases) + 1 and len(headers) == len(rows[0])
    more = estimate_gpu_time(replace(SMALL, grpo=replace(SMALL.grpo, mu=10)))
    assert more.phases[1].per_step.launches > est.phases[1].per_step.launches


def test_step_cost_takes_the_largest_term():
    cost = StepCost(flops=8e12, launches=10, bytes=0)
    assert cost.seconds() == pytest.approx(1.0) and cost.upper_s() == pytest.approx(1.0 + 1e-4)
    slow_launch = Hardware(launch_s=1.0)
    assert cost.seconds(slow_launch) == pytest.approx(10.0)


@pytest.mark.parametrize("name", ["flops_per_s", "launch_s", "bytes_per_s"])
@pytest.mark.parametrize("value", [0.0, -1.0, float("inf"), float("nan")])
def test_hardware_rejects_bad_values(name, value):
    with pytest.raises(ValueError, match=name):
        Hardware(**{name: value})


def test_pick_config_uses_the_real_estimate(monkeypatch):
    """With a GPU, the estimated configuration is taken when it fits the budget and refused when not."""
    monkeypatch.delenv("GRPO_NB_TOYLM_CONFIG", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setitem(configs.CONFIGS, "full", SMALL)
    upper = estimate_gpu_time(SMALL).upper_s
    assert pick_config() is SMALL
    assert pick_config(gpu_budget_s=upper * 0.5) is configs.QUICK
