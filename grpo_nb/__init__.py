"""grpo_nb: the helper package behind *GRPO, executable*.

Every chapter of the book imports its logic from here; the chapters stay narrative.
Modules follow the paper (Mroueh 2025, arXiv:2503.06639):

- :mod:`grpo_nb.validation` -- argument checks shared by every public function.
- :mod:`grpo_nb.constants` -- the values the book quotes in several places (the paper's eps, TRL's defaults), named
  once.
- :mod:`grpo_nb.weights`, :mod:`grpo_nb.advantage`, :mod:`grpo_nb.clipping` -- §2: the weights of
  Eq. 4, the group advantages (paper, TRL, population std, Dr. GRPO) and the clipped term.
- :mod:`grpo_nb.tabular` -- policies over a finite outcome set: Thm 1's step, the softmax policy's expected reward
  and gradient, and Algorithm 1.
- :mod:`grpo_nb.dynamics` -- the success-probability map h (Thm 2), its fixed points, orbits,
  regimes, bifurcations.
- :mod:`grpo_nb.variants` -- the variants of the paper's latest abstract, inside the paper's model: mean-only vs
  mean + variance normalisation, KL to pi_ref, to pi_{n-1} (mirror) or both; their policies, recursions and
  dynamics. (The practitioners' methods, DAPO, GSPO and the rest, are :mod:`grpo_nb.family`.)
- :mod:`grpo_nb.ustat` -- the U-statistic math (the public name the chapter "Group size" reads): GRPO's gradient as a
  U-statistic on a softmax bandit, and the success recursion with a finite group of G samples.
- :mod:`grpo_nb.symbolic` -- sympy derivations, each returned with a check that can fail.
- :mod:`grpo_nb.toylm` -- a tiny causal LM trained with the book's own GRPO trainer (§5); needs torch, imported
  lazily.
- :mod:`grpo_nb.trl_adapters` -- the same toy task trained by TRL's GRPOTrainer, and the ablation ladder between the
  two trainers; stands on :mod:`grpo_nb.toylm`, needs the ``trl`` extra.
- :mod:`grpo_nb.family` -- the GRPO family (GRPO, Dr. GRPO, DAPO, BNPO, GSPO, CISPO, RLOO, REINFORCE++), one record
  per method, and its advantages and losses.
- :mod:`grpo_nb.kl` -- the KL to pi_ref and Schulman's estimators k1, k2, k3.
- :mod:`grpo_nb.plots`, :mod:`grpo_nb.widgets`, :mod:`grpo_nb.report` -- figures, sliders, tables.
- :mod:`grpo_nb.chapters` -- each chapter's analyses, one module per chapter or one package per long chapter with a
  module per section (above the math, plots and widgets).
- ``grpo_nb/browser/grpo_math.js``, ``grpo_figures.js`` -- the hosted book's kernel-free figures: their math (no DOM;
  checked against this package under node and in Chromium by the tests) and their drawing.
"""

__version__ = "0.1.0"
