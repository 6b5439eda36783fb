"""Each chapter's analyses, one module per chapter, named after it (``book/<chapter>.md``); a chapter in two parts
may have a small package instead, one module per part (:mod:`grpo_nb.chapters.group_size`).

A chapter's analysis is a function that runs a computation the chapter shows and returns its table and the values the
chapter's asserts need; its docstring names the section that uses it. These modules sit above the math
(:mod:`grpo_nb.dynamics`, :mod:`grpo_nb.tabular`, :mod:`grpo_nb.variants`, :mod:`grpo_nb.ustat`, ...), which holds
the formulas and the algorithms only; nothing outside this package imports from it. A chapter imports its own
module as ``from grpo_nb.chapters import <chapter> as checks``. An analysis returns its table and values in one frozen
dataclass that the chapter reads by name, and takes no argument that only a test uses: a test hands it a wrong
formula by replacing the module-level name it reads.
"""
