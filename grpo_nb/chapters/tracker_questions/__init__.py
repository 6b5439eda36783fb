"""The analyses of the chapter "Questions from the trackers" (``book/tracker_questions.md``): the questions GRPO users
ask in TRL's and verl's issue trackers, each reproduced on the toy task with TRL's own code and explained by a check
that measures its cause. One module per question (or pair of questions).

A check reads the book's side of its comparison (a module-level name of its own module) when it runs: to state an
explanation wrongly (as the tests do), replace the name in that module.
"""
