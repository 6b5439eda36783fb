"""The Colab bootstrap of each chapter, and which chapters need grpo_nb's ``trl`` extra.

Every chapter's first code cell is the bootstrap of ``book/intro.md``: in Colab it installs grpo_nb from the book's
repository when grpo_nb is not importable. Colab ships no TRL, so a chapter whose code imports TRL or a library of
its stack (``TRL_STACK``), itself or through any grpo_nb module it imports (at any depth, a function's lazy import
included), has the same cell with the ``trl`` extra instead (``with_trl_extra``): it also installs when TRL is
missing, and installs ``grpo_nb[trl]``, whose versions ``pyproject.toml`` pins in one place.

Which modules a chapter imports is found by ``modulefinder`` over the chapter's code cells, with the repository as
its only search path: grpo_nb's modules are followed, and every other module is recorded as one it could not find.
"""

from __future__ import annotations

import functools
from modulefinder import ModuleFinder
from pathlib import Path

import jupytext

from tests.book_layout import ROOT

# the trl extra's packages and the Hugging Face libraries they bring, as requirements.txt lists them
TRL_STACK = ("trl", "transformers", "accelerate", "datasets", "tokenizers", "safetensors", "huggingface_hub")
TRL_NOTE = (
    "# This chapter needs Hugging Face's TRL or transformers: grpo_nb's `trl` extra installs them where Colab lacks"
    " them,\n# within the ranges pyproject.toml allows.\n"
)
_TRL_EDITS = (  # (the intro's text, the same text with the trl extra)
    ("never touches Colab's torch.\n", "never touches Colab's torch.\n" + TRL_NOTE),
    (
        'if importlib.util.find_spec("grpo_nb") is None:',
        'if importlib.util.find_spec("grpo_nb") is None or importlib.util.find_spec("trl") is None:',
    ),
    ('spec = "grpo_nb @ git+', 'spec = "grpo_nb[trl] @ git+'),
)


def code_cells(md: Path) -> list[str]:
    """The sources of the code cells of the chapter ``md`` (its MyST source)."""
    return [cell.source for cell in jupytext.read(md).cells if cell.cell_type == "code"]


def with_trl_extra(bootstrap: str) -> str:
    """``bootstrap`` (the intro's) with the trl extra: one comment line more, and it installs ``grpo_nb[trl]`` when
    grpo_nb or TRL is not importable."""
    for old, new in _TRL_EDITS:
        if bootstrap.count(old) != 1:
            raise ValueError(f"the bootstrap does not hold {old!r} exactly once")
        bootstrap = bootstrap.replace(old, new)
    return bootstrap


def missing_imports(code: str) -> set[str]:
    """The modules that ``code`` imports, itself or through grpo_nb's modules, and that lie outside the repository."""
    finder = ModuleFinder(path=[str(ROOT)])
    finder.scan_code(compile(code, "<chapter>", "exec"), finder.add_module("__main__"))
    return set(finder.badmodules)


@functools.cache
def needs_trl(md: Path) -> bool:
    """Whether the chapter ``md`` imports a library of ``TRL_STACK``, directly or through grpo_nb."""
    return any(name.split(".")[0] in TRL_STACK for name in missing_imports("\n".join(code_cells(md))))
