"""Section "The Rényi term vanishes from pi_0 = pi_ref" of the chapter "GRPO variants" (``book/variants_both_kls.md``):
the Rényi correction vanishes from pi_ref, and from any other start it is what the one-dimensional recursion misses; it
decays like (1 - alpha)^{2n}."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grpo_nb.chapters.variants.variant_set import _NAMES, NORMALIZATIONS, _small, random_instance
from grpo_nb.report import Table
from grpo_nb.variants.map import iterate_logit
from grpo_nb.variants.policy import policy_orbit, renyi_correction, renyi_recursion_logit, success_logit

__all__ = ["RenyiCheck", "renyi_check"]

_HEADERS = [
    "α",
    "normalisation",
    r"max $\lvert R_n\rvert$ from $\pi_{\mathrm{ref}}$",
    r"max $\lvert z_n - \text{recursion}\rvert$ from $\pi_{\mathrm{ref}}$",
    r"$\lvert R_0\rvert$ from $\pi_0$",
    r"corrected error from $\pi_0$",
    "error without $R$ at $n = 1$",
    "decay rate of $R_n$",
    r"$2 \log(1 - \alpha)$",
]


def _decay_rate(terms: np.ndarray, floor: float = 1e-11) -> float:
    """Mean of log|R_n / R_{n-1}| over the last four steps with |R| above ``floor`` (rounding level below it)."""
    log_r = np.log(np.abs(terms[np.abs(terms) > floor]))
    return float(np.mean(np.diff(log_r)[-4:]))


@dataclass(frozen=True)
class RenyiCheck:
    """Per (alpha, normalisation): the Rényi term from pi_ref, and from another start what it corrects and how fast."""

    table: Table
    from_ref_max: float
    from_ref_recursion_error: float
    corrected_error: float
    uncorrected_smallest: float
    decay_rates: np.ndarray
    predicted_rates: np.ndarray
    corrections: dict


def _run_from_ref(pi_ref, reward, beta, eps, *, n: int, normalization: str, alpha: float) -> tuple[float, float]:
    """The exact tabular run from pi_0 = pi_ref: the largest |Rényi term| along it, and the largest
    |logit p_n - recursion| relative to max(1, |recursion|)."""
    ref_run = policy_orbit(pi_ref, reward, beta, eps, n=n, normalization=normalization, alpha=alpha)
    terms_ref = np.array([abs(renyi_correction(pi_ref, pi, reward, alpha=alpha)) for pi in ref_run])
    z_map = iterate_logit(float(pi_ref @ reward), beta, eps, n=n, normalization=normalization, alpha=alpha)
    ref_error = float(np.max(np.abs(success_logit(ref_run, reward) - z_map) / np.maximum(1.0, np.abs(z_map))))
    return float(terms_ref.max()), ref_error


def _run_from_other(
    pi_ref, pi_0, reward, beta, eps, *, n: int, normalization: str, alpha: float
) -> tuple[np.ndarray, float, float]:
    """The exact tabular run from another pi_0: the Rényi terms R_0..R_n along it, the largest |logit p_n - the Rényi
    form of the recursion| and |logit p_1 - the recursion without R|."""
    other = policy_orbit(pi_ref, reward, beta, eps, n=n, normalization=normalization, alpha=alpha, pi_0=pi_0)
    z_next = success_logit(other[1:], reward)
    options = {"normalization": normalization, "alpha": alpha}
    corrected = np.array([renyi_recursion_logit(pi_ref, pi, reward, beta, eps, **options) for pi in other[:-1]])
    plain = np.array(
        [renyi_recursion_logit(pi_ref, pi, reward, beta, eps, **options, corrected=False) for pi in other[:-1]]
    )
    terms = np.array([renyi_correction(pi_ref, pi, reward, alpha=alpha) for pi in other])
    return terms, float(np.max(np.abs(z_next - corrected))), float(np.abs(z_next - plain)[0])


def renyi_check(
    rng: np.random.Generator,
    alphas: Sequence[float] = (0.3, 0.5, 0.7),
    n: int = 20,
    beta: float = 1.0,
    eps: float = 1e-2,
) -> RenyiCheck:
    """Exact tabular runs of 0 < alpha < 1, from pi_0 = pi_ref and from a random pi_0 with the same support.

    from pi_ref: the largest |Rényi term| and |logit p_n - recursion| over the run; from pi_0: the Rényi form of the
    recursion (:func:`grpo_nb.variants.renyi_recursion_logit`) against the tabular logit p_n, with and without the
    term, and the decay rate of the term, log|R_n/R_{n-1}| averaged over the last four steps where |R_n| > 1e-11,
    against 2 log(1 - alpha).
    """
    pi_ref, pi_0, reward, _ = random_instance(rng, 30)
    rows, from_ref, ref_err, corr_err, uncorr, rates, predicted, series = [], 0.0, 0.0, 0.0, np.inf, [], [], {}
    for alpha in alphas:
        for normalization in NORMALIZATIONS:
            options = {"n": n, "normalization": normalization, "alpha": alpha}
            ref_max, ref_error = _run_from_ref(pi_ref, reward, beta, eps, **options)
            terms, corrected_error, plain_error = _run_from_other(pi_ref, pi_0, reward, beta, eps, **options)
            rate = _decay_rate(terms)
            from_ref, ref_err = max(from_ref, ref_max), max(ref_err, ref_error)
            corr_err, uncorr = max(corr_err, corrected_error), min(uncorr, plain_error)
            rates.append(rate)
            predicted.append(2 * np.log(1 - alpha))
            series[alpha, normalization] = np.abs(terms)
            rows.append(
                [
                    alpha,
                    _NAMES[normalization],
                    _small(ref_max),
                    _small(ref_error),
                    abs(terms[0]),
                    _small(corrected_error),
                    plain_error,
                    rate,
                    2 * np.log(1 - alpha),
                ]
            )
    return RenyiCheck(
        Table(_HEADERS, rows, ".3g"), from_ref, ref_err, corr_err, uncorr, np.array(rates), np.array(predicted), series
    )
