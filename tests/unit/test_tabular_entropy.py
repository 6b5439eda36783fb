"""The entropy of a softmax policy, its gradient in the logits, the two logit steps and the covariance law
dH = -eta Cov_pi(log pi, delta) + O(eta^2), each against an independent computation and a wrong formula."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import log_softmax, softmax

from grpo_nb.tabular.entropy import (
    GRADIENTS,
    covariance_law,
    entropy_change,
    entropy_gradient,
    logit_step,
    policy_entropy,
)
from grpo_nb.tabular.softmax_policy import exact_gradient

#: The scaled step sizes h = eta * span(delta) of the order check, and the ratio a halving of h must divide an
#: O(eta^2) residual by (4 in the limit; an O(eta) residual is divided by 2).
ORDER_STEPS = (1e-3, 5e-4)
SECOND_ORDER_RATIO = (3.0, 5.0)
FIRST_ORDER_RATIO = (1.5, 2.5)
N_POLICIES = 60


def random_policies(seed: int = 0):
    """(logits, advantage, label) for N_POLICIES random softmax policies: K in 2..20, logits ~ N(0, 2^2); per policy
    a random advantage A ~ N(0, 1) and A = r - V for random 0/1 rewards with at least one 0 and one 1."""
    rng = np.random.default_rng(seed)
    for _ in range(N_POLICIES):
        k = int(rng.integers(2, 21))
        logits = rng.normal(0.0, 2.0, size=k)
        yield logits, rng.normal(size=k), "random"
        reward = (rng.random(k) < 0.5).astype(float)
        reward[:2] = (1.0, 0.0)
        rng.shuffle(reward)
        yield logits, reward - softmax(logits) @ reward, "r - V"


def scaled_residuals(logits: np.ndarray, delta: np.ndarray, law: float) -> tuple[np.ndarray, np.ndarray]:
    """|entropy_change(step=eta) - eta * law| / eta^2 at eta = h / span(delta) for each h of ORDER_STEPS, and the
    bound on it that the second-order remainder obeys, span(delta)^2 (1 + 2 log K) / 2 (the module docstring)."""
    span = float(delta.max() - delta.min())
    etas = np.array(ORDER_STEPS) / span
    residuals = np.array([abs(entropy_change(logits, delta, step=eta) - eta * law) for eta in etas])
    return residuals / etas**2, np.full(len(etas), span**2 * (1 + 2 * np.log(delta.size)) / 2)


def halving_ratio(scaled: np.ndarray) -> float:
    """residual(h) / residual(h / 2) from the residuals / eta^2 of ORDER_STEPS (4 for O(eta^2), 2 for O(eta))."""
    return float(4 * scaled[0] / scaled[1])


def passes_order_check(logits: np.ndarray, delta: np.ndarray, law: float) -> bool:
    """The residual of ``law`` is O(eta^2): residual / eta^2 within the bound and halving eta divides it by ~4."""
    scaled, bound = scaled_residuals(logits, delta, law)
    lo, hi = SECOND_ORDER_RATIO
    return bool(np.all(scaled <= bound) and lo <= halving_ratio(scaled) <= hi)


# ---- the entropy -------------------------------------------------------------------------------------------------


def naive_entropy(logits: np.ndarray) -> np.ndarray:
    """-sum pi log pi from the probabilities (a wrong formula for large logits: 0 * log 0 = NaN)."""
    pi = softmax(logits, axis=-1)
    return -np.sum(pi * np.log(pi), axis=-1)


def test_entropy_is_log_k_for_equal_logits_and_zero_for_a_dominant_one() -> None:
    for k in (2, 3, 7, 20):
        assert policy_entropy(np.full(k, 1.3)) == pytest.approx(np.log(k), rel=1e-14)
        assert np.allclose(policy_entropy(np.full((2, 3, k), -4.0)), np.log(k), rtol=1e-14)
    for logits in ([700.0, 0.0, 0.0], [0.0, -700.0, -700.0], [800.0, 0.0, 0.0], [0.0, 1e5, -1e5]):
        value = policy_entropy(logits)
        assert isinstance(value, float) and np.isfinite(value) and 0.0 <= value < 1e-290
    assert policy_entropy([-700.0, 0.0, 0.0]) == pytest.approx(np.log(2.0), rel=1e-14)
    rng = np.random.default_rng(3)
    logits = rng.normal(0.0, 300.0, size=(200, 6))
    values = policy_entropy(logits)
    assert values.shape == (200,) and np.all(values >= 0) and np.all(values <= np.log(6) + 1e-12)
    assert np.all(np.isfinite(entropy_gradient(logits)))


def test_the_naive_entropy_fails_the_no_nan_check() -> None:
    """Negative test: -sum pi log pi from softmax probabilities gives NaN once exp(-800) underflows."""
    with np.errstate(divide="ignore", invalid="ignore"):
        assert np.isnan(naive_entropy(np.array([800.0, 0.0, 0.0])))


# ---- its gradient and the first-order law --------------------------------------------------------------------------


def central_difference_gradient(logits: np.ndarray, size: float = 1e-6) -> np.ndarray:
    """dH/dtheta by central differences of policy_entropy, one logit at a time."""
    out = np.zeros_like(logits)
    for idx in np.ndindex(logits.shape):
        shift = np.zeros_like(logits)
        shift[idx] = size
        out[idx] = (policy_entropy(logits + shift) - policy_entropy(logits - shift)) / (2 * size)
    return out


def test_entropy_gradient_matches_central_differences_and_sums_to_zero() -> None:
    rng = np.random.default_rng(4)
    for k in (2, 5, 12):
        logits = rng.normal(0.0, 2.0, size=k)
        gradient = entropy_gradient(logits)
        assert np.max(np.abs(gradient - central_difference_gradient(logits))) < 1e-8
        assert abs(gradient.sum()) < 1e-14
        # negative test: the sign of H flipped in the formula fails the same bound
        log_pi = log_softmax(logits)
        wrong = -np.exp(log_pi) * (log_pi - policy_entropy(logits))
        assert np.max(np.abs(wrong - central_difference_gradient(logits))) > 1e-3
    batched = rng.normal(size=(3, 4, 5))
    assert np.allclose(
        entropy_gradient(batched), np.stack([entropy_gradient(row) for row in batched.reshape(12, 5)]).reshape(3, 4, 5)
    )


def test_gradient_dot_delta_is_the_covariance_law() -> None:
    """grad H . delta = -Cov_pi(log pi, delta) to 1e-12 of the Cauchy-Schwarz scale sqrt(Var log pi Var delta);
    the law ignores a constant added to delta; +Cov (a wrong sign) fails the identity."""
    rng = np.random.default_rng(5)
    logits, delta = rng.normal(0.0, 2.0, size=(2, 50, 9))
    pi, log_pi = softmax(logits, axis=-1), log_softmax(logits, axis=-1)
    var = lambda x: np.sum(pi * (x - np.sum(pi * x, axis=-1, keepdims=True)) ** 2, axis=-1)  # noqa: E731
    scale = np.sqrt(var(log_pi) * var(delta))
    law = covariance_law(logits, delta)
    inner = np.sum(entropy_gradient(logits) * delta, axis=-1)
    assert np.all(np.abs(inner - law) <= 1e-12 * scale)
    assert np.all(np.abs(covariance_law(logits, delta + 3.7) - law) <= 1e-12 * scale)
    assert isinstance(covariance_law(logits[0], delta[0]), float)
    assert np.mean(np.abs(inner + law) > 1e-12 * scale) > 0.95  # negative test


def test_second_derivative_of_the_entropy_along_a_step() -> None:
    """d^2 H(theta + t u)/dt^2 = -E_pi[(u - E u)^2 (1 + H + log pi)], within span(u)^2 (1 + 2 H) in absolute value
    (the module docstring's remainder bound); dropping the 1 (a wrong formula) fails the finite-difference check."""
    rng = np.random.default_rng(6)
    size = 1e-4
    for _ in range(20):
        k = int(rng.integers(2, 12))
        logits, u = rng.normal(0.0, 2.0, size=k), rng.normal(size=k)
        pi, log_pi, h = softmax(logits), log_softmax(logits), policy_entropy(logits)
        centred = u - pi @ u
        formula = -(pi @ (centred**2 * (1 + h + log_pi)))
        at = [policy_entropy(logits + t * u) for t in (size, 0.0, -size)]
        numeric = (at[0] - 2 * at[1] + at[2]) / size**2
        assert abs(numeric - formula) < 1e-6
        assert abs(formula) <= (u.max() - u.min()) ** 2 * (1 + 2 * h)
        assert abs(numeric + pi @ (centred**2 * (h + log_pi))) > 1e-3  # negative test


# ---- the two logit steps -------------------------------------------------------------------------------------------


def expected_advantage_gradient(logits: np.ndarray, advantage: np.ndarray, size: float = 1e-6) -> np.ndarray:
    """grad_theta E_pi[A] for A held fixed, by central differences."""
    out = np.zeros_like(logits)
    for b in range(logits.size):
        shift = np.zeros_like(logits)
        shift[b] = size
        out[b] = (softmax(logits + shift) @ advantage - softmax(logits - shift) @ advantage) / (2 * size)
    return out


def test_plain_step_is_the_expected_policy_gradient() -> None:
    """The plain step is grad E_pi[A] (central differences); for A = r - V it is exact_gradient, for a centred A it
    is pi * A; pi * A for an uncentred A (a wrong formula) fails the finite-difference check."""
    rng = np.random.default_rng(7)
    for _ in range(10):
        k = int(rng.integers(2, 10))
        logits, advantage = rng.normal(0.0, 2.0, size=k), rng.normal(1.0, 1.0, size=k)
        pi = softmax(logits)
        step = logit_step(logits, advantage, gradient="plain")
        numeric = expected_advantage_gradient(logits, advantage)
        assert np.max(np.abs(step - numeric)) < 1e-8
        assert np.max(np.abs(pi * advantage - numeric)) > 1e-3 * abs(pi @ advantage)  # negative test
        centred = advantage - pi @ advantage
        assert np.allclose(logit_step(logits, centred, gradient="plain"), pi * centred, rtol=1e-12, atol=1e-15)
        reward = (rng.random(k) < 0.5).astype(float)
        reward[:2] = (1.0, 0.0)
        step_rv = logit_step(logits, reward - pi @ reward, gradient="plain")
        assert np.allclose(step_rv, exact_gradient(logits, reward), rtol=1e-12, atol=1e-15)
    batched_logits, batched_advantage = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3, 4))
    batched = logit_step(batched_logits, batched_advantage, gradient="plain")
    rows = [
        logit_step(t, a, gradient="plain")
        for t, a in zip(batched_logits.reshape(6, 4), batched_advantage.reshape(6, 4), strict=True)
    ]
    assert np.allclose(batched, np.reshape(rows, (2, 3, 4)))


def test_natural_step_is_the_fisher_preconditioned_gradient() -> None:
    """F A = pi * (A - E_pi[A]) (the plain step) with F = diag(pi) - pi pi^T, so the natural step is A up to a
    constant; the plain step itself (a wrong natural step) fails it."""
    rng = np.random.default_rng(8)
    for _ in range(10):
        k = int(rng.integers(2, 10))
        logits, advantage = rng.normal(0.0, 2.0, size=k), rng.normal(size=k)
        pi = softmax(logits)
        fisher = np.diag(pi) - np.outer(pi, pi)
        natural = logit_step(logits, advantage, gradient="natural")
        plain = logit_step(logits, advantage, gradient="plain")
        assert np.array_equal(natural, advantage)
        assert np.allclose(fisher @ natural, plain, rtol=1e-12, atol=1e-15)
        assert np.max(np.abs(fisher @ (natural + 2.5) - plain)) < 1e-14  # a constant is invisible to F
        assert np.max(np.abs(fisher @ plain - plain)) > 1e-3 * np.max(np.abs(plain))  # negative test


# ---- the covariance law to second order ----------------------------------------------------------------------------


@pytest.mark.parametrize("gradient", GRADIENTS)
def test_covariance_law_is_exact_to_first_order(gradient: str) -> None:
    """On N_POLICIES = 60 random softmax policies (K in 2..20, logits ~ N(0, 2^2)), each with a random advantage
    A ~ N(0, 1) and with A = r - V for random 0/1 rewards (120 cases per gradient), delta = logit_step(gradient):
    the residual |entropy_change(step=eta) - eta * covariance_law| at eta = h / span(delta), h in (1e-3, 5e-4),
    (i) divided by eta^2 stays below span(delta)^2 (1 + 2 log K) / 2, the bound on the second-order remainder, and
    (ii) falls by a factor in [3, 5] when h is halved (4 for an O(eta^2) residual). For the plain step with A = r - V
    the law is Cui et al.'s -Cov(log pi, pi * A)."""
    ratios = []
    for logits, advantage, label in random_policies():
        delta = logit_step(logits, advantage, gradient=gradient)
        law = covariance_law(logits, delta)
        if gradient == "plain" and label == "r - V":
            assert law == pytest.approx(covariance_law(logits, softmax(logits) * advantage), rel=1e-10, abs=1e-15)
        assert passes_order_check(logits, delta, law)
        ratios.append(halving_ratio(scaled_residuals(logits, delta, law)[0]))
    assert len(ratios) == 2 * N_POLICIES and 3.9 < min(ratios) and max(ratios) < 4.1


def wrong_laws(logits: np.ndarray, delta: np.ndarray, advantage: np.ndarray, gradient: str) -> dict[str, float]:
    """Three wrong first-order laws: the opposite sign, Cov(pi, delta) for Cov(log pi, delta), the other gradient's
    law (the plain law -Cov(log pi, pi * A) for the natural step, the natural law -Cov(log pi, A) for the plain)."""
    pi = softmax(logits)
    other = "plain" if gradient == "natural" else "natural"
    return {
        "+Cov": -covariance_law(logits, delta),
        "Cov(pi, delta)": -float(pi @ ((pi - pi @ pi) * (delta - pi @ delta))),
        "other gradient": covariance_law(logits, logit_step(logits, advantage, gradient=other)),
    }


@pytest.mark.parametrize("gradient", GRADIENTS)
def test_wrong_laws_fail_the_order_check(gradient: str) -> None:
    """Negative test: on the same 120 cases per gradient, each wrong law fails the order check of
    test_covariance_law_is_exact_to_first_order on every case, and its residual is O(eta): halving h divides it by
    a factor in [1.5, 2.5]."""
    lo, hi = FIRST_ORDER_RATIO
    for logits, advantage, _ in random_policies():
        delta = logit_step(logits, advantage, gradient=gradient)
        for name, law in wrong_laws(logits, delta, advantage, gradient).items():
            assert not passes_order_check(logits, delta, law), name
            assert lo <= halving_ratio(scaled_residuals(logits, delta, law)[0]) <= hi, name


def test_entropy_change_is_exact_and_ignores_a_constant_shift() -> None:
    logits = np.array([[0.3, -1.2, 2.0, 0.0], [700.0, 0.0, -5.0, 1.0]])
    delta = np.array([[1.0, 0.5, -2.0, 0.0], [-3.0, 1.0, 2.0, 0.0]])
    change = entropy_change(logits, delta, step=0.4)
    assert np.allclose(change, policy_entropy(logits + 0.4 * delta) - policy_entropy(logits), rtol=1e-14, atol=0)
    assert np.allclose(entropy_change(logits, delta + 9.0, step=0.4), change, rtol=1e-12, atol=1e-15)
    assert entropy_change(logits[0], delta[0], step=0.0) == 0.0
    assert isinstance(entropy_change(logits[0], delta[0], step=0.4), float)


# ---- bad input -----------------------------------------------------------------------------------------------------

GOOD = np.array([0.1, -0.4, 1.0])


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: policy_entropy([0.0, np.inf]), r"logits contains inf"),
        (lambda: policy_entropy([0.0, np.nan]), r"logits=.* contains NaN"),
        (
            lambda: entropy_gradient([[1.0], [2.0]]),
            r"logits has shape \(2, 1\); valid shape is \(\.\.\., K\) with K >= 2",
        ),
        (lambda: policy_entropy(1.0), r"logits has shape \(\)"),
        (
            lambda: logit_step(GOOD, [1.0, 2.0], gradient="plain"),
            r"advantage has shape \(2,\); valid: the shape of logits",
        ),
        (lambda: logit_step(GOOD, [1.0, -np.inf, 0.0], gradient="natural"), r"advantage contains -inf"),
        (
            lambda: logit_step(GOOD, GOOD, gradient="mirror"),
            r"gradient='mirror' is not valid; valid values are 'plain'",
        ),
        (lambda: logit_step([np.inf, 0.0], [1.0, 0.0], gradient="plain"), r"logits contains inf"),
        (
            lambda: covariance_law(GOOD, np.ones((2, 3))),
            r"delta has shape \(2, 3\); valid: the shape of logits, \(3,\)",
        ),
        (lambda: covariance_law([1.0], [1.0]), r"logits has shape \(1,\)"),
        (
            lambda: entropy_change(GOOD, GOOD, step=np.nan),
            r"step=nan is out of range; valid range is -inf < step < inf",
        ),
        (lambda: entropy_change(GOOD, GOOD, step=np.inf), r"step=inf is out of range"),
        (lambda: entropy_change(GOOD, GOOD, step=[0.1, 0.2]), r"step=.* is not a real number"),
        (lambda: entropy_change(GOOD, [0.0, np.nan, 1.0], step=0.1), r"delta=.* contains NaN"),
    ],
)
def test_bad_input_raises_value_error_naming_the_parameter(call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call()
