"""The JSON records that the toy LM's tools measure and the package ships under ``grpo_nb/data/`` (package data, so
that a chapter opened alone in Colab finds them): read, and their header checked.

- :func:`check_header`: the fields every record of a kind has, and the schema it was written with;
- :func:`load_record`: a record read from a given file or, by default, the one the package ships, through the kind's
  validator; None where the package ships none.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path

__all__ = ["check_header", "load_record"]


def check_header(record: dict, kind: str, *, top_keys: tuple[str, ...], schema: int) -> None:
    """ValueError naming the ``kind`` of record where ``record`` lacks one of ``top_keys`` (the first message) or
    was written with a schema other than ``schema``."""
    missing = [k for k in top_keys if k not in record]
    if missing:
        raise ValueError(f"{kind} record: missing field(s) {missing}; expected {list(top_keys)}")
    if record["schema"] != schema:
        raise ValueError(f"{kind} record: schema={record['schema']!r}, expected {schema}")


def load_record(path: str | Path | None, shipped_name: str, validate: Callable[[dict], dict]) -> dict | None:
    """``validate`` of the record in the file ``path`` or, where ``path`` is None, of the one the package ships as
    ``grpo_nb/data/<shipped_name>``; None where the package ships none."""
    if path is not None:
        return validate(json.loads(Path(path).read_text()))
    shipped = resources.files("grpo_nb") / "data" / shipped_name
    if not shipped.is_file():
        return None
    return validate(json.loads(shipped.read_text()))
