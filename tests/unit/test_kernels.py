"""Public functions that do not validate their input are kernels, and each module lists its kernels in ``KERNELS``.

A function in a module's ``__all__`` whose docstring says it does no validation must be named in that module's
``KERNELS``; every name in ``KERNELS`` must be public. Everything else in ``__all__`` validates its input
(ValueError naming the parameter, its value and the valid range).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import grpo_nb

NO_VALIDATION = re.compile(r"no validation", re.IGNORECASE)


def public_modules() -> list[str]:
    names = [m.name for m in pkgutil.walk_packages(grpo_nb.__path__, "grpo_nb.")]
    return sorted(n for n in names if not n.endswith("__main__") and ".trl_" not in n)


def unlisted_kernels(module) -> list[str]:
    """Public functions of ``module`` whose docstring says "no validation" but which ``KERNELS`` does not name."""
    kernels = set(getattr(module, "KERNELS", ()))
    out = []
    for name in getattr(module, "__all__", ()):
        obj = getattr(module, name)
        if inspect.isfunction(obj) and obj.__module__ == module.__name__ and name not in kernels:
            if NO_VALIDATION.search(inspect.getdoc(obj) or ""):
                out.append(name)
    return out


@pytest.mark.parametrize("name", public_modules())
def test_every_unvalidated_public_function_is_a_listed_kernel(name: str) -> None:
    module = importlib.import_module(name)
    assert unlisted_kernels(module) == []
    assert set(getattr(module, "KERNELS", ())) <= set(getattr(module, "__all__", ()))


def test_an_unlisted_kernel_is_found(monkeypatch) -> None:
    from grpo_nb.dynamics import map as dmap

    monkeypatch.setattr(dmap, "KERNELS", tuple(k for k in dmap.KERNELS if k != "logit_map"))
    assert unlisted_kernels(dmap) == ["logit_map"]
