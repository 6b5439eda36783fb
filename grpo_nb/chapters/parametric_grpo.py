"""The analyses of the chapter "Parametric GRPO" (paper §5, Theorem 5), each returning its table and the values the
chapter's asserts need; the page, and the section of ``book/parametric_grpo_runs.md``, that uses each is named in
brackets.

* :func:`run_summary`, :func:`summary_table`, :func:`timing_table` ("GRPO runs", "Mean success before and after
  GRPO", "Theorem 5 made visible", "The effect of β"): a run's means, gaps and inner-problem errors, per run.
* :func:`run_label`, :func:`per_prompt_table` and :func:`cost_table`: a run's label, the per-prompt table of a run and
  the GPU estimate's table as the page typesets them ("Per-prompt trajectories against the recursion", "On a GPU").
* :func:`theorem5_budget` ("Theorem 5 made visible"): Assumption 1's error budget measured on every run: the smallest
  delta_n the assumption admits, their total delta*, and how far the summed one-step errors overstate TV(pi~_n, pi_n).
* :func:`k3_gradient_direction` ("Theorem 5 made visible"): which KL the k3 estimate's expected gradient follows.
* :func:`propagate` and :func:`segment_slope_bound` (the page ``book/parametric_grpo_unstable.md``): how a run's
  per-step errors propagate along the success recursion (Theorem 5 against |h'|).

Theorem 5 of Mroueh (2025) assumes (Assumption 1) that TV(pi~_n, pi_n) grows by at most delta_n per iteration and
concludes |p~_n - p_n| <= 2 sum_{i<=n} delta_i (for a 0/1 reward the factor 2 can be dropped). The error a network
makes *at step n alone* is a different quantity: with p~_{n-1} given, the ideal step goes to h(p~_{n-1}), so

    eta_n = |p~_n - h(p~_{n-1})|                      (the step's own error, at most TV(pi~_n, T pi~_{n-1})).

By the triangle inequality and the mean value theorem, with e_n = |p~_n - p_n| and L_n the largest |h'| on the
segment between p~_{n-1} and p_{n-1},

    e_n <= eta_n + L_n e_{n-1},   hence   e_n <= sum_{i<=n} eta_i prod_{i<j<=n} L_j          (:func:`propagate`).

For small errors L_j is |h'(p_{j-1})| along the ideal orbit, and the product over a stretch of k steps is
exp(k lambda_k), lambda_k the finite-time Lyapunov exponent of the orbit (``grpo_nb.dynamics.orbit_kind`` gives its
limit). Where lambda < 0 an error is forgotten, and the per-step errors can serve as Assumption 1's delta_n; where a
single step has |h'| >> 1 (the low point of a 2-cycle) or lambda > 0 (chaos), the step errors are multiplied, and
Assumption 1's delta_n must include that multiplication.

The slope is Proposition 1's h' (:func:`grpo_nb.dynamics.map.h_prime`), read through the module-level name
``h_prime``: the negative test replaces it by a wrong slope and sees the bound fail. The step inequality itself holds
by construction (L_n is the largest slope on the segment, so it is the mean value theorem); what can fail is the part
that the map really carries over, |h(p~_{n-1}) - p_n| (``carried``), measured against the gap it started from.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import expit, logit, logsumexp

from grpo_nb.dynamics.map import h, h_prime, iterate
from grpo_nb.kl import expected_estimator_gradient, softmax_kl_gradients
from grpo_nb.report import Table
from grpo_nb.toylm.report import per_prompt_rows
from grpo_nb.validation import check_map_params

if TYPE_CHECKING:
    from grpo_nb.toylm.cost import GPUTimeEstimate
    from grpo_nb.toylm.experiment import RunRecord

__all__ = [
    "ErrorPropagation",
    "GPURunReport",
    "K3Gradient",
    "RunSummary",
    "Theorem5Budget",
    "admissible_deltas",
    "cost_table",
    "gpu_run_report",
    "k3_gradient_direction",
    "per_prompt_table",
    "propagate",
    "run_label",
    "run_summary",
    "segment_slope_bound",
    "summary_table",
    "theorem5_budget",
    "timing_table",
]


_SYMBOLS = {"beta": r"\beta", "mu": r"\mu", "G": "G", "eps": r"\varepsilon"}


def _tex_number(value: str) -> str:
    """``"1e-05"`` as ``10^{-5}``, ``"2e-05"`` as ``2 \\cdot 10^{-5}``; any other number unchanged."""
    mantissa, e, exponent = value.partition("e")
    if not e:
        return value
    power = f"10^{{{int(exponent)}}}"
    return power if mantissa == "1" else rf"{mantissa} \cdot {power}"


def run_label(label: str) -> str:
    """A run's label as the page typesets it (MathJax in a table, mathtext in a figure): ``"main (beta=2)"`` becomes
    ``"main ($\\beta = 2$)"``, ``"mu=4, lr=0.0005"`` becomes ``"$\\mu = 4$, lr ${= 0.0005}$"``,
    ``"sampled G=16, k3 KL"`` becomes ``"sampled, $G = 16$, k3 KL"``."""

    def typeset(match: re.Match) -> str:
        name, value = match.groups()
        if name == "lr":
            return f"lr ${{= {_tex_number(value)}}}$"
        return f"${_SYMBOLS[name]} = {_tex_number(value)}$"

    return re.sub(r"\b(beta|mu|G|eps|lr)=([^\s,)]+)", typeset, label.replace("sampled G=", "sampled, G="))


@dataclass(frozen=True)
class RunSummary:
    """:func:`run_summary`: a run's mean success before and after (measured, and by the recursion), its gaps to the
    recursion and its inner-problem errors. Each field's ``label`` is its column in :func:`summary_table` (``tex``: the
    same, typeset)."""

    mean_p_ref: float = field(metadata={"label": "mean p_ref", "tex": r"mean $p_{\mathrm{ref}}$"})
    mean_p_tilde: float = field(metadata={"label": "mean p~_M", "tex": r"mean $\tilde p_M$ (network)"})
    mean_p_theory: float = field(metadata={"label": "mean p_M", "tex": r"mean $p_M$ (recursion)"})
    median_max_gap: float = field(metadata={"label": "median max gap", "tex": "median max gap"})
    max_gap: float = field(metadata={"label": "max gap", "tex": "max gap"})
    median_one_step_tv: float = field(metadata={"label": "median 1-step TV", "tex": "median one-step TV"})
    max_tv_to_ideal: float = field(metadata={"label": "max TV to ideal", "tex": "max TV to ideal"})


def run_summary(run: RunRecord) -> RunSummary:
    """One run in numbers (sections "Mean success before and after GRPO", "Theorem 5 made visible", "The effect of
    β"): mean p_ref, mean p~_M and p_M, the median over prompts and the largest of max_n |p~_n - p_n|, the median of
    the largest one-step TV error, the largest TV to the ideal policy."""
    return RunSummary(
        mean_p_ref=float(run.p_tilde[0].mean()),
        mean_p_tilde=float(run.p_tilde[-1].mean()),
        mean_p_theory=float(run.p_theory[-1].mean()),
        median_max_gap=float(np.median(run.gap.max(axis=0))),
        max_gap=float(run.gap.max()),
        median_one_step_tv=float(np.median(run.one_step_tv.max(axis=0))),
        max_tv_to_ideal=float(run.tv_to_ideal.max()),
    )


def summary_table(runs: Mapping[str, RunRecord], columns: Sequence[str], *, typeset: bool = False) -> Table:
    """Per run: its label and the :class:`RunSummary` fields named in ``columns`` (sections "Mean success before and
    after GRPO" and "Theorem 5 made visible"); ``typeset``: headers and run labels as the page typesets them (for
    Markdown), else plain text."""
    labels = {f.name: f.metadata["tex" if typeset else "label"] for f in fields(RunSummary)}
    unknown = [c for c in columns if c not in labels]
    if unknown:
        raise ValueError(f"columns={list(columns)!r} names {unknown!r}; valid: fields of RunSummary, {list(labels)}")
    name = run_label if typeset else str
    rows = [[name(r.label), *(getattr(run_summary(r), c) for c in columns)] for r in runs.values()]
    return Table(["run", *(labels[c] for c in columns)], rows, ".3f")


def timing_table(runs: Mapping[str, RunRecord]) -> Table:
    """Per run: wall time, median time of one outer iteration, and rollout throughput (sampled runs) (section "GRPO
    runs")."""
    rows = []
    for run in runs.values():
        tps = run.rollout_tokens_per_s
        rows.append(
            [
                run_label(run.label),
                f"{run.wall_s:.1f}",
                f"{np.median(run.step_s):.3f}",
                "" if tps is None else f"{tps:,.0f}",
            ]
        )
    return Table(["run", "wall time (s)", "per outer step (s)", "rollout (answer tokens / s)"], rows)


def segment_slope_bound(
    a: np.ndarray, b: np.ndarray, p_ref: float, beta: float, eps: float, *, n_grid: int = 2049
) -> np.ndarray:
    """max |h'| over the segment between a and b (elementwise), on a grid uniform in p and one uniform in the logit
    (h' varies fastest near 0 and 1), endpoints included (the page ``book/parametric_grpo_unstable.md``)."""
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    t = np.linspace(0.0, 1.0, n_grid)[:, None]
    lin = lo + t * (hi - lo)
    tiny = 1e-300
    zl, zh = logit(np.clip(lo, tiny, 1 - 1e-16)), logit(np.clip(hi, tiny, 1 - 1e-16))
    curved = np.clip(expit(zl + t * (zh - zl)), lo, hi)
    grid = np.concatenate([lin, curved])
    return np.abs(np.asarray(h_prime(grid, p_ref, beta, eps))).max(axis=0)


@dataclass(frozen=True)
class ErrorPropagation:
    """:func:`propagate` per iteration n = 0..M and prompt (columns): the gap e_n = |p~_n - p_n|, the step errors
    eta_n (row 0 is 0), the segment slopes L_n (row 0 is 1), the propagated bound sum_i eta_i prod_j L_j, Theorem 5's
    bound with the step errors as delta_n (sum_i eta_i, the 0/1-reward constant), |h'| along the ideal orbit, and the
    gap the map carries over, |h(p~_{n-1}) - p_n| (row 0 is 0)."""

    gap: np.ndarray
    step_error: np.ndarray
    slope: np.ndarray
    propagated: np.ndarray
    theorem5: np.ndarray
    orbit_slope: np.ndarray
    carried: np.ndarray

    @property
    def multiplication(self) -> np.ndarray:
        """carried_n / e_{n-1} for n = 1..M: how much the map itself multiplied the gap it was handed (M, P); the
        mean value theorem bounds it by L_n, but it is measured, not defined."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.carried[1:] / self.gap[:-1]

    @property
    def bound_holds(self) -> bool:
        """e_n <= sum_i eta_i prod_j L_j at every n and prompt (a rounding slack of 1e-12)."""
        return bool(np.all(self.gap <= self.propagated + 1e-12))

    def table(self, column: int) -> Table:
        """One prompt's rows: n, then as numbers e_n, eta_n, L_n, the propagated bound, sum eta and |h'(p_{n-1})| on the
        ideal orbit (short headers, for a phone's width: the chapter's prose names each column)."""
        rows = [
            (str(n), self.gap[n, column], self.step_error[n, column], self.slope[n, column],
             self.propagated[n, column], self.theorem5[n, column], self.orbit_slope[n, column])
            for n in range(self.gap.shape[0])
        ]  # fmt: skip
        headers = [r"$n$", r"$e_n$", r"$\eta_n$", r"$L_n$", r"$\sum \eta_i \prod L_j$", r"$\sum \eta_i$",
                   r"$\lvert h'(p_{n-1})\rvert$"]  # fmt: skip
        return Table(headers, rows, ".3g")


def propagate(p_tilde: object, beta: float, eps: float) -> ErrorPropagation:
    """The propagation bound of the module docstring for measured trajectories ``p_tilde`` (M+1, P), row 0 = p_ref
    (the page ``book/parametric_grpo_unstable.md``)."""
    p_tilde = np.asarray(p_tilde, dtype=float)
    if p_tilde.ndim != 2 or p_tilde.shape[0] < 2:
        raise ValueError(f"p_tilde has shape {p_tilde.shape}; valid shape is (M+1, P) with M >= 1")
    p_ref, beta_f, eps_f = check_map_params(p_tilde[0], beta, eps)
    ideal = iterate(p_ref, beta_f, eps_f, p_tilde.shape[0] - 1)
    gap = np.abs(p_tilde - ideal)
    step = np.zeros_like(p_tilde)
    step[1:] = np.abs(p_tilde[1:] - h(p_tilde[:-1], p_ref, beta_f, eps_f))
    lip = np.ones_like(p_tilde)
    orbit = np.full_like(p_tilde, np.nan)
    bound = np.zeros_like(p_tilde)
    carried = np.zeros_like(p_tilde)
    carried[1:] = np.abs(h(p_tilde[:-1], p_ref, beta_f, eps_f) - ideal[1:])
    for n in range(1, p_tilde.shape[0]):
        lip[n] = segment_slope_bound(p_tilde[n - 1], ideal[n - 1], p_ref, beta_f, eps_f)
        orbit[n] = np.abs(np.asarray(h_prime(ideal[n - 1], p_ref, beta_f, eps_f)))
        bound[n] = step[n] + lip[n] * bound[n - 1]
    return ErrorPropagation(gap, step, lip, bound, np.cumsum(step, axis=0), orbit, carried)


def per_prompt_table(prompts: Sequence[str], run: RunRecord) -> Table:
    """Every prompt of ``run``, sorted by p_ref (:func:`grpo_nb.toylm.report.per_prompt_rows`, the command line's
    table), with typeset headers (section "Per-prompt trajectories against the recursion")."""
    headers, rows = per_prompt_rows(list(prompts), run)
    tex = ["prompt", r"$p_{\mathrm{ref}}$", r"$\tilde p_M$ (network)", r"$p_M$ (recursion)", "max gap",
           "max one-step TV"]  # fmt: skip
    if len(headers) != len(tex):
        raise ValueError(f"per_prompt_rows gives the columns {headers}; this table names {len(tex)}")
    return Table(tex, rows, ".3f")


def cost_table(estimate: GPUTimeEstimate) -> Table:
    """The T4 estimate's table (:meth:`grpo_nb.toylm.cost.GPUTimeEstimate.rows`) with the runs' labels typeset (section
    "On a GPU")."""
    headers, rows = estimate.rows()
    return Table(headers, [[run_label(str(row[0])), *row[1:]] for row in rows])


@dataclass(frozen=True)
class GPURunReport:
    """What the page says of the GPU run: ``measured`` (a record exists), one sentence, and the table (or None)."""

    measured: bool
    sentence: str
    table: Table | None


def gpu_run_report(path: str | None = None) -> GPURunReport:
    """The numbers ``tools/gpu_run.sh`` measured on a GPU (:func:`grpo_nb.toylm.gpu_run.load_gpu_run`), one row per
    run, or a sentence saying that no GPU run has been made (section "On a GPU")."""
    from grpo_nb.toylm.gpu_run import load_gpu_run

    record = load_gpu_run(path)
    if record is None:
        sentence = (
            "No GPU run has been made yet: every number on this page was measured on a CPU, and the times above "
            "are an estimate. tools/gpu_run.sh makes that run on a CUDA machine and writes its numbers into the "
            "package."
        )
        return GPURunReport(False, sentence, None)
    tests = record["cuda_tests"]
    sentence = (
        f"Measured on {record['device']} (torch {record['torch']}, CUDA {record['cuda']}) on {record['date']}; "
        f"the CUDA tests: {tests['passed']} passed, {tests['failed']} failed."
    )
    by_reason: dict[str, list[str]] = {}
    for line in record.get("failed_steps", []):
        step, _, reason = line.partition(": ")
        by_reason.setdefault(reason, []).append(step)
    for reason, steps in by_reason.items():
        sentence += f" Not finished ({reason}): {'; '.join(steps)}."
    if not any(run["trainer"] == "trl" for run in record["runs"]):
        timed_out = any(line.startswith("trl") for line in record.get("failed_steps", []))
        why = " (TRL trains on the CPU, one thread per run)" if timed_out else ""
        sentence += (
            f" TRL's trainer has no row{why}: the TRL chapter's numbers are those of its CPU run "
            "(grpo_nb/data/trl_full.json)."
        )
    headers = ["trainer", "configuration", "wall time (s)", "main run (s)", "rollout (answer tokens / s)",
               "median worst gap", "largest worst gap"]  # fmt: skip
    rows = [
        [
            run["trainer"],
            run["config"],
            f"{run['wall_s']:.1f}",
            f"{run['grpo_s']:.1f}",
            "—" if run["rollout_tokens_per_s"] is None else f"{run['rollout_tokens_per_s']:,.0f}",
            f"{run['median_max_gap']:.3f}",
            f"{run['max_gap']:.3f}",
        ]  # fmt: skip
        for run in record["runs"]
    ]
    return GPURunReport(True, sentence, Table(headers, rows))


def admissible_deltas(tv_to_ideal: np.ndarray) -> np.ndarray:
    """The smallest delta_n that Assumption 1 admits for a run whose distances to the ideal policies are
    ``tv_to_ideal`` (rows n = 0..M): delta_n = max(TV_n - TV_{n-1}, 0), n = 1..M (section "Theorem 5 made visible")."""
    tv = np.asarray(tv_to_ideal, dtype=float)
    if tv.ndim != 2 or tv.shape[0] < 2 or not np.all(np.isfinite(tv)):
        raise ValueError(f"tv_to_ideal has shape {tv.shape}; valid: finite, shape (M+1, P) with M >= 1")
    return np.clip(np.diff(tv, axis=0), 0.0, None)


@dataclass(frozen=True)
class Theorem5Budget:
    """:func:`theorem5_budget`, per run key: ``delta_star`` (per prompt, the total of the smallest delta_n Assumption 1
    admits) and ``summed_one_step`` (the median over prompts of sum_{n<=M} TV(pi~_n, T pi~_{n-1}) / TV(pi~_M, pi_M),
    what adding up the one-step errors overstates the distance to the ideal policy by); ``table``: both per run."""

    table: Table
    delta_star: Mapping[str, np.ndarray]
    summed_one_step: Mapping[str, float]


def theorem5_budget(runs: Mapping[str, RunRecord]) -> Theorem5Budget:
    """Assumption 1 measured on every run (section "Theorem 5 made visible", Theorem 5 of Mroueh 2025): the smallest
    admissible delta_n (:func:`admissible_deltas`), their total delta* per prompt (Theorem 5 needs delta* < 1, and then
    bounds every gap by delta* with the 0/1-reward constant), and the one-step errors summed against TV at n = M."""
    stars, summed, rows = {}, {}, []
    for key, run in runs.items():
        star = admissible_deltas(run.tv_to_ideal).sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = float(np.median(np.asarray(run.one_step_tv).sum(axis=0) / run.tv_to_ideal[-1]))
        stars[key], summed[key] = star, ratio
        rows.append([run_label(run.label), float(np.median(star)), float(star.max()), float(run.gap.max()), ratio])
    headers = ["run", r"median $\delta^*$", r"largest $\delta^*$", "largest gap", r"$\sum_n$ one-step TV / TV at $M$"]
    return Theorem5Budget(Table(headers, rows, ".3f"), stars, summed)


#: The random softmaxes of :func:`k3_gradient_direction`: how many, over how many outcomes, and their seed.
K3_DRAWS, K3_OUTCOMES, K3_SEED = 50, 10, 0


@dataclass(frozen=True)
class K3Gradient:
    """:func:`k3_gradient_direction`: over the draws, the largest distance between the k3 term's expected gradient and
    grad KL(pi_ref || pi) (``forward_residual``), and the smallest distance to grad KL(pi || pi_ref)
    (``reverse_distance``), both as the largest absolute difference over the logits."""

    forward_residual: float
    reverse_distance: float
    n_draws: int


def _k3_autograd(logits: np.ndarray, log_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(k3 term's expected gradient, grad KL(pi || pi_ref), grad KL(pi_ref || pi)) by torch's autograd on the
    enumerated softmax (:mod:`grpo_nb.tabular.token_policy`), no formula of :mod:`grpo_nb.kl` involved."""
    import torch

    from grpo_nb.tabular.token_policy import TokenPolicy, flat_gradient, kl_term, sequence_kl

    policy = TokenPolicy((torch.tensor(logits[None, :], requires_grad=True),))
    ref = TokenPolicy((torch.tensor(log_ref[None, :]),))
    term = flat_gradient(kl_term(policy, ref, "k3", placement="loss"), policy)
    return term, *(flat_gradient(sequence_kl(policy, ref, d), policy) for d in ("reverse", "forward"))


def k3_gradient_direction() -> K3Gradient:
    """The expected gradient of Schulman's k3 placed in the loss without the importance ratio, as the toy LM's sampled
    run places it (per token, at theta = theta_old), on random softmaxes: E_{o~pi}[grad k3(o)] = pi - pi_ref, the
    gradient of the forward KL(pi_ref || pi), not of the KL(pi || pi_ref) that k3 estimates (section "Theorem 5 made
    visible"), by the closed forms (:func:`grpo_nb.kl.expected_estimator_gradient`,
    :func:`grpo_nb.kl.softmax_kl_gradients`) and by autograd (:func:`_k3_autograd`); the worse of the two counts."""
    rng = np.random.default_rng(K3_SEED)
    forward_residual, reverse_distance = 0.0, np.inf
    for _ in range(K3_DRAWS):
        logits, ref = rng.normal(size=K3_OUTCOMES), rng.normal(size=K3_OUTCOMES)
        log_ref = ref - logsumexp(ref)
        closed = (expected_estimator_gradient(logits, log_ref, "k3", placement="loss"),
                  *softmax_kl_gradients(logits, log_ref))  # fmt: skip
        for grad, reverse, forward in (closed, _k3_autograd(logits, log_ref)):
            forward_residual = max(forward_residual, float(np.abs(grad - forward).max()))
            reverse_distance = min(reverse_distance, float(np.abs(grad - reverse).max()))
    return K3Gradient(forward_residual, float(reverse_distance), K3_DRAWS)
