"""Drive every ipywidgets explorer of grpo_nb.widgets with whatever ipywidgets is importable, and report.

Run as a script by tests/test_widgets_ipywidgets.py, once with the installed ipywidgets 8 and once with
ipywidgets 7.7 (Colab's version) put first on PYTHONPATH:

    python tests/widget_explorers_smoke.py EXPECTED_MAJOR_VERSION

Each ``*_explorer`` is called (no kernel is needed for that), then every control of the interact widget
is moved to another value; each move must redraw the figure. Prints one JSON line with what was driven.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import sys
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import ipywidgets  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import grpo_nb.widgets  # noqa: E402

# Arguments for explorers that need data; small grids keep the heavy ones quick.
_TOY_RUNS = {
    key: SimpleNamespace(label=key, p_tilde=np.linspace(0.1, 0.6, 12).reshape(4, 3) ** k, p_theory=np.full((4, 3), 0.3))
    for k, key in enumerate(("main", "other"), start=1)
}
ARGUMENTS = {
    "trajectory_explorer": {"runs": _TOY_RUNS, "prompts": ["a", "b", "c"]},
    "bifurcation_explorer": {"n_beta": 12},
}


def _explorers():
    for info in pkgutil.iter_modules(grpo_nb.widgets.__path__):
        module = importlib.import_module(f"grpo_nb.widgets.{info.name}")
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if name.endswith("_explorer") and fn.__module__ == module.__name__:
                yield name, fn


def _other_value(control):
    """Another valid value, halfway from the current one to the top of the range (the next menu entry; a box
    ticked or unticked)."""
    if isinstance(control, ipywidgets.Checkbox):
        return not control.value
    options = getattr(control, "options", None)
    if options:
        values = [o[1] if isinstance(o, tuple) else o for o in options]
        return next((v for v in values if v != control.value), None)
    if isinstance(control, ipywidgets.FloatLogSlider):
        exponent = np.log(control.value) / np.log(control.base)
        return float(control.base ** ((exponent + control.max) / 2))
    value = (control.value + control.max) / 2
    return int(value) if isinstance(control, ipywidgets.IntSlider) else float(value)


def main(expected_major: str) -> int:
    assert ipywidgets.__version__.split(".")[0] == expected_major, ipywidgets.__version__
    draws = []
    plt.show = lambda *a, **k: draws.append(1)  # every explorer draws through plt.show
    driven = {}
    for name, explorer in _explorers():
        before = len(draws)
        result = explorer(**ARGUMENTS.get(name, {}))
        widget = getattr(result, "widget", result)
        assert isinstance(widget, ipywidgets.interactive), f"{name} did not build an interact widget"
        if len(draws) == before and expected_major == "7":
            widget.update()  # 7.x draws the first figure on display by a front end (on_displayed); there is none
        assert len(draws) > before, f"{name} did not draw its default figure"
        moved = []
        for control in widget.kwargs_widgets:
            value = _other_value(control)
            if value is None:
                continue
            before = len(draws)
            control.value = value
            assert len(draws) > before, f"{name}: moving {control.description!r} did not redraw"
            moved.append(control.description)
        driven[name] = moved
    assert driven, "no explorer found in grpo_nb.widgets"
    print(json.dumps({"ipywidgets": ipywidgets.__version__, "explorers": driven}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
