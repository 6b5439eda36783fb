"""The Python reference of the browser figures: what ``grpo_nb`` computes for the numbers each one plots.

The hosted book has no Python kernel behind it, so its sliders run two small JavaScript files, which the site serves
itself (``html_extra_path`` in ``_config.yml``; no CDN): ``grpo_nb/browser/grpo_math.js`` computes the numbers and
``grpo_nb/browser/grpo_figures.js`` draws them. The maps are closed forms, so the figures recompute them at every
slider move, in the same logit coordinates as
:mod:`grpo_nb.dynamics` (Thm 2: ``logit h(p) = logit p_ref + 1/(beta sqrt(p(1-p) + eps))``) and with the same
monotone brackets for the fixed points. A chapter places a figure with ``<div data-grpo-figure="KIND" id=...>`` in a
Markdown cell; the kinds, what each draws, its sliders, its page and its Python twins are the records of
:data:`grpo_nb.browser.kinds.FIGURE_KINDS`, and :func:`reference` computes the numbers of each.

In the page, ``window.grpoFigures[id].data`` holds the numbers a figure plots and the inputs it used;
:func:`reference` recomputes them with :mod:`grpo_nb`, and ``tests/book/test_browser_figures.py`` compares the two
with :func:`assert_logits_close` and :func:`assert_orbit_matches` (to ``RTOL``).
``tests/unit/test_browser_math_parity.py`` compares grpo_math.js, run by node, with grpo_nb in the same way.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy.special import expit, logit

from grpo_nb.browser.kinds import figure_kind
from grpo_nb.dynamics.fixed_points import fixed_points_grid
from grpo_nb.dynamics.map import iterate_logit, log_abs_logit_map_slope, logit_h, logit_map
from grpo_nb.tabular import examples
from grpo_nb.tabular.clip_bias import CLIP_MODES, expected_update_orbit
from grpo_nb.tabular.distribution import pass_at_k, shared_success_orbit
from grpo_nb.validation import (
    check_alpha,
    check_beta,
    check_clip_eps,
    check_eps,
    check_p_ref,
    check_positive_int,
    check_scalar,
)
from grpo_nb.variants.map import iterate_logit as variant_iterate_logit
from grpo_nb.variants.map import log_abs_variant_logit_map_slope, variant_logit_map
from grpo_nb.variants.variant import Variant
from grpo_nb.weights import omega_minus, omega_plus

__all__ = [
    "MATH_SCRIPT",
    "REFERENCES",
    "RTOL",
    "SCRIPT",
    "assert_logits_close",
    "assert_orbit_matches",
    "error_growth",
    "reference",
]

BROWSER = Path(__file__).resolve().parents[2] / "grpo_nb" / "browser"
SCRIPT = BROWSER / "grpo_figures.js"  # the drawing
MATH_SCRIPT = BROWSER / "grpo_math.js"  # the numbers (window.GrpoMath; module.exports under node)
RTOL = 1e-9  # relative to max(1, |logit|)


def _fixed_points(p_ref: float, beta: float, eps: float, variant: Variant | None = None) -> dict[str, np.ndarray]:
    grid = fixed_points_grid(p_ref, beta, eps, variant=variant)
    has = ~np.isnan(grid.logits)
    return {"fixed_logits": grid.logits[has], "fixed_slopes": grid.slopes[has]}


def reference(kind: str, data: dict) -> dict[str, np.ndarray | dict]:
    """What grpo_nb computes for the inputs a browser figure of ``kind`` used (``data`` as read from the page).

    ``data["params"]`` holds beta, p_ref, eps (and n; for ``variant`` also alpha and meanOnly); the grids (``p``,
    ``x``, ``betas``) are the figure's own. Returns arrays under the names the figure uses: ``logit_h``, ``z``,
    ``logit_gx``, ``omega_plus``, ``omega_minus``, ``limit`` (bifurcation: shape (len(betas), keep)), ``z_paper``
    (variant: Theorem 2's orbit beside it), and ``fixed_logits``/``fixed_slopes``; for ``distribution`` the names of
    :func:`_distribution_reference`. Each kind of :data:`grpo_nb.browser.kinds.FIGURE_KINDS` has its function in
    :data:`REFERENCES`.
    """
    figure_kind(kind)  # ValueError naming the valid kinds for any other
    eps = float(check_eps(data["params"]["eps"]))
    return REFERENCES[kind](data, eps)


def _p_ref_beta(data: dict) -> tuple[float, float]:
    par = data["params"]
    return float(check_p_ref(par["p_ref"])), float(check_beta(par["beta"]))


def _weights_reference(data: dict, eps: float) -> dict[str, np.ndarray]:
    """The ``weights`` figure's numbers: Eq. 4's two weights on the figure's p grid."""
    p = np.asarray(data["p"], dtype=float)
    return {"omega_plus": omega_plus(p, eps), "omega_minus": omega_minus(p, eps)}


def _map_reference(data: dict, eps: float) -> dict[str, np.ndarray]:
    """The ``map`` figure's numbers: logit h on the figure's p grid and every fixed point."""
    p_ref, beta = _p_ref_beta(data)
    out = _fixed_points(p_ref, beta, eps)
    out["logit_h"] = logit_h(np.asarray(data["p"], dtype=float), p_ref, beta, eps)
    return out


def _orbit_reference(data: dict, eps: float) -> dict[str, np.ndarray]:
    """The ``orbit`` figure's numbers: Theorem 2's orbit, the map on the figure's grid (in p or in logit
    coordinates) and every fixed point."""
    p_ref, beta = _p_ref_beta(data)
    out = _fixed_points(p_ref, beta, eps)
    out["z"] = iterate_logit(p_ref, beta, eps, n=check_positive_int("n", int(data["params"]["n"])))
    x = np.asarray(data["x"], dtype=float)
    with np.errstate(divide="ignore"):  # the p grid holds 0 and 1 when eps > 0: logits -inf and +inf
        z_grid = logit(x) if data.get("coords") == "p" else x
    out["logit_gx"] = logit_map(z_grid, logit(p_ref), beta, eps)
    return out


def _bifurcation_reference(data: dict, eps: float) -> dict[str, np.ndarray]:
    """The ``bifurcation`` figure's numbers: the orbit figure's at the beta picked, and the long-run logits
    ``limit`` over the figure's beta grid."""
    out = _orbit_reference(data, eps)
    p_ref, _ = _p_ref_beta(data)
    transient, keep = check_positive_int("transient", data["transient"]), check_positive_int("keep", data["keep"])
    betas = check_beta(data["betas"])
    with np.errstate(over="ignore"):  # eps = 0: orbits may run off to logit +inf (p = 1)
        out["limit"] = iterate_logit(p_ref, betas, eps, n=transient + keep)[transient + 1 :].T
    return out


def _variant_reference(data: dict, eps: float) -> dict[str, np.ndarray]:
    """The ``variant`` figure's numbers: the variant's fixed points, orbit and map curve, and Theorem 2's orbit."""
    p_ref, beta = _p_ref_beta(data)
    par = data["params"]
    variant = Variant("mean" if par["meanOnly"] else "mean_var", check_scalar("alpha", check_alpha(par["alpha"])))
    n = check_positive_int("n", int(par["n"]))
    out = _fixed_points(p_ref, beta, eps, variant)
    with np.errstate(over="ignore"):  # eps = 0: orbits may run off to logit +inf (p = 1)
        out["z"] = variant_iterate_logit(
            p_ref, beta, eps, n=n, normalization=variant.normalization, alpha=variant.alpha
        )
        out["z_paper"] = iterate_logit(p_ref, beta, eps, n=n)
        out["logit_gx"] = variant(np.asarray(data["x"], dtype=float), logit(p_ref), beta, eps)
    return out


def _distribution_reference(data: dict, eps: float) -> dict[str, np.ndarray | dict]:
    """The ``distribution`` figure's numbers at the figure's k (1..256): Theorem 2's orbit ``z`` from p_ref and
    ``p_n`` = expit(z_n); pass@k of one prompt before (p_ref) and after (p_n); the crossover example's success
    probabilities ``shared_p`` (n + 1, Q) of n shared exact steps and its prompt-averaged pass@k before and after;
    ``modes``: for each clip mode the clip bandit's expected-update orbit (``entropy``, ``top_mass``, ``logits``) at
    the clip range ``params["clip"]``, with Bernoulli(1/2) rewards when ``params["randomRewards"]``, else verifiable."""
    p_ref, beta = _p_ref_beta(data)
    par = data["params"]
    n = check_positive_int("n", int(par["n"]))
    try:
        clip = check_scalar("clip", check_clip_eps(par["clip"]))
    except ValueError as err:
        raise ValueError(str(err).replace("clip_eps", "clip")) from err
    k = np.asarray(data["k"])
    if k.ndim != 1 or not np.array_equal(k, np.round(k)) or (k < 1).any():
        raise ValueError(f"k={data['k']!r} is out of range; valid: integers >= 1")
    k = k.astype(np.int64)
    out: dict[str, np.ndarray | dict] = {"z": iterate_logit(p_ref, beta, eps, n=n)}
    out["p_n"] = expit(out["z"][-1])
    out["one_prompt_before"], out["one_prompt_after"] = pass_at_k(p_ref, k), pass_at_k(out["p_n"], k)
    shared = shared_success_orbit(examples.CROSSOVER_PI_REF, examples.CROSSOVER_REWARD, beta, eps, n=n)
    out["shared_p"] = shared
    out["shared_before"], out["shared_after"] = (
        pass_at_k(p[:, None], k[None, :]).mean(axis=0) for p in shared[[0, -1]]
    )
    bandit = {**examples.bandit_options(clip_eps=clip), "n": n}
    reward = None if par["randomRewards"] else examples.BANDIT_REWARD
    out["modes"] = {}
    for mode in CLIP_MODES:
        trace = expected_update_orbit(np.log(examples.BANDIT_PI0), mode=mode, reward=reward, **bandit)
        out["modes"][mode] = {"entropy": trace.entropy, "top_mass": trace.top_mass, "logits": trace.logits}
    return out


#: the reference of each kind of browser figure (:data:`grpo_nb.browser.kinds.KIND_NAMES`), by its name
REFERENCES = {
    "map": _map_reference,
    "orbit": _orbit_reference,
    "weights": _weights_reference,
    "bifurcation": _bifurcation_reference,
    "variant": _variant_reference,
    "distribution": _distribution_reference,
}


def error_growth(
    z: object, beta: object, eps: object, normalization: str = "mean_var", alpha: float = 1.0
) -> np.ndarray:
    """G_k = max over j <= i < k of |g'(z_j) ... g'(z_i)|: the most the orbit z_0..z_n amplified an error by step k.

    Two float64 implementations of the same map (numpy and a browser) round differently by about 1e-16 per step;
    after k steps their orbits can differ by about k 1e-16 G_k relative, so they must agree to 1e-9 where
    k G_k < 1e6 and may part ways in a chaotic orbit, where G_k grows like e^{lambda k} (Lyapunov exponent lambda).
    ``z`` has shape (n+1, ...) with beta, eps broadcasting against z[0]; returns G of the same shape (G_0 = 1).
    ``normalization`` and ``alpha``: the orbit of a GRPO variant (:mod:`grpo_nb.variants`) instead of Theorem 2's.
    """
    z = np.asarray(z, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if normalization == "mean_var" and alpha == 1.0:
            log_slope = log_abs_logit_map_slope(z[:-1], beta, eps)
        else:
            log_slope = log_abs_variant_logit_map_slope(z[:-1], beta, eps, normalization=normalization, alpha=alpha)
        log_d = np.nan_to_num(log_slope, nan=0.0, posinf=np.inf, neginf=-745.0)
    log_growth = np.zeros_like(z)
    run = np.zeros_like(z[0])  # max over j of the sum of log|g'| from j to the current step (a running "draw-up")
    for k in range(1, z.shape[0]):
        run = np.maximum(run, 0.0) + log_d[k - 1]
        log_growth[k] = np.maximum(log_growth[k - 1], run)
    with np.errstate(over="ignore"):
        return np.exp(log_growth)


def assert_logits_close(js: object, py: object, what: str, rtol: float = RTOL) -> None:
    """|js - py| <= rtol max(1, |py|) elementwise; equal infinities (an orbit that left for p = 1) match."""
    js, py = np.asarray(js, dtype=float), np.asarray(py, dtype=float)
    assert js.shape == py.shape, f"{what}: shape {js.shape} in the browser, {py.shape} in grpo_nb"
    same_inf = np.isinf(js) & (js == py)
    with np.errstate(invalid="ignore"):
        err = np.where(same_inf, 0.0, np.abs(js - py) / np.maximum(1.0, np.abs(py)))
    worst = int(np.nanargmax(np.where(np.isnan(err), np.inf, err))) if err.size else 0
    assert not np.isnan(err).any() and (err <= rtol).all(), (
        f"{what}: browser {js.flat[worst]!r} vs grpo_nb {py.flat[worst]!r} (relative error {err.flat[worst]:.3g})"
    )


def assert_orbit_matches(
    z_js: object,
    p_ref: float,
    beta: object,
    eps: float,
    z_py: np.ndarray,
    what: str,
    normalization: str = "mean_var",
    alpha: float = 1.0,
) -> int:
    """Each browser step z_{k+1} = g(z_k) to RTOL, and the whole orbit equal to grpo_nb's where it cannot have
    amplified rounding beyond 1e-9 (k G_k < 1e6, :func:`tests.book.browser_reference.error_growth`). Returns that count.
    ``normalization``, ``alpha``: the map of a GRPO variant (:mod:`grpo_nb.variants`) in place of Theorem 2's."""
    z_js = np.asarray(z_js, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        if normalization == "mean_var" and alpha == 1.0:
            one_step = logit_map(z_js[:-1], logit(p_ref), beta, eps)
        else:
            one_step = variant_logit_map(z_js[:-1], logit(p_ref), beta, eps, normalization=normalization, alpha=alpha)
    assert_logits_close(z_js[1:], one_step, f"{what}, one step of the map")
    growth = error_growth(z_py, beta, eps, normalization, alpha)[-z_js.shape[0] :]
    steps = np.arange(z_py.shape[0])[-z_js.shape[0] :].reshape(-1, *([1] * (z_js.ndim - 1)))
    tame = np.broadcast_to((steps + 1) * growth < 1e6, z_js.shape)
    assert_logits_close(z_js[tame], z_py[-z_js.shape[0] :][tame], f"{what}, orbit")
    return int(tame.sum())
