"""Tests of grpo_nb.variants: the variants' logit map and iteration, the dynamics machinery run on a variant, the
tabular closed forms against the numerical solver, and the Rényi form of the recursion; bad input included."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, logit

from grpo_nb import dynamics, variants
from grpo_nb.dynamics.cycle_geometry import flip_interval
from grpo_nb.dynamics.fixed_points import THEOREM2
from grpo_nb.dynamics.map import logit_map_slope
from grpo_nb.dynamics.orbits import classify_orbits
from grpo_nb.dynamics.recursions import LogitRecursion
from grpo_nb.dynamics.regimes import Regime, regime_map
from grpo_nb.tabular import grpo_step, solve_grpo_step
from grpo_nb.tabular.policy import expected_reward
from grpo_nb.variants import MIRROR, Variant
from grpo_nb.variants import map as vmap

SETTINGS = settings(deadline=None, max_examples=40)
NORMALIZATIONS = ("mean_var", "mean")
ALPHAS = (0.0, 0.3, 0.5, 1.0)
HARD_GRID = (
    np.geomspace(1e-9, 1 - 1e-9, 11)[:, None, None],
    np.geomspace(1e-3, 1e3, 11)[None, :, None],
    np.array([0.0, 1e-9, 1e-5, 1e-2, 1.0]),
)


def _instance(rng: np.random.Generator, n: int = 30):
    pi_ref = rng.dirichlet(np.full(n, 0.5))
    pi_prev = rng.dirichlet(np.ones(n))
    reward = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(float)
    reward[:2] = [1.0, 0.0]  # both outcomes present
    return pi_ref, pi_prev, reward


# ---------------------------------------------------------------- the logit map and iterate


def test_defaults_equal_dynamics_iterate_exactly_on_the_hard_cases() -> None:
    """Hard prompts (p_ref = 1e-9), fixed points next to 1 (beta = 1e-3), eps = 0 (orbits that reach logit +inf)."""
    with np.errstate(over="ignore"):
        expected = dynamics.iterate(*HARD_GRID, 300)
        got = variants.iterate(*HARD_GRID, 300)
        explicit = variants.iterate(*HARD_GRID, 300, normalization="mean_var", alpha=1.0)
    assert got.shape == expected.shape == (301, 11, 11, 5)
    assert np.array_equal(got, expected) and np.array_equal(explicit, expected)
    assert np.array_equal(variants.iterate_logit(0.3, 2.0, 1e-5, n=7), dynamics.iterate_logit(0.3, 2.0, 1e-5, n=7))
    assert np.isposinf(variants.iterate_logit(0.5, 1e-3, 0.0, n=5)[-1])  # eps = 0: the orbit leaves for p = 1


@pytest.mark.parametrize("normalization", NORMALIZATIONS)
@pytest.mark.parametrize("alpha", ALPHAS)
def test_every_variant_is_finite_over_the_book_ranges(normalization: str, alpha: float) -> None:
    with np.errstate(over="ignore"):
        z = variants.iterate_logit(*HARD_GRID, n=200, normalization=normalization, alpha=alpha)
    assert not np.isnan(z).any() and z.shape == (201, 11, 11, 5)
    assert np.all(z[1:] > z[0])  # every iterate amplifies p_ref (the push s/beta is positive)


@SETTINGS
@given(
    logit_ref=st.floats(-20, 20),
    beta=st.floats(1e-2, 1e2),
    eps=st.sampled_from([0.0, 1e-5, 1e-2, 1.0]),
    alpha=st.floats(0, 1),
    normalization=st.sampled_from(NORMALIZATIONS),
)
def test_recursion_is_the_anchor_logit_plus_the_push(
    logit_ref: float, beta: float, eps: float, alpha: float, normalization: str
) -> None:
    z = variants.iterate_logit(expit(logit_ref), beta, eps, n=6, normalization=normalization, alpha=alpha)
    a = z[0]
    with np.errstate(divide="ignore"):
        s = 1.0 if normalization == "mean" else 1.0 / np.sqrt(expit(z[:-1]) * expit(-z[:-1]) + eps)
    expected = alpha * a + (1 - alpha) * z[:-1] + s / beta
    finite = np.isfinite(expected)
    assert np.allclose(z[1:][finite], expected[finite], rtol=1e-12, atol=1e-12)


@SETTINGS
@given(
    z=st.floats(-40, 40),
    beta=st.floats(1e-2, 1e2),
    eps=st.sampled_from([0.0, 1e-5, 1e-2, 1.0]),
    alpha=st.floats(0, 1),
    normalization=st.sampled_from(NORMALIZATIONS),
)
def test_slope_is_the_derivative_and_its_log_matches(
    z: float, beta: float, eps: float, alpha: float, normalization: str
) -> None:
    d = 1e-6 * max(1.0, abs(z))
    g = variants.variant_logit_map
    kw = {"normalization": normalization, "alpha": alpha}
    num = (g(z + d, -3.0, beta, eps, **kw) - g(z - d, -3.0, beta, eps, **kw)) / (2 * d)
    ana = float(variants.variant_logit_map_slope(z, beta, eps, normalization=normalization, alpha=alpha))
    scale = max(1.0, abs(float(g(z, -3.0, beta, eps, **kw))))
    assert ana == pytest.approx(float(num), rel=1e-4, abs=1e-6 * scale)
    log_abs = float(variants.log_abs_variant_logit_map_slope(z, beta, eps, normalization=normalization, alpha=alpha))
    if ana != 0:
        assert log_abs == pytest.approx(np.log(abs(ana)), rel=1e-9, abs=1e-9)


def test_log_slope_at_alpha_one_is_theorem2s_and_stays_finite_far_out() -> None:
    z = np.array([-50.0, -1.0, 0.0, 0.5, 3.0, 800.0, 1e300])
    for eps in (0.0, 1e-5):
        expected = dynamics.log_abs_logit_map_slope(z, 2.0, eps)
        assert np.array_equal(variants.log_abs_variant_logit_map_slope(z, 2.0, eps), expected)
    assert np.isfinite(variants.log_abs_variant_logit_map_slope(1e300, 1.0, 1e-5, normalization="mean_var", alpha=0.5))
    assert (
        variants.log_abs_variant_logit_map_slope(0.0, 1.0, 1e-5, normalization="mean", alpha=1.0) == -np.inf
    )  # constant map
    assert variants.log_abs_variant_logit_map_slope(4.0, 1.0, 1e-5, normalization="mean", alpha=0.25) == pytest.approx(
        np.log(0.75)
    )


def test_mean_only_with_kl_to_pi_ref_reaches_its_fixed_point_in_one_step() -> None:
    p_ref, beta, eps = HARD_GRID
    z = variants.iterate_logit(p_ref, beta, eps, n=4, normalization="mean", alpha=1.0)
    assert np.array_equal(z[1], z[4]) and np.array_equal(z[1], z[2])
    assert np.allclose(z[1] - z[0], 1.0 / beta, rtol=1e-12)
    assert np.array_equal(z[:, :, :, 0], z[:, :, :, -1])  # eps plays no role


def test_mirror_increases_without_bound() -> None:
    z = variants.iterate_logit(1e-3, 2.0, 1e-5, n=50, normalization="mean", alpha=0.0)
    assert np.allclose(z - z[0], np.arange(51) / 2.0)
    zv = variants.iterate_logit(1e-3, 2.0, 1e-5, n=50, normalization="mean_var", alpha=0.0)
    steps = np.diff(zv)
    assert np.all(steps >= 1 / (2.0 * np.sqrt(0.25 + 1e-5)) * (1 - 1e-12))
    assert np.all(steps <= 1 / (2.0 * np.sqrt(1e-5)) * (1 + 1e-12))


def test_effective_beta_turns_variance_normalisation_into_mean_only() -> None:
    z = np.linspace(-30, 30, 121)
    for eps in (0.0, 1e-5, 1e-2):
        for alpha in (0.0, 0.5, 1.0):
            mv = variants.variant_logit_map(z, -2.0, 3.0, eps, normalization="mean_var", alpha=alpha)
            mo = variants.variant_logit_map(
                z, -2.0, variants.effective_beta(z, 3.0, eps), eps, normalization="mean", alpha=alpha
            )
            assert np.allclose(mv, mo, rtol=1e-13)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"p_ref": 0.0}, r"p_ref=0\.0 is out of range"),
        ({"p_ref": np.nan}, r"p_ref=nan contains NaN"),
        ({"beta": -1.0}, r"beta=-1\.0 is out of range; valid range is 0 < beta < inf"),
        ({"eps": -1e-5}, r"eps=-1e-05 is out of range"),
        ({"n": -1}, r"n=-1 is out of range"),
        ({"n": 2.5}, r"n=2\.5 is out of range"),
        ({"alpha": 1.5}, r"alpha=1\.5 is out of range; valid range is 0 <= alpha <= 1"),
        ({"alpha": np.nan}, r"alpha=nan contains NaN"),
        ({"normalization": "std"}, r"normalization='std' is not a reward normalisation; valid values are"),
        ({"beta": [1.0, 2.0], "alpha": [0.1, 0.2, 0.3]}, r"do not broadcast"),
    ],
)
def test_bad_input_raises_value_error_naming_the_parameter(kwargs: dict, match: str) -> None:
    args = {"p_ref": 0.1, "beta": 1.0, "eps": 1e-5, "n": 3, "normalization": "mean_var", "alpha": 0.5} | kwargs
    with pytest.raises(ValueError, match=match):
        variants.iterate(**args)


def test_alpha_broadcasts_like_the_other_parameters() -> None:
    z = variants.iterate_logit(0.01, 2.0, 1e-5, n=5, normalization="mean_var", alpha=np.array([0.0, 0.5, 1.0]))
    assert z.shape == (6, 3)
    for i, alpha in enumerate((0.0, 0.5, 1.0)):
        assert np.array_equal(
            z[:, i], variants.iterate_logit(0.01, 2.0, 1e-5, n=5, normalization="mean_var", alpha=alpha)
        )


# ---------------------------------------------------------------- the dynamics machinery on a variant


def test_variant_follows_the_protocol_and_validates() -> None:
    assert isinstance(Variant("mean", 0.3), LogitRecursion) and isinstance(THEOREM2, LogitRecursion)
    assert Variant().label == "mean+var, α = 1" and Variant("mean", 0.5).label == "mean-only, α = 0.5"
    with pytest.raises(ValueError, match="alpha=-0.1 is out of range"):
        Variant("mean", -0.1)
    with pytest.raises(ValueError, match="normalization='var'"):
        Variant("var", 0.5)
    with pytest.raises(ValueError, match="alpha has shape"):
        Variant("mean", [0.1, 0.2])


def test_the_papers_variant_gives_the_same_verdicts_as_the_default() -> None:
    p_ref, beta = np.geomspace(1e-4, 0.99, 12)[:, None], np.geomspace(1e-2, 30, 12)[None, :]
    for eps in (0.0, 1e-5, 1e-2):
        default, explicit = classify_orbits(p_ref, beta, eps), classify_orbits(p_ref, beta, eps, variant=Variant())
        for field in ("kind", "period", "lyapunov", "limit_logits"):
            assert np.array_equal(getattr(default, field), getattr(explicit, field), equal_nan=True)
        fp, fv = (
            dynamics.fixed_points_grid(p_ref, beta, eps),
            dynamics.fixed_points_grid(p_ref, beta, eps, variant=Variant()),
        )
        assert np.array_equal(fp.logits, fv.logits, equal_nan=True) and np.array_equal(fp.counts, fv.counts)
        assert np.array_equal(fp.slopes, fv.slopes, equal_nan=True)
    assert dynamics.attractor(1e-3, 5.0, 1e-5, variant=Variant()) == dynamics.attractor(1e-3, 5.0, 1e-5)


@SETTINGS
@given(
    logit_ref=st.floats(-20, 8),
    log_beta=st.floats(-2, 2),
    eps=st.sampled_from([0.0, 1e-8, 1e-5, 1e-2, 1.0]),
    alpha=st.floats(0.05, 1.0),
    normalization=st.sampled_from(NORMALIZATIONS),
)
def test_variant_fixed_points_are_roots_and_none_is_missed(
    logit_ref: float, log_beta: float, eps: float, alpha: float, normalization: str
) -> None:
    v, p_ref, beta = Variant(normalization, alpha), expit(logit_ref), 10.0**log_beta
    fps = dynamics.fixed_points(p_ref, beta, eps, variant=v)
    a = logit(p_ref)
    for fp in fps:
        assert abs(v(fp.logit, a, beta, eps) - fp.logit) <= 1e-9 * max(1.0, abs(fp.logit))
        assert fp.logit > a  # amplification
        assert fp.slope == pytest.approx(float(v.slope(fp.logit, beta, eps)), rel=1e-12, abs=1e-300)
    # sign changes of g(z) - z on a dense grid below the cap: every one is a found fixed point
    cap = a + (1 / (alpha * beta * np.sqrt(eps)) if (normalization == "mean_var" and eps > 0) else 1e3)
    z = np.linspace(a - 1.0, min(cap + 1.0, a + 2e3), 200_001)
    with np.errstate(over="ignore"):
        f = v(z, a, beta, eps) - z
    changes = np.count_nonzero(np.diff(np.sign(f)) != 0)
    assert len(fps) >= changes


def test_mean_only_and_mirror_fixed_points() -> None:
    (fp,) = dynamics.fixed_points(0.01, 2.0, 1e-5, variant=Variant("mean", 0.5))
    assert fp.logit == pytest.approx(logit(0.01) + 1 / (0.5 * 2.0)) and fp.slope == 0.5 and fp.stable
    (fp1,) = dynamics.fixed_points(0.01, 2.0, 1e-5, variant=Variant("mean", 1.0))
    assert fp1.slope == 0.0
    assert dynamics.fixed_points(0.01, 2.0, 1e-5, variant=MIRROR) == []
    assert dynamics.fixed_points(0.01, 2.0, 1e-5, variant=Variant("mean", 0.0)) == []
    grid = dynamics.fixed_points_grid([0.1, 0.2], 1.0, 0.0, variant=MIRROR)
    assert grid.logits.shape == (2, 3) and np.all(grid.counts == 0)


def test_variant_fixed_points_are_theorem2s_at_alpha_beta_with_damped_slopes() -> None:
    p_ref, beta, eps = HARD_GRID
    for alpha in (0.3, 0.5):
        var = dynamics.fixed_points_grid(p_ref, beta, eps, variant=Variant("mean_var", alpha))
        v1 = dynamics.fixed_points_grid(p_ref, alpha * beta, eps)
        assert np.array_equal(var.logits, v1.logits, equal_nan=True)
        assert np.allclose(var.slopes, 1 - alpha + alpha * v1.slopes, rtol=1e-12, equal_nan=True)


def test_orbits_of_variants_are_classified() -> None:
    assert dynamics.orbit_kind(1e-3, 5.0, 1e-5).kind == "cycle"  # Theorem 2's map: the paper's 2-cycle
    damped = dynamics.orbit_kind(1e-3, 5.0, 1e-5, variant=Variant("mean_var", 0.5))
    assert damped.kind == "fixed_point" and damped.lyapunov < 0
    (p_star,) = dynamics.attractor(1e-3, 5.0, 1e-5, variant=Variant("mean", 1.0))
    assert p_star == pytest.approx(expit(logit(1e-3) + 0.2), rel=1e-12)
    for mirror in (MIRROR, Variant("mean", 0.0)):  # no fixed point: the orbit runs to p = 1
        assert dynamics.orbit_kind(0.3, 2.0, 1e-5, variant=mirror).kind == "fixed_point"
        assert dynamics.attractor(0.3, 2.0, 1e-5, variant=mirror) == (1.0,)
        summary = classify_orbits([0.01, 0.6], [0.5, 20.0], 1e-5, variant=mirror)
        assert np.all(np.isposinf(summary.limit_logits[..., -1]))


def test_a_damped_variant_still_cycles_for_a_hard_enough_prompt() -> None:
    damped = Variant("mean_var", 0.5)
    kind = dynamics.orbit_kind(1e-8, 20.0, 1e-5, variant=damped)
    assert kind.kind == "cycle" and kind.period == 2
    low, high = dynamics.attractor(1e-8, 20.0, 1e-5, variant=damped)
    a = logit(1e-8)
    assert damped(damped(logit(low), a, 20.0, 1e-5), a, 20.0, 1e-5) == pytest.approx(logit(low), rel=1e-9)
    assert dynamics.fixed_points(1e-8, 20.0, 1e-5, variant=damped)[0].slope < -1


def test_regime_maps_of_variants() -> None:
    p_ref, beta = np.geomspace(1e-4, 0.99, 10)[:, None], np.geomspace(1e-2, 30, 10)[None, :]
    mean_only = regime_map(p_ref, beta, 1e-5, variant=Variant("mean", 0.5))
    assert np.all(mean_only.regime == Regime.INTERIOR)  # eps plays no role: never "next to 1"
    mirror = regime_map(p_ref, beta, 1e-5, variant=MIRROR)
    assert np.all(mirror.regime == Regime.NEAR_ONE) and np.all(mirror.no_stable) and np.all(mirror.matched_index == -1)
    damped = regime_map(p_ref, beta, 1e-5, variant=Variant("mean_var", 0.5))
    oscillating = damped.regime >= Regime.CYCLE
    assert not (oscillating & ~(damped.fixed_point_slopes[..., 0] < -1)).any()


def _flipped_prompts(variant: Variant, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """The (p_ref, beta) of a dense grid whose fixed point below 1/2 has multiplier < -1."""
    p_ref, beta = np.geomspace(1e-9, 0.5, 300)[:, None], np.geomspace(0.05, 50.0, 300)[None, :]
    p_grid, b_grid = np.broadcast_arrays(p_ref, beta)
    flipped = variant.fixed_points_grid(p_grid, b_grid, eps).slopes[..., 0] < -1
    return p_grid[flipped], b_grid[flipped]


@pytest.mark.parametrize("alpha", [1.0, 0.7, 0.5])
@pytest.mark.parametrize("eps", [0.0, 1e-5, 1e-3])
def test_flip_bound_is_the_sup_of_the_flipped_prompts(alpha: float, eps: float) -> None:
    variant = Variant("mean_var", alpha)
    bound = variant.flip_bound(eps)
    flipped_p, _ = _flipped_prompts(variant, eps)
    assert flipped_p.size > 0 and flipped_p.max() < bound < 1.2 * flipped_p.max()  # above every flip, and close
    if alpha == 1.0:  # the paper's map: the hard-prompts chapter's flip curve, by Brent's method on g' = -1
        curve = max(flip_interval(b, eps)[1] for b in np.geomspace(0.3, 3.0, 801))
        assert curve < bound < curve * (1 + 1e-4)


def test_flip_bound_grows_with_alpha_and_is_zero_where_nothing_flips() -> None:
    bounds = [Variant("mean_var", a).flip_bound(1e-5) for a in (0.1, 0.3, 0.5, 0.7, 0.9, 1.0)]
    assert np.all(np.diff(bounds) > 0)
    assert Variant("mean", 0.5).flip_bound(1e-5) == 0.0 and MIRROR.flip_bound(1e-5) == 0.0
    with pytest.raises(ValueError, match="eps"):
        Variant().flip_bound(-1.0)


def test_a_flip_bound_without_the_damping_factor_is_caught(monkeypatch) -> None:
    from grpo_nb.variants import variant as variant_module

    def undamped(z, alpha, eps):  # (2 - alpha)/alpha replaced by 1/alpha: forgets the (1 - alpha) in the multiplier
        return z + vmap.logit_increment(z, 1.0, eps) / (alpha * logit_map_slope(z, 1.0, eps))

    def doubly_damped(z, alpha, eps):  # (2 - alpha)/alpha^2: one alpha too many
        return z + (2 - alpha) * vmap.logit_increment(z, 1.0, eps) / (alpha**2 * logit_map_slope(z, 1.0, eps))

    damped = Variant("mean_var", 0.5)
    flipped_max = _flipped_prompts(damped, 1e-5)[0].max()
    monkeypatch.setattr(variant_module, "_flip_prompt_logit", undamped)
    assert damped.flip_bound(1e-5) > 1.2 * flipped_max  # far above every flipped prompt: not the sup
    monkeypatch.setattr(variant_module, "_flip_prompt_logit", doubly_damped)
    assert damped.flip_bound(1e-5) < flipped_max  # a flipped prompt above the "bound"


# ---------------------------------------------------------------- tabular closed forms and the Rényi recursion


@pytest.mark.parametrize("normalization", NORMALIZATIONS)
@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("eps", [0.0, 1e-5, 1e-2])
def test_closed_form_matches_the_numerical_solver(normalization: str, alpha: float, eps: float) -> None:
    rng = np.random.default_rng(17)
    for _ in range(2):
        pi_ref, pi_prev, reward = _instance(rng)
        beta = 10 ** rng.uniform(-1, 1)
        closed = variants.policy_step(pi_ref, pi_prev, reward, beta, eps, normalization=normalization, alpha=alpha)
        numeric = variants.solve_policy_step(
            pi_ref, pi_prev, reward, beta, eps, normalization=normalization, alpha=alpha
        )
        assert np.max(np.abs(closed - numeric)) < 1e-10


def test_policy_step_at_the_defaults_is_theorem1_and_solver_defaults_are_unchanged() -> None:
    pi_ref, pi_prev, reward = _instance(np.random.default_rng(3))
    assert np.array_equal(
        variants.policy_step(pi_ref, pi_prev, reward, 0.7, 1e-5), grpo_step(pi_ref, pi_prev, reward, 0.7, 1e-5)
    )
    assert np.array_equal(
        solve_grpo_step(pi_ref, pi_prev, reward, 0.7, 1e-5),
        solve_grpo_step(pi_ref, pi_prev, reward, 0.7, 1e-5, normalization="mean_var", alpha=1.0),
    )


def test_a_wrong_anchor_is_caught_by_the_solver() -> None:
    pi_ref, pi_prev, reward = _instance(np.random.default_rng(4))
    numeric = variants.solve_policy_step(pi_ref, pi_prev, reward, 1.0, 1e-5, normalization="mean_var", alpha=0.5)
    wrong = variants.policy_step(
        pi_ref, pi_prev, reward, 1.0, 1e-5, normalization="mean_var", alpha=1.0
    )  # anchor pi_ref only
    assert np.max(np.abs(wrong - numeric)) > 1e-3


def test_supports_zeros_and_mean_only_at_p_prev_zero() -> None:
    pi_ref = np.array([0.0, 0.5, 0.25, 0.25])
    pi_prev = np.array([0.4, 0.0, 0.3, 0.3])
    reward = np.array([1.0, 1.0, 0.0, 0.0])
    for alpha, zero in ((1.0, [0]), (0.0, [1]), (0.5, [0, 1])):
        closed = variants.policy_step(pi_ref, pi_prev, reward, 1.0, 1e-3, normalization="mean_var", alpha=alpha)
        assert np.all(closed[zero] == 0) and closed.sum() == pytest.approx(1.0)
        numeric = variants.solve_policy_step(pi_ref, pi_prev, reward, 1.0, 1e-3, normalization="mean_var", alpha=alpha)
        assert np.allclose(closed, numeric, atol=1e-12)
    failing = np.array([0.0, 0.0, 0.5, 0.5])  # p_prev = 0: mean-only is defined even with eps = 0
    step = variants.policy_step(pi_ref, failing, reward, 1.0, 0.0, normalization="mean", alpha=1.0)
    assert np.isclose(step @ reward, expit(logit(0.5) + 1.0))
    with pytest.raises(ValueError, match="p_prev"):
        variants.policy_step(pi_ref, failing, reward, 1.0, 0.0, normalization="mean_var", alpha=1.0)


@pytest.mark.parametrize("normalization", NORMALIZATIONS)
@pytest.mark.parametrize("alpha", ALPHAS)
def test_tabular_orbit_from_pi_ref_follows_the_logit_recursion(normalization: str, alpha: float) -> None:
    rng = np.random.default_rng(5)
    pi_ref, _, reward = _instance(rng)
    p = variants.policy_orbit(pi_ref, reward, 1.5, 1e-2, n=12, normalization=normalization, alpha=alpha) @ reward
    predicted = variants.iterate(float(pi_ref @ reward), 1.5, 1e-2, 12, normalization=normalization, alpha=alpha)
    assert np.allclose(p, predicted, rtol=1e-11, atol=1e-14)


def test_renyi_term_vanishes_from_pi_ref_and_corrects_the_recursion_otherwise() -> None:
    rng = np.random.default_rng(6)
    pi_ref, pi_0, reward = _instance(rng)
    for alpha in (0.3, 0.7):
        from_ref = variants.policy_orbit(pi_ref, reward, 2.0, 1e-5, n=6, normalization="mean_var", alpha=alpha)
        assert max(abs(variants.renyi_correction(pi_ref, pi, reward, alpha=alpha)) for pi in from_ref) < 1e-12
        other = variants.policy_orbit(pi_ref, reward, 2.0, 1e-5, n=6, normalization="mean", alpha=alpha, pi_0=pi_0)
        z_next = logit(other[1:] @ reward)
        corr = [
            variants.renyi_recursion_logit(pi_ref, pi, reward, 2.0, 1e-5, normalization="mean", alpha=alpha)
            for pi in other[:-1]
        ]
        plain = [
            variants.renyi_recursion_logit(
                pi_ref, pi, reward, 2.0, 1e-5, normalization="mean", alpha=alpha, corrected=False
            )
            for pi in other[:-1]
        ]
        assert np.allclose(z_next, corr, atol=1e-12)
        assert abs(z_next[0] - plain[0]) > 1e-3


def test_renyi_divergence_and_its_bad_inputs() -> None:
    p, q = np.array([0.2, 0.8]), np.array([0.5, 0.5])
    expected = np.log(0.2**0.5 * 0.5**0.5 + 0.8**0.5 * 0.5**0.5) / (0.5 - 1)
    assert variants.renyi_divergence(p, q, 0.5) == pytest.approx(expected)
    assert variants.renyi_divergence(p, p, 0.3) == pytest.approx(0.0, abs=1e-15)
    with pytest.raises(ValueError, match="valid range is 0 < alpha < 1"):
        variants.renyi_divergence(p, q, 1.0)
    with pytest.raises(ValueError, match="both sets carry mass"):
        variants.renyi_correction([0.5, 0.5], [0.5, 0.5], [1.0, 1.0], alpha=0.5)
    with pytest.raises(ValueError, match="pi_prev has shape"):
        variants.policy_step([0.5, 0.5], [1.0], [1.0, 0.0], 1.0, 1e-5)
    with pytest.raises(ValueError, match="alpha=2"):
        variants.policy_step([0.5, 0.5], [0.5, 0.5], [1.0, 0.0], 1.0, 1e-5, normalization="mean", alpha=2)


def test_expected_reward_of_the_mean_only_step_is_the_logit_shift() -> None:
    pi_ref, pi_prev, reward = _instance(np.random.default_rng(8))
    step = variants.policy_step(pi_ref, pi_ref, reward, 0.5, 1e-5, normalization="mean", alpha=1.0)
    assert logit(expected_reward(step, reward)) == pytest.approx(logit(pi_ref @ reward) + 2.0, rel=1e-12)


def test_centred_advantage_and_the_new_validators() -> None:
    from grpo_nb.validation import check_alpha, check_normalization
    from grpo_nb.weights import mean_only_advantage

    r = np.array([[1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]])
    p = r.mean(axis=1, keepdims=True)
    assert np.array_equal(mean_only_advantage(r, p), r - p)
    assert mean_only_advantage(0, 0.0) == 0.0 and mean_only_advantage(1, 1.0) == 0.0  # defined at p = 0 and 1
    with pytest.raises(ValueError, match="reward contains 0.5"):
        mean_only_advantage([0.5], 0.5)
    with pytest.raises(ValueError, match="p=1.5"):
        mean_only_advantage([1.0], 1.5)
    assert np.array_equal(check_alpha([0.0, 1.0]), [0.0, 1.0]) and check_normalization("mean") == "mean"
    with pytest.raises(ValueError, match=r"alpha=-0\.5 is out of range; valid range is 0 <= alpha <= 1"):
        check_alpha([0.5, -0.5])
    with pytest.raises(ValueError, match="normalization=1"):
        check_normalization(1)
