"""The hosted book's kernel-free figures: ``grpo_math.js`` (their numbers, no DOM) and ``grpo_figures.js`` (their
drawing), served by the site from this folder, and :mod:`grpo_nb.browser.kinds`, the one list of their kinds."""
