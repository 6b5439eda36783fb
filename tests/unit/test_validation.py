"""grpo_nb.validation: every kind of bad input raises ValueError naming parameter, value and range."""

import numpy as np
import pytest

from grpo_nb import validation


@pytest.mark.parametrize("bad", [0.0, -1.0, np.inf, np.nan, [1.0, -2.0], "x"])
def test_beta_rejects(bad):
    with pytest.raises(ValueError, match="beta"):
        validation.check_beta(bad)


@pytest.mark.parametrize("bad", [-1e-12, np.inf, np.nan, [0.1, -0.1]])
def test_eps_rejects(bad):
    with pytest.raises(ValueError, match="eps"):
        validation.check_eps(bad)


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.5, 1.5, np.nan, [0.5, 1.0]])
def test_p_ref_rejects_outside_open_interval(bad):
    with pytest.raises(ValueError, match=r"p_ref=.*valid range is 0 < p_ref < 1"):
        validation.check_p_ref(bad)


def test_p_ref_closed_interval_allows_endpoints():
    assert validation.check_p_ref([0.0, 1.0], open_interval=False).tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match="0 <= p_ref <= 1"):
        validation.check_p_ref(1.5, open_interval=False)


def test_p_with_eps_zero_excludes_endpoints():
    assert validation.check_p(0.0, np.asarray(1e-5)) == 0.0
    with pytest.raises(ValueError, match=r"p=1.0 with eps=0.*0 < p < 1"):
        validation.check_p(1.0, np.asarray(0.0))
    with pytest.raises(ValueError, match=r"p=-0.1 is out of range"):
        validation.check_p(-0.1, np.asarray(1e-5))


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "3"])
def test_positive_int_rejects(bad):
    with pytest.raises(ValueError, match="n="):
        validation.check_positive_int("n", bad)


def test_messages_name_value_and_range():
    with pytest.raises(ValueError) as info:
        validation.check_beta(-0.25)
    assert "beta=-0.25" in str(info.value) and "0 < beta" in str(info.value)
