"""Named values that the book quotes in more than one place: one home each.

Every default argument, chapter and browser twin that uses one of these values reads it from here (the JS twin's
defaults are tested against this module).

* :data:`PAPER_EPS`: the smoothing ε inside the root of the paper's group standard deviation,
  ``(r - mean) / sqrt(var + ε)`` (Mroueh 2025, Eq. 4 and the figures of Sec. 3-4, which all use ε = 1e-5).
"""

from __future__ import annotations

__all__ = ["PAPER_EPS"]

PAPER_EPS: float = 1e-5
