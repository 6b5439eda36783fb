"""The errata of §4 of Mroueh (2025) v1, amplification and local convergence: the caption of Fig. 3 and the
sentence after it (where Theorem 3's condition (2) holds), and Fig. 4 with Remark 2 (B(p*) read as a lower bound on
beta).

:func:`fig4_reading_checks` reads :func:`~grpo_nb.dynamics.uniform_beta.safe_betas` from this module, so a test can
replace it.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, logit

from grpo_nb.constants import PAPER_EPS
from grpo_nb.dynamics.fixed_points import fixed_points_grid
from grpo_nb.dynamics.paper_bounds import prompt_free_beta_bound, theorem3_condition
from grpo_nb.dynamics.uniform_beta import prompt_beta_bound, safe_betas, supremum_bound
from grpo_nb.symbolic.errata_rows.record import Erratum, _all, _numeric
from grpo_nb.symbolic.identity import Identity

__all__ = ["fig3_readings", "fig4_reading_checks", "rows"]


def fig3_readings(holds: np.ndarray, p_ref: np.ndarray, beta: np.ndarray) -> tuple[bool, bool, bool]:
    """Read a grid of Theorem 3's condition (2) (``holds``, broadcast with ``p_ref`` and ``beta``) three ways.

    caption: it never holds for p_ref < 0.9 and beta > 10 ("satisfied only for high p and small beta"); text: it
    never holds for p_ref > 0.99 and beta < 1e-2 ("for high p_ref, beta not too small"); island: it fails
    somewhere, and only at p_ref > 0.95, 0.3 < beta < 61.
    """
    b, p = np.broadcast_arrays(beta, p_ref)
    fails = ~holds
    caption = not holds[(p < 0.9) & (b > 10)].any()
    text = not holds[(p > 0.99) & (b < 1e-2)].any()
    island = bool(fails.any() and np.all((p[fails] > 0.95) & (b[fails] > 0.3) & (b[fails] < 61)))
    return caption, text, island


def _fig3_caption() -> Erratum:
    beta = np.logspace(-3, 3, 301)[None, :]
    p_ref = expit(np.linspace(0.0, logit(1 - 1e-9), 301))[1:, None]
    holds = theorem3_condition(p_ref, beta, PAPER_EPS)
    caption, text, island = fig3_readings(holds, p_ref, beta)
    fails = ~holds
    printed = _numeric(
        "either reading of caption and text matches the computed region",
        caption + text,
        1,
        caption or text,
        relation=">=",
    )
    corrected = _numeric(
        "eps = 1e-5: grid points where condition (2) fails, all with p_ref > 0.95, 0.3 < beta < 61",
        fails.sum(),
        0,
        island,
        relation=">",
    )
    return Erratum(
        "§4, Fig. 3's caption and the sentence after it",
        "caption: condition (2) is 'mostly satisfied only for high p and small β (Blue area)'; text: the "
        "condition is mild, and 'for high p_ref, β needs to be selected not too small'",
        "the two contradict each other, and neither matches the computed region: at ε = 10⁻⁵ condition (2) fails "
        "only on an island, p_ref above about 0.96 and 0.3 < β < 61; it holds at every β for lower p_ref, and at "
        "small β for every p_ref. The figure itself is not in our text copy",
        "statement",
        corrected,
        printed,
        "amplification",
    )


def _stable_everywhere(p_ref: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    """Per beta: whether every prompt of ``p_ref`` has a stable lowest fixed point (Lemma 1's slope above -1 at the
    fixed point below 1/2 where there is one; a lowest fixed point above 1/2 is never unstable)."""
    fp = fixed_points_grid(p_ref[:, None], beta[None, :], eps)
    slope = np.where(fp.logits < 0, fp.slopes, np.inf).min(axis=-1)
    return np.all(slope > -1, axis=0)


def fig4_reading_checks(eps: float = PAPER_EPS) -> tuple[Identity, Identity]:
    """Fig. 4 and Remark 2 read B(p*) as a lower bound on beta; p* moves with beta, so it is none. Returns (printed,
    corrected) checks over p_ref in [1e-12, 1/2] (400 prompts) and 61 betas from 1e-2 to 1e3:

    printed: the betas at which every prompt's lowest fixed point is stable form [beta_0, inf) (fails: small beta is
    safe, then unsafe, then safe); corrected: the unsafe betas are the one interval of
    :func:`grpo_nb.dynamics.uniform_beta.safe_betas` (grid betas within 2% of its ends are skipped), whose upper end
    is max_p B(p) (:func:`~grpo_nb.dynamics.uniform_beta.supremum_bound`), just below Remark 2's 1/(3^{3/2} sqrt eps);
    and for one prompt (p_ref = 1e-4) the lowest fixed point is stable below its unstable interval as well.
    """
    p_ref, beta = np.geomspace(1e-12, 0.5, 400), np.geomspace(1e-2, 1e3, 61)
    stable = _stable_everywhere(p_ref, beta, eps)
    upward = bool(np.all(stable[np.argmax(stable) :])) if stable.any() else False
    printed = _numeric(
        "betas with every lowest fixed point stable form [beta_0, inf): grid betas out of order",
        int(np.sum(np.diff(stable.astype(int)) < 0)),
        0,
        upward and bool(np.all(np.diff(stable.astype(int)) >= 0)),
    )
    safe = safe_betas(eps)
    (lo, hi), sup = safe.unsafe[0], supremum_bound(eps)
    away = (beta < lo / 1.02) | ((beta > lo * 1.02) & (beta < hi / 1.02)) | (beta > hi * 1.02)
    inside = (beta > lo) & (beta < hi)
    one = prompt_beta_bound(1e-4, eps)
    probe = np.array([one.beta_from / 2, np.sqrt(one.beta_from * one.beta_q), 2 * one.beta_q])
    probe_stable = _stable_everywhere(np.array([1e-4]), probe, eps)
    corrected = _all(
        "the unsafe betas form one interval, bounded below as well as above",
        [
            _numeric(
                f"grid betas whose verdict disagrees with the interval ({lo:.5g}, {hi:.6g})",
                int(np.sum(stable[away] == inside[away])),
                0,
                len(safe.unsafe) == 1 and bool(np.all(stable[away] != inside[away])),
            ),
            _numeric(
                "upper end = max_p B(p) (Remark 2's supremum), below 1/(3^{3/2} sqrt eps)",
                hi,
                sup.beta,
                abs(hi - sup.beta) <= 1e-9 * sup.beta and hi < prompt_free_beta_bound(eps),
            ),
            _numeric(
                "p_ref = 1e-4: stable below, unstable inside, stable above its interval",
                one.beta_from,
                0.0,
                one.beta_from > 0 and probe_stable.tolist() == [True, False, True],
                relation=">",
            ),
        ],
    )
    return printed, corrected


def _fig4_lower_bound() -> Erratum:
    printed, corrected = fig4_reading_checks()
    (lo, hi), one = safe_betas(PAPER_EPS).unsafe[0], prompt_beta_bound(1e-4, PAPER_EPS)
    return Erratum(
        "§4, Fig. 4's caption and the text after it; Remark 2",
        "B(p*) is the 'lower bound on β to ensure local convergence'; uniformly in q, 'take sup on q in all lower "
        "bounds'",
        "β > B(p*) is a condition at the fixed point p*, which moves with β, so B(p*) is no lower bound on β: a "
        f"prompt's lowest fixed point is unstable on an interval of β and stable again below it (p_ref = 10⁻⁴, "
        f"ε = 10⁻⁵: {one.beta_from:.4f} < β < {one.beta_q:.2f}). For p_ref in [10⁻¹², ½] at ε = 10⁻⁵ the β at which "
        f"some lowest fixed point is unstable form one interval, ({lo:.5f}, {hi:.4f}); its upper end, the supremum "
        "over prompts, is the largest value of B, just below the prompt-free bound 1/(3^{3/2}√ε)",
        "statement",
        corrected,
        printed,
        "amplification",
    )


def rows() -> list[Erratum]:
    """The rows of §4, in the paper's order: Fig. 3's caption, then Fig. 4 and Remark 2."""
    return [_fig3_caption(), _fig4_lower_bound()]
