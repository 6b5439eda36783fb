"""The toy-LM task of :mod:`grpo_nb.toylm` trained by TRL's ``GRPOTrainer`` (needs the ``trl`` extra).

Modules, each imported on its own (this package imports none of them, so that ``grpo_nb`` imports without TRL):

- ``model``   the policy as a ``transformers`` model: a tiny GPT-2 of the book's sizes and a tokenizer built in code
- ``trainer`` TRL's GRPOTrainer on the task, measured against the success recursion (Mroueh 2025, Thm 2) at TRL's
              effective beta; the TRL configurations and the JSON summary of ``python -m grpo_nb.trl_adapters``
- ``ladder``  the ablation ladder: TRL's trainer moved toward the theory one knob per rung (``--ladder``)
- ``knob_grid`` the knob grid: one knob per cell against TRL's trainer and against exact expectations (``--grid``)
- ``__main__`` the command line, ``python -m grpo_nb.trl_adapters``

They stand on :mod:`grpo_nb.toylm` (the task, the book's SFT, the configurations), which never imports them. The TRL
chapter's checks of TRL's knobs and its tables of the cached runs are :mod:`grpo_nb.chapters.trl_grpo`.
"""
