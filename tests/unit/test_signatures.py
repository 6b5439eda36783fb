"""One argument order and keyword-only options (CONTRIBUTING.md, "Names and signatures").

A public function of ``grpo_nb`` takes at most three parameters by position; the rest are keyword-only. Where the
model's parameters ``beta, eps`` come after the state they act on (``h(p, p_ref, beta, eps)``,
``grpo_step(pi_ref, pi_prev, reward, beta, eps)``), everything up to ``eps`` may stay positional. The
signatures of the public API that outside code calls (``PUBLIC_API``) keep their positional parameters. Wherever
p_ref, beta and eps (or their grids) are parameters by position, they come in that order.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import grpo_nb

#: the public API that outside code calls: its positional parameters stay as they are
PUBLIC_API = {
    "grpo_nb.dynamics.map.iterate": 4,  # iterate(p_ref, beta, eps, n)
    "grpo_nb.variants.map.iterate": 4,  # iterate(p_ref, beta, eps, n, normalization=..., alpha=...)
    "grpo_nb.ustat.estimators.gradient_estimates": 5,  # gradient_estimates(logits, reward, G, n_groups, estimator)
}
POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
ORDER = {"p_ref": 0, "p_refs": 0, "beta": 1, "betas": 1, "eps": 2, "eps_values": 2}


def positional_limit(name: str, params: list[str]) -> int:
    """How many parameters ``name`` may take by position (see the module docstring)."""
    if name in PUBLIC_API:
        return PUBLIC_API[name]
    for i in range(3, len(params)):
        if params[i - 1] == "beta" and params[i] == "eps":
            return i + 1
    return 3


def signature_findings(name: str, func) -> list[str]:
    params = inspect.signature(func).parameters.values()
    positional = [p.name for p in params if p.kind in POSITIONAL]
    out = []
    if len(positional) > positional_limit(name, positional):
        keep = positional[: positional_limit(name, positional)]
        out.append(f"{name}({', '.join(positional)}): make the parameters after {', '.join(keep)} keyword-only (*)")
    ranks = [ORDER[p] for p in positional if p in ORDER]
    if ranks != sorted(ranks):
        out.append(f"{name}: p_ref, beta and eps (or their grids) must come in that order")
    return out


def public_functions():
    names = ["grpo_nb"] + [m.name for m in pkgutil.walk_packages(grpo_nb.__path__, "grpo_nb.")]
    for modname in names:
        if modname.endswith("__main__"):
            continue
        module = importlib.import_module(modname)
        for attr, obj in vars(module).items():
            if inspect.isfunction(obj) and obj.__module__ == modname and not attr.startswith("_"):
                yield f"{modname}.{attr}", obj


def test_public_signatures_keep_options_keyword_only_and_the_parameter_order() -> None:
    pytest.importorskip("torch")
    findings = [f for name, func in public_functions() for f in signature_findings(name, func)]
    assert not findings, "\n".join(findings)


def test_the_rule_rejects_positional_options_and_a_swapped_order() -> None:
    def long(a, b, c, d): ...

    def state_then_model(p, p_ref, beta, eps, n): ...

    def swapped(p_ref, eps, beta): ...

    def fine(p, p_ref, beta, eps, *, n=1): ...

    assert re.search(r"after a, b, c keyword-only", signature_findings("m.long", long)[0])
    assert re.search(r"after p, p_ref, beta, eps keyword-only", signature_findings("m.s", state_then_model)[0])
    assert "that order" in signature_findings("m.swapped", swapped)[0]
    assert not signature_findings("m.fine", fine)
    assert not signature_findings("grpo_nb.dynamics.map.iterate", lambda p_ref, beta, eps, n: None)
