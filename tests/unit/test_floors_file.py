"""``constraints-floors.txt`` and ``pyproject.toml`` state the same floors.

Each core dependency of grpo_nb has one lower bound in ``pyproject.toml`` (``numpy>=2.0``), and the floors file pins
it at exactly that version (``numpy==2.0.0``); each package of the ``trl`` extra is pinned there as in the extra;
nothing else is in the file. ``tests/chapters/test_floors.py`` installs the file and runs the book there, so a floor
raised in one place and not the other fails here. The versions ``requirements.txt`` pins lie within the floors, and
the ``trl`` extra never pins torch (Colab keeps its own).
"""

from __future__ import annotations

import tomllib
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.book_layout import ROOT
from tests.chapters.floors_venv import floors_pins


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _requirements(lines: list[str]) -> dict[str, Requirement]:
    reqs = [Requirement(line) for line in lines]
    return {canonicalize_name(req.name): req for req in reqs}


def _pins() -> dict[str, Version]:
    return {canonicalize_name(name): Version(v) for name, v in floors_pins().items()}


def test_each_core_dependency_has_one_floor_and_the_file_pins_it():
    core = _requirements(_project()["dependencies"])
    pins = _pins()
    for name, req in core.items():
        (spec,) = req.specifier  # one bound, a lower one: the floor
        assert spec.operator == ">=", f"{req}: a core dependency states its floor only"
        assert name in pins, f"constraints-floors.txt does not pin {name}"
        assert pins[name] == Version(spec.version), f"{req} in pyproject.toml, {name}=={pins[name]} in the floors file"


def test_the_file_pins_the_trl_extra_as_the_extra_does():
    extra = _requirements(_project()["optional-dependencies"]["trl"])
    pins = _pins()
    for name, req in extra.items():
        (spec,) = req.specifier
        assert spec.operator == "==", f"{req}: the trl extra pins its versions"
        assert pins.get(name) == Version(spec.version), f"{req} in the trl extra, {pins.get(name)} in the floors file"
    assert "torch" not in extra, "the trl extra must not pin torch: Colab keeps its own"


def test_the_file_pins_nothing_else():
    project = _project()
    declared = set(_requirements(project["dependencies"])) | set(_requirements(project["optional-dependencies"]["trl"]))
    assert set(_pins()) == declared


def test_requirements_txt_lies_within_the_floors():
    lines = [line.split("#")[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    pinned = _requirements([line for line in lines if line and not line.startswith("-")])
    for name, req in _requirements(_project()["dependencies"]).items():
        (spec,) = pinned[name].specifier
        assert req.specifier.contains(spec.version), f"requirements.txt pins {pinned[name]}, outside {req}"
