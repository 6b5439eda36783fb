"""The TRL chapter's analyses (``grpo_nb.chapters.trl_grpo``), one test file per section module, and what the files
share: the cached runs' paths. Each check of TRL's knobs has a negative test: a wrong statement of the book's
formula, monkeypatched into the module-level name the check reads (in the check's own module), must fail it."""

from __future__ import annotations

from tests.book_layout import ROOT

CACHED = ROOT / "grpo_nb" / "data" / "trl_full.json"
CACHED_LADDER = ROOT / "grpo_nb" / "data" / "trl_ladder.json"
