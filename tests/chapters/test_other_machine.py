"""The simulated other machine of the chapter runs (``tests/chapters/chapter_runs.py``) moves torch's transcendental
functions as well as numpy's, so a printed digit that rests on the last bit of ``torch.exp`` fails there.

- Each moved torch function (``torch.x``, ``Tensor.x``, ``torch.special.x``, ``torch.nn.functional.x``), in float32
  and float64, returns the exact result one unit in the last place towards 0, and its gradient is the exact one's
  (training runs as it would; only the values' last bits move).
- A notebook cell that prints ``torch.exp`` at full precision passes nbval in the same kernel without the
  perturbation and fails with it: the check the chapter runs rely on can see such a digit.
"""

from __future__ import annotations

import subprocess
import sys

import nbformat

from tests.chapters.chapter_runs import ONE_ULP_OFF, kernel_python, run_nbval

MOVED = """
import torch
import torch.nn.functional as F

CALLS = {
    "torch.exp": torch.exp, "Tensor.exp": torch.Tensor.exp, "torch.expm1": torch.expm1, "torch.log": torch.log,
    "Tensor.log1p": torch.Tensor.log1p, "torch.tanh": torch.tanh, "torch.sigmoid": torch.sigmoid,
    "torch.special.expit": torch.special.expit, "F.softmax": lambda x: F.softmax(x, -1),
    "Tensor.log_softmax": lambda x: x.log_softmax(-1), "torch.logsumexp": lambda x: torch.logsumexp(x, -1),
    "F.softplus": F.softplus,
}
x = {dtype: torch.linspace(0.1, 2.0, 7, dtype=dtype) for dtype in (torch.float32, torch.float64)}
exact = {(name, dtype): f(v) for name, f in CALLS.items() for dtype, v in x.items()}
exec(ONE_ULP_OFF, {})  # as the kernel's startup file, after torch was imported
for (name, dtype), e in exact.items():
    moved = CALLS[name](x[dtype])
    assert torch.equal(moved, torch.nextafter(e, torch.zeros_like(e))), (name, dtype)
y = x[torch.float64].clone().requires_grad_()
torch.exp(y).sum().backward()
assert torch.equal(y.grad, exact["torch.exp", torch.float64]), "the gradient moved"
print("moved", len(exact))
"""

LAZY = """
exec(ONE_ULP_OFF, {})  # as the kernel's startup file, before any cell imports torch
import torch

e = torch.exp(torch.tensor([0.3], dtype=torch.float64))
assert e.item() != 1.3498588075760032 and e.item() == 1.349858807576003, repr(e.item())
print("lazy")
"""

PRINTS_EXP = "import torch\n\nprint(repr(torch.exp(torch.linspace(0.1, 2.0, 5, dtype=torch.float32)).tolist()))"


def _python(code: str) -> subprocess.CompletedProcess:
    program = f"ONE_ULP_OFF = {ONE_ULP_OFF!r}\n{code}"
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300)


def test_torchs_transcendentals_move_one_ulp_towards_0_and_keep_their_gradient():
    proc = _python(MOVED)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "moved 24"


def test_torch_is_moved_when_a_cell_imports_it_after_the_startup_file():
    proc = _python(LAZY)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_a_printed_digit_of_torch_exp_fails_on_the_other_machine(other_machine, tmp_path):
    plain = {**other_machine, "IPYTHONDIR": str(tmp_path / "no-startup")}  # the same kernel, nothing moved
    run = [kernel_python(plain), "-c", PRINTS_EXP]
    printed = subprocess.run(run, env=plain, capture_output=True, text=True, timeout=300)
    assert printed.returncode == 0, printed.stderr[-3000:]
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}})
    cell = nbformat.v4.new_code_cell(PRINTS_EXP, execution_count=1)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=printed.stdout)]
    nb.cells = [cell]
    path = tmp_path / "prints_exp.json"
    nbformat.write(nb, path)
    unmoved = run_nbval(path, tmp_path / "plain", plain)
    assert unmoved.returncode == 0, unmoved.stdout[-3000:]  # the committed digits, unmoved
    moved = run_nbval(path, tmp_path / "moved", other_machine)
    assert moved.returncode != 0 and "mismatch 'stdout'" in moved.stdout, moved.stdout[-3000:]
