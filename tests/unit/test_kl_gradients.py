"""Which divergence each placement of a KL estimate climbs: exact enumeration against finite differences."""

from __future__ import annotations

import numpy as np
import pytest

from grpo_nb import kl


def _random_pair(seed: int, k: int = 5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=k)
    ref = rng.normal(size=k)
    return logits, ref - np.logaddexp.reduce(ref)


def _finite_difference(f, logits: np.ndarray, h: float = 1e-6) -> np.ndarray:
    return np.array([(f(logits + h * e) - f(logits - h * e)) / (2 * h) for e in np.eye(logits.size)])


def _log_softmax(z: np.ndarray) -> np.ndarray:
    return z - np.logaddexp.reduce(z)


@pytest.mark.parametrize("seed", range(5))
def test_kl_directions_match_finite_differences(seed: int) -> None:
    logits, log_ref = _random_pair(seed)
    reverse, forward = kl.softmax_kl_gradients(logits, log_ref)
    num_reverse = _finite_difference(lambda z: kl.categorical_kl(_log_softmax(z), log_ref), logits)
    num_forward = _finite_difference(lambda z: kl.categorical_kl(log_ref, _log_softmax(z)), logits)
    assert np.allclose(reverse, num_reverse, atol=1e-8) and np.allclose(forward, num_forward, atol=1e-8)


@pytest.mark.parametrize("seed", range(5))
def test_which_divergence_each_placement_climbs(seed: int) -> None:
    logits, log_ref = _random_pair(seed)
    reverse, forward = kl.softmax_kl_gradients(logits, log_ref)
    g = lambda est, place: kl.expected_estimator_gradient(logits, log_ref, est, placement=place)  # noqa: E731
    assert np.allclose(g("k3", "loss"), forward, atol=1e-13)  # k3 in the loss: the forward KL
    assert np.allclose(g("k3", "ratio_weighted"), reverse, atol=1e-13)  # TRL's ratio-weighted k3: the reverse KL
    assert np.allclose(g("k1", "ratio_weighted"), reverse, atol=1e-13)
    assert np.allclose(g("k1", "reward"), reverse, atol=1e-13)  # k1 as a detached reward penalty
    assert np.allclose(g("k2", "loss"), reverse, atol=1e-13)  # k2 in the loss: grad of E[d^2/2] equals reverse KL's
    assert np.allclose(g("k1", "loss"), 0.0, atol=1e-15)  # k1 in the loss: zero expected gradient


@pytest.mark.parametrize("seed", range(5))
def test_the_wrong_direction_is_told_apart(seed: int) -> None:
    """Negative test: the swapped KL direction does not match k3-in-the-loss, nor does the reverse one."""
    logits, log_ref = _random_pair(seed)
    reverse, forward = kl.softmax_kl_gradients(logits, log_ref)
    assert not np.allclose(kl.expected_estimator_gradient(logits, log_ref, "k3", placement="loss"), reverse, atol=1e-6)
    assert not np.allclose(
        kl.expected_estimator_gradient(logits, log_ref, "k3", placement="ratio_weighted"), forward, atol=1e-6
    )


def test_bad_input_names_the_parameter() -> None:
    logits, log_ref = _random_pair(0)
    with pytest.raises(ValueError, match="estimator='k4'"):
        kl.expected_estimator_gradient(logits, log_ref, "k4", placement="loss")
    with pytest.raises(ValueError, match="placement='advantage'"):
        kl.expected_estimator_gradient(logits, log_ref, "k3", placement="advantage")
    with pytest.raises(ValueError, match="same shape|one shape"):
        kl.softmax_kl_gradients(logits, log_ref[:3])
