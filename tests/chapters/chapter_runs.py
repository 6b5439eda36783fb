"""Running a chapter the way a reader's machine does: alone, in an empty folder, on another CPU, at another seed.

- ``install_package``: a non-editable install of ``grpo_nb`` (``pip install --no-deps --target``, from a copy of the
  package and its ``pyproject.toml``): only what a wheel ships, package data included, as Colab gets it;
- ``other_machine_env``: the environment of a kernel that stands for another machine: that install first on the
  path, torch's CPU kernels without vector extensions (``ATEN_CPU_CAPABILITY=default``), one thread
  (``OMP_NUM_THREADS=1``), and the transcendental functions of numpy and of torch (float32 and float64: ``exp``,
  ``log``, ``softmax``, ``log_softmax``, ``sigmoid`` …) moved by one unit in the last place (an IPython startup file
  of the kernel), as another CPU's vector maths library may round them; optionally inside another
  virtualenv (the one of the lowest versions grpo_nb allows, ``tests/chapters/floors_venv.py``), which the
  environment activates (``VIRTUAL_ENV``) and whose python then runs nbval and the kernel (``kernel_python``);
- ``with_seed``: a copy of a notebook whose ``parameters`` cell is followed by ``SEED = seed``;
- ``run_nbval``: nbval over one notebook (optionally at another seed) copied into an empty folder, outputs compared
  with the committed ones, every cell under a timeout (a cell that runs past it fails with its source, instead of a
  hang). At another seed the comparison still holds for every output nbval compares: what a chapter prints from a
  draw sits in a cell tagged ``nbval-ignore-output``, and every other output (a verdict, a table of exact values)
  must not depend on the seed. Besides the comparison, each cell's fresh run must show a PNG where the cell has
  MyST-NB figure metadata and write nothing to stderr (``tests/nbval_run_checks.py``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat

from tests.book_layout import ROOT

# chapters whose every later cell depends on SEED, and which sample with torch
SEEDED_CHAPTERS = (
    "parametric_grpo_runs",
    "parametric_grpo_unstable",
    "trl_grpo_step",
    "trl_grpo_practice",
    "tracker_questions_advantage",
    "tracker_questions_kl",
    "tracker_questions_clipping",
)
# chapters whose outputs come from torch: those, and the pages whose toy-LM or TRL runs are one seeded section
SECTION_SEEDED_CHAPTERS = ("group_size_dynamics", "grpo_family_entropy_control")
TORCH_CHAPTERS = (*SEEDED_CHAPTERS, *SECTION_SEEDED_CHAPTERS)
CELL_TIMEOUT_S = 600  # per cell, well above the slowest cell of the book: a hung cell fails with its source
PLUGINS = ("nbval_widgets.py", "nbval_run_checks.py")  # tests/: the nbval plugins of a run in an empty folder

# Loaded by the kernel before the notebook's first cell: every float result of these numpy and torch functions that
# is not exact (0, +-1, inf, nan) moves one unit in the last place towards 0. A CPU with other vector extensions
# (numpy's AVX-512 versions of exp and log, torch's vectorised float32 exp, say) can differ from this machine in exactly
# such last bits, so a printed digit that rests on them differs here. torch is moved once a cell imports it (a
# ``TorchFunctionMode``, which sees ``torch.exp``, ``Tensor.exp`` and ``torch.nn.functional.softmax`` alike); the
# moved result keeps the exact function's gradient (it adds a constant), so training runs as before.
ONE_ULP_NUMPY = """
import numpy as _np


def _one_ulp_off(f):
    def moved(*args, **kwargs):
        r = f(*args, **kwargs)
        if isinstance(r, (_np.ndarray, _np.floating)) and _np.issubdtype(_np.asarray(r).dtype, _np.floating):
            a = _np.asarray(r)
            inexact = _np.isfinite(a) & (a != 0) & (_np.abs(a) != 1)
            if isinstance(r, _np.ndarray):
                _np.copyto(r, _np.nextafter(r, 0.0), where=inexact)
                return r
            return _np.nextafter(r, 0.0) if inexact else r
        return r

    return moved


for _name in NAMES:
    setattr(_np, _name, _one_ulp_off(getattr(_np, _name)))
"""
ONE_ULP_TORCH = """
import importlib.abc as _abc
import importlib.util as _util
import sys as _sys


def _torch_one_ulp_off(torch):
    from torch.overrides import TorchFunctionMode

    class OneUlpOff(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            r = func(*args, **(kwargs or {}))
            name = getattr(func, "__name__", "").removeprefix("special_")
            if name in TORCH_NAMES and isinstance(r, torch.Tensor) and r.is_floating_point():
                with torch.no_grad():
                    inexact = torch.isfinite(r) & (r != 0) & (r.abs() != 1)
                    step = torch.where(inexact, torch.nextafter(r, torch.zeros_like(r)) - r, torch.zeros_like(r))
                r = r + step
            return r

    OneUlpOff().__enter__()


class _AfterTorch(_abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        _sys.meta_path.remove(self)
        spec = _util.find_spec(name)
        if spec is not None and spec.loader is not None:
            run = spec.loader.exec_module

            def exec_module(module):
                run(module)
                _torch_one_ulp_off(module)

            spec.loader.exec_module = exec_module
        return spec


if "torch" in _sys.modules:
    _torch_one_ulp_off(_sys.modules["torch"])
else:
    _sys.meta_path.insert(0, _AfterTorch())
"""
ONE_ULP_NAMES = ("exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sinh", "cosh", "tanh", "arctan", "arcsin")
# torch's names of the same functions and of its own (``torch.x``, ``Tensor.x``, ``torch.nn.functional.x``; and
# ``torch.special.x``, whose functions are named ``special_x``)
ONE_ULP_TORCH_NAMES = (
    *("exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sinh", "cosh", "tanh", "atan", "arctan", "asin"),
    *("arcsin", "sigmoid", "expit", "logit", "softmax", "log_softmax", "logsumexp", "softplus", "log_sigmoid"),
    "logaddexp",
)
ONE_ULP_NUMPY = f"NAMES = {ONE_ULP_NAMES!r}\n" + ONE_ULP_NUMPY  # numpy alone: a test may undo it in its process
ONE_ULP_TORCH = f"TORCH_NAMES = frozenset({ONE_ULP_TORCH_NAMES!r})\n" + ONE_ULP_TORCH  # enters a mode for good
ONE_ULP_OFF = ONE_ULP_NUMPY + ONE_ULP_TORCH


def package_source(target: Path) -> Path:
    """A copy of what a wheel of ``grpo_nb`` is built from (the package and its ``pyproject.toml``) in
    ``target/src``; returns that folder."""
    src = target / "src"
    shutil.copytree(ROOT / "grpo_nb", src / "grpo_nb", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    return src


def install_package(target: Path) -> Path:
    """``grpo_nb`` installed non-editable into ``target/site``; returns that folder."""
    src = package_source(target)
    site = target / "site"
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation"]
    proc = subprocess.run([*cmd, "--target", str(site), str(src)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return site


def other_machine_env(site: Path, ipython_dir: Path, venv: Path | None = None) -> dict[str, str]:
    """A kernel environment that imports grpo_nb from ``site`` and stands for another machine (module docstring),
    inside the virtualenv ``venv`` when one is given, else in this one."""
    startup = ipython_dir / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / "00-one-ulp-off.py").write_text(ONE_ULP_OFF)
    env = dict(os.environ)
    env.pop("VIRTUAL_ENV", None)
    if venv is not None:
        env.update(VIRTUAL_ENV=str(venv), PATH=os.pathsep.join((str(venv / "bin"), env.get("PATH", ""))))
    env.update(
        PYTHONPATH=str(site),
        IPYTHONDIR=str(ipython_dir),
        ATEN_CPU_CAPABILITY="default",
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        HF_HUB_OFFLINE="1",
    )
    return env


def kernel_python(env: dict[str, str]) -> str:
    """The python that runs nbval, and so the kernel, in ``env``: that of the virtualenv ``env`` activates, else
    this one."""
    venv = env.get("VIRTUAL_ENV")
    return str(Path(venv) / "bin" / "python") if venv else sys.executable


def with_seed(nb: nbformat.NotebookNode, seed: int) -> nbformat.NotebookNode:
    """A copy of ``nb`` whose ``parameters`` cell is followed by a cell that sets ``SEED = seed``.

    Where later cells are tagged ``seeded`` (a chapter whose sampled runs are one section of many), only those run
    after the ``parameters`` cell: the rest of the page does not depend on the seed. Otherwise every cell runs."""
    nb = nbformat.from_dict(nb)
    index = next((i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", [])), None)
    if index is None:
        raise ValueError("the notebook has no cell tagged 'parameters'")
    later = nb.cells[index + 1 :]
    if any("seeded" in c.metadata.get("tags", []) for c in later):
        later = [c for c in later if "seeded" in c.metadata.get("tags", [])]
    nb.cells = [*nb.cells[: index + 1], nbformat.v4.new_code_cell(f"SEED = {seed}"), *later]
    return nb


def run_nbval(
    notebook: Path,
    folder: Path,
    env: dict[str, str],
    seed: int | None = None,
    *,
    cell_timeout_s: float = CELL_TIMEOUT_S,
) -> subprocess.CompletedProcess:
    """nbval over ``notebook`` copied alone into the empty ``folder`` (with the suite's sanitising rules and its
    plugins, ``PLUGINS``), by the python of ``env`` (``kernel_python``); at ``seed`` (``with_seed``) when one is
    given; each cell stopped after ``cell_timeout_s`` seconds. Returns the finished process (returncode 0: every cell
    ran, every compared output is as committed, and every run check held)."""
    folder.mkdir(parents=True, exist_ok=True)
    assert not any(folder.iterdir()), f"{folder} is not empty"
    target = folder / f"{notebook.stem}.ipynb"
    if seed is None:
        shutil.copy(notebook, target)
    else:
        nbformat.write(with_seed(nbformat.read(notebook, as_version=4), seed), target)
    shutil.copy(ROOT / "tests" / "nbval_sanitize.cfg", folder / "sanitize.cfg")
    for plugin in PLUGINS:
        shutil.copy(ROOT / "tests" / plugin, folder / plugin)
    modules = [Path(plugin).stem for plugin in PLUGINS]
    (folder / "conftest.py").write_text(f"pytest_plugins = {modules!r}\n")
    (folder / "pytest.ini").write_text("[pytest]\n")
    cmd = [kernel_python(env), "-m", "pytest", "-p", "no:cacheprovider", "-q", "--nbval", target.name]
    cmd += ["--nbval-sanitize-with", "sanitize.cfg", "--nbval-cell-timeout", str(cell_timeout_s)]
    cmd += ["--rootdir", str(folder)]
    return subprocess.run(cmd, cwd=folder, env=env, capture_output=True, text=True, timeout=3600)


def check_alone(notebook: Path, env: dict[str, str], folder: Path, seed: int | None = None) -> None:
    """Assert that ``run_nbval`` passes; print the run's time (shown with ``pytest -s``, never asserted)."""
    start = time.perf_counter()
    proc = run_nbval(notebook, folder, env, seed)
    at = "" if seed is None else f" at SEED = {seed}"
    where = "at the floors" if env.get("VIRTUAL_ENV") else "in this environment"
    print(f"{notebook.stem}{at}: {time.perf_counter() - start:.0f} s alone, {where}")
    log = f"{proc.stdout[-6000:]}\n{proc.stderr[-2000:]}"
    assert proc.returncode == 0, f"{notebook.name}{at}, opened alone on another machine:\n{log}"
