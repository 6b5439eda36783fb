"""Each chapter's analyses, one module per chapter, named after it (``book/<chapter>.md``); a chapter whose analyses
outgrow one module (about 500 lines) has a package instead, one module per section or part of the chapter, named
after it (:mod:`grpo_nb.chapters.amplification`, :mod:`grpo_nb.chapters.group_size`,
:mod:`grpo_nb.chapters.hard_prompts`, :mod:`grpo_nb.chapters.trl_grpo`, :mod:`grpo_nb.chapters.variants`); its
``__init__`` maps the sections to their modules and re-exports what the chapter reads.

A chapter's analysis is a function that runs a computation the chapter shows and returns its table and the values the
chapter's asserts need; its docstring names the section that uses it. These modules sit above the math
(:mod:`grpo_nb.dynamics`, :mod:`grpo_nb.tabular`, :mod:`grpo_nb.variants`, :mod:`grpo_nb.ustat`, ...), which holds
the formulas and the algorithms only; nothing outside this package imports from it. A chapter imports its own
module as ``from grpo_nb.chapters import <chapter> as checks``. An analysis returns its table and values in one frozen
dataclass that the chapter reads by name, and takes no argument that only a test uses: a test hands it a wrong
formula by replacing the module-level name it reads (in a package, in the section module that reads it).
"""
