"""Remark 2 exactly (grpo_nb.dynamics.uniform_beta), each number checked against fixed_points by brute force.

The checks are functions that return their failures, so that each one is also run against a wrong answer (a grid's
endpoint, a wrong formula for B) and shown to fail.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy.special import expit, logit

from grpo_nb.dynamics import uniform_beta as ub
from grpo_nb.dynamics.fixed_points import fixed_points, fixed_points_grid
from grpo_nb.dynamics.map import bernoulli_variance_of_logit, logit_map_slope
from grpo_nb.dynamics.paper_bounds import prompt_free_beta_bound, theorem4_beta_bound
from grpo_nb.validation import check_ordered_pair

EPS_VALUES = (1e-5, 1e-3)
P_LO_VALUES = (1e-12, 1e-9, 1e-6)
#: relative distance from an endpoint at which its verdict is checked on both sides
NUDGE = 1e-6


# ---- brute force with fixed_points --------------------------------------------------------------------------------


def prompt_grid(p_lo: float, p_hi: float, n_p: int = 1500, extra: tuple[float, ...] = ()) -> np.ndarray:
    """Prompts evenly spaced in logit over [p_lo, p_hi], both ends exactly, plus ``extra`` ones inside."""
    inner = expit(np.linspace(logit(p_lo), logit(p_hi), n_p))[1:-1]
    extra = tuple(p for p in extra if p_lo <= p <= p_hi)
    return np.sort(np.concatenate([[p_lo, p_hi], inner, extra]))


def unstable_lowest(p_refs: np.ndarray, betas: np.ndarray, eps: float) -> np.ndarray:
    """Whether each prompt's lowest fixed point is unstable (|h'| > 1) at each beta; shape (n_p, n_beta)."""
    grid = fixed_points_grid(np.asarray(p_refs)[:, None], np.asarray(betas)[None, :], eps)
    with np.errstate(invalid="ignore"):
        return (grid.counts > 0) & (np.abs(grid.slopes[..., 0]) > 1.0)


def lowest_is_unstable(p_ref: float, beta: float, eps: float) -> bool:
    return fixed_points(p_ref, beta, eps)[0].slope < -1.0


def witness(beta: float, eps: float, p_lo: float, p_hi: float) -> float | None:
    """A prompt in [p_lo, p_hi] that :func:`unstable_prompts` says is unstable at beta (None if it says none)."""
    found = ub.unstable_prompts(beta, eps)
    lo, hi = max(found.logit_p_from, logit(p_lo)), min(found.logit_p_up, logit(p_hi))
    if found.empty or not lo < hi:
        return None
    return float(np.clip(expit(0.5 * (lo + hi)), p_lo, p_hi))


# ---- the checks ---------------------------------------------------------------------------------------------------


def supremum_failures(sup: ub.SupremumBound, eps: float) -> list[str]:
    """sup = B(p*), above B everywhere, below Remark 2's prompt-free bound, and attained by the prompt it names."""
    out = []
    if not sup.beta == pytest.approx(float(theorem4_beta_bound(sup.p_star, eps)), rel=1e-10):
        out.append("beta is not B at p_star")
    p = expit(np.linspace(-60, 60, 20001))
    if not (theorem4_beta_bound(p, eps) <= sup.beta * (1 + 1e-12)).all():
        out.append("B exceeds the supremum somewhere")
    if not sup.beta < prompt_free_beta_bound(eps):
        out.append("not below 1/(3^1.5 sqrt eps)")
    lowest = fixed_points(sup.p_ref, sup.beta, eps)[0]
    if not lowest.logit == pytest.approx(sup.logit_p_star, rel=1e-9):
        out.append("p_star is not the lowest fixed point of p_ref")
    # the prompt's own bound beta_q is the supremum, within NUDGE: unstable just below, stable just above
    if not lowest_is_unstable(sup.p_ref, sup.beta * (1 - NUDGE), eps):
        out.append("the prompt is stable just below the supremum")
    if lowest_is_unstable(sup.p_ref, sup.beta * (1 + NUDGE), eps):
        out.append("the prompt is unstable just above the supremum")
    # no prompt of a fine grid is unstable above the supremum: it exceeds every beta_q
    if unstable_lowest(prompt_grid(1e-14, 0.5, 3000, (sup.p_ref,)), np.array([sup.beta * (1 + 1e-9)]), eps).any():
        out.append("a prompt is unstable above the supremum")
    return out


def safe_set_failures(result: ub.SafeBetas, n_beta: int = 12) -> list[str]:
    """Every sampled beta in ``safe`` has no unstable prompt in a fine grid; every one in ``unsafe`` has a witness,
    checked with fixed_points; both within NUDGE of each endpoint inside the beta range."""
    eps, p_lo, p_hi = result.eps, result.p_lo, result.p_hi
    # each interval sampled from within NUDGE of its ends (at an end itself a prompt is neutral, |h'| = 1)
    safe_betas = [b for lo, hi in result.safe for b in np.geomspace(lo * (1 + NUDGE), hi * (1 - NUDGE), n_beta)]
    unsafe_betas = [b for lo, hi in result.unsafe for b in np.geomspace(lo * (1 + NUDGE), hi * (1 - NUDGE), n_beta)]
    for end in (result.beta_lower, result.beta_upper):  # the verdict flips at each end inside the range
        if result.beta_min < end < result.beta_max:
            safe_betas.append(end * (1 - NUDGE) if end == result.beta_lower else end * (1 + NUDGE))
    out = []
    prompts = prompt_grid(p_lo, p_hi, extra=(result.p_ref_upper,))
    bad = unstable_lowest(prompts, np.array(safe_betas), eps).any(axis=0)
    out += [f"beta={b:.6g} is called safe, yet a prompt is unstable" for b in np.array(safe_betas)[bad]]
    for beta in unsafe_betas:
        p = witness(beta, eps, p_lo, p_hi)
        if p is None or not lowest_is_unstable(p, beta, eps):
            out.append(f"beta={beta:.6g} is called unsafe, yet no witness is unstable")
    return out


def threshold_failures(thr: ub.PUpThreshold, eps: float) -> list[str]:
    """p_up peaks at thr: a prompt just below it is unstable at thr.beta, one just above is stable at every beta."""
    out = []
    if not lowest_is_unstable(float(expit(thr.logit_p_up - 1e-6)), thr.beta, eps):
        out.append("the prompt just below the threshold is stable at its beta")
    betas = np.geomspace(1e-3, 1e3, 3001)
    if unstable_lowest(np.array([float(expit(thr.logit_p_up + 1e-4))]), betas, eps).any():
        out.append("a prompt above the threshold is unstable at some beta")
    p_up = np.array([ub.unstable_prompts(b, eps).logit_p_up for b in np.geomspace(1e-2, 1e2, 201)])
    if not (p_up <= thr.logit_p_up + 1e-9).all():
        out.append("p_up exceeds the threshold at some beta")
    return out


# ---- 1. the supremum over prompts ----------------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [*EPS_VALUES, 1e-2, 1.0])
def test_the_supremum_is_max_b_and_is_attained(eps: float) -> None:
    sup = ub.supremum_bound(eps)
    assert supremum_failures(sup, eps) == []
    assert sup.attained and sup.lowest_fixed_point_slope == pytest.approx(-1.0, abs=1e-9)
    # an independent derivation: d log B / dv = 0 is linear in v, with its root at v = 2 eps / (1 + 12 eps)
    v_star = 2 * eps / (1 + 12 * eps)
    assert sup.p_star == pytest.approx((1 - np.sqrt(1 - 4 * v_star)) / 2, rel=1e-7)


def test_the_supremum_at_eps_1e5_and_the_prompts_the_book_grid_saw() -> None:
    sup = ub.supremum_bound(1e-5)
    assert 60.85 < sup.beta < 60.86 and 1.99e-5 < sup.p_star < 2.01e-5 and 9.9e-7 < sup.p_ref < 1.0e-6
    near = [ub.prompt_beta_bound(p, 1e-5).beta_q for p in (6.17e-7, 1.06e-6, sup.p_ref)]
    assert near[0] < 60.4 and near[1] < sup.beta and near[2] == pytest.approx(sup.beta, rel=1e-9)
    assert sup.beta * 0.995 < near[1]


@pytest.mark.parametrize("wrong", ["no_abs", "half_power"])
def test_a_wrong_formula_for_b_changes_the_supremum_and_the_checks_catch_it(monkeypatch, wrong: str) -> None:
    def no_abs(z, eps):  # B without |2p - 1|: negative below 1/2
        return logit_map_slope(z, 1.0, eps)

    def half_power(z, eps):  # (v + eps)^{1/2} instead of ^{3/2}
        v = bernoulli_variance_of_logit(z)
        return v * np.abs(np.tanh(0.5 * np.asarray(z))) / (2 * np.sqrt(v + eps))

    monkeypatch.setattr(ub, "theorem4_beta_bound_logit", {"no_abs": no_abs, "half_power": half_power}[wrong])
    with np.errstate(invalid="ignore"):
        if wrong == "no_abs":  # its maximiser is no fixed point of a positive beta: the search stops on bad input
            with pytest.raises(ValueError, match="beta=-"):
                ub.supremum_bound(1e-5)
            return
        sup, result = ub.supremum_bound(1e-5), ub.safe_betas(1e-5)
    assert supremum_failures(sup, 1e-5) != [] and safe_set_failures(result, n_beta=3) != []


def sign_changes(values: np.ndarray) -> int:
    """How often a sequence turns between rising and falling."""
    steps = np.sign(np.diff(values))
    return int(np.sum(steps[1:] != steps[:-1]))


def test_the_shapes_behind_one_interval() -> None:
    """B is unimodal on z < 0 and log Q_a is concave on (a, 0), so unstable fixed points and betas form intervals."""
    z = np.linspace(-40, -1e-3, 40001)
    for eps in (1e-12, *EPS_VALUES, 1.0):
        assert sign_changes(theorem4_beta_bound(expit(z), eps)) == 1
        for a in (-27.6, -13.8, -5.0):
            zz = z[z > a + 1e-3]
            zz = zz[::40]  # Q_a(z) = B(z) (z - a) sqrt(v + eps), computed here from paper_bounds' B
            log_q = np.log(
                theorem4_beta_bound(expit(zz), eps) * (zz - a) * np.sqrt(bernoulli_variance_of_logit(zz) + eps)
            )
            assert (np.diff(log_q, 2) < 1e-12).all()
    # the checks fail where the shape does not hold: two bumps, and a convex curve
    assert sign_changes(np.sin(np.linspace(0, 4 * np.pi, 101))) > 1 and (np.diff(np.exp(z[::40]), 2) > 0).all()


# ---- 2. the betas safe for every prompt ----------------------------------------------------------------------------


@pytest.mark.parametrize("eps", EPS_VALUES)
@pytest.mark.parametrize("p_lo", P_LO_VALUES)
def test_the_safe_set_survives_brute_force(eps: float, p_lo: float) -> None:
    result = ub.safe_betas(eps, p_lo=p_lo)
    assert len(result.unsafe) == 1 and 0.07 < result.beta_lower < 0.16
    assert safe_set_failures(result) == []
    # the ends: the hardest prompt p_lo sets the lower one; the upper one is max B while its prompt is in range
    assert result.beta_lower == pytest.approx(ub.prompt_beta_bound(p_lo, eps).beta_from, rel=1e-12)
    sup = ub.supremum_bound(eps)
    if sup.p_ref >= p_lo:
        assert result.beta_upper == sup.beta
    else:
        assert result.beta_upper < sup.beta and result.p_ref_upper == pytest.approx(p_lo, rel=1e-9)


def test_a_grid_read_endpoint_fails_the_brute_force() -> None:
    result = ub.safe_betas(1e-5)
    step = 10 ** (6 / 900)  # the book's beta grid: 901 points from 1e-2 to 1e4
    for lower, upper in ((result.beta_lower * step, result.beta_upper), (result.beta_lower, result.beta_upper / step)):
        wrong = dataclasses.replace(
            result,
            unsafe=((lower, upper),),
            safe=((result.beta_min, lower), (upper, result.beta_max)),
            beta_lower=lower,
            beta_upper=upper,
        )
        assert safe_set_failures(wrong, n_beta=2) != []


def test_the_unsafe_set_is_where_the_unstable_prompts_meet_the_range() -> None:
    """A second parametrisation: by beta, the unstable prompts (p_from, p_up) meet [p_lo, 1/2] exactly inside."""
    for eps in EPS_VALUES:
        for p_lo in P_LO_VALUES:
            result = ub.safe_betas(eps, p_lo=p_lo)
            for beta in np.geomspace(1e-3, 1e3, 61):
                found = ub.unstable_prompts(beta, eps)
                meets = not found.empty and found.logit_p_up > logit(p_lo)
                assert meets == (result.beta_lower < beta < result.beta_upper)


def test_the_unsafe_interval_shrinks_as_the_range_loses_its_hardest_prompts() -> None:
    for eps in EPS_VALUES:
        lowers = [ub.safe_betas(eps, p_lo=p).beta_lower for p in P_LO_VALUES]
        assert lowers == sorted(lowers) and lowers[0] < 0.0735
        thr = ub.p_up_threshold(eps)
        assert ub.safe_betas(eps, p_lo=thr.p_up * (1 - 1e-6)).unsafe != ()
        assert ub.safe_betas(eps, p_lo=thr.p_up * (1 + 1e-6)).unsafe == ()


def test_an_upper_prompt_limit_caps_the_unsafe_interval() -> None:
    sup = ub.supremum_bound(1e-5)
    capped = ub.safe_betas(1e-5, p_hi=sup.p_ref / 10)
    assert capped.beta_upper < sup.beta and capped.p_ref_upper == pytest.approx(sup.p_ref / 10, rel=1e-6)
    assert safe_set_failures(capped, n_beta=4) == []
    # prompts above 1/2 add nothing: their lowest fixed point has 0 < h' <= 1
    wide = ub.safe_betas(1e-5, p_hi=1 - 1e-9)
    assert wide.unsafe == ub.safe_betas(1e-5).unsafe and safe_set_failures(wide, n_beta=4) == []


def test_needing_beta_near_60_is_false() -> None:
    """The old statement: Theorem 4 holds for all prompts only for beta above the largest per-prompt bound (~60)."""
    result = ub.safe_betas(1e-5)
    betas = np.array([1e-3, 0.01, 0.05, 0.07, 0.072])
    assert not unstable_lowest(prompt_grid(1e-12, 0.5, 4000), betas, 1e-5).any()
    assert all(result.beta_min <= b <= result.safe[0][1] for b in betas)


def test_the_book_grid_misses_the_supremum() -> None:
    """The per-prompt bounds read off the book's grid (100 prompts, 901 betas) fall more than 0.1 % short."""
    prompts, betas = np.logspace(-12, np.log10(0.5), 100), np.logspace(-2, 4, 901)
    unstable = unstable_lowest(prompts, betas, 1e-5)
    beta_q = np.where(unstable.any(axis=1), betas[np.argmax(np.cumsum(unstable, axis=1), axis=1)], 0.0)
    grid_uniform = beta_q.max()
    sup = ub.supremum_bound(1e-5)
    assert grid_uniform < sup.beta * (1 - 1e-3)
    assert abs(np.log(prompts[beta_q.argmax()] / sup.p_ref)) > np.log(1.5)  # the grid's worst prompt is another one
    assert grid_uniform > 0.99 * prompt_free_beta_bound(1e-5)  # the old "within 1 %" held, the sup is closer still
    thr = ub.p_up_threshold(1e-5).p_up
    assert thr < prompts[beta_q == 0].min() < 1.2 * thr and 0.02 > 1.9 * thr  # "above about 0.02": twice the threshold


# ---- 3. p_up and its threshold -------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [*EPS_VALUES, 0.0])
def test_p_up_and_p_from_are_tight(eps: float) -> None:
    for beta in (1e-3, 0.1, 1.0, 10.0):
        found = ub.unstable_prompts(beta, eps)
        if found.empty:
            assert eps > 0 and beta >= ub.supremum_bound(eps).beta
            continue
        if found.logit_p_up < -700:  # at beta = 1e-3, p_up = sigmoid(-2000) is below every float
            assert beta == 1e-3 and found.logit_p_up == pytest.approx(-2 / beta, rel=1e-2)
            continue
        inside, above = expit(found.logit_p_up - 1e-6), expit(found.logit_p_up + 1e-6)
        assert lowest_is_unstable(inside, beta, eps) and not lowest_is_unstable(above, beta, eps)
        if found.p_from > 1e-300:
            below = expit(found.logit_p_from - 1e-6 * abs(found.logit_p_from))
            assert not lowest_is_unstable(below, beta, eps)
            assert lowest_is_unstable(expit(found.logit_p_from + 1e-6 * abs(found.logit_p_from)), beta, eps)
    assert ub.unstable_prompts(1e3, 1e-5).empty and not ub.unstable_prompts(1e3, 0.0).empty


@pytest.mark.parametrize("eps", [*EPS_VALUES, 0.0])
def test_the_p_up_threshold(eps: float) -> None:
    thr = ub.p_up_threshold(eps)
    assert threshold_failures(thr, eps) == []
    assert 0.0098 < thr.p_up < 0.01005 and 0.98 < thr.beta < 1.0001
    assert ub.unstable_prompts(thr.beta, eps).p_up == pytest.approx(thr.p_up, rel=1e-9)


def test_eps_zero_threshold_is_the_closed_form() -> None:
    """eps = 0: a(z) = z - 2/|tanh(z/2)| peaks at z = -2 asinh(1), where beta = |sinh(z/2)| = 1."""
    thr = ub.p_up_threshold(0.0)
    z = -2 * np.arcsinh(1.0)
    assert thr.fixed_point_logit == pytest.approx(z, abs=1e-7) and thr.beta == pytest.approx(1.0, abs=1e-7)
    assert thr.logit_p_up == pytest.approx(z - 2 / np.tanh(-z / 2), rel=1e-12)


def test_a_threshold_of_002_fails_the_check() -> None:
    thr = ub.p_up_threshold(1e-5)
    wrong = dataclasses.replace(thr, p_up=0.02, logit_p_up=float(logit(0.02)))
    assert threshold_failures(wrong, 1e-5) != []
    low = dataclasses.replace(thr, p_up=0.009, logit_p_up=float(logit(0.009)))
    assert threshold_failures(low, 1e-5) != []


# ---- eps = 0 and the numerical range --------------------------------------------------------------------------------


def test_eps_zero_has_no_supremum_but_a_finite_unsafe_interval_for_each_range() -> None:
    sup = ub.supremum_bound(0.0)
    assert sup.beta == np.inf and sup.p_star == 0.0 and not sup.attained and np.isnan(sup.lowest_fixed_point_slope)
    uppers = [ub.safe_betas(0.0, p_lo=p, beta_max=1e7).beta_upper for p in P_LO_VALUES]
    assert uppers == sorted(uppers, reverse=True) and np.isfinite(uppers).all()  # grows without bound as p_lo -> 0
    for p_lo in P_LO_VALUES:
        result = ub.safe_betas(0.0, p_lo=p_lo, beta_max=1e7)
        z1 = result.fixed_point_logits[0]
        assert result.beta_upper == pytest.approx(np.sinh(-z1 / 2), rel=1e-12)  # B = |sinh(z/2)| for eps = 0
        assert safe_set_failures(result, n_beta=4) == []


@pytest.mark.parametrize("eps", [0.0, 1e-300, 1e-12, 1e-5, 0.3, 1.0])
def test_finite_answers_over_the_whole_range(eps: float) -> None:
    for beta in (1e-3, 1.0, 1e3):
        found = ub.unstable_prompts(beta, eps)
        assert found.empty or (np.isfinite(found.logit_p_up) and found.logit_p_from < found.logit_p_up)
    result = ub.safe_betas(eps, p_lo=1e-12, p_hi=1 - 1e-9)
    assert all(np.isfinite(x) for pair in (*result.unsafe, *result.safe) for x in pair)
    for p_ref in (1e-12, 1e-3, 0.49, 1 - 1e-9):
        bound = ub.prompt_beta_bound(p_ref, eps)
        assert bound.beta_q == 0.0 or (np.isfinite(bound.beta_q) and bound.beta_from < bound.beta_q)
    if eps > 0:
        sup = ub.supremum_bound(eps)
        assert sup.attained and np.isfinite([sup.beta, sup.logit_p_ref]).all()


def test_prompt_bounds_agree_with_a_beta_scan() -> None:
    betas = np.geomspace(1e-3, 1e3, 2001)
    for eps in EPS_VALUES:
        prompts = np.array([1e-12, 1e-8, 6.17e-7, 1e-4, 5e-3, 0.0101, 0.02, 0.3, 0.9])
        unstable = unstable_lowest(prompts, betas, eps)
        for p_ref, row in zip(prompts, unstable, strict=True):
            bound = ub.prompt_beta_bound(p_ref, eps)
            inside = (betas > bound.beta_from) & (betas < bound.beta_q)
            assert np.array_equal(row, inside)
            if bound.beta_q > 0:
                for end in (bound.beta_from, bound.beta_q):
                    assert lowest_is_unstable(p_ref, end * (1 + NUDGE if end == bound.beta_from else 1 - NUDGE), eps)
                    assert not lowest_is_unstable(
                        p_ref, end * (1 - NUDGE if end == bound.beta_from else 1 + NUDGE), eps
                    )


# ---- bad input ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: ub.supremum_bound(-1e-5), r"eps=-1e-05 is out of range"),
        (lambda: ub.supremum_bound([1e-5, 1e-3]), r"eps has shape \(2,\)"),
        (lambda: ub.safe_betas(1e-5, p_lo=0.0), r"p_lo=0\.0 is out of range; valid range is 0\.0 < p_lo < 1\.0"),
        (lambda: ub.safe_betas(1e-5, p_hi=1.0), r"p_hi=1\.0 is out of range"),
        (lambda: ub.safe_betas(1e-5, p_lo=0.3, p_hi=0.2), r"p_hi=0\.2 is out of range; valid range is p_lo=0\.3"),
        (lambda: ub.safe_betas(1e-5, beta_min=0.0), r"beta_min=0\.0 is out of range"),
        (lambda: ub.safe_betas(1e-5, beta_min=10.0, beta_max=1.0), r"beta_max=1\.0 is out of range"),
        (lambda: ub.safe_betas(1e-5, beta_max=np.inf), r"beta_max=inf is out of range"),
        (lambda: ub.unstable_prompts(0.0, 1e-5), r"beta=0\.0 is out of range"),
        (lambda: ub.unstable_prompts(1.0, np.nan), r"eps=nan contains NaN"),
        (lambda: ub.prompt_beta_bound(1.5, 1e-5), r"p_ref=1\.5 is out of range"),
        (lambda: ub.p_up_threshold("x"), r"eps='x' is not a real number"),
        (lambda: check_ordered_pair(("a", "b"), 2.0, 2.0, floor=0.0, ceiling=3.0), r"b=2\.0 is out of range"),
    ],
)
def test_bad_input_names_the_parameter(call, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
