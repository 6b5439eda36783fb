"""Test-wide settings: hypothesis runs derandomised, so CI and a local run see the same examples.

`HYPOTHESIS_PROFILE=default pytest tests` explores fresh random examples instead (a bug hunt).
"""

import os

from hypothesis import settings

settings.register_profile("book", derandomize=True, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "book"))
