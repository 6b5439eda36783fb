"""Fixtures shared by the tests of ``grpo_nb.chapters.trl_grpo``, one instance per test module: the cached full runs
and probes of TRL's trainer (:func:`~grpo_nb.chapters.trl_grpo.advantage_probe.make_probe`). A check changes its
probe's trainer settings, so each test module builds its own."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def result():
    """The cached full runs, ``grpo_nb/data/trl_full.json``."""
    from grpo_nb.chapters.trl_grpo.full_runs import load_result

    return load_result("trl_full.json")


@pytest.fixture(scope="module")
def keys(result):
    return list(result["runs"])


@pytest.fixture(scope="module")
def probe():
    """A probe with beta = 0.5: a reference model and a KL term."""
    from grpo_nb.chapters.trl_grpo.advantage_probe import make_probe

    return make_probe(beta=0.5)


@pytest.fixture(scope="module")
def probe_beta0():
    """A probe at TRL's default beta = 0: no reference model."""
    from grpo_nb.chapters.trl_grpo.advantage_probe import make_probe

    return make_probe(beta=0.0)
