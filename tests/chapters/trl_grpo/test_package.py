"""The package ``grpo_nb.chapters.trl_grpo`` as the chapter imports it: without TRL installed, ``grpo_nb`` and the
package still import."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.book_layout import ROOT

pytest.importorskip("trl")


def test_grpo_nb_imports_without_trl():
    code = "import sys; sys.modules['trl'] = None; import grpo_nb.toylm.__main__, grpo_nb.chapters.trl_grpo"
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0


def test_the_package_re_exports_what_the_chapter_reads():
    from grpo_nb.chapters import trl_grpo as checks

    assert all(hasattr(checks, name) for name in checks.__all__)
    assert checks.TOL > 0 and checks.FOLLOW_TOL > 0 and checks.SPG_KEY in checks.BOOK_DEFAULTS
    assert checks.ladder.load_ladder("trl_ladder.json")["trainer"] == "trl-ladder"
