"""The one-line verdict that chapters show above their folded sympy derivations can say ✗: a wrong identity is
named in it, and an empty list of identities is refused."""

from __future__ import annotations

import pytest
import sympy as sp

from grpo_nb.symbolic.identity import check_equal, sympy_verdict

p = sp.Symbol("p", positive=True)


def test_a_true_identity_gives_a_tick():
    line = repr(sympy_verdict("the mean of a Bernoulli reward is $p$", check_equal("mean", p * 1 + (1 - p) * 0, p)))
    assert line.startswith("✓ the mean of a Bernoulli reward") and "one identity" in line


def test_a_wrong_identity_is_named_in_a_cross():
    right = check_equal("variance", p - p**2, p * (1 - p))
    wrong = check_equal("variance, wrong sign", p + p**2, p * (1 - p))
    verdict = sympy_verdict("the variance is $p(1-p)$", [right, wrong])
    assert not verdict.holds and repr(verdict).startswith("✗") and "variance, wrong sign" in repr(verdict)
    assert verdict._repr_markdown_() == repr(verdict)


def test_no_identity_is_refused():
    with pytest.raises(ValueError, match="identities"):
        sympy_verdict("nothing", [])
