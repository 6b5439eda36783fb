"""The kernel-free figures of the hosted book, in headless Chromium with the network blocked.

The book is built once as the site is built, served from 127.0.0.1, and opened with Playwright driving the system
``chromium``; every request that does not go to that server is aborted, so the figures are shown to work offline.
On each page with a browser figure (one per kind of :data:`grpo_nb.browser.kinds.FIGURE_KINDS`):

- every slider on the page belongs to a browser figure, and moving it with the keyboard redraws the figure
  (no dead slider: the ipywidgets explorers are not rendered without a kernel);
- the plotted numbers, read back from ``window.grpoFigures[id].data`` after setting the sliders to parameter sets
  that include hard prompts, beta = 1e-3 and 1e3 and eps = 0, equal what grpo_nb computes
  (:func:`tests.book.browser_reference.reference`) to 1e-9 relative in logit space;
- the slider moves that ``benchmarks/browser_redraw.py`` times redraw their figure at full size (200 iterations
  and a 400-point curve; the distribution figure at its most iterations, 40, with random rewards); how fast is the
  benchmark's business, never an assert of this suite.

Negative tests serve the page a grpo_math.js with a wrong formula and check that the comparison fails
(``tests/unit/test_browser_math_parity.py`` checks grpo_math.js against grpo_nb without a browser, under node).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.special import expit, logit

from grpo_nb.browser.kinds import FIGURE_KINDS, KIND_NAMES
from grpo_nb.dynamics.map import iterate_logit, logit_map
from grpo_nb.tabular.distribution import pass_at_k
from tests.book.browser_reference import (
    MATH_SCRIPT,
    REFERENCES,
    RTOL,
    SCRIPT,
    assert_logits_close,
    assert_orbit_matches,
    error_growth,
    reference,
)
from tests.book_layout import ROOT

ARTIFACTS = ROOT / "tests" / "artifacts"
FIGURES = {kind.page: (kind.figure_id, kind.name) for kind in FIGURE_KINDS}  # page -> (figure id, kind)
# (p_ref, beta, eps) set with the sliders: the defaults of the chapters, the paper's "divergent" case, hard prompts,
# the ends of the beta range, eps = 0, fixed points within 1e-300 of 1 (logit 6e3 and 3e5) and p_ref next to 1
MAP_CASES = [
    (0.1, 1.0, 1e-5),
    (1e-3, 5.0, 1e-5),
    (1e-4, 5.3, 1e-5),
    (0.5, 1e-3, 1e-5),
    (0.5, 0.05, 1e-5),
    (1e-9, 1e3, 0.0),
    (1e-9, 1e-3, 0.0),
    (0.3, 1.0, 0.0),
    (0.9, 1e3, 1e-11),
    (0.3, 2.0, 1e-2),
    (1 - 1e-9, 1.0, 1.0),
]
VARIANT_CASES = [  # p_ref, beta, eps, alpha, mean-only: both KLs, mirror, alpha = 1, hard prompts, eps = 0, next to 1
    (1e-3, 5.0, 1e-5, 0.5, False),
    (1e-3, 5.0, 1e-5, 0.3, True),
    (0.5, 1e-3, 1e-5, 0.7, False),
    (1e-9, 1e3, 0.0, 0.5, False),
    (1e-9, 1e-3, 0.0, 0.0, False),
    (0.3, 1.0, 0.0, 0.0, True),
    (0.3, 2.0, 1e-2, 1.0, True),
    (1 - 1e-9, 1.0, 1.0, 0.25, False),
    (1e-8, 20.0, 1e-5, 0.5, False),
]
# p_ref, beta, eps (the page's), n, clip, random rewards: the page's defaults, both reward kinds at the most iterations,
# the ends of the beta, p_ref and clip sliders, the chaotic hard prompt (1e-4, 5.3), n = 1
DISTRIBUTION_CASES = [
    (0.1, 0.2, 1e-5, 20, 0.2, False),
    (0.1, 0.2, 1e-5, 40, 0.2, True),
    (1e-4, 5.3, 1e-5, 40, 0.01, False),
    (1e-9, 1e3, 1e-5, 7, 1.0, True),
    (1 - 1e-9, 1e-3, 1e-5, 1, 0.5, False),
    (0.5, 0.05, 1e-5, 30, 0.05, True),
]
BIFURCATION_CASES = [  # p_ref, beta picked on the diagram, eps
    (1e-4, 5.3, 1e-5),
    (1e-3, 0.5, 1e-2),
    (1e-6, 20.0, 0.0),
    (0.3, 2.0, 0.0),
    (0.3, 1.0, 1.0),
]


# --------------------------------------------------------------------------- comparison with grpo_nb


def check_figure(kind: str, data: dict) -> dict:
    """Compare one figure's plotted data with grpo_nb; returns how many orbit entries were compared in full."""
    ref = reference(kind, data)
    par = data["params"]
    if kind == "weights":
        np.testing.assert_allclose(data["omega_plus"], ref["omega_plus"], rtol=1e-12, err_msg="omega+")
        np.testing.assert_allclose(data["omega_minus"], ref["omega_minus"], rtol=1e-12, err_msg="omega-")
        return {}
    if kind == "distribution":
        return check_distribution(data, ref)
    fps = data["fixed_points"]
    assert_logits_close([f["logit"] for f in fps], ref["fixed_logits"], "fixed points (logits)")
    np.testing.assert_allclose([f["slope"] for f in fps], ref["fixed_slopes"], rtol=RTOL, atol=1e-300, err_msg="h'(p*)")
    assert [f["stable"] for f in fps] == list(np.abs(ref["fixed_slopes"]) < 1), "stability"
    if kind == "map":
        assert_logits_close(data["logit_h"], ref["logit_h"], "logit h(p) on the curve")
        return {}
    assert_logits_close(data["logit_gx"], ref["logit_gx"], "map curve")
    if kind == "variant":
        normalization, alpha = "mean" if par["meanOnly"] else "mean_var", par["alpha"]
        args = (par["p_ref"], par["beta"], par["eps"])
        return {
            "orbit": assert_orbit_matches(data["z"], *args, ref["z"], "orbit", normalization, alpha),
            "paper": assert_orbit_matches(data["z_paper"], *args, ref["z_paper"], "paper's orbit"),
        }
    full = {"orbit": assert_orbit_matches(data["z"], par["p_ref"], par["beta"], par["eps"], ref["z"], "orbit")}
    if kind == "bifurcation":
        betas, keep, transient = np.asarray(data["betas"]), data["keep"], data["transient"]
        limit_js = np.asarray(data["limit"], dtype=float).reshape(betas.size, keep).T
        with np.errstate(over="ignore"):
            z_py = iterate_logit(par["p_ref"], betas, par["eps"], n=transient + keep)
        full["diagram"] = assert_orbit_matches(limit_js, par["p_ref"], betas, par["eps"], z_py, "diagram")
        assert np.allclose(ref["limit"], z_py[transient + 1 :].T, equal_nan=True)
    return full


def check_distribution(data: dict, ref: dict) -> dict:
    """The distribution figure against grpo_nb: Theorem 2's orbit as :func:`assert_orbit_matches` compares it; p_n
    and the one prompt's pass@k after n steps to RTOL max(1, |z_n|) (what a logit error of RTOL max(1, |z_n|) moves
    them by), from grpo_nb's orbit where the whole orbit was compared, else (chaos) from the figure's own z_n; the
    rest to RTOL: pass@k before, the shared example's success probabilities and pass@k, and the clip bandit's
    logits (relative to max(1, |logit|)), entropy and top mass in every clip mode."""
    par = data["params"]
    z = np.asarray(data["z"], dtype=float)
    full = assert_orbit_matches(z, par["p_ref"], par["beta"], par["eps"], ref["z"], "orbit")
    rtol = RTOL * max(1.0, abs(z[-1])) if np.isfinite(z[-1]) else RTOL
    p_n, after = (ref["p_n"], ref["one_prompt_after"]) if full == z.size else (expit(z[-1]), None)
    after = pass_at_k(p_n, np.asarray(data["k"])) if after is None else after
    np.testing.assert_allclose(data["p_n"], p_n, rtol=rtol, atol=0, err_msg="p_n")
    np.testing.assert_allclose(data["one_prompt_after"], after, rtol=rtol, atol=1e-300, err_msg="one prompt, after")
    close = {"rtol": RTOL, "atol": 1e-300}
    np.testing.assert_allclose(data["one_prompt_before"], ref["one_prompt_before"], **close, err_msg="one prompt")
    for name in ("shared_p", "shared_before", "shared_after"):
        np.testing.assert_allclose(data[name], ref[name], **close, err_msg=f"{name} (shared example)")
    assert sorted(data["modes"]) == sorted(ref["modes"]), data["modes"].keys()
    for mode, trace in ref["modes"].items():
        js, what = data["modes"][mode], f"clip bandit, {mode}"
        assert_logits_close(js["logits"], trace["logits"], f"{what} (logits)")
        np.testing.assert_allclose(js["entropy"], trace["entropy"], **close, err_msg=f"{what} (entropy)")
        np.testing.assert_allclose(js["top_mass"], trace["top_mass"], **close, err_msg=f"{what} (top mass)")
    return {"orbit": full}


# --------------------------------------------------------------------------- the site and the browser


@pytest.fixture(scope="module")
def site(built_book, served_book):
    """The book built as the site is (warnings are errors) and served on 127.0.0.1 (the session's fixtures)."""
    return {"url": served_book, "html": built_book}


@pytest.fixture(scope="module")
def browser(chromium):
    """The session's headless Chromium (skipped with the reason, or failed under CI, where it is missing)."""
    return chromium


def open_page(browser, site, doc: str, math_script: str | None = None):
    """Open a page with every request off 127.0.0.1 aborted; ``math_script`` replaces grpo_math.js (negative tests)."""
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))

    def route(r):
        if not r.request.url.startswith(site["url"]):
            return r.abort()
        if math_script is not None and r.request.url.endswith("/grpo_math.js"):
            return r.fulfill(body=math_script, content_type="text/javascript")
        return r.continue_()

    page.route("**/*", route)
    page.goto(f"{site['url']}/{doc}.html")
    fid = FIGURES[doc][0]
    page.wait_for_function("id => window.grpoFigures && window.grpoFigures[id] && window.grpoFigures[id].data", arg=fid)
    assert not [e for e in errors if "grpo" in e.lower()], errors
    return page


SET_SLIDERS = """([id, values]) => {
  // move each slider to a value as a reader would (the input snaps to its step), then fire its input event
  const f = window.grpoFigures[id];
  for (const [key, value] of Object.entries(values)) {
    f.inputs[key].value = value;
    f.inputs[key].dispatchEvent(new Event("input"));
  }
  return f.data;
}"""


def slider_positions(kind: str, p_ref: float, beta: float, eps: float) -> dict:
    """Slider positions for (p_ref, beta, eps): log10 beta, logit p_ref, log10 eps (leftmost = 0)."""
    pos = {"p_ref": float(logit(p_ref)), "eps": float(np.log10(eps)) if eps > 0 else -12.0}
    if kind == "bifurcation":
        pos["n"] = 200
    else:
        pos["beta"] = float(np.log10(beta))
    if kind in ("orbit", "variant"):
        pos["n"] = 200
    if kind == "distribution":  # no eps slider: eps is the page's
        del pos["eps"]
    return pos


# --------------------------------------------------------------------------- tests


@pytest.mark.browser
def test_the_site_serves_the_scripts_itself_and_no_widget_manager(site):
    for script in (MATH_SCRIPT, SCRIPT):
        assert (site["html"] / script.name).read_bytes() == script.read_bytes(), script.name
    for doc in FIGURES:
        text = (site["html"] / f"{doc}.html").read_text(encoding="utf-8")
        math_tag, figures_tag = '<script src="../grpo_math.js"></script>', '<script src="../grpo_figures.js"></script>'
        assert math_tag in text and figures_tag in text, doc
        assert text.index(math_tag) < text.index(figures_tag), f"{doc} loads grpo_figures.js before grpo_math.js"
        assert "html-manager" not in text and "require.min.js" not in text, f"{doc} loads the ipywidgets manager"


@pytest.mark.browser
@pytest.mark.parametrize("doc", list(FIGURES))
def test_every_slider_moves_its_figure_from_the_keyboard_offline(browser, site, doc):
    page = open_page(browser, site, doc)
    fid, kind = FIGURES[doc]
    assert page.locator(".jupyter-widgets, .widget-slider").count() == 0, "an ipywidgets view is rendered"
    sliders = page.locator("input[type=range]")
    ours = page.locator(f"#{fid} input[type=range]")
    assert sliders.count() == ours.count() >= 1, "a slider on the page does not belong to the browser figure"
    assert "In a notebook" not in page.locator(f"#{fid}").inner_text(), "the figure did not replace its notebook note"
    assert "Fig." in page.locator(f"#{fid} .grpo-caption").inner_text()
    for k in range(ours.count()):
        slider = ours.nth(k)
        before = page.evaluate("id => [document.querySelector('#' + id + ' .grpo-plots').innerHTML, "
                               "JSON.stringify(window.grpoFigures[id].data.params)]", fid)  # fmt: skip
        slider.focus()
        page.keyboard.press("ArrowRight")
        after = page.evaluate("id => [document.querySelector('#' + id + ' .grpo-plots').innerHTML, "
                              "JSON.stringify(window.grpoFigures[id].data.params)]", fid)  # fmt: skip
        name = slider.get_attribute("aria-label")
        assert after[1] != before[1], f"{doc}: ArrowRight on '{name}' did not change the parameters"
        assert after[0] != before[0], f"{doc}: ArrowRight on '{name}' did not redraw the figure"
    for box in page.locator(f"#{fid} input[type=checkbox]").all():  # "logit axes"
        before = page.locator(f"#{fid} .grpo-plots").inner_html()
        box.focus()
        page.keyboard.press("Space")
        assert page.locator(f"#{fid} .grpo-plots").inner_html() != before, f"{doc}: the checkbox did not redraw"
    if kind == "bifurcation":  # pick beta with a click on the diagram
        before = page.evaluate("id => window.grpoFigures[id].state.betaIndex", fid)
        diagram = page.locator(f"#{fid} .grpo-panel svg").first
        box = diagram.bounding_box()
        diagram.click(position={"x": box["width"] * 0.45, "y": box["height"] / 2})
        assert page.evaluate("id => window.grpoFigures[id].state.betaIndex", fid) != before, "a click picked no beta"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator(f"#{fid}").screenshot(path=str(ARTIFACTS / f"browser-{Path(doc).name}.png"))
    page.close()


@pytest.mark.browser
@pytest.mark.parametrize("doc", list(FIGURES))
def test_plotted_numbers_equal_grpo_nb(browser, site, doc):
    page = open_page(browser, site, doc)
    fid, kind = FIGURES[doc]
    if kind == "weights":
        cases = [(0.5, 1.0, e) for e in (0.0, 1e-11, 1e-5, 1e-2, 1.0)]
    elif kind == "bifurcation":
        cases = BIFURCATION_CASES
    elif kind == "variant":
        cases = VARIANT_CASES
    elif kind == "distribution":
        cases = DISTRIBUTION_CASES
    else:
        cases = MAP_CASES
    compared = []
    for p_ref, beta, eps, *variant in cases:
        pos = slider_positions(kind, p_ref, beta, eps)
        if kind == "weights":
            pos = {"eps": pos["eps"]}
        if kind == "variant":  # the box first (its change redraws), then the sliders, alpha among them
            page.evaluate("([id, v]) => window.grpoFigures[id].set({meanOnly: v})", [fid, variant[1]])
            pos["alpha"] = variant[0]
        if kind == "distribution":  # the box first, then the sliders, n and clip among them
            page.evaluate("([id, v]) => window.grpoFigures[id].set({randomRewards: v})", [fid, variant[2]])
            pos.update(n=variant[0], clip=variant[1])
        data = page.evaluate(SET_SLIDERS, [fid, pos])
        if kind == "variant":
            assert data["params"]["alpha"] == variant[0] and data["params"]["meanOnly"] == variant[1]
        if kind == "distribution":
            assert [data["params"][key] for key in ("n", "clip", "randomRewards")] == variant, data["params"]
        if kind == "bifurcation":  # the grid value of beta nearest the one asked for
            data = page.evaluate("([id, b]) => window.grpoFigures[id].set({beta: b})", [fid, beta])
        par = data["params"]
        if kind != "weights":
            assert abs(np.log(par["p_ref"] / p_ref)) < 0.05 or abs(p_ref - par["p_ref"]) < 1e-8, (par, p_ref)
        assert (par["eps"] == 0) == (eps == 0)
        compared.append(check_figure(kind, data))
        if kind == "orbit":  # the same orbit in logit coordinates
            check_figure(kind, page.evaluate("id => window.grpoFigures[id].set({logitAxes: true})", fid))
            page.evaluate("id => window.grpoFigures[id].set({logitAxes: false})", fid)
    print(f"\n{doc}: {len(cases)} parameter sets match grpo_nb; orbit entries compared in full: {compared}")
    page.close()


TIMED_MOVES = [  # (page, slider moved, two positions, settings first): every figure at n = 200 and 400-point curves
    ("book/policy_dynamics", "beta", "-0.3", "0.3", {}),
    ("book/amplification_convergence", "beta", "0.6", "0.7", {"n": 200}),
    ("book/amplification_convergence", "beta", "0.6", "0.7", {"n": 200, "logitAxes": True}),
    ("book/stabilised_grpo", "eps", "-3", "-2", {}),
    ("book/hard_prompts_chaos", "betaIndex", "200", "260", {"n": 200}),
    ("book/hard_prompts_chaos", "p_ref", "-9.2", "-6.9", {"n": 200}),  # recomputes the whole diagram
    ("book/variants_effective_beta", "alpha", "0.4", "0.6", {"n": 200}),
    ("book/distribution_papers", "clip", "0.2", "0.3", {"n": 40, "randomRewards": True}),  # 4 modes x 40 x 1716 groups
    ("book/distribution_papers", "beta", "-0.7", "-0.6", {"n": 40, "randomRewards": True}),  # bandit orbits kept
]
MOVE = """([id, key, value]) => {
  // a slider move as the reader makes it: new value, input event; returns the figure's data afterwards
  const f = window.grpoFigures[id], input = f.inputs[key];
  input.value = value;
  input.dispatchEvent(new Event("input"));
  return f.data;
}"""


@pytest.mark.browser
def test_the_benchmarked_slider_moves_redraw_at_full_size(browser, site):
    """The moves ``benchmarks/browser_redraw.py`` times (no time is asserted here): each redraws the figure with
    200 iterations and a 400-point curve, and the second position gives other numbers than the first."""
    for doc, key, a, b, settings in TIMED_MOVES:
        page = open_page(browser, site, doc)
        fid, kind = FIGURES[doc]
        data = page.evaluate("([id, s]) => window.grpoFigures[id].set(s)", [fid, settings])
        if kind in ("orbit", "bifurcation", "variant"):
            assert len(data["z"]) == 201 and len(data["x"]) == 400
        first = page.evaluate(MOVE, [fid, key, a])
        second = page.evaluate(MOVE, [fid, key, b])
        assert first != second, (doc, key)
        page.close()


WRONG_FORMULAS = {  # a wrong formula in grpo_math.js, the page that shows it, and what the comparison reports
    "eps outside the root (Eq. 3 as printed)": (
        ("1 / M.sqrt(variance(z) + eps)", "1 / (M.sqrt(variance(z)) + eps)"),
        "book/policy_dynamics",
        "fixed points",
    ),
    "no fixed point searched on z <= 0": (
        ("if (g0 < 0) roots.push", "if (false) roots.push"),
        "book/amplification_convergence",
        "fixed points .logits.: shape",
    ),
    "omega+ without its (1 - p)": (
        ("return [(1 - p) * s, p * s];", "return [s, p * s];"),
        "book/stabilised_grpo",
        "omega[+]",
    ),
    "diagram window one step late": (("t < T; t++)", "t <= T; t++)"), "book/hard_prompts_chaos", "diagram, orbit"),
    "the anchor's weights swapped": (
        ("alpha * a + (1 - alpha) * z", "(1 - alpha) * a + alpha * z"),
        "book/variants_effective_beta",
        "map curve",
    ),
    "the prompts' advantages summed, not averaged": (
        ("sum / Q / beta", "sum / beta"),
        "book/distribution_papers",
        "shared_p",
    ),
}


@pytest.mark.browser
@pytest.mark.parametrize("name", list(WRONG_FORMULAS))
def test_a_wrong_formula_in_the_script_is_caught(browser, site, name):
    (right, wrong), doc, message = WRONG_FORMULAS[name]
    source = MATH_SCRIPT.read_text(encoding="utf-8")
    assert source.count(right) == 1, f"the negative test no longer matches grpo_math.js: {right!r}"
    page = open_page(browser, site, doc, math_script=source.replace(right, wrong))
    fid, kind = FIGURES[doc]
    data = page.evaluate(SET_SLIDERS, [fid, {"beta": -0.7} if kind == "distribution" else {"eps": -5.0}])
    if kind == "orbit":
        data = page.evaluate(SET_SLIDERS, [fid, {"beta": 0.7, "p_ref": float(logit(1e-3))}])  # a fixed point below 1/2
    if kind == "variant":
        data = page.evaluate(SET_SLIDERS, [fid, {"alpha": 0.3}])  # weights that differ when swapped
    with pytest.raises(AssertionError, match=message):
        check_figure(kind, data)
    page.close()


# --------------------------------------------------------------------------- the Python twin, without a browser


def test_reference_rejects_bad_input():
    with pytest.raises(ValueError, match="kind='cobweb'"):
        reference("cobweb", {"params": {"eps": 0.0}})
    with pytest.raises(ValueError, match="beta=-1.0"):
        reference("map", {"params": {"beta": -1.0, "p_ref": 0.1, "eps": 0.0}, "p": [0.5]})
    with pytest.raises(ValueError, match="p_ref=1.5"):
        reference("orbit", {"params": {"beta": 1.0, "p_ref": 1.5, "eps": 0.0, "n": 3}, "x": [0.5], "coords": "p"})
    with pytest.raises(ValueError, match="eps=nan"):
        reference("weights", {"params": {"eps": float("nan")}, "p": [0.5]})
    par = {"beta": 0.2, "p_ref": 0.1, "eps": 1e-5, "n": 2, "clip": 0.2, "randomRewards": False}
    with pytest.raises(ValueError, match="clip=-0.1"):
        reference("distribution", {"params": {**par, "clip": -0.1}, "k": [1, 2]})
    with pytest.raises(ValueError, match="n=0"):
        reference("distribution", {"params": {**par, "n": 0}, "k": [1, 2]})
    with pytest.raises(ValueError, match="k="):
        reference("distribution", {"params": par, "k": [0, 1.5]})


def test_every_kind_of_the_registry_has_a_reference_and_a_page():
    """A kind added to grpo_nb.browser.kinds without its reference here fails, and so does a stray reference."""
    assert sorted(REFERENCES) == sorted(KIND_NAMES)
    assert sorted(kind for _, kind in FIGURES.values()) == sorted(KIND_NAMES)


def test_error_growth_is_bounded_for_an_attracting_cycle_and_explodes_in_chaos():
    cycle = iterate_logit(1e-3, 5.0, 1e-5, n=400)  # the paper's "divergent" case: an attracting 2-cycle
    chaos = iterate_logit(1e-4, 5.2, 1e-5, n=400)  # the chaotic case of the hard-prompts chapter's 60-digit check
    g_cycle, g_chaos = error_growth(cycle, 5.0, 1e-5), error_growth(chaos, 5.2, 1e-5)
    assert g_cycle[0] == 1 and (np.diff(g_cycle) >= 0).all() and g_cycle[-1] < 10
    assert g_chaos[-1] > 1e30  # Lyapunov exponent ~0.35 over 400 steps
    # the bound it gives holds: two orbits started 1e-13 apart stay within 400 G 1e-13 of each other
    nearby = np.empty_like(cycle)
    nearby[0] = cycle[0] + 1e-13
    for k in range(400):
        nearby[k + 1] = logit_map(nearby[k], logit(1e-3), 5.0, 1e-5)
    assert (np.abs(nearby - cycle) <= 400 * g_cycle * 1e-13).all()


def test_the_comparison_fails_on_a_wrong_orbit():
    z = iterate_logit(1e-3, 5.0, 1e-5, n=60)
    assert_orbit_matches(z, 1e-3, 5.0, 1e-5, z, "itself")
    wrong = z * (1 + 1e-7)
    with pytest.raises(AssertionError, match="one step"):
        assert_orbit_matches(wrong, 1e-3, 5.0, 1e-5, z, "perturbed")
    with pytest.raises(AssertionError, match="relative error"):
        assert_logits_close([1.0, np.inf], [1.0, 1e308], "inf against a number")
