"""Unit and property tests of grpo_nb, the fast tier (marker ``unit``): ``pytest -m unit``."""
