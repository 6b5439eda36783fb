"""Section "Why is the KL missing (or NaN) from the logs, and where is the reference model?" of the chapter
"Questions from the trackers" (``book/tracker_questions.md``): TRL's default beta = 0, in TRL's trainer and in the
success recursion.

- :func:`trl_beta_check`: real training steps of TRL's ``GRPOTrainer`` at beta = 0 and at beta > 0 (reference model
  built or not, ``kl`` logged or not), with TRL's default and a probe's loss
  (:func:`~grpo_nb.chapters.trl_grpo.knobs_defaults.beta_default_check`), against :data:`BOOK_TRL_BETA`;
- :func:`small_beta_check`: Theorem 2's map as beta -> 0 on a grid of (beta, p_ref): every fixed point's logit lies
  at least Theorem 3's margin 1/(beta sqrt(1/4 + eps)) above logit p_ref, the extreme fixed points rise as beta falls
  (:data:`BOOK_SMALL_BETA`), and the orbit tends to the beta = 0 limit the TRL chapter predicts with
  (:func:`book_beta_zero_orbit`: p_0 = p_ref, then 1);
- :func:`beta_zero_run`: the cached beta = 0 TRL run (``grpo_nb/data/trl_full.json``) against that limit;
- :func:`practical_beta`: the numbers the section's advice quotes, recomputed from the cheat sheet's analysis and the
  cached runs.

Each check reads the book's side of its comparison (a module-level name of this module) when it runs, so replacing
it by a wrong statement (as the tests do) makes the check fail.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logit

from grpo_nb.chapters.cheat_sheet import practice
from grpo_nb.chapters.trl_grpo.advantage_probe import _probe_setup
from grpo_nb.chapters.trl_grpo.beta_zero import BetaZeroFacts, beta_zero_facts
from grpo_nb.chapters.trl_grpo.full_runs import _arrays, amplification_facts, load_result
from grpo_nb.chapters.trl_grpo.knobs_defaults import beta_default_check
from grpo_nb.constants import CLIP_EPS, PAPER_EPS, PRACTICAL_BETA
from grpo_nb.dynamics.fixed_points import fixed_points_grid
from grpo_nb.dynamics.map import h, iterate, logit_map_margin
from grpo_nb.dynamics.uniform_beta import safe_betas
from grpo_nb.trl_adapters.trainer import TRL_EQUIVALENT_EPS, TRLRun, _theory, beta_effective, make_trainer
from grpo_nb.validation import check_beta, check_eps, check_p_ref, check_positive_int

__all__ = [
    "BETA_GRID",
    "BETA_ZERO_KEY",
    "BOOK_SMALL_BETA",
    "BOOK_TRL_BETA",
    "BetaZeroRun",
    "CACHED_RUNS",
    "P_REF_GRID",
    "PracticalBeta",
    "SMALL_BETA_EPS",
    "SmallBetaCheck",
    "TRLBetaCheck",
    "beta_zero_run",
    "book_beta_zero_orbit",
    "practical_beta",
    "small_beta_check",
    "trl_beta_check",
]

#: The book's statement of what TRL does at its default beta and at beta > 0 (TRL 1.16, no vLLM).
BOOK_TRL_BETA: dict[str, object] = {
    "default beta": 0.0,
    "reference model at beta = 0": False,
    "kl logged at beta = 0": False,
    "loss moved by the reference at beta = 0": False,
    "reference model at beta > 0": True,
    "kl logged at beta > 0": True,
    "logged kl finite at beta > 0": True,
}


@dataclass(frozen=True)
class TRLBetaCheck:
    """:func:`trl_beta_check`: what TRL did (``measured``, keyed as :data:`BOOK_TRL_BETA`), the entries where the book
    says otherwise ({name: (TRL, book)}, empty when none), the parameters of the policy and of the reference model
    at beta > 0 (the memory beta = 0 saves), and the KL values TRL logged at beta > 0."""

    beta: float
    measured: dict[str, object]
    mismatches: dict[str, tuple[object, object]]
    policy_params: int
    reference_params: int
    kl_logged: tuple[float, ...]

    @property
    def rows(self) -> list[tuple[str, str, str]]:
        """(entry, what TRL did, what the book states) per entry of :data:`BOOK_TRL_BETA` (read now)."""
        return [(k, str(self.measured.get(k)), str(v)) for k, v in BOOK_TRL_BETA.items()]


def _train_steps(beta: float, *, seed: int, n: int):
    """``n`` real training steps of TRL on the probe task at ``beta`` (num_iterations 1); the trainer."""
    trainer = make_trainer(_probe_setup(), TRLRun("beta", beta, CLIP_EPS), num_iterations=1, max_steps=n, seed=seed)
    trainer.train()
    return trainer


def trl_beta_check(beta: float = PRACTICAL_BETA, *, seed: int = 0, n: int = 2) -> TRLBetaCheck:
    """Section "Why is the KL missing": ``n`` training steps of TRL's ``GRPOTrainer`` on the probe task (four
    prompts, G = 8) at beta = 0 and at ``beta``: whether TRL built a reference model and logged ``kl`` (in
    ``trainer.state.log_history``, what a user's logger receives); TRL's default beta and whether a probe's loss at it
    moves when the reference log-probabilities are moved 1 nat
    (:func:`~grpo_nb.chapters.trl_grpo.knobs_defaults.beta_default_check`, at TRL's default beta, which the entry
    "default beta" checks is 0); all against :data:`BOOK_TRL_BETA`."""
    beta = float(check_beta(beta))
    n = check_positive_int("n", n)
    zero, positive = (_train_steps(b, seed=seed, n=n) for b in (0.0, beta))
    kl = tuple(float(entry["kl"]) for entry in positive.state.log_history if "kl" in entry)
    default = beta_default_check()
    measured: dict[str, object] = {
        "default beta": default.default,
        "reference model at beta = 0": zero.ref_model is not None,
        "kl logged at beta = 0": any("kl" in entry for entry in zero.state.log_history),
        "loss moved by the reference at beta = 0": default.loss != 0,
        "reference model at beta > 0": positive.ref_model is not None,
        "kl logged at beta > 0": bool(kl),
        "logged kl finite at beta > 0": bool(kl) and bool(np.isfinite(kl).all()),
    }
    book = BOOK_TRL_BETA
    mismatches = {k: (measured.get(k), v) for k, v in book.items() if measured.get(k) != v}
    n_ref = 0 if positive.ref_model is None else sum(w.numel() for w in positive.ref_model.parameters())
    return TRLBetaCheck(beta, measured, mismatches, sum(w.numel() for w in positive.model.parameters()), n_ref, kl)


#: The (effective) betas and prompts of :func:`small_beta_check`: beta from 1e-3 to 10, p_ref from hard to easy.
BETA_GRID: tuple[float, ...] = tuple(float(b) for b in np.logspace(-3, 1, 25))
P_REF_GRID: tuple[float, ...] = (1e-3, 1e-2, 0.1, 0.5, 0.9)
#: The eps of :func:`small_beta_check` in the chapter: the paper's 1e-5 and TRL's equivalent 1e-8.
SMALL_BETA_EPS: tuple[float, ...] = (PAPER_EPS, TRL_EQUIVALENT_EPS)

#: The book's statement of Theorem 2's map as beta -> 0: the lowest and the highest fixed point rise as beta falls
#: ("rise" / "fall"), and h(p) tends to this value for every 0 < p < 1 (float64 reaches it at beta = 1e-3).
BOOK_SMALL_BETA: dict[str, object] = {"extreme fixed points as beta falls": "rise", "limit of h(p), 0 < p < 1": 1.0}


def book_beta_zero_orbit(p_ref: np.ndarray, n: int) -> np.ndarray:
    """The book's statement of the orbit at beta = 0, as the TRL chapter predicts its beta = 0 run with it
    (:func:`grpo_nb.trl_adapters.trainer._theory` at beta = 0): p_0 = p_ref, then p_n = 1. Shape (n + 1, P)."""
    return _theory(np.asarray(p_ref, dtype=float), 0.0, 2, n)[0]


@dataclass(frozen=True)
class SmallBetaCheck:
    """:func:`small_beta_check` at one eps. ``lowest``, ``highest``: the logits of the lowest and highest fixed point,
    (beta, p_ref); ``direction``: "rise" when both rise at every step down the beta grid, "fall" when both fall,
    else "mixed"; ``margin_gap``: the smallest (logit of a fixed point - logit p_ref - Theorem 3's margin), >= 0 when
    the margin holds; ``h_smallest_beta``: the smallest h(p) over p in (0, 1) and the prompts at the smallest beta;
    ``orbit_gap``: per beta, max |h^n(p_ref) - :func:`book_beta_zero_orbit`| over 1 <= n <= ``n`` and the prompts, and
    ``orbit_bound`` its bound max sigmoid(-(logit p_ref + margin)); ``mismatches``: the entries of
    :data:`BOOK_SMALL_BETA` that the grid contradicts."""

    eps: float
    betas: np.ndarray
    p_ref: np.ndarray
    lowest: np.ndarray
    highest: np.ndarray
    direction: str
    margin_gap: float
    h_smallest_beta: float
    orbit_gap: np.ndarray
    orbit_bound: np.ndarray
    mismatches: dict[str, tuple[object, object]]

    @property
    def rows(self) -> list[tuple[float, ...]]:
        """(beta, logit of the lowest fixed point at each p_ref) at the betas of the grid that are powers of ten,
        beta descending: the table of the section."""
        decades = np.isclose(np.log10(self.betas), np.round(np.log10(self.betas)))
        rows = [(float(b), *map(float, z)) for b, z in zip(self.betas[decades], self.lowest[decades], strict=True)]
        return rows[::-1]

    @property
    def agree(self) -> bool:
        """No mismatch, the margin holds everywhere, the orbit is within its bound at every beta (up to 1e-12) and
        equal to the beta = 0 orbit at the smallest beta."""
        within = bool((self.orbit_gap <= self.orbit_bound + 1e-12).all())
        return not self.mismatches and self.margin_gap >= 0 and within and self.orbit_gap[0] == 0


def _direction(logits: np.ndarray) -> str:
    """ "rise" when the logits grow at every step down the beta grid (axis 0 ascending in beta), "fall" when they
    shrink at every step, else "mixed"."""
    step = np.diff(logits, axis=0)
    return "rise" if (step < 0).all() else "fall" if (step > 0).all() else "mixed"


def small_beta_check(
    eps: float = PAPER_EPS, *, betas: tuple[float, ...] = BETA_GRID, p_refs: tuple[float, ...] = P_REF_GRID, n: int = 10
) -> SmallBetaCheck:
    """Section "Why is the KL missing", the recursion at beta -> 0: on the grid ``betas`` x ``p_refs`` (Theorem 2 at
    ``eps``; for TRL read beta as :func:`~grpo_nb.trl_adapters.trainer.beta_effective`), every fixed point
    (:func:`grpo_nb.dynamics.fixed_points_grid`), the map h on 199 values of p in (0, 1) and the orbit of ``n``
    steps (:func:`grpo_nb.dynamics.iterate`), held against :data:`BOOK_SMALL_BETA` and :func:`book_beta_zero_orbit`."""
    eps = float(check_eps(eps))
    if not eps > 0:
        raise ValueError(
            f"eps={eps!r} is out of range; valid range is 0 < eps < inf (at eps = 0 small beta leaves no fixed point)"
        )
    b = np.sort(check_beta(np.asarray(betas, dtype=float)))
    if b.size < 2:
        raise ValueError(f"betas={betas!r} is out of range; valid: at least two values of beta > 0")
    p_ref = check_p_ref(np.asarray(p_refs, dtype=float))
    n = check_positive_int("n", n)
    grid = fixed_points_grid(p_ref[None, :], b[:, None], eps)
    lowest, highest = grid.logits[..., 0], np.nanmax(grid.logits, axis=-1)
    a, margin = logit(p_ref)[None, :], logit_map_margin(b, eps)[:, None]
    margin_gap = float(np.nanmin(grid.logits - (a + margin)[..., None]))
    direction = _direction(lowest) if _direction(lowest) == _direction(highest) else "mixed"
    p = np.linspace(0.005, 0.995, 199)
    h_small = float(np.min(h(p[:, None], p_ref[None, :], b[0], eps)))
    limit = book_beta_zero_orbit(p_ref, n)
    orbit_gap = np.array([np.abs(iterate(p_ref, beta, eps, n)[1:] - limit[1:]).max() for beta in b])
    orbit_bound = expit(-(a + margin)).max(axis=1)
    measured = {"extreme fixed points as beta falls": direction, "limit of h(p), 0 < p < 1": h_small}
    book = BOOK_SMALL_BETA
    mismatches = {k: (measured.get(k), v) for k, v in book.items() if measured.get(k) != v}
    return SmallBetaCheck(
        eps, b, p_ref, lowest, highest, direction, margin_gap, h_small, orbit_gap, orbit_bound, mismatches
    )


#: The cached full TRL runs (shipped in ``grpo_nb/data/``) and the key of the one at TRL's default beta = 0.
CACHED_RUNS = "trl_full.json"
BETA_ZERO_KEY = "beta=0 (TRL default)"


def _runs(result: dict | None) -> dict:
    return load_result(CACHED_RUNS) if result is None else result


@dataclass(frozen=True)
class BetaZeroRun:
    """:func:`beta_zero_run`: the cached beta = 0 run (``mu`` optimizer steps per outer step, learning rate ``lr``,
    ``n_prompts`` prompts, ``n`` outer steps) against the beta -> 0 limit. ``limit_gap``: max |the run's stored
    prediction - :func:`book_beta_zero_orbit`|; ``first_step``: (smallest, largest) measured p_1; ``final``: (smallest,
    largest) p after the last outer step; ``below_ref``: prompts that end below their p_ref; ``facts``: TRL's moves by
    what each group held (:func:`~grpo_nb.chapters.trl_grpo.beta_zero.beta_zero_facts`)."""

    mu: int
    lr: float
    n_prompts: int
    n: int
    limit_gap: float
    first_step: tuple[float, float]
    final: tuple[float, float]
    below_ref: int
    facts: BetaZeroFacts


def beta_zero_run(result: dict | None = None, key: str = BETA_ZERO_KEY) -> BetaZeroRun:
    """Section "Why is the KL missing": what TRL's beta = 0 run did (exact per-prompt success after each outer step of
    the cached full runs, :data:`CACHED_RUNS` when ``result`` is None) where the beta -> 0 limit of the recursion
    predicts p_1 = 1 for every prompt."""
    result = _runs(result)
    if key not in result.get("runs", {}):
        raise ValueError(f"key={key!r} is out of range; valid keys are {sorted(result.get('runs', {}))}")
    a, cfg = _arrays(result, key), result["trl_config"]
    p = a["p"]
    n = p.shape[0] - 1
    return BetaZeroRun(
        mu=int(cfg["mu"]),
        lr=float(cfg["lr"]),
        n_prompts=int(p.shape[1]),
        n=n,
        limit_gap=float(np.abs(a["theory"] - book_beta_zero_orbit(p[0], n)).max()),
        first_step=(float(p[1].min()), float(p[1].max())),
        final=(float(p[-1].min()), float(p[-1].max())),
        below_ref=int((p[-1] < p[0]).sum()),
        facts=beta_zero_facts(result, key, int(cfg["G"])),
    )


@dataclass(frozen=True)
class PracticalBeta:
    """:func:`practical_beta`: ``beta`` (:data:`~grpo_nb.constants.PRACTICAL_BETA`); ``beta_eff_max``, TRL's beta as
    the paper's at the smallest group (G = 2, the largest factor sqrt(G/(G-1))); ``first_gain``: the least gain in
    logit of one exact step at ``beta``, eps = 1e-5 (the cheat sheet's margin 2/(beta sqrt(1 + 4 eps))); the unsafe
    beta interval of Remark 2 for prompts p_ref >= 1e-12 at the paper's eps (``unsafe_paper``, the cheat sheet's) and
    at TRL's equivalent eps 1e-8 (``unsafe_trl``); from the cached runs, the mean change of a prompt's success after
    an all-success group (``full_fall``) and the prompts that end below p_ref (``below_ref``), by run."""

    beta: float
    beta_eff_max: float
    first_gain: float
    unsafe_paper: tuple[float, float]
    unsafe_trl: tuple[float, float]
    full_fall: dict[str, float]
    below_ref: dict[str, int]


def practical_beta(result: dict | None = None, keys: tuple[str, ...] = ("beta=2", BETA_ZERO_KEY)) -> PracticalBeta:
    """Section "Why is the KL missing", what to do: the cheat sheet's practical-beta numbers
    (:func:`grpo_nb.chapters.cheat_sheet.practice`), Remark 2's unsafe interval at TRL's eps
    (:func:`grpo_nb.dynamics.uniform_beta.safe_betas`) and, per cached run of ``keys``, the facts of section "TRL's
    default, beta = 0" of the TRL chapter (:data:`CACHED_RUNS` when ``result`` is None)."""
    result = _runs(result)
    missing = [k for k in keys if k not in result.get("runs", {})]
    if missing:
        raise ValueError(f"keys={keys!r} is out of range; valid keys are {sorted(result.get('runs', {}))}")
    sheet = practice()
    (unsafe_trl,) = safe_betas(TRL_EQUIVALENT_EPS, p_lo=1e-12).unsafe
    G = int(result["trl_config"]["G"])
    amp = amplification_facts(result, list(keys))
    return PracticalBeta(
        beta=PRACTICAL_BETA,
        beta_eff_max=beta_effective(PRACTICAL_BETA, 2),
        first_gain=float(sheet.margin[PRACTICAL_BETA]),
        unsafe_paper=tuple(float(x) for x in sheet.unsafe),
        unsafe_trl=(float(unsafe_trl[0]), float(unsafe_trl[1])),
        full_fall={k: beta_zero_facts(result, k, G).mean_change_full for k in keys},
        below_ref=dict(amp.below_ref),
    )
