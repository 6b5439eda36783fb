"""Policies over a finite outcome set with a binary reward (paper §2.4, Thm 1)."""
