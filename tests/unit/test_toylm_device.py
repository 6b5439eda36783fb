"""grpo_nb.toylm keeps every tensor on the device of its data, without a GPU to check it on.

Two checks that catch a CPU tensor meeting a CUDA one, or a CUDA generator drawing a CPU tensor, on a
machine that has only a CPU:

- a static one: every tensor factory and every random draw in ``grpo_nb/toylm`` (and in the TRL adapters that stand
  on it, ``grpo_nb/trl_adapters``) either passes an explicit ``device=`` (taken from the data, never a literal) or
  works on a tensor that already has one, and no training loop copies to the host or waits for the device inside its
  inner loop;
- a dynamic one: the whole experiment runs with torch's default device set to ``meta``, a second device
  that holds no data. A factory call without ``device=`` then makes a meta tensor, and meeting the CPU
  data with it fails, as a CPU tensor fails against CUDA data; the experiment passes only if every tensor
  it creates follows its data (and then gives the same numbers as without the second device).
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

import grpo_nb.toylm
from grpo_nb.toylm.configs import BookTrainerConfig, ModelConfig, RunConfig, SFTConfig, TaskConfig
from grpo_nb.toylm.device import describe, resolve_device
from grpo_nb.toylm.experiment import run_experiment

PACKAGE = Path(grpo_nb.toylm.__file__).parent
#: the TRL adapters stand on toylm and follow its rules (their modules are named by folder, apart from toylm's own)
TRL_ADAPTERS = PACKAGE.parent / "trl_adapters"

# torch functions that create a tensor from sizes or host data: they need ``device=``
FACTORIES = frozenset(
    {"arange", "as_tensor", "empty", "eye", "full", "linspace", "logspace", "ones", "rand", "randint", "randn"}
    | {"randperm", "tensor", "zeros", "Generator"}
)
# torch functions that always make a CPU tensor: never allowed
HOST_ONLY = frozenset({"from_numpy"})
# random draws whose result lives on the device of their tensor argument (rollout.py's samplers, ``sampler`` in
# train_grpo, draw with torch.multinomial on the model's probabilities, on the device of the prompts)
DRAWS_ON_A_TENSOR = frozenset(
    {
        "multinomial",
        "bernoulli",
        "poisson",
        "rand_like",
        "randn_like",
        "randint_like",
        "sample",
        "sample_naive",
        "sampler",
    }
)
# functions that take a generator and check its device against their data themselves (ValueError otherwise)
CHECKS_ITS_GENERATOR = frozenset({"train_grpo"})
# copies to the host or waits for the device
SYNCS = frozenset({"item", "cpu", "numpy", "tolist", "synchronize"})
# modules whose loops are training or sampling loops
LOOP_MODULES = frozenset({"grpo.py", "sft.py", "rollout.py", "model.py"})
# (module, function): one wait per outer iteration, so that times and the ETA are those of finished work
OUTER_SYNC_ALLOWED = frozenset({("grpo.py", "train_grpo")})
# the CPU-profiling module builds CPU tensors on purpose
LITERAL_DEVICE_ALLOWED = frozenset({"cost.py"})


def _name(func: ast.expr) -> tuple[str | None, str | None]:
    """(object, attribute) of ``torch.x`` / ``obj.x``, or (None, name) of a bare call."""
    if isinstance(func, ast.Attribute):
        base = func.value.id if isinstance(func.value, ast.Name) else None
        return base, func.attr
    if isinstance(func, ast.Name):
        return None, func.id
    return None, None


def _is_literal_device(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Call) and _name(node.func) == ("torch", "device"):
        return all(isinstance(a, ast.Constant) for a in node.args)
    return False


class _Checker(ast.NodeVisitor):
    def __init__(self, module: str) -> None:
        self.module = module
        self.findings: list[str] = []
        self.function: str | None = None
        self.loop_depth = 0

    def _flag(self, node: ast.AST, message: str) -> None:
        self.findings.append(f"{self.module}:{node.lineno}: {message}")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        outer = (self.function, self.loop_depth)
        self.function, self.loop_depth = node.name, 0
        self.generic_visit(node)
        self.function, self.loop_depth = outer

    def _visit_loop(self, node: ast.For | ast.While) -> None:
        self.loop_depth += 1
        self.generic_visit(node)
        self.loop_depth -= 1

    visit_For = visit_While = _visit_loop

    def visit_Call(self, node: ast.Call) -> None:
        base, attr = _name(node.func)
        keywords = {k.arg: k.value for k in node.keywords}
        if base == "torch" and attr in HOST_ONLY:
            self._flag(node, f"torch.{attr} makes a CPU tensor; use torch.as_tensor(..., device=...)")
        if base == "torch" and attr in FACTORIES:
            if "device" not in keywords:
                self._flag(node, f"torch.{attr}(...) without device=: it lands on the default device, not the data's")
            elif _is_literal_device(keywords["device"]) and self.module not in LITERAL_DEVICE_ALLOWED:
                self._flag(node, f"torch.{attr}(..., device=<literal>): take the device from the data")
        checks_itself = attr in DRAWS_ON_A_TENSOR or attr in CHECKS_ITS_GENERATOR
        if "generator" in keywords and not checks_itself and "device" not in keywords:
            self._flag(node, f"{attr}(..., generator=...) draws without device=: the generator's device is not checked")
        if self.module in LOOP_MODULES and self.loop_depth > 0 and attr in SYNCS:
            allowed = (
                attr == "synchronize"
                and self.loop_depth == 1
                and (self.module, self.function) in OUTER_SYNC_ALLOWED
                and base is None
            )
            if not allowed:
                self._flag(
                    node, f".{attr}() inside a loop of {self.function}: the host waits for the device every step"
                )
        self.generic_visit(node)


def device_findings(source: str, module: str) -> list[str]:
    """Every place in ``source`` (the text of ``module``) that breaks the device rules above."""
    checker = _Checker(module)
    checker.visit(ast.parse(source))
    return checker.findings


def package_findings(package: Path = PACKAGE) -> list[str]:
    prefix = "" if package == PACKAGE else f"{package.name}/"
    return [f for path in sorted(package.glob("*.py")) for f in device_findings(path.read_text(), prefix + path.name)]


# ---------------------------------------------------------------- the static check


def test_every_tensor_and_draw_in_toylm_is_on_the_data_device():
    findings = package_findings() + package_findings(TRL_ADAPTERS)
    assert not findings, "\n".join(findings)


BAD_SNIPPETS = {
    "a CUDA generator drawing a CPU permutation": """
        def train(task, generator):
            batch = torch.randperm(n, generator=generator)[:b].sort().values.to(task.prompts.device)
    """,
    "a factory on the default device": """
        def f(x):
            return x + torch.arange(3)
    """,
    "a hard-coded device": """
        def f(x):
            return x + torch.zeros(3, device="cpu")
    """,
    "a CPU tensor from numpy": """
        def f(a):
            return torch.from_numpy(a)
    """,
    "a generator without a device": """
        def f():
            return torch.Generator().manual_seed(0)
    """,
    "a host copy per inner step": """
        def train_grpo(opt, loss, losses, n, mu):
            for _ in range(n):
                for _ in range(mu):
                    losses.append(loss.item())
    """,
    "a wait per inner step": """
        def train_grpo(device, n, mu):
            for _ in range(n):
                for _ in range(mu):
                    synchronize(device)
    """,
    "a host copy per SFT step": """
        def train_sft(losses, loss, steps):
            for step in range(steps):
                losses[step] = loss.cpu().numpy()
    """,
}


@pytest.mark.parametrize("snippet", BAD_SNIPPETS.values(), ids=BAD_SNIPPETS.keys())
def test_the_static_check_flags_each_kind_of_mismatch(snippet):
    assert device_findings(textwrap.dedent(snippet), "grpo.py")


def test_the_static_check_accepts_device_aware_code():
    good = """
        def train_grpo(task, generator, device, n, mu, probs, losses, loss):
            batch = torch.randperm(4, generator=generator, device=task.prompts.device)
            gen = torch.Generator(device=device)
            tok = torch.multinomial(probs, 1, generator=generator)
            for _ in range(n):
                for _ in range(mu):
                    losses.append(loss.detach())
                synchronize(device)
            return torch.stack(losses).cpu().numpy()
    """
    assert device_findings(textwrap.dedent(good), "grpo.py") == []


# ---------------------------------------------------------------- the dynamic check: a second device

TINY = RunConfig(
    name="tiny",
    task=TaskConfig(n_prompts=4, out_len=2, demos_per_prompt=16),
    model=ModelConfig(d_model=16, n_layer=1, n_head=2),
    sft=SFTConfig(n_steps=5, lr=1e-2),
    grpo=BookTrainerConfig(n=2, mu=3, lr=1e-3, G=4),
    beta_sweep=(),
    weak_inner=((1, 1e-3),),
    device="cpu",
)


@pytest.mark.parametrize("gcfg", [TINY.grpo, replace(TINY.grpo, batch_prompts=2, kl="exact", clip_eps=0.2)])
def test_the_experiment_never_creates_a_tensor_on_the_default_device(gcfg):
    """With the default device set to ``meta``, the whole experiment runs and gives the same numbers."""
    cfg = replace(TINY, grpo=gcfg)
    reference = run_experiment(cfg, progress=False)
    with torch.device("meta"):
        on_meta_default = run_experiment(cfg, progress=False)
    assert set(on_meta_default.runs) == {"main", "mu=1,lr=0.001", "sampled"}
    np.testing.assert_array_equal(on_meta_default.sft_loss, reference.sft_loss)
    for key, run in reference.runs.items():
        np.testing.assert_array_equal(on_meta_default.runs[key].p_tilde, run.p_tilde)


def test_the_second_device_catches_the_original_draw():
    """The permutation drawn without ``device=`` (the line that crashed on CUDA) fails here too."""
    generator = torch.Generator().manual_seed(0)
    prompts = torch.zeros(4, 4, dtype=torch.long)
    with torch.device("meta"), pytest.raises((RuntimeError, NotImplementedError)):
        batch = torch.randperm(4, generator=generator)[:2].sort().values.to(prompts.device)
        _ = prompts[batch]
    with torch.device("meta"):
        batch = torch.randperm(4, generator=generator, device=prompts.device)[:2].sort().values
        assert prompts[batch].shape == (2, 4)
    with torch.device("meta"), pytest.raises((RuntimeError, NotImplementedError)):
        _ = prompts + torch.arange(4)  # any factory without device= meets the CPU data on another device


# ---------------------------------------------------------------- choosing the device


def test_resolve_device():
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device(torch.device("cpu")) == torch.device("cpu")
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    for bad in ("tpu", "meta", "gpu", ""):
        with pytest.raises(ValueError, match="device"):
            resolve_device(bad)
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="device='cuda'"):
            resolve_device("cuda")


def test_describe_names_the_hardware():
    text = describe(torch.device("cpu"))
    assert text.startswith("CPU: ") and " cores" in text and "torch thread" in text
    assert f"torch CPU capability {torch.backends.cpu.get_cpu_capability()}" in text
