"""``constraints-floors.txt`` and ``pyproject.toml`` state the same floors.

Each core dependency of grpo_nb has one lower bound in ``pyproject.toml`` (``numpy>=2.0``), and the floors file pins
it at exactly that version (``numpy==2.0.0``). Each package of the ``trl`` extra is a range, a floor and a ceiling
(``trl>=1.16.0,<1.17``), so that pip keeps an installed version within it (Colab's transformers); the floors file pins
the range's lower end. Nothing else is in the file. ``tests/chapters/test_floors.py`` installs the file and runs the
book there, so a floor raised in one place and not the other fails here. The versions ``requirements.txt`` pins lie
within the ranges, and the ``trl`` extra never names torch (Colab keeps its own).
"""

from __future__ import annotations

import pytest
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


def _requirements_txt() -> dict[str, Requirement]:
    lines = [line.split("#")[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    return _requirements([line for line in lines if line and not line.startswith("-")])


def core_problems(core: dict[str, Requirement], pins: dict[str, Version]) -> list[str]:
    """What is wrong between the core dependencies and the floors file's pins: a dependency that states more than
    its floor, or a floor the file does not pin at exactly that version."""
    problems = []
    for name, req in core.items():
        specs = list(req.specifier)
        if len(specs) != 1 or specs[0].operator != ">=":
            problems.append(f"{req}: a core dependency states its floor only")
        elif pins.get(name) != Version(specs[0].version):
            problems.append(f"{req} in pyproject.toml, {name}=={pins.get(name)} in the floors file")
    return problems


def extra_problems(extra: dict[str, Requirement], pins: dict[str, Version]) -> list[str]:
    """What is wrong between the trl extra and the floors file's pins: a requirement that is not one ``>=`` floor and
    one ``<`` ceiling above it, a floor the file does not pin at exactly its lower end, or torch in the extra."""
    problems = []
    for name, req in extra.items():
        bounds = {spec.operator: Version(spec.version) for spec in req.specifier}
        if len(req.specifier) != 2 or set(bounds) != {">=", "<"} or not bounds[">="] < bounds["<"]:
            problems.append(f"{req}: the trl extra states a range, a floor (>=) and a ceiling (<) above it")
        elif pins.get(name) != bounds[">="]:
            problems.append(f"{req} in the trl extra, {name}=={pins.get(name)} in the floors file")
    if "torch" in extra:
        problems.append("the trl extra must not name torch: Colab keeps its own")
    return problems


def test_each_core_dependency_has_one_floor_and_the_file_pins_it():
    assert core_problems(_requirements(_project()["dependencies"]), _pins()) == []


EXTRAS = ("trl", "smollm")  # the extras the chapters run with (the floors virtualenv installs both)


@pytest.mark.parametrize("name", EXTRAS)
def test_the_file_pins_the_lower_end_of_each_range_of_an_extra(name):
    assert extra_problems(_requirements(_project()["optional-dependencies"][name]), _pins()) == []


def test_the_file_pins_nothing_else():
    project = _project()
    declared = set(_requirements(project["dependencies"]))
    for name in EXTRAS:
        declared |= set(_requirements(project["optional-dependencies"][name]))
    assert set(_pins()) == declared


def test_requirements_txt_lies_within_the_floors_and_ranges():
    project = _project()
    pinned = _requirements_txt()
    for lines in (project["dependencies"], *(project["optional-dependencies"][name] for name in EXTRAS)):
        for name, req in _requirements(lines).items():
            (spec,) = pinned[name].specifier
            assert req.specifier.contains(spec.version), f"requirements.txt pins {pinned[name]}, outside {req}"


# The checks above fail where they should: each case is a synthetic pyproject and floors file with one fault.
EXTRA = _requirements(["trl>=1.16.0,<1.17", "transformers>=5.23.0,<6"])
PINS = {"trl": Version("1.16.0"), "transformers": Version("5.23.0")}


def test_the_synthetic_extra_and_file_agree():
    assert extra_problems(EXTRA, PINS) == []


def test_a_floor_that_differs_from_the_extras_lower_end_fails():
    for pinned in ("1.15.0", "1.16.1"):
        (problem,) = extra_problems(EXTRA, {**PINS, "trl": Version(pinned)})
        assert problem == f"trl<1.17,>=1.16.0 in the trl extra, trl=={pinned} in the floors file"
    (problem,) = extra_problems(EXTRA, {"transformers": Version("5.23.0")})
    assert "trl==None in the floors file" in problem


def test_an_extra_that_is_not_a_floor_and_a_ceiling_fails():
    for bad in ("trl==1.16.0", "trl>=1.16.0", "trl<1.17", "trl>=1.16.0,<=1.17", "trl>=1.17,<1.16.0", "trl~=1.16.0"):
        (problem,) = extra_problems({**EXTRA, "trl": Requirement(bad)}, PINS)
        assert "states a range" in problem, bad


def test_torch_in_the_extra_fails():
    problems = extra_problems({**EXTRA, "torch": Requirement("torch>=2.1,<3")}, {**PINS, "torch": Version("2.1")})
    assert problems == ["the trl extra must not name torch: Colab keeps its own"]


def test_a_core_floor_that_differs_from_the_file_or_has_a_ceiling_fails():
    core = _requirements(["numpy>=2.0"])
    assert core_problems(core, {"numpy": Version("2.0.0")}) == []
    assert core_problems(core, {"numpy": Version("2.1.0")}) == [
        "numpy>=2.0 in pyproject.toml, numpy==2.1.0 in the floors file"
    ]
    (problem,) = core_problems(_requirements(["numpy>=2.0,<3"]), {"numpy": Version("2.0.0")})
    assert "states its floor only" in problem
