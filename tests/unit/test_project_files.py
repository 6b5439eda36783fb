"""The project's promises about itself: the README's two commands, CI, style, and the pinned torch."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.book_layout import ROOT


def _readme_commands() -> list[str]:
    return re.findall(r"```bash\n(.+?)\n```", (ROOT / "README.md").read_text(), re.S)


def test_readme_has_exactly_two_commands_a_build_and_a_test():
    build, test = _readme_commands()
    assert "jupyter-book build . -W -n --keep-going" in build and "pip install -r requirements.txt" in build
    assert "pytest" in test and "pip install -r requirements.txt" in test


def test_ci_runs_the_readmes_test_command_verbatim():
    test_command = _readme_commands()[1]
    assert test_command in (ROOT / ".ci" / "run").read_text()
    for workflow in (ROOT / ".github" / "workflows").glob("*.yml"):
        text = workflow.read_text()
        assert test_command in text or _readme_commands()[0] in text, f"{workflow.name} drifts from the README"


def test_torch_is_pinned_and_not_a_core_dependency():
    assert re.search(r"^torch==2\.13\.0$", (ROOT / "requirements.txt").read_text(), re.M)
    core = (ROOT / "pyproject.toml").read_text().split("[project.optional-dependencies]")[0]
    assert '"torch' not in core, "Colab must keep its own torch: torch may only be an optional extra"


def test_readme_lists_every_chapter_with_a_colab_badge():
    readme = (ROOT / "README.md").read_text()
    for nb in sorted((ROOT / "book").glob("*.ipynb")):
        assert f"/blob/main/colab/{nb.name})" in readme, f"README lacks a Colab badge (its Colab edition) for {nb.name}"


def test_code_is_ruff_clean():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is not installed: run `pip install -r requirements.txt`"
    proc = subprocess.run([ruff, "check", "grpo_nb", "tests", "benchmarks", "tools"], cwd=ROOT, capture_output=True)
    assert proc.returncode == 0, proc.stdout.decode()[-3000:]
    # code and the chapters' code cells are formatted as ruff formats them
    proc = subprocess.run(
        [ruff, "format", "--check", "grpo_nb", "tests", "benchmarks", "tools", "book"], cwd=ROOT, capture_output=True
    )
    assert proc.returncode == 0, proc.stdout.decode()[-3000:]
