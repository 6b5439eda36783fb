"""The ablation ladder: TRL's GRPOTrainer moved toward the assumptions of the success recursion one knob per rung.

Rung 0 is TRL 1.16's ``GRPOTrainer`` as the TRL chapter runs it at beta = 2 (clip range 1e3, so no clipping in
effect; per-token ratio; TRL's default ratio-weighted k3 KL, ``use_bias_correction_kl``; ``loss_type="dapo"``;
Bessel std + 1e-4; one Adam for the whole run). Every later rung keeps the rungs before it and changes one thing:

1. ``sequence_ratio``: the importance ratio is the sequence's pi_theta(o|q)/pi_old(o|q) (the product of the token
   ratios; the objective of Eq. 6 sampled), instead of one ratio per token.
2. ``paper_advantage``: the paper's advantage (r - p_hat)/sqrt(p_hat(1 - p_hat) + eps) (Eq. 3, eps = 1e-8) instead of
   TRL's (r - mean)/(std_Bessel + 1e-4); the recursion it is held against is then at beta, not beta sqrt(G/(G-1)).
3. ``adam_reset``: a fresh Adam for every outer step, as the book's trainer (each inner problem of Algorithm 1 solved
   afresh) instead of Adam's moments carried across generations.
4. ``exact_p``: the advantage uses the exact p_old(q) (every answer enumerated) instead of the group's p_hat; the
   sampled answers stay.
5. ``kl_exact``: the KL term is the exact sequence-level KL(pi_theta || pi_ref) (Eq. 6's penalty) instead of k3 on
   the sampled tokens, summed over every outcome of an answer: the 10**L digit answers and every way to leave them
   (:func:`grpo_nb.trl_adapters.model.enumerate_outcomes_hf`; the network's vocabulary has non-digit tokens, and a
   "KL" over the digit answers alone is not one: moving mass off them lowers it below 0).
6. ``exact``: the whole objective by enumeration, sum_y pi_theta(y|q) A(q, y) - beta KL over every outcome y
   (Eq. 6 with exact expectations, the book's ``estimator="exact"``; an outcome that leaves the digits is a failure):
   the samples TRL draws are not used.

Rung 0 runs TRL's own ``_compute_loss``; the others run :func:`ladder_loss` in a subclass of the trainer (TRL still
generates, schedules, and steps the optimizer). With rung 0's settings :func:`ladder_loss` gives TRL's loss to float
precision (tested). Each rung and seed is one :func:`grpo_nb.trl_adapters.trainer.run_trl`-style run from the same
pi_ref (one SFT); the seed is TRL's (sampling). Imports trl lazily.
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import torch

from grpo_nb.trl_adapters.model import build_model, enumerate_logprobs_hf, enumerate_outcomes_hf
from grpo_nb.trl_adapters.trainer import (
    DEVICE,
    TRL_CONFIGS,
    TRL_EQUIVALENT_EPS,
    TRLRun,
    TRLRunConfig,
    TRLSetup,
    beta_effective,
    make_trainer,
    predictions,
    prepare_trl,
    train_measured,
    versions,
)

__all__ = [
    "LADDER",
    "LADDER_CONFIGS",
    "LADDER_SEEDS",
    "Rung",
    "ladder_loss",
    "LossAgreement",
    "loss_agreement",
    "merge_ladders",
    "pool_runs",
    "run_ladder",
    "run_rung",
    "run_summary",
]

BETA = 2.0  # the TRL chapter's beta = 2 run, whose anomaly the ladder explains
CLIP = 1e3  # TRL's epsilon: no clipping in effect, as in that run
#: The eps of the paper's advantage on the ladder's rungs (from ``paper_advantage`` on): TRL's 1e-4, squared (1e-8),
#: not the paper's eps = 1e-5 (:data:`grpo_nb.constants.PAPER_EPS`).
LADDER_PAPER_EPS = TRL_EQUIVALENT_EPS


@dataclass(frozen=True)
class Rung:
    """One rung: its key, what it changes (``change``), and the settings of every knob the ladder moves."""

    key: str
    change: str
    kl: str = "k3_ratio"  # "k3_ratio": TRL's k3 times the token ratio; "exact": enumerated sequence KL
    kl_weight: str = "ratio"  # k3 only: "ratio" (use_bias_correction_kl, TRL's default) or "none"
    kl_numerics: str = "float32"  # k3 only: "float32" (TRL's exp(d) - d - 1) or "float64" (expm1(d) - d in float64)
    ratio: str = "token"  # "token": one ratio per token (TRL); "sequence": pi_theta(o|q)/pi_old(o|q)
    advantage: str = "trl"  # "trl": (r - mean)/(std_Bessel + 1e-4); "paper": Eq. 3 with eps = LADDER_PAPER_EPS
    reset_adam: bool = False  # a fresh Adam at every outer step
    p: str = "group"  # "group": the advantage's p is the group's p_hat; "exact": p_old(q) by enumeration
    objective: str = "sampled"  # "sampled": TRL's G answers; "exact": every answer enumerated (Eq. 6)

    @property
    def uses_samples(self) -> bool:
        """Whether the rung's loss reads TRL's sampled answers (the sampled objective, k3 on the sampled tokens, or
        the group's p_hat): only then do its seeds differ. The exact rung's runs are the same at every seed (tested),
        so the ladder runs it once."""
        return self.objective == "sampled" or self.kl != "exact" or self.p == "group"

    @property
    def trl_native(self) -> bool:
        """Whether TRL's own ``_compute_loss`` runs this rung (rung 0)."""
        return self == replace(LADDER[0], key=self.key, change=self.change)


def _ladder() -> tuple[Rung, ...]:
    steps = [
        ("trl", "TRL's GRPOTrainer, beta = 2", {}),
        ("sequence_ratio", "token ratios -> sequence ratio", {"ratio": "sequence"}),
        ("paper_advantage", "Bessel std + 1e-4 -> Eq. 3's advantage", {"advantage": "paper"}),
        ("adam_reset", "one Adam -> a fresh Adam per outer step", {"reset_adam": True}),
        ("exact_p", "group p_hat -> exact p_old", {"p": "exact"}),
        ("kl_exact", "ratio-weighted k3 -> exact sequence KL", {"kl": "exact"}),
        ("exact", "G samples -> every answer enumerated", {"objective": "exact"}),
    ]
    rungs, knobs = [], {}
    for key, change, delta in steps:
        knobs |= delta
        rungs.append(Rung(key, change, **knobs))
    return tuple(rungs)


LADDER: tuple[Rung, ...] = _ladder()
LADDER_SEEDS = (0, 1, 2)

#: The ladder's configurations: the TRL chapter's (``full``: 32 prompts, G = 32, mu = 80, 10 outer steps) and a
#: small one for the tests and CI (``tiny``: 4 prompts, G = 4, mu = 2, 2 outer steps; seconds on two CPU cores).
LADDER_CONFIGS: dict[str, TRLRunConfig] = {
    name: replace(TRL_CONFIGS[name], runs=(TRLRun("beta=2", BETA, CLIP),)) for name in ("tiny", "quick", "full")
}


def _sequence_rewards(task, prompt_index: torch.Tensor, completion_ids: torch.Tensor) -> torch.Tensor:
    """r(q, o) of each sampled completion (B,): ``out_len`` digits summing to the prompt's target (as
    :func:`grpo_nb.trl_adapters.trainer.make_reward`; an ``<eos>`` or a ``+`` among the tokens earns 0)."""
    ids = completion_ids[:, : task.out_len]
    digits = (ids < 10).all(dim=1) & (completion_ids.shape[1] >= task.out_len)
    target = torch.as_tensor(task.targets, device=ids.device)[prompt_index]
    return (digits & (ids.clamp(max=9).sum(dim=1) == target)).to(torch.float32)


def _paper_advantage(r: torch.Tensor, p: torch.Tensor, eps: float) -> torch.Tensor:
    """Eq. (3): (r - p)/sqrt(p(1 - p) + eps), elementwise (``grpo_nb.toylm.grpo.contrastive_weights``)."""
    from grpo_nb.toylm.grpo import contrastive_weights

    return contrastive_weights(p, r, eps)


def ladder_loss(
    rung: Rung,
    *,
    beta: float,
    logp: torch.Tensor,
    old_logp: torch.Tensor,
    mask: torch.Tensor,
    advantages: torch.Tensor,
    ref_logp: torch.Tensor | None = None,
    table: torch.Tensor | None = None,
    table_ref: torch.Tensor | None = None,
    table_adv: torch.Tensor | None = None,
    out_len: int,
) -> torch.Tensor:
    """The loss a rung minimises on one generation batch, on TRL's ``dapo`` scale (a mean over tokens).

    ``logp``, ``old_logp``, ``ref_logp`` and ``mask`` are TRL's per-token (B, T) tensors, ``advantages`` (B,) the
    rung's advantages of the sampled completions; ``table`` (P, K + M) is log pi_theta of every outcome of an answer
    (:func:`grpo_nb.trl_adapters.model.enumerate_outcomes_hf`: the digit answers and every way to leave them, so that
    the exact KL is a KL), ``table_ref`` log pi_ref's, ``table_adv`` the exact rung's A(q, y) (Eq. 6 with exact
    expectations: an outcome's A is Eq. 3 at the exact p_old, and one that leaves the digits is a failure).
    With every knob at TRL's setting it
    is TRL's ``_compute_loss`` for ``loss_type="dapo"`` without clipping: sum over tokens of
    -ratio_t A + beta k3_t ratio_t, divided by the number of tokens. Every other setting keeps that scale: a
    sequence-level term is divided by ``out_len`` (the tokens of a full answer), so that on policy every rung's
    gradient is (1/L)(A grad log pi(o|q) - beta grad KL) per answer.
    """
    n_tok = mask.sum().clamp(min=1.0)
    adv = advantages.unsqueeze(1)
    log_ratio = logp - old_logp
    if rung.objective == "exact":
        policy = (table.exp() * table_adv).sum(dim=1).mean() / out_len
    elif rung.ratio == "token":
        policy = (torch.exp(log_ratio) * adv * mask).sum() / n_tok
    else:
        seq_ratio = torch.exp((log_ratio * mask).sum(dim=1))
        policy = (seq_ratio * advantages).mean() / out_len
    if beta == 0:
        return -policy
    if rung.kl == "exact":
        kl = (table.exp() * (table - table_ref)).sum(dim=1).mean() / out_len
    else:
        k3 = k3_per_token(logp, ref_logp, rung.kl_numerics)
        weight = torch.exp(log_ratio) if rung.kl_weight == "ratio" else 1.0
        kl = (k3 * weight * mask).sum() / n_tok
    return -policy + beta * kl


def k3_per_token(logp: torch.Tensor, ref_logp: torch.Tensor, numerics: str = "float32") -> torch.Tensor:
    """Schulman's k3 = e^d - d - 1 per token, d = log pi_ref - log pi (:func:`grpo_nb.kl.k3`), as TRL 1.16 computes it
    (``numerics="float32"``: ``exp(d) - d - 1`` in the tensors' dtype, :func:`grpo_nb.toylm.grpo.k3_kl`, which cancels
    for small |d|) or stably (``"float64"``: ``expm1(d) - d`` in float64, cast back). Both have the same autograd
    graph up to rounding."""
    from grpo_nb.toylm.grpo import k3_kl

    if numerics == "float32":
        return k3_kl(logp, ref_logp)
    if numerics == "float64":
        d64 = (ref_logp - logp).double()  # TRL's d, as its float32 subtraction gives it
        return (torch.expm1(d64) - d64).to(logp.dtype)
    raise ValueError(f"numerics={numerics!r} is not valid; valid: 'float32' or 'float64'")


class _LadderMixin:
    """What the ladder's trainer adds to ``GRPOTrainer``: :func:`ladder_loss` and the outer-step bookkeeping (pi_old's
    exact table at the start of each outer step, the optional Adam reset)."""

    rung: Rung
    setup: TRLSetup
    inner_losses: list

    def _ladder_init(self, rung: Rung, setup: TRLSetup, book_loss: bool = False) -> None:
        self.rung, self.setup, self.inner_losses = rung, setup, []
        self.book_loss = book_loss  # rung 0's loss by ladder_loss instead of TRL's own code (the grid's placebo)
        task = setup.task
        self._prompts = torch.as_tensor(task.prompts, device=DEVICE)
        self._outputs = torch.as_tensor(task.outputs, device=DEVICE)
        self._reward = torch.as_tensor(task.reward_table(), dtype=torch.float32, device=DEVICE)
        self._index = {tuple(int(t) for t in row): i for i, row in enumerate(task.prompts)}
        with torch.random.fork_rng(devices=[]):  # building a model seeds torch: leave TRL's seeded stream as it was
            ref = build_model(setup.cfg.base.model, task.prompt_len + task.out_len, setup.cfg.base.seed)
        ref.load_state_dict(setup.state)
        with torch.no_grad():
            self._table_ref = enumerate_outcomes_hf(ref, self._prompts, self._outputs)
        n_leave = self._table_ref.shape[1] - self._reward.shape[1]  # the outcomes that leave the digits: reward 0
        self._reward_outcomes = torch.cat([self._reward, torch.zeros(task.n_prompts, n_leave, device=DEVICE)], dim=1)
        self._outer = -1
        self._p_old = None

    def _new_outer_step(self, model) -> None:
        with torch.no_grad():
            table_old = enumerate_logprobs_hf(model, self._prompts, self._outputs)
        self._p_old = (table_old.exp() * self._reward).sum(dim=1)
        if self.rung.reset_adam:
            opt = getattr(self.optimizer, "optimizer", self.optimizer)
            opt.state.clear()

    def _compute_loss(self, model, inputs):
        if self.rung.trl_native and not self.book_loss:
            loss = super()._compute_loss(model, inputs)
            self.inner_losses.append(float(loss.detach()))
            return loss
        step = self.state.global_step
        mu = self.args.num_iterations
        if step // mu != self._outer:
            self._outer = step // mu
            self._new_outer_step(model)
        loss = self._rung_loss(model, inputs)
        self.inner_losses.append(float(loss.detach()))
        return loss

    def _rung_loss(self, model, inputs) -> torch.Tensor:
        rung, task = self.rung, self.setup.task
        prompt_ids, completion_ids = inputs["prompt_ids"], inputs["completion_ids"]
        mask = inputs["completion_mask"].float()
        input_ids = torch.cat([prompt_ids, completion_ids], dim=1)
        attention = torch.cat([inputs["prompt_mask"], inputs["completion_mask"]], dim=1)
        logp, _, _ = self._get_per_token_logps_and_entropies(model, input_ids, attention, completion_ids.size(1))
        old = inputs.get("old_per_token_logps")
        old = logp.detach() if old is None else old
        q = torch.as_tensor([self._index[tuple(int(t) for t in row)] for row in prompt_ids], device=prompt_ids.device)
        r = _sequence_rewards(task, q, completion_ids)
        counts = torch.zeros(task.n_prompts, device=r.device).index_add_(0, q, torch.ones_like(r))
        p_hat = torch.zeros(task.n_prompts, device=r.device).index_add_(0, q, r) / counts.clamp(min=1.0)
        p_used = self._p_old if rung.p == "exact" else p_hat  # per prompt
        if rung.p == "exact" or rung.advantage == "paper":
            adv = _paper_advantage(r, p_used[q], LADDER_PAPER_EPS)
        else:
            adv = inputs["advantages"]
        needs_table = rung.kl == "exact" or rung.objective == "exact"
        table = enumerate_outcomes_hf(model, self._prompts, self._outputs) if needs_table else None
        table_adv = None
        if rung.objective == "exact":  # Eq. 3 at the exact p_old, or at the group's p_hat (the grid's exact-exact_p)
            table_adv = _paper_advantage(self._reward_outcomes, p_used.unsqueeze(1), LADDER_PAPER_EPS)
        return ladder_loss(
            rung,
            beta=self.beta,
            logp=logp,
            old_logp=old,
            mask=mask,
            advantages=adv,
            ref_logp=inputs.get("ref_per_token_logps"),
            table=table,
            table_ref=self._table_ref,
            table_adv=table_adv,
            out_len=task.out_len,
        )


def make_ladder_trainer(
    setup: TRLSetup, rung: Rung, *, seed: int, reward_log: list | None = None, book_loss: bool = False
):
    """TRL's GRPOTrainer for one rung: TRL's own for rung 0, the ladder's subclass (:func:`ladder_loss`) above it
    (and on rung 0 too with ``book_loss``: the same loss by the book's code, a placebo). Every rung is beta = 2 and
    clip range 1e3 on TRL's side; ``use_bias_correction_kl`` is TRL's default (True) unless the rung's k3 is
    unweighted."""
    from trl import GRPOTrainer

    trainer = make_trainer(
        setup,
        TRLRun(rung.key, BETA, CLIP),
        reward_log=reward_log,
        seed=seed,
        use_bias_correction_kl=rung.kl_weight == "ratio",
    )
    cls = type("LadderGRPOTrainer", (_LadderMixin, GRPOTrainer), {})
    trainer.__class__ = cls
    trainer._ladder_init(rung, setup, book_loss)
    return trainer


def theory_parameters(rung: Rung, G: int) -> tuple[float, float]:
    """The (beta, eps) of the recursion a rung is held against: TRL's advantage is Eq. 3's at beta sqrt(G/(G-1))
    (``grpo_nb.trl_adapters.trainer.beta_effective``), the paper's at beta; eps is TRL's 1e-8 either way."""
    if rung.advantage == "trl" and rung.p == "group" and rung.objective == "sampled":
        return beta_effective(BETA, G), TRL_EQUIVALENT_EPS
    return BETA, LADDER_PAPER_EPS


def run_rung(setup: TRLSetup, rung: Rung, seed: int, *, book_loss: bool = False) -> dict:
    """One rung at one seed from pi_ref: per prompt the measured p_n and successes k_n; the inner losses."""
    log: list = []
    trainer = make_ladder_trainer(setup, rung, seed=seed, reward_log=log, book_loss=book_loss)
    m = train_measured(trainer, setup, log)
    return {
        "seed": seed,
        "wall_s": m.wall_s,
        "p_measured": m.p.T.tolist(),  # (P, n+1)
        "group_successes": m.k.T.tolist(),  # (P, n)
        "inner_loss": trainer.inner_losses,  # mu per outer step
    }


def run_ladder(
    cfg: TRLRunConfig, seeds=LADDER_SEEDS, rungs=None, *, progress: bool = True, checkpoint: Path | None = None
) -> dict:
    """SFT to pi_ref once, then every rung (``rungs``: keys, default all) at every seed (a rung that uses no sample
    at the first seed only); the JSON summary. ``checkpoint``: a file rewritten with the runs after each run."""
    from tqdm.auto import tqdm

    by_key = {r.key: r for r in LADDER}
    chosen = list(LADDER) if rungs is None else [by_key[k] for k in rungs]  # run in the order asked
    t0 = time.perf_counter()
    setup = prepare_trl(cfg)
    out_rungs = []
    jobs = [(r, s) for r in chosen for s in (seeds if r.uses_samples else seeds[:1])]
    runs: dict[str, list] = {r.key: [] for r in chosen}
    for rung, seed in tqdm(jobs, desc="ladder", disable=not progress):
        runs[rung.key].append(run_rung(setup, rung, seed))
        if checkpoint is not None:  # each finished run, in case the process stops before the end
            checkpoint.write_text(json.dumps({"p_ref": setup.p_ref.tolist(), "runs": runs}))
    for rung in sorted(chosen, key=list(LADDER).index):
        beta, eps = theory_parameters(rung, cfg.G)
        theory, finite = predictions(setup.p_ref, beta, eps, G=cfg.G, n=cfg.n)
        out_rungs.append(
            asdict(rung)
            | {
                "beta_theory": beta,
                "eps_theory": eps,
                "p_theory": theory.T.tolist(),
                "p_finite_group": finite.T.tolist(),
                "runs": runs[rung.key],
            }
        )
    return run_summary("trl-ladder", cfg, setup, t0=t0, rungs=out_rungs)


def _hardware() -> str:
    from grpo_nb.toylm.device import describe

    return describe(torch.device("cpu"))


def run_summary(
    trainer: str, cfg: TRLRunConfig, setup: TRLSetup, *, t0: float, settings: dict | None = None, **entries: list
) -> dict:
    """The JSON summary of a run over rungs or cells (``"trainer"``: ``trainer``) from ``setup`` made at ``cfg``,
    started at ``time.perf_counter()`` = ``t0``: the configuration, beta, the clip range and ``settings``, then the
    versions, the hardware, the times, p_ref and the prompts, and last ``entries`` (``rungs=`` or ``cells=``)."""
    return {
        "trainer": trainer,
        "config": cfg.name,
        "trl_config": asdict(cfg) | {"runs": None},
        "beta": BETA,
        "clip_epsilon": CLIP,
        **(settings or {}),
        "versions": versions(),
        "hardware": _hardware(),
        "sft_s": setup.sft_s,
        "wall_s": time.perf_counter() - t0,
        "p_ref": setup.p_ref.tolist(),
        "prompts": list(setup.task.prompts_text),
        **entries,
    }


def pool_runs(results: list[dict], part: str, order: list[str], *, what: str) -> dict[str, dict]:
    """The entries of ``part`` (``"rungs"`` or ``"cells"``) of several summaries made from the same pi_ref (parallel
    processes), by key in ``order``, each with the runs of every summary joined. ValueError when ``results`` is empty
    or their configuration, p_ref or versions differ (``what``, "ladder" or "grid", names them in the message)."""
    if not results:
        raise ValueError(f"results=[] is empty; valid: one or more {what} summaries")
    first = results[0]
    for other in results[1:]:
        for key in ("config", "trl_config", "p_ref", "versions"):
            if other[key] != first[key]:
                raise ValueError(f"{key} differs between the {what}s; valid: {what}s from the same configuration")
    by_key: dict[str, dict] = {}
    for res in results:
        for entry in res[part]:
            if entry["key"] in by_key:
                by_key[entry["key"]]["runs"].extend(entry["runs"])
            else:
                by_key[entry["key"]] = entry | {"runs": list(entry["runs"])}
    return {key: by_key[key] for key in sorted(by_key, key=order.index)}


def merge_ladders(results: list[dict]) -> dict:
    """One ladder from several made with different seeds or rungs (parallel processes) from the same pi_ref:
    the runs of each rung, in seed order. ValueError when the configurations or p_ref differ."""
    pooled = pool_runs(results, "rungs", [r.key for r in LADDER], what="ladder")
    merged = {k: v for k, v in results[0].items() if k != "rungs"} | {"rungs": []}
    for rung in pooled.values():
        rung["runs"].sort(key=lambda run: run["seed"])
        if rung["objective"] != "sampled":  # the same run at every seed: keep one, the first seed's
            rung["runs"] = rung["runs"][:1]
        merged["rungs"].append(rung)
    merged["wall_s"] = sum(r["wall_s"] for r in results)
    merged["sft_s"] = statistics.mean(r["sft_s"] for r in results)
    return merged


@dataclass(frozen=True)
class LossAgreement:
    """:func:`loss_agreement`'s result: |TRL's loss - :func:`ladder_loss`| on one batch, off policy (after ``step``
    optimizer steps on it), and the largest |TRL's advantage - the one rebuilt from the ladder's own rewards|."""

    trl_loss: float
    ladder_loss: float
    loss_gap: float
    advantage_gap: float


def loss_agreement(setup: TRLSetup, rung: Rung = LADDER[0], *, seed: int = 0, step: int = 1) -> LossAgreement:
    """Train ``setup`` (rung 0, TRL's own loss) for ``step`` + 1 optimizer steps; at step ``step`` compute
    :func:`ladder_loss` for ``rung`` on TRL's batch next to TRL's ``_compute_loss``, and rebuild TRL's advantages
    (r - mean)/(std_Bessel + 1e-4) from the rewards the ladder computes itself. With ``rung`` = rung 0 both gaps are
    at float precision (the ladder's rung 0 is TRL's loss); another rung, or a wrong reward rule, shows a gap."""
    from grpo_nb.advantage import DEFAULT_EPS

    trainer = make_ladder_trainer(setup, LADDER[0], seed=seed)
    trainer.args.max_steps = step + 1
    found: dict[str, float] = {}
    base = type(trainer)

    class _Probe(base):
        def _compute_loss(self, model, inputs):
            loss = super()._compute_loss(model, inputs)
            if self.state.global_step == step and not found:
                task = self.setup.task
                self.rung, self._outer = rung, step // self.args.num_iterations
                self._new_outer_step(model)
                with torch.no_grad():
                    mine = self._rung_loss(model, inputs)
                self.rung = LADDER[0]
                ids = inputs["prompt_ids"]
                q = torch.as_tensor([self._index[tuple(int(t) for t in row)] for row in ids], device=ids.device)
                r = _sequence_rewards(task, q, inputs["completion_ids"])
                adv = torch.empty_like(r)
                for i in q.unique():
                    sel = q == i
                    adv[sel] = (r[sel] - r[sel].mean()) / (r[sel].std() + DEFAULT_EPS["trl"])
                found.update(
                    trl=float(loss.detach()),
                    mine=float(mine),
                    adv=float((adv - inputs["advantages"]).abs().max()),
                )
            return loss

    trainer.__class__ = _Probe
    trainer.train()
    return LossAgreement(found["trl"], found["mine"], abs(found["trl"] - found["mine"]), found["adv"])
