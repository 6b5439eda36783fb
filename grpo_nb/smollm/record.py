"""The cached GRPO runs of SmolLM2 (``grpo_nb/data/smollm_runs.json``, written by ``tools/smollm_runs.py``) and
their comparison with the success recursion, prompt by prompt.

For every seed and outer step n the record holds each prompt's exact p_n, Theorem 2's prediction of it from the
measured p_{n-1} and the run's worst gap to that prediction (checked against the stored p when read). Three
predictions of p_n:

- ``from_previous``: Theorem 2's map from the *measured* p_{n-1}, h(p_{n-1}) (exact expectations, the inner problem
  solved);
- ``orbit``: the whole orbit h^n(p_ref) of the recursion from p_0 = p_ref;
- ``finite_group``: the expected next p with groups of G answers, E[p_n | p_{n-1}] of the group-size chapter
  (:func:`grpo_nb.ustat.finite_group.expected_map`, the maximiser with silent groups kept).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from grpo_nb.dynamics.map import h, iterate
from grpo_nb.ustat.finite_group import StepModel, expected_map

__all__ = [
    "RECORD_PATH",
    "SCHEMA",
    "RecursionComparison",
    "SmolRecord",
    "annotate",
    "compare_with_recursion",
    "load_record",
    "theorem2_from_previous",
    "validate_record",
]

RECORD_PATH = Path(__file__).resolve().parent.parent / "data" / "smollm_runs.json"
SCHEMA = {
    "top": ("model", "config", "pairs", "p_ref", "machine", "seeds"),
    "seed": ("p", "p_hat", "step_s", "distinct", "h_of_previous", "worst_gap"),
}
GAP_TOL = 1e-9  # a stored prediction or gap against the one recomputed from the stored p


@dataclass(frozen=True)
class SmolRecord:
    """The record: its config (Algorithm 1's settings), the prompts' (a, b), p_ref, and per seed the exact p (N+1, P)
    and the sampled p_hat (N, P)."""

    model: dict
    config: dict
    pairs: list[tuple[int, int]]
    p_ref: np.ndarray
    machine: dict
    p: dict[int, np.ndarray]
    p_hat: dict[int, np.ndarray]
    step_s: dict[int, list[float]]

    @property
    def seeds(self) -> list[int]:
        return sorted(self.p)


def validate_record(raw: dict) -> None:
    """ValueError naming the first missing key or inconsistent shape of a record read from JSON."""
    for key in SCHEMA["top"]:
        if key not in raw:
            raise ValueError(f"the SmolLM2 record lacks {key!r}; valid: the keys {SCHEMA['top']}")
    n_prompts, n = len(raw["pairs"]), int(raw["config"]["n"])
    if len(raw["p_ref"]) != n_prompts:
        raise ValueError(f"p_ref has {len(raw['p_ref'])} values for {n_prompts} prompts")
    if not raw["seeds"]:
        raise ValueError("the SmolLM2 record has no seed")
    for seed, run in raw["seeds"].items():
        for key in SCHEMA["seed"]:
            if key not in run:
                raise ValueError(f"seed {seed} of the SmolLM2 record lacks {key!r}; valid: {SCHEMA['seed']}")
        if np.shape(run["p"]) != (n + 1, n_prompts) or np.shape(run["p_hat"]) != (n, n_prompts):
            raise ValueError(
                f"seed {seed}: p of shape {np.shape(run['p'])}, p_hat of {np.shape(run['p_hat'])}; "
                f"valid: ({n + 1}, {n_prompts}) and ({n}, {n_prompts})"
            )
        p = np.asarray(run["p"], dtype=float)
        if not np.all((p > 0) & (p < 1)):
            raise ValueError(f"seed {seed}: a success probability outside (0, 1)")
        prediction, gap = theorem2_from_previous(p, raw["config"])
        if not np.allclose(run["h_of_previous"], prediction, rtol=0, atol=GAP_TOL):
            raise ValueError(f"seed {seed}: h_of_previous is not Theorem 2's map of the stored p")
        if abs(run["worst_gap"] - gap) > GAP_TOL:
            raise ValueError(f"seed {seed}: worst_gap={run['worst_gap']} is not max |p_n - h(p_n-1)| = {gap}")


def theorem2_from_previous(p: np.ndarray, config: dict) -> tuple[np.ndarray, float]:
    """Theorem 2's prediction h(p_{n-1}) of every p_n (n >= 1) from the measured p_{n-1} of a run's (N+1, P) exact p,
    and the worst gap max |p_n - h(p_{n-1})|."""
    p = np.asarray(p, dtype=float)
    prediction = np.asarray(h(p[:-1], p[0][None, :], float(config["beta"]), float(config["eps"])))
    return prediction, float(np.max(np.abs(p[1:] - prediction)))


def annotate(raw: dict) -> dict:
    """The record with each seed's Theorem 2 prediction and worst gap added (what :func:`validate_record` checks)."""
    for run in raw["seeds"].values():
        prediction, gap = theorem2_from_previous(np.asarray(run["p"], dtype=float), raw["config"])
        run["h_of_previous"], run["worst_gap"] = prediction.tolist(), gap
    return raw


def load_record(path: Path | str = RECORD_PATH) -> SmolRecord:
    """Read and check the record (ValueError on a bad schema)."""
    raw = json.loads(Path(path).read_text())
    validate_record(raw)
    seeds = {int(s): run for s, run in raw["seeds"].items()}
    return SmolRecord(
        model=raw["model"],
        config=raw["config"],
        pairs=[tuple(pair) for pair in raw["pairs"]],
        p_ref=np.asarray(raw["p_ref"], dtype=float),
        machine=raw["machine"],
        p={s: np.asarray(r["p"], dtype=float) for s, r in seeds.items()},
        p_hat={s: np.asarray(r["p_hat"], dtype=float) for s, r in seeds.items()},
        step_s={s: list(r["step_s"]) for s, r in seeds.items()},
    )


@dataclass(frozen=True)
class RecursionComparison:
    """For one seed: measured p (N+1, P) and the three predictions of p_1..p_N (N, P) each."""

    measured: np.ndarray
    from_previous: np.ndarray
    orbit: np.ndarray
    finite_group: np.ndarray

    def worst_gap(self, prediction: str) -> float:
        """max over steps and prompts of |p_n - prediction_n|."""
        return float(np.max(np.abs(self.measured[1:] - getattr(self, prediction))))


def compare_with_recursion(record: SmolRecord, seed: int) -> RecursionComparison:
    """The measured p_n of ``seed`` beside the recursion's three predictions (Theorem 2 from the measured p_{n-1}, the
    orbit from p_ref, the finite-group expectation from the measured p_{n-1})."""
    if seed not in record.p:
        raise ValueError(f"seed={seed} is not in the record; valid: one of {record.seeds}")
    beta, eps, G = float(record.config["beta"]), float(record.config["eps"]), int(record.config["G"])
    p = record.p[seed]
    p_ref, prev = p[0], p[:-1]
    from_previous = theorem2_from_previous(p, record.config)[0]
    orbit = iterate(p_ref, beta, eps, p.shape[0] - 1)[1:]
    finite = np.stack(
        [
            [
                expected_map(StepModel(p_ref=float(r), beta=beta, eps=eps, G=G), float(q))
                for r, q in zip(p_ref, row, strict=True)
            ]
            for row in prev
        ]
    )
    return RecursionComparison(measured=p, from_previous=from_previous, orbit=orbit, finite_group=finite)
