"""grpo_nb.clipping: the clipped PPO/GRPO term, §2.1's case split, its slope, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_nb.clipping import clipped_term, clipped_term_by_sign, clipped_term_slope

SETTINGS = settings(deadline=None, max_examples=50)
ratios = st.floats(0.0, 10.0)
advantages = st.floats(-50.0, 50.0)
clips = st.floats(0.0, 1.0)


@SETTINGS
@given(x=ratios, a=advantages, e=clips)
def test_case_split_of_section_2_1(x: float, a: float, e: float) -> None:
    assert np.isclose(clipped_term(x, a, e), clipped_term_by_sign(x, a, e), rtol=1e-15, atol=0)


@SETTINGS
@given(x=ratios, a=advantages, e=clips)
def test_pessimistic_bound(x: float, a: float, e: float) -> None:
    # the clipped term never exceeds the unclipped one, and equals it inside the trust region
    assert clipped_term(x, a, e) <= x * a + 1e-12
    if 1 - e <= x <= 1 + e:
        assert clipped_term(x, a, e) == pytest.approx(x * a)


def test_grid_and_no_clip_limit() -> None:
    x = np.linspace(0.0, 3.0, 301)[:, None]
    a = np.array([-2.0, -0.3, 0.0, 0.7, 1.5])
    for e in (0.0, 0.1, 0.2, 0.5):
        assert np.allclose(clipped_term(x, a, e), clipped_term_by_sign(x, a, e))
    assert np.array_equal(clipped_term(x, a, np.inf), x * a)


def test_slope_matches_finite_differences() -> None:
    x = np.linspace(0.05, 2.5, 500)
    h = 1e-7
    for a in (-1.3, 0.8):
        fd = (clipped_term(x + h, a, 0.2) - clipped_term(x - h, a, 0.2)) / (2 * h)
        away = (np.abs(x - 0.8) > 1e-3) & (np.abs(x - 1.2) > 1e-3)
        assert np.allclose(clipped_term_slope(x, a, 0.2)[away], fd[away], atol=1e-6)
    assert clipped_term_slope(1.5, 1.0, 0.2) == 0.0 and clipped_term_slope(0.5, -1.0, 0.2) == 0.0
    assert clipped_term_slope(0.5, 1.0, 0.2) == 1.0 and clipped_term_slope(1.5, -1.0, 0.2) == -1.0


@pytest.mark.parametrize("fn", [clipped_term, clipped_term_by_sign, clipped_term_slope])
@pytest.mark.parametrize(
    ("x", "a", "e", "match"),
    [
        (-0.1, 1.0, 0.2, r"ratio=-0.1 is out of range; valid range is 0 <= ratio"),
        (np.nan, 1.0, 0.2, r"ratio=nan"),
        (np.inf, 1.0, 0.2, r"ratio=inf"),
        (1.0, np.nan, 0.2, r"advantage=nan"),
        (1.0, np.inf, 0.2, r"advantage=inf"),
        (1.0, 1.0, -0.2, r"clip_eps=-0.2 is out of range; valid range is 0 <= clip_eps <= inf"),
        (1.0, 1.0, np.nan, r"clip_eps=nan"),
        ("x", 1.0, 0.2, r"ratio='x' is not a real number"),
        (1.0, 1.0, "e", r"clip_eps='e' is not a real number"),
        (np.ones(3), np.ones(2), 0.2, r"do not broadcast"),
    ],
)
def test_bad_input(fn, x, a, e, match) -> None:
    with pytest.raises(ValueError, match=match):
        fn(x, a, e)
