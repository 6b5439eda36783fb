"""Commit subjects are at most :data:`MAX_SUBJECT` characters (CONTRIBUTING.md, "Checks before a commit").

The rule holds from the commit after :data:`BASE` on: ``git log --no-merges --format=%s BASE..HEAD`` lists the
subjects checked (merge commits carry the subject git or the forge writes). Skipped, with the reason, where the
history cannot be read: no ``.git`` (an unpacked archive), no ``git``, or ``BASE`` absent or not an ancestor of
``HEAD`` (a shallow clone).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.book_layout import ROOT

BASE = "964c658"  # the last commit before the rule
MAX_SUBJECT = 72


def long_subjects(subjects: list[str], limit: int = MAX_SUBJECT) -> list[str]:
    """The subjects in ``subjects`` longer than ``limit`` characters, each with its length."""
    return [f"{len(s)} characters: {s}" for s in subjects if len(s) > limit]


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)


def subjects_since_base() -> list[str]:
    """The subjects of the commits after ``BASE`` up to ``HEAD``, merges left out; skips where git cannot say."""
    if not (ROOT / ".git").exists():
        pytest.skip("no .git: the history is not here")
    if shutil.which("git") is None:
        pytest.skip("no git on the PATH")
    if _git("cat-file", "-e", f"{BASE}^{{commit}}").returncode != 0:
        pytest.skip(f"commit {BASE} is not in this clone (a shallow clone?)")
    if _git("merge-base", "--is-ancestor", BASE, "HEAD").returncode != 0:
        pytest.skip(f"commit {BASE} is not an ancestor of HEAD")
    log = _git("log", "--no-merges", "--format=%s", f"{BASE}..HEAD")
    assert log.returncode == 0, log.stderr
    return log.stdout.splitlines()


def test_commit_subjects_after_the_base_are_short():
    assert long_subjects(subjects_since_base()) == []


def test_a_subject_over_the_limit_fails():
    at_limit = "Add " + "x" * (MAX_SUBJECT - 4)
    over = at_limit + "y"
    subjects = ["Fix the floors file", at_limit, over, ""]
    assert long_subjects(subjects) == [f"{MAX_SUBJECT + 1} characters: {over}"]
    assert long_subjects(["Keep the extra's ranges"]) == []
