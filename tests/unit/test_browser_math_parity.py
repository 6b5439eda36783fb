"""grpo_math.js, the math of the hosted book's browser figures, run by node and compared with grpo_nb.

The browser figures compute in the reader's browser (``grpo_nb/browser/grpo_math.js``, drawn by grpo_figures.js);
``tests/book/test_browser_figures.py`` checks what they plot in headless Chromium, after a build of the book. This
fast-tier test checks the math alone: ``browser_math_driver.js`` loads grpo_math.js with node's ``require`` (so it
touches no DOM), evaluates every function it exports on a grid of parameters (hard prompts, p_ref from 1e-9 to
1 - 1e-9, beta from 1e-3 to 1e3, eps from 0 to 1, the variants' alpha and normalisation; pass@k, shared exact steps,
the clip bandit's expected updates in every clip mode with both reward kinds), and the numbers are compared with
grpo_nb with the browser test's own comparisons (:mod:`tests.book.browser_reference`): logits to ``RTOL`` (1e-9)
relative to max(1, |logit|), orbits step by step and in full where rounding cannot have been amplified beyond that;
probabilities to RTOL relative (:func:`_check_distribution` says why). A negative test feeds node a grpo_math.js
with one formula altered and checks that the comparison fails where it should.

Needs ``node`` on the PATH (Debian/Ubuntu: ``apt-get install nodejs``); skipped with that reason without one, and
failed instead under CI.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from scipy.special import expit, logit

from grpo_nb.dynamics.fixed_points import fixed_points_grid
from grpo_nb.dynamics.map import bernoulli_variance_of_logit, iterate_logit, logit_h, logit_map, logit_map_slope
from grpo_nb.dynamics.orbits import _periods  # the period rule of classify_orbits, on given windows
from grpo_nb.tabular import examples
from grpo_nb.tabular.clip_bias import CLIP_MODES, expected_update_orbit
from grpo_nb.tabular.distribution import pass_at_k, shared_grpo_step, shared_success_orbit
from grpo_nb.variants.map import iterate_logit as variant_iterate_logit
from grpo_nb.variants.map import variant_logit_map
from grpo_nb.variants.variant import Variant
from grpo_nb.weights import omega_minus, omega_plus
from tests.book.browser_reference import MATH_SCRIPT, RTOL, assert_logits_close, assert_orbit_matches

DRIVER = Path(__file__).with_name("browser_math_driver.js")
N = 200  # orbit length, as the figures at full size
CURVE = 400  # points on a map or weight curve, as the figures
Z_FAR = (60.0, 100.0, 700.0, 740.0, 745.0, 1000.0, 1420.0, 1e4, 1e6)


def make_spec(
    *, p_refs, betas, epsilons, variant_grid, alphas, long_run_cases, map_curve: int, shared: dict, update_cases: list
) -> dict:
    """What the driver evaluates: Theorem 2's map at every (p_ref, beta, eps), each variant (alpha, mean-only) at
    every (p_ref, beta, eps) of ``variant_grid`` (p_refs, betas), the bifurcation figure's long-run windows over a
    beta grid for each (p_ref, eps) of ``long_run_cases``, the elementary functions on a p grid and a z grid, pass@k
    on the p grid, the shared orbits of ``shared`` (problems, (beta, eps) cases, n) and the expected-update orbits
    of ``update_cases`` (:func:`update_case`)."""
    z = sorted([*np.linspace(-40.0, 40.0, 161).tolist(), *Z_FAR, *(-z for z in Z_FAR)])
    return {
        "p": sorted({0.0, 1e-300, 1e-12, *p_refs, *np.linspace(0.0, 1.0, 41).tolist(), 1.0}),
        "z": z,
        "variant_z": z[::4],  # the variants' maps, on every fourth point of z (many more cases)
        "grid_eps": list(epsilons),
        "curve": CURVE,  # the figures' p grid, and the weights on it
        "map_curve": map_curve,  # the p grid of logit h (coarser than the figure's: it is evaluated at every case)
        "lin": [-3.5, 12.25],
        "log": [0.2, 30.0, 300],  # the bifurcation figure's beta grid
        "n": N,
        "cases": [(p, b, e) for b in betas for p in p_refs for e in epsilons],
        "variants": [(alpha, mean_only) for alpha in alphas for mean_only in (False, True)],
        "variant_cases": [(p, b, e) for b in variant_grid[1] for p in variant_grid[0] for e in epsilons],
        "long_run_cases": long_run_cases,
        "betas": np.logspace(-3, 3, 49).tolist(),
        "transient": 800,  # the bifurcation figure's window and periods
        "keep": 64,
        "max_period": 32,
        "ks": [1, 2, 3, 10, 100, 256, 1000, 10**6],
        "shared_problems": shared["problems"],
        "shared_cases": [(b, e) for b in shared["betas"] for e in shared["epsilons"]],
        "shared_n": shared["n"],
        "update_cases": update_cases,
    }


def update_case(mode: str, clip: float, *, random: bool, n: int, logits0=None, **options) -> dict:
    """An expected-update orbit of the figure's clip bandit (examples.py), or of ``logits0`` and ``options``
    (groupSize, lr, mu, rewardProb, reward); ``random``: Bernoulli rewards (reward None), else verifiable ones."""
    case = {
        "logits0": np.log(examples.BANDIT_PI0).tolist() if logits0 is None else list(logits0),
        "groupSize": examples.BANDIT_GROUP_SIZE,
        "lr": examples.BANDIT_LR,
        "mu": examples.BANDIT_MU,
        "reward": list(examples.BANDIT_REWARD),
        **options,
        "n": n,
        "mode": mode,
        "clipEps": clip,
    }
    return {**case, "reward": None} if random else case


CROSSOVER = {"pi_ref": list(examples.CROSSOVER_PI_REF), "reward": [list(r) for r in examples.CROSSOVER_REWARD]}
# a second shared problem: Q = 2 prompts over K = 4 answers, one correct answer shared by both, a non-uniform pi_ref
OVERLAP = {"pi_ref": [0.05, 0.15, 0.3, 0.5], "reward": [[1, 1, 0, 0], [0, 1, 1, 0]]}
BOTH = (True, False)  # random rewards, verifiable rewards
SMALL_BANDIT = {"logits0": [2.0, -1.0, 0.5], "groupSize": 5, "lr": 0.5, "mu": 2, "reward": [1, 0, 0]}
# logits of magnitude up to 700: the groups holding answer 3 twice or more have log-probability below -745 (left out)
FAR_BANDIT = {"logits0": [5.0, 0.0, -30.0, -700.0], "groupSize": 4, "lr": 1.0, "mu": 3, "reward": [0, 1, 1, 0]}


# the parameter grid: the ranges of the browser test (tests/book/test_browser_figures.py) and its special cases:
# hard prompts, p_ref from 1e-9 to 1 - 1e-9, beta from 1e-3 to 1e3, eps from 0 to 1, the paper's divergent case
# (1e-3, 5, 1e-5), the chaotic hard prompt (1e-4, 5.3, 1e-5), fixed points within 1e-300 of 1 (0.9, 1e3, 1e-11)
SPEC = make_spec(
    p_refs=(1e-9, 1e-6, 1e-4, 1e-3, 0.1, 0.3, 0.5, 0.9, 1 - 1e-9),
    betas=(1e-3, 0.05, 0.5, 1.0, 2.0, 5.0, 5.3, 20.0, 1e3),
    epsilons=(0.0, 1e-11, 1e-5, 1e-2, 1.0),
    variant_grid=((1e-9, 1e-4, 1e-3, 0.3, 1 - 1e-9), (1e-3, 0.5, 5.0, 20.0, 1e3)),
    alphas=(0.0, 0.3, 0.5, 1.0),
    long_run_cases=[(p, e) for p in (1e-9, 1e-4, 1e-3, 0.3, 1 - 1e-9) for e in (0.0, 1e-5, 1e-2)],
    map_curve=101,
    shared={"problems": [CROSSOVER, OVERLAP], "betas": (1e-3, 0.05, 0.2, 1, 5, 1e3), "epsilons": (0, 1e-5, 1), "n": 40},
    # the clip bandit in every mode: at the figure's clip 0.2 for 40 iterations with both reward kinds, at the ends of
    # the clip slider (0.01, 1) and between for fewer; a 3-answer problem with q = 0.3, mu = 2, lr = 1/2; far logits
    update_cases=[
        *(update_case(m, 0.2, random=r, n=40) for m in CLIP_MODES for r in BOTH),
        *(update_case(m, c, random=True, n=8) for m in CLIP_MODES[1:] for c in (0.01, 1.0)),
        *(update_case(m, c, random=False, n=40) for m in CLIP_MODES[1:] for c in (0.01, 0.05, 0.5, 1.0)),
        *(update_case(m, 0.1, random=r, n=20, rewardProb=0.3, **SMALL_BANDIT) for m in CLIP_MODES for r in BOTH),
        *(update_case(m, 0.2, random=r, n=10, **FAR_BANDIT) for m in ("none", "symmetric") for r in BOTH),
    ],
)
# a few cases, enough for each wrong formula of the negative tests to show (fast: one node run per formula)
SMALL_SPEC = make_spec(
    p_refs=(1e-4, 1e-3, 0.3),
    betas=(1e-3, 5.0, 5.3),
    epsilons=(0.0, 1e-5),
    variant_grid=((1e-3,), (5.0,)),
    alphas=(0.3,),
    long_run_cases=[(1e-4, 1e-5), (1e-3, 0.0)],
    map_curve=21,
    shared={"problems": [CROSSOVER], "betas": (0.2,), "epsilons": (1e-5,), "n": 5},
    update_cases=[
        update_case("symmetric", 0.2, random=True, n=2),
        update_case("low_only", 0.2, random=True, n=2, rewardProb=0.3, **SMALL_BANDIT),
    ],
)


def node() -> str:
    """The node executable; skipped with the reason where there is none, failed under CI."""
    exe = shutil.which("node")
    if exe is None:
        reason = "node is not on the PATH (Debian/Ubuntu: apt-get install nodejs): grpo_math.js cannot be run"
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the parity test of grpo_math.js: {reason}")
        pytest.skip(reason)
    return exe


def run_math(scripts: list[Path], spec: dict) -> list[dict]:
    """What each of ``scripts`` (grpo_math.js or an altered copy) computes on ``spec``, run by node (one process)."""
    cmd = [node(), str(DRIVER), *map(str, scripts)]
    proc = subprocess.run(cmd, input=json.dumps(spec), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"node failed:\n{proc.stderr[-3000:]}"
    return json.loads(proc.stdout, parse_int=float)  # JS prints integral numbers below 1e21 as integers


# --------------------------------------------------------------------------- the comparisons, one per name


def p_grid(eps: float, n: int) -> np.ndarray:
    """The figures' p grid: n points on [0, 1], on (0, 1) for eps = 0."""
    k = np.arange(n)
    return k / (n - 1) if eps > 0 else (k + 1) / (n + 1)


def _columns(cases: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    p_ref, beta, eps = (np.array(c, dtype=float) for c in zip(*cases, strict=True))
    return p_ref, beta, eps


def _fixed_points(js: list, grid, what: str) -> None:
    """Each case's fixed points (lists of [logit, slope, stable]) against grpo_nb's NaN-padded grid."""
    for k, fps in enumerate(js):
        has = ~np.isnan(grid.logits[k])
        case = f"{what}, case {k}"
        assert len(fps) == has.sum(), f"{case}: {len(fps)} fixed points in grpo_math.js, {has.sum()} in grpo_nb"
        if fps:
            logits, slopes, stable = zip(*fps, strict=True)
            assert_logits_close(logits, grid.logits[k][has], f"{case} (logits)")
            np.testing.assert_allclose(slopes, grid.slopes[k][has], rtol=RTOL, atol=1e-300, err_msg=f"{case} (slopes)")
            assert list(stable) == list(np.abs(grid.slopes[k][has]) < 1), f"{case}: stability"


def _check_basics(out: dict, spec: dict) -> dict[str, Callable[[], None]]:
    p, z, n = np.array(spec["p"]), np.array(spec["z"]), spec["curve"]

    def grids():
        for eps, js in zip(spec["grid_eps"], out["grids"]["pGrid"], strict=True):
            np.testing.assert_array_equal(js, p_grid(eps, n), err_msg=f"pGrid at eps={eps}")
        lo, hi = spec["lin"]
        lin = lo + ((hi - lo) * np.arange(n)) / (n - 1)  # in grpo_math.js's order of operations
        np.testing.assert_allclose(out["grids"]["linGrid"], lin, rtol=0, atol=1e-15 * (hi - lo), err_msg="linGrid")
        lo, hi, m = spec["log"]
        np.testing.assert_allclose(out["grids"]["logGrid"], np.geomspace(lo, hi, m), rtol=1e-12, err_msg="logGrid")

    def weights():
        for eps, js in zip(spec["grid_eps"], out["weights"], strict=True):
            w, p = np.array(js, dtype=float), p_grid(eps, n)
            np.testing.assert_allclose(w[:, 0], omega_plus(p, eps), rtol=1e-12, err_msg=f"omega+ at eps={eps}")
            np.testing.assert_allclose(w[:, 1], omega_minus(p, eps), rtol=1e-12, err_msg=f"omega- at eps={eps}")

    def logit_():
        with np.errstate(divide="ignore"):
            assert_logits_close(out["logit"], logit(p), "logit")

    return {
        "logit": logit_,
        "sigmoid": lambda: np.testing.assert_allclose(out["sigmoid"], expit(z), rtol=1e-12, atol=1e-300),
        "variance": lambda: np.testing.assert_allclose(
            out["variance"], bernoulli_variance_of_logit(z), rtol=1e-12, atol=1e-300
        ),
        "grids": grids,
        "weights": weights,
    }


def _check_map(out: dict, spec: dict) -> dict[str, Callable[[], None]]:
    p_ref, beta, eps = _columns(spec["cases"])
    z, js = np.array(spec["z"]), out["map"]

    def logit_h_curve():
        p = np.stack([p_grid(e, spec["map_curve"]) for e in eps])
        with np.errstate(divide="ignore"):
            py = logit_h(p, p_ref[:, None], beta[:, None], eps[:, None])
        assert_logits_close([c["logit_h"] for c in js], py, "logit h(p) on the figure's p grid")

    def g():
        with np.errstate(over="ignore"):
            py = logit_map(z, logit(p_ref)[:, None], beta[:, None], eps[:, None])
        assert_logits_close([c["gz"] for c in js], py, "g(z)")

    def slope():
        with np.errstate(over="ignore"):
            py = logit_map_slope(z, beta[:, None], eps[:, None])
        np.testing.assert_allclose([c["slope"] for c in js], py, rtol=RTOL, atol=1e-300, err_msg="g'(z)")

    def orbit():
        z_js = np.array([c["z"] for c in js], dtype=float).T
        with np.errstate(over="ignore"):
            z_py = iterate_logit(p_ref, beta, eps, n=spec["n"])
        assert_orbit_matches(z_js, p_ref, beta, eps, z_py, "orbit")

    def fixed_points():
        _fixed_points([c["fixed"] for c in js], fixed_points_grid(p_ref, beta, eps), "fixed points")

    return {"map: logit h": logit_h_curve, "map: g(z)": g, "map: slope": slope, "map: orbit": orbit,
            "map: fixed points": fixed_points}  # fmt: skip


def _check_variants(out: dict, spec: dict) -> dict[str, Callable[[], None]]:
    p_ref, beta, eps = _columns(spec["variant_cases"])
    z = np.array(spec["variant_z"])

    def each(check: Callable) -> Callable[[], None]:
        def run():
            for (alpha, mean_only), js in zip(spec["variants"], out["variant"], strict=True):
                check(js, "mean" if mean_only else "mean_var", alpha, f"alpha={alpha}, mean-only={mean_only}")

        return run

    def g(js, norm, alpha, what):
        with np.errstate(over="ignore"):
            py = variant_logit_map(
                z, logit(p_ref)[:, None], beta[:, None], eps[:, None], normalization=norm, alpha=alpha
            )
        assert_logits_close([c["gz"] for c in js], py, f"variant g(z), {what}")

    def orbit(js, norm, alpha, what):
        z_js = np.array([c["z"] for c in js], dtype=float).T
        with np.errstate(over="ignore"):
            z_py = variant_iterate_logit(p_ref, beta, eps, n=spec["n"], normalization=norm, alpha=alpha)
        assert_orbit_matches(z_js, p_ref, beta, eps, z_py, f"variant orbit, {what}", norm, alpha)

    def fixed_points(js, norm, alpha, what):
        grid = fixed_points_grid(p_ref, beta, eps, variant=Variant(norm, alpha))
        _fixed_points([c["fixed"] for c in js], grid, f"variant fixed points, {what}")

    return {"variant: g(z)": each(g), "variant: orbit": each(orbit), "variant: fixed points": each(fixed_points)}


def _check_long_run(out: dict, spec: dict) -> dict[str, Callable[[], None]]:
    p_ref, eps = (np.array(c, dtype=float)[:, None] for c in zip(*spec["long_run_cases"], strict=True))
    betas = np.array(spec["betas"])[None, :]
    transient, keep = spec["transient"], spec["keep"]
    limit = np.array([c["limit"] for c in out["long_run"]], dtype=float).reshape(p_ref.size, betas.size, keep)

    def long_run():
        with np.errstate(over="ignore"):
            z_py = iterate_logit(p_ref, betas, eps, n=transient + keep)
        assert_orbit_matches(np.moveaxis(limit, -1, 0), p_ref, betas, eps, z_py, "long run")

    def period():  # grpo_nb's periods of the same windows; an orbit that left for p = 1 is a fixed point (period 1)
        js = np.array([c["periods"] for c in out["long_run"]])
        py = np.where(np.isposinf(limit[..., -1]), 1, _periods(limit, spec["max_period"], 1e-7))
        bad = tuple(np.argwhere(js != py)[:1].T)
        assert not js[bad].size, f"period of window {bad}: {js[bad]} in grpo_math.js, {py[bad]} in grpo_nb"

    return {"long run": long_run, "period": period}


def _shared_reference(problem: dict, beta: float, eps: float, n: int) -> np.ndarray:
    """grpo_nb's shared orbit, shape (n + 1, Q); where a step raises (eps = 0 and a p_q rounded to 0 or 1, Remark 1)
    the rows from that step on are NaN, as grpo_math.js leaves them."""
    pi_ref, reward = np.array(problem["pi_ref"]), np.array(problem["reward"], dtype=float)
    try:
        return shared_success_orbit(pi_ref, reward, beta, eps, n=n)
    except ValueError:
        rows, pi = [np.clip(reward @ pi_ref, 0.0, 1.0)], pi_ref
        try:
            while len(rows) <= n:
                pi = shared_grpo_step(pi_ref, pi, reward, beta, eps)
                rows.append(np.clip(reward @ pi, 0.0, 1.0))
        except ValueError:
            rows += [np.full(reward.shape[0], np.nan)] * (n + 1 - len(rows))
        return np.stack(rows)


def _check_distribution(out: dict, spec: dict) -> dict[str, Callable[[], None]]:
    """pass@k, the shared orbits, the expected-update orbits and the constants. Tolerance RTOL (1e-9) throughout:
    grpo_math.js repeats grpo_nb's operations in their order, so the two differ by the last bits of the libm functions
    (exp, log, expm1, log1p: 1e-16 relative), carried over at most 40 steps of non-chaotic maps; a wrong formula moves
    them by far more (the negative tests). Probabilities below 1e-300 are compared in absolute terms."""

    def pass_k():
        p, k = np.array(spec["p"])[:, None], np.array(spec["ks"])[None, :]
        np.testing.assert_allclose(out["pass_at_k"], pass_at_k(p, k), rtol=RTOL, atol=0, err_msg="pass@k")

    def shared():
        for problem, js_runs in zip(spec["shared_problems"], out["shared"], strict=True):
            for (beta, eps), js in zip(spec["shared_cases"], js_runs, strict=True):
                py = _shared_reference(problem, beta, eps, spec["shared_n"])
                what = f"shared orbit, beta={beta}, eps={eps}, pi_ref={problem['pi_ref']}"
                np.testing.assert_allclose(np.array(js, dtype=float), py, rtol=RTOL, atol=1e-300, err_msg=what)

    def update():
        for case, js in zip(spec["update_cases"], out["update"], strict=True):
            reward = case["reward"]
            py = expected_update_orbit(
                case["logits0"], group_size=case["groupSize"], lr=case["lr"], mu=case["mu"], n=case["n"],
                mode=case["mode"], clip_eps=case["clipEps"], reward_prob=case.get("rewardProb", 0.5), reward=reward,
            )  # fmt: skip
            what = f"expected-update orbit, {case['mode']}, clip {case['clipEps']}, {case['logits0']}, reward {reward}"
            assert_logits_close(js["logits"], py.logits, f"{what} (logits)")
            np.testing.assert_allclose(js["top_mass"], py.top_mass, rtol=RTOL, atol=1e-300, err_msg=f"{what} (top)")
            np.testing.assert_allclose(js["entropy"], py.entropy, rtol=RTOL, atol=1e-300, err_msg=f"{what} (H)")

    def constants():
        names = [name for name in examples.__all__ if name.isupper()]  # the constants; bandit_options packs them
        js = out["constants"]["examples"]
        assert sorted(js) == sorted(names), f"examples in grpo_math.js: {sorted(js)}; in examples.py: {names}"
        for name in names:
            py = getattr(examples, name)
            assert np.array_equal(np.array(js[name], dtype=float), np.array(py, dtype=float)), (name, js[name], py)
        assert tuple(out["constants"]["clip_modes"]) == CLIP_MODES

    return {"pass@k": pass_k, "shared orbit": shared, "expected-update orbit": update, "constants": constants}


# the exports each check covers; bisect is covered by the fixed points it brackets
COVERS = {
    "logit": ["logit"],
    "sigmoid": ["sigmoid"],
    "variance": ["variance"],
    "grids": ["pGrid", "linGrid", "logGrid"],
    "weights": ["weights"],
    "map: logit h": ["logitMap"],
    "map: g(z)": ["logitMap"],
    "map: slope": ["slope"],
    "map: orbit": ["orbit"],
    "map: fixed points": ["fixedPoints", "bisect"],
    "variant: g(z)": ["variantMap"],
    "variant: orbit": ["variantOrbit"],
    "variant: fixed points": ["variantFixedPoints"],
    "long run": ["longRun"],
    "period": ["period"],
    "pass@k": ["passAtK"],
    "shared orbit": ["sharedSuccessOrbit"],
    "expected-update orbit": ["expectedUpdateOrbit"],
    "constants": ["examples", "clipModes"],
}


def compare(out: dict, spec: dict) -> dict[str, str]:
    """Run every comparison of node's output with grpo_nb; returns the failures: check name -> message."""
    checks = {}
    for group in (_check_basics, _check_map, _check_variants, _check_long_run, _check_distribution):
        checks.update(group(out, spec))
    assert set(checks) == set(COVERS)
    failures = {}
    for name, check in checks.items():
        try:
            check()
        except AssertionError as err:
            failures[name] = str(err).strip()
    return failures


# --------------------------------------------------------------------------- tests


@pytest.fixture(scope="module")
def math_out() -> dict:
    return run_math([MATH_SCRIPT], SPEC)[0]


def test_every_export_of_grpo_math_is_checked(math_out):
    assert sorted({name for names in COVERS.values() for name in names}) == math_out["exports"]


def test_grpo_math_equals_grpo_nb_under_node(math_out):
    failures = compare(math_out, SPEC)
    assert not failures, "grpo_math.js differs from grpo_nb:\n" + "\n".join(f"{k}: {v}" for k, v in failures.items())
    # the grid reaches every regime: no fixed point, one and three; fixed points, 2-cycles, chaos and escapes
    counts = {len(case["fixed"]) for case in math_out["map"]}
    periods = {p for case in math_out["long_run"] for p in case["periods"]}
    escaped = [z for case in math_out["map"] for z in case["z"][-1:] if z == np.inf]
    assert counts == {0, 1, 2, 3} and {0, 1, 2} <= periods and escaped, (counts, periods, len(escaped))


def test_the_distribution_grid_reaches_every_case(math_out):
    """Shared orbits that stop at a p_q of 0 or 1 with eps = 0 (NaN rows) and ones that run through; clip modes that
    change the orbit (the clip binds) and groups left out below log-probability -745 (the far bandit)."""
    shared = [np.array(run, dtype=float) for runs in math_out["shared"] for run in runs]
    assert any(np.isnan(run).any() for run in shared) and any(np.isfinite(run).all() for run in shared)
    cases = zip(SPEC["update_cases"][:8], math_out["update"][:8], strict=True)
    logits = {(c["mode"], c["reward"] is None): np.array(u["logits"]) for c, u in cases}
    for random in (True, False):  # the modes part far beyond the tolerance: every clip binds somewhere
        orbits = [logits[mode, random] for mode in CLIP_MODES]
        assert min(np.abs(a - b).max() for k, a in enumerate(orbits) for b in orbits[k + 1 :]) > 1e-4, random
    far = np.array(FAR_BANDIT["logits0"])
    assert far.max() - far.min() >= 700 and any(c["logits0"] == FAR_BANDIT["logits0"] for c in SPEC["update_cases"])


def test_grpo_math_touches_no_dom():
    source = MATH_SCRIPT.read_text(encoding="utf-8")
    assert not re.findall(r"\b(?:window|document|navigator|performance)\s*[.\[]", source), "grpo_math.js uses the DOM"


WRONG_FORMULAS = {  # name -> (right, wrong): one formula of grpo_math.js altered, and the checks that must fail
    "slope's sign flipped": (("M.sinh(0.5 * z) / beta", "-M.sinh(0.5 * z) / beta"), "map: slope"),
    "eps outside the root (Eq. 3 as printed)": (
        ("1 / M.sqrt(variance(z) + eps)", "1 / (M.sqrt(variance(z)) + eps)"),
        "map: g(z)",
    ),
    "variance with exp(-z) for exp(-|z|)": (("M.exp(-M.abs(z))", "M.exp(-z)"), "variance"),
    "no fixed point searched on z <= 0": (("if (g0 < 0) roots.push", "if (false) roots.push"), "map: fixed points"),
    "omega+ without its (1 - p)": (("return [(1 - p) * s, p * s];", "return [s, p * s];"), "weights"),
    "long-run window one step late": (("t < T; t++)", "t <= T; t++)"), "long run"),
    "an escaped orbit without a period": (("=== Infinity) return 1;", "=== Infinity) return 0;"), "period"),
    "the anchor's weights swapped": (("alpha * a + (1 - alpha) * z", "(1 - alpha) * a + alpha * z"), "variant: g(z)"),
    "variant multiplier without 1 - alpha": (("const g = 1 - alpha + ", "const g = "), "variant: fixed points"),
    "pass@k with log(1 - p) for log1p(-p)": (("-M.expm1(k * M.log1p(-p))", "-M.expm1(k * M.log(1 - p))"), "pass@k"),
    "the prompts' advantages summed, not averaged": (("sum / Q / beta", "sum / beta"), "shared orbit"),
    "the low clip binding above 1": (("(a < 0 && x < 1 - low)", "(a < 0 && x > 1 + low)"), "expected-update orbit"),
    "no multinomial coefficient": (("group.logMultiplicity + logProb", "0 + logProb"), "expected-update orbit"),
    "the reward's probabilities swapped": (("1 ? logHit : logMiss", "1 ? logMiss : logHit"), "expected-update orbit"),
    "the group advantage smoothed by 1e-4": (("PAPER_EPS = 1e-5", "PAPER_EPS = 1e-4"), "expected-update orbit"),
    "a wrong constant of the clip bandit": (("BANDIT_MU: 4", "BANDIT_MU: 3"), "constants"),
}


@pytest.fixture(scope="module")
def small_outputs(tmp_path_factory) -> dict[str, dict]:
    """What grpo_math.js (key None) and each of its copies with a wrong formula (key: the name in WRONG_FORMULAS)
    compute on SMALL_SPEC, in one node run."""
    source = MATH_SCRIPT.read_text(encoding="utf-8")
    folder = tmp_path_factory.mktemp("wrong_math")
    scripts = [MATH_SCRIPT]
    for k, ((right, wrong), _) in enumerate(WRONG_FORMULAS.values()):
        scripts.append(folder / f"grpo_math_{k}.js")
        scripts[-1].write_text(source.replace(right, wrong), encoding="utf-8")
    return dict(zip([None, *WRONG_FORMULAS], run_math(scripts, SMALL_SPEC), strict=True))


def test_the_negative_tests_grid_passes_with_the_right_formulas(small_outputs):
    assert not compare(small_outputs[None], SMALL_SPEC)


@pytest.mark.parametrize("name", list(WRONG_FORMULAS))
def test_a_wrong_formula_in_grpo_math_is_caught(name, small_outputs):
    (right, _), check = WRONG_FORMULAS[name]
    assert MATH_SCRIPT.read_text(encoding="utf-8").count(right) == 1, f"no longer in grpo_math.js: {right!r}"
    failures = compare(small_outputs[name], SMALL_SPEC)
    assert check in failures, f"{name}: the check {check!r} passed; failures: {failures}"
