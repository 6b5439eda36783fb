"""Where the toy-LM experiment runs: choosing the device, waiting for it, and naming the hardware.

- ``resolve_device``: ``"auto"`` is CUDA when ``torch.cuda.is_available()`` and the CPU otherwise;
  ``"cpu"`` and ``"cuda"`` (or ``"cuda:N"``) are taken as given, and asking for CUDA where there is none
  raises ValueError instead of falling back silently.
- ``synchronize``: wait for the device's queued work (a no-op on the CPU). The trainer calls it once per
  outer iteration, so that wall times and the progress bar's ETA measure finished work; nothing inside
  the inner loop waits for the device.
- ``describe``: the hardware in words (CPU model, cores, torch threads and torch's CPU capability, or the
  GPU's name and memory), for the chapters' run details and the benchmark.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

import torch

__all__ = ["describe", "resolve_device", "synchronize"]


def resolve_device(name: str | torch.device = "auto") -> torch.device:
    """The torch device named by a configuration: ``"auto"``, ``"cpu"``, ``"cuda"`` or ``"cuda:N"``."""
    if isinstance(name, torch.device):
        name = str(name)
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except (RuntimeError, TypeError) as err:
        raise ValueError(f"device={name!r} is not valid; valid values are 'auto', 'cpu', 'cuda' or 'cuda:N'") from err
    if device.type not in ("cpu", "cuda"):
        raise ValueError(f"device={name!r} is not valid; valid values are 'auto', 'cpu', 'cuda' or 'cuda:N'")
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"device={name!r} is not available (torch.cuda.is_available() is False); "
            "valid values here are 'auto' and 'cpu'"
        )
    return device


def synchronize(device: torch.device) -> None:
    """Block until every kernel queued on ``device`` has finished (nothing to wait for on the CPU)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def cpu_name() -> str:
    """The CPU's model name (``/proc/cpuinfo`` on Linux, ``platform.processor()`` elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def describe(device: torch.device | str = "cpu") -> str:
    """The hardware that ``device`` stands for, in words, e.g. ``"CPU: Intel Xeon, 2 cores, 1 torch thread, torch CPU
    capability AVX2 (torch 2.13.0); no GPU"``: what the run details of a torch chapter print next to the numbers
    that depend on the machine."""
    device = torch.device(device)
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        memory = f"{props.total_memory / 2**30:.0f} GiB"
        return f"GPU: {props.name}, {memory} (CUDA {torch.version.cuda}, torch {torch.__version__})"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    threads = torch.get_num_threads()
    return (
        f"CPU: {cpu_name()}, {cores} cores, {threads} torch thread{'s' if threads != 1 else ''}, "
        f"torch CPU capability {cpu_capability()} (torch {torch.__version__}); no GPU"
    )


def cpu_capability() -> str:
    """The instruction set torch's CPU kernels dispatch to (``AVX512``, ``AVX2``, ``DEFAULT``, ...): with
    ``ATEN_CPU_CAPABILITY`` or another CPU it changes, and with it the last bits of float results."""
    try:
        return torch.backends.cpu.get_cpu_capability()
    except AttributeError:  # torch < 2.1
        return "unknown"
