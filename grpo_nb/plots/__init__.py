"""Figure functions: each takes data or parameters and returns a matplotlib Figure (no theory here)."""
